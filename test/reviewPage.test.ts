import type { Browser } from 'playwright-core';
import { launchChromium } from './helpers/browser';
import { createReviewLinkSigner } from '@svc/signing';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { startSmtpSink } from './helpers/smtpSink';
import { waitFor } from './helpers/fixtures';
import { call } from './helpers/http';

let stack: TestStack;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let browser: Browser;
let key: string;
let workspaceId: string;

beforeAll(async () => {
  smtp = await startSmtpSink();
  stack = await startStack({ SMTP_URL: smtp.url });
  ({ key, workspaceId } = await stack.tenant());
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await smtp?.close();
});

const HOSTILE = '<img src=x onerror="document.title=\'pwned\'">';

async function pausedRun(slug: string) {
  const wf = await stack.apply(workspaceId, {
    name: 'Payout',
    slug,
    steps: [
      {
        key: 'check',
        type: 'review',
        title: 'Approve the payout',
        instructions: `Check the **amount** before paying.\n\n${HOSTILE}\n\n[bad link](javascript:alert(1))`,
        assignees: ['ana@example.test', 'ben@example.test'],
        data: 'input',
      },
      { key: 'pay', type: 'transform', expression: "'paid'" },
    ],
  });
  const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, {
    key,
    body: { input: { amount: 125, note: '<script>document.title="pwned"</script>' }, wait: true },
  });
  expect(r.body.status).toBe('waiting_for_review');
  return r.body;
}

/** The personal link mailed to `to` for `reviewId` (the text part is quoted-printable). */
async function mailedLink(reviewId: string, to: string): Promise<string> {
  const mail = await waitFor(
    async () => smtp.messages.find((m) => m.to.includes(to) && m.raw.includes(reviewId.slice(0, 12))),
    (m) => m !== undefined,
  );
  const decoded = mail!.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
  expect(mail!.subject).toBe('Review requested: Approve the payout');
  const url = new RegExp(`${stack.url}/reviews/${reviewId}\\?token=[A-Za-z0-9%._-]+`).exec(decoded);
  expect(url).not.toBeNull();
  return url![0];
}

describe('review page', () => {
  it('mails each assignee a personal link; the page works without JavaScript and the decision resumes the run', async () => {
    const run = await pausedRun('payout');
    const linkAna = await mailedLink(run.review.id, 'ana@example.test');
    const linkBen = await mailedLink(run.review.id, 'ben@example.test');
    expect(linkAna).not.toBe(linkBen);

    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const response = await page.goto(linkAna);
    expect(response!.status()).toBe(200);
    expect(await page.locator('h1').innerText()).toBe('Approve the payout');
    expect(await page.locator('.instructions strong').innerText()).toBe('amount');
    // Hostile instructions and data are shown as text, never as markup or script.
    expect(await page.locator('.instructions').innerText()).toContain(HOSTILE);
    expect(await page.locator('.instructions img').count()).toBe(0);
    expect(await page.locator('.instructions a[href^="javascript"]').count()).toBe(0);
    expect(await page.locator('pre').innerText()).toContain('<script>document.title=\\"pwned\\"</script>');
    expect(await page.locator('main script').count()).toBe(0);
    expect(response!.headers()['content-security-policy']).toContain("default-src 'none'");

    await page.fill('textarea[name=comment]', 'Looks right');
    await Promise.all([page.waitForNavigation(), page.click('button[value=approve]')]);
    expect(await page.locator('h1').innerText()).toBe('Approved');
    expect(await page.title()).not.toBe('pwned');

    const done = await waitFor(
      () => stack.api('GET', `/api/v1/runs/${run.id}`, { key }),
      (r) => r.body.status === 'succeeded',
    );
    expect(done.body.review).toMatchObject({ status: 'approved', decided_by: 'ana@example.test', comment: 'Looks right' });

    // The other assignee's link now shows the outcome instead of a form.
    await page.goto(linkBen);
    expect(await page.locator('h1').innerText()).toBe('Already decided');
    expect(await page.locator('form').count()).toBe(0);
    await context.close();
  });

  it('refuses a tampered, a foreign and an expired link with an error page and changes nothing', async () => {
    const run = await pausedRun('payout-tamper');
    const link = await mailedLink(run.review.id, 'ana@example.test');
    const signer = createReviewLinkSigner(stack.config.SVC_ENCRYPTION_KEY!);
    const expired = signer.sign({ reviewId: run.review.id, email: 'ana@example.test', expiresAt: Date.now() - 1000 });
    const forged = createReviewLinkSigner(Buffer.alloc(32, 7)).sign({
      reviewId: run.review.id,
      email: 'eve@example.test',
      expiresAt: Date.now() + 60_000,
    });
    const token = new URL(link).searchParams.get('token')!;
    const tampered = token.slice(0, 10) + (token[10] === 'A' ? 'B' : 'A') + token.slice(11);

    const page = await browser.newPage({ javaScriptEnabled: false });
    for (const bad of [tampered, expired, forged]) {
      const res = await page.goto(`${stack.url}/reviews/${run.review.id}?token=${encodeURIComponent(bad)}`);
      expect(res!.status()).toBe(403);
      expect(await page.locator('h1').innerText()).toBe('Link not valid');
    }
    // A valid link used for another review id is refused too.
    const res = await page.goto(`${stack.url}/reviews/rev_someoneelse?token=${encodeURIComponent(token)}`);
    expect(res!.status()).toBe(403);
    await page.close();
    expect((await stack.api('GET', `/api/v1/runs/${run.id}`, { key })).body.review.status).toBe('pending');
  });

  it('refuses a forged cross-site form post', async () => {
    const run = await pausedRun('payout-csrf');
    const link = await mailedLink(run.review.id, 'ana@example.test');
    const token = new URL(link).searchParams.get('token')!;
    const formToken = createReviewLinkSigner(stack.config.SVC_ENCRYPTION_KEY!).formToken(token);
    const post = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      call(`${stack.url}/reviews/${run.review.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(fields).toString(),
      });
    expect((await post({ token, decision: 'approve' })).status).toBe(403); // no form token
    expect((await post({ token, form_token: formToken, decision: 'approve' }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ token, form_token: formToken, decision: 'approve' }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await stack.api('GET', `/api/v1/runs/${run.id}`, { key })).body.review.status).toBe('pending');
    // The genuine form (same origin) works.
    const ok = await post({ token, form_token: formToken, decision: 'reject' }, { origin: new URL(stack.url).origin });
    expect(ok.status).toBe(200);
    await waitFor(
      () => stack.api('GET', `/api/v1/runs/${run.id}`, { key }),
      (r) => r.body.status === 'failed',
    );
  });
});
