import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const csv = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** 32 bytes, given as 64 hex characters or base64. */
const key32 = z.string().transform((v, ctx) => {
  const buf = /^[0-9a-fA-F]{64}$/.test(v) ? Buffer.from(v, 'hex') : Buffer.from(v, 'base64');
  if (buf.length !== 32) {
    ctx.addIssue({ code: 'custom', message: 'must be 32 bytes (64 hex characters or base64)' });
    return z.NEVER;
  }
  return buf;
});

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Public address of the gateway, used in trigger URLs, Location headers and links. */
  BASE_URL: z.url().optional(),
  DATA_DIR: z.string().default('.data'),
  DATABASE_URL: z.string().min(1).optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('svc-runs'),
  TEMPORAL_TLS: bool.default(false),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /** AES-256-GCM key for secrets at rest (workspace secrets, trigger secrets). */
  SVC_ENCRYPTION_KEY: key32.optional(),
  /** How long `wait: true` holds a start request. */
  RUN_WAIT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(25_000),
  /** Operator allowlist for outbound calls to otherwise refused ranges (tests, self-hosting). */
  OUTBOUND_ALLOW_CIDRS: csv.default([]),
  /** Operator switch allowing plain http:// for outbound webhook endpoints. */
  OUTBOUND_ALLOW_HTTP: bool.default(false),
  HTTP_STEP_DEFAULT_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
});

export type Config = z.infer<typeof configSchema> & { BASE_URL: string };

/** Parses the environment once; throws a readable error naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  return { ...c, BASE_URL: (c.BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/$/, '') };
}
