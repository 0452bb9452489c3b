import pino from 'pino';
import type { Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs. Credential-bearing fields are censored wherever they appear, so
 * a careless `log.info({ headers })` cannot leak a key or a secret.
 */
export function createLogger(opts: { name: string; level?: string }): Logger {
  return pino({
    name: opts.name,
    level: opts.level ?? process.env.LOG_LEVEL ?? 'info',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        '*.authorization',
        '*.Authorization',
        '*.cookie',
        '*["set-cookie"]',
        '*["x-api-key"]',
        '*["x-svc-secret"]',
        '*["proxy-authorization"]',
        '*.headers.authorization',
        '*.headers.cookie',
        '*.headers["x-svc-secret"]',
        '*.secret',
        '*.password',
      ],
      censor: '[REDACTED]',
    },
  });
}
