import pino from 'pino';
import type { DestinationStream, Logger } from 'pino';

export type { Logger };

export type LogFormat = 'json' | 'pretty';

export interface LoggerOptions {
  name: string;
  level?: string;
  /** Default: LOG_FORMAT, else `pretty` when stdout is a terminal and `json` otherwise. */
  format?: LogFormat;
  /** Fields added to every line (e.g. the active trace's ids). */
  mixin?: () => object;
  /** Default: stdout. */
  destination?: DestinationStream;
}

/** The format a process logs in when none is given: LOG_FORMAT, else pretty for a person at a terminal. */
export function defaultLogFormat(env: NodeJS.ProcessEnv = process.env, isTTY = Boolean(process.stdout.isTTY)): LogFormat {
  if (env.LOG_FORMAT === 'json' || env.LOG_FORMAT === 'pretty') return env.LOG_FORMAT;
  return isTTY ? 'pretty' : 'json';
}

/**
 * Structured logs: JSON lines for collectors, or pino-pretty's lines for a person. Credential-
 * bearing fields are censored wherever they appear, so a careless `log.info({ headers })` cannot
 * leak a key or a secret.
 */
export function createLogger(opts: LoggerOptions): Logger {
  const format = opts.format ?? defaultLogFormat();
  const options: pino.LoggerOptions = {
    name: opts.name,
    level: opts.level ?? process.env.LOG_LEVEL ?? 'info',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    ...(opts.mixin ? { mixin: opts.mixin } : {}),
    redact: {
      paths: [
        'authorization',
        'secret',
        'password',
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
  };
  if (format === 'json') return opts.destination ? pino(options, opts.destination) : pino(options);
  // Loaded only for a person's terminal; synchronous, so the last lines before an exit are written.
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pino(options, pretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', destination: opts.destination ?? 1 }));
}
