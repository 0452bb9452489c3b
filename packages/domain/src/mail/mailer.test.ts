import { createMailer } from './mailer';

describe('the mailer without SMTP (the outbox)', () => {
  it('never writes a mail body, with its one-time links, to the log', async () => {
    const lines: unknown[] = [];
    const logger = { info: (...args: unknown[]) => lines.push(args), warn: (...args: unknown[]) => lines.push(args) };
    const mailer = createMailer({ from: 'svc <no-reply@test>', logger });
    const link = 'https://svc.example/reviews/rev_1?token=secret-token-value';
    const sent = await mailer.send({
      to: ['ops@example.test'],
      subject: 'Review requested',
      text: `Decide here: ${link}`,
      html: `<a href="${link}">Decide</a>`,
    });
    expect(sent.via).toBe('outbox');
    expect(lines).toHaveLength(1);
    expect(JSON.stringify(lines)).toContain('Review requested');
    expect(JSON.stringify(lines)).not.toContain('secret-token-value');
  });
});
