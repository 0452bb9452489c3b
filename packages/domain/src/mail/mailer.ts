import type { Transporter } from 'nodemailer';
import type { Logger } from '@svc/config';
import type { Db } from '@svc/db';
import { AppError } from '../errors';
import { iso } from '../shared/time';

/** One notification mail (endpoint disabled, review requested…). */
export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  html?: string;
}

export interface SendResult {
  /** `smtp`: handed to the SMTP server; `outbox`: no SMTP configured, kept in the outbox (its arrival logged, never its body). */
  via: 'smtp' | 'outbox';
  /** The SMTP Message-ID, or the outbox row id. */
  id: string;
}

export interface Mailer {
  /** Sends one mail; throws when the SMTP server refuses it or cannot be reached (callers retry). */
  send(message: MailMessage): Promise<SendResult>;
  close(): void;
}

export interface MailerOptions {
  /** `smtp://[user:pass@]host[:port]` (STARTTLS when offered) or `smtps://…` (implicit TLS). Unset: the outbox. */
  smtpUrl?: string;
  /** The From header, e.g. `svc <no-reply@example.com>`. */
  from: string;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Where outbox mail is kept so that `svc mail list` can show it; without it (tests), outbox mail is dropped. */
  db?: Db;
}

const EMAIL = /^[^\s@<>]+@[^\s@<>]+$/;

function check(message: MailMessage): string[] {
  const to = [...new Set(message.to.map((t) => t.trim()).filter(Boolean))];
  if (to.length === 0) throw new AppError('validation_failed', 'A mail needs at least one recipient');
  const bad = to.filter((t) => !EMAIL.test(t));
  if (bad.length) throw new AppError('validation_failed', `Not an email address: ${bad.join(', ')}`);
  // Header injection: a subject is one line.
  if (/[\r\n]/.test(message.subject)) throw new AppError('validation_failed', 'A mail subject is one line');
  return to;
}

/**
 * The one mailer of the service (webhook endpoint notices, review notifications): nodemailer
 * over SMTP when `smtpUrl` is set; otherwise a logged outbox (table `outbox_emails`, shown by
 * `svc mail list`) so that a local stack without a mail server loses nothing.
 */
export function createMailer(opts: MailerOptions): Mailer {
  const { smtpUrl } = opts;
  // nodemailer is loaded with the first mail: a process that sends none (without SMTP_URL, or
  // a gateway whose console is never signed into) keeps its ~10 MB.
  let transport: Promise<Transporter> | undefined;
  const smtp = (url: string) =>
    (transport ??= import('nodemailer').then(({ createTransport }) =>
      createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }),
    ));

  return {
    async send(message) {
      const to = check(message);
      if (smtpUrl) {
        const info = await (
          await smtp(smtpUrl)
        ).sendMail({ from: opts.from, to, subject: message.subject, text: message.text, html: message.html });
        opts.logger.info({ to, subject: message.subject, messageId: info.messageId }, 'mail sent');
        return { via: 'smtp', id: String(info.messageId) };
      }
      let id = 'log';
      if (opts.db) {
        const row = await opts.db.outboxEmail.create({
          data: { recipients: to, subject: message.subject, textBody: message.text, htmlBody: message.html ?? null },
        });
        id = row.id.toString();
      }
      // Never the body: it carries one-time review and sign-in links (`svc mail list` shows it).
      opts.logger.info({ to, subject: message.subject, outboxId: id }, 'mail kept in the outbox (no SMTP_URL configured)');
      return { via: 'outbox', id };
    },
    close() {
      void transport?.then((t) => t.close());
    },
  };
}

export interface OutboxEmailView {
  id: string;
  to: string[];
  subject: string;
  text: string;
  html: string | null;
  created_at: string | null;
}

/** The mail kept without SMTP, newest first. */
export async function listOutboxEmails(db: Db, args: { limit: number; to?: string }): Promise<OutboxEmailView[]> {
  const rows = await db.outboxEmail.findMany({
    where: args.to ? { recipients: { has: args.to } } : {},
    orderBy: { id: 'desc' },
    take: args.limit,
  });
  return rows.map((r) => ({
    id: r.id.toString(),
    to: r.recipients,
    subject: r.subject,
    text: r.textBody,
    html: r.htmlBody,
    created_at: iso(r.createdAt),
  }));
}
