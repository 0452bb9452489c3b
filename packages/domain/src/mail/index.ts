export { createMailer, listOutboxEmails } from './mailer';
export type { Mailer, MailerOptions, MailMessage, OutboxEmailView, SendResult } from './mailer';
