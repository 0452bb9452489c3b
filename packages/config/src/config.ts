import { z } from 'zod';
import { APP_PROCESSES } from './appProcesses';
import { durationList } from './durations';

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

/** Flags for `node` itself, space-separated (`--max-semi-space-size=4 --optimize-for-size`). */
const nodeFlags = z
  .string()
  .transform((v) => v.split(/\s+/).filter(Boolean))
  .pipe(z.array(z.string().regex(/^--[a-z0-9-]+(=\S+)?$/, 'a node flag such as --optimize-for-size')));

/** A listening address, `host:port` (IPv6 in brackets). */
const hostPort = z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:\[\]]+):\d{1,5}$/, 'host:port, e.g. 127.0.0.1:9464');

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `json` (one object a line) or `pretty` (for people); unset: pretty on a terminal, else json (createLogger reads it). */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /**
   * How long a gateway told to stop (SIGTERM) keeps serving with `/readyz` answering 503, so load
   * balancers stop sending it new requests, before it closes its listener; held requests then
   * finish before it exits.
   */
  GATEWAY_DRAIN_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  /** Public address of the gateway, used in trigger URLs, Location headers and links. */
  BASE_URL: z.url().optional(),
  DATA_DIR: z.string().default('.data'),
  DATABASE_URL: z.string().min(1).optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /** The longest one database statement may run (PostgreSQL statement_timeout on every connection); past it: 503. */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('svc-runs'),
  /** Webhook deliveries' own task queue (default `<TEMPORAL_TASK_QUEUE>-deliveries`): a run backlog never delays them. */
  TEMPORAL_DELIVERY_TASK_QUEUE: z.string().min(1).optional(),
  /**
   * The task queues this worker process serves: `runs` (run workflows, the reconciler, their
   * activities), `deliveries` (webhook deliveries and the delivery outbox's relay), or both (the
   * default). Each queue has its own slots either way; separate processes let each queue be
   * scaled, placed and restarted on its own (docs/production.md).
   */
  WORKER_TASK_QUEUES: csv
    .pipe(z.array(z.enum(['runs', 'deliveries'])).min(1, 'name runs, deliveries or both'))
    .default(['runs', 'deliveries']),
  /** How often the reconciler Schedule settles runs terminated from Temporal and reclaims their slots. */
  RECONCILE_INTERVAL_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(15_000),
  /** TLS to Temporal with the system's roots (Temporal Cloud with an API key). Any TEMPORAL_TLS_*_PATH turns TLS on too. */
  TEMPORAL_TLS: bool.default(false),
  /** Mutual TLS: the client certificate (PEM) every process presents to Temporal, and its key (set both). */
  TEMPORAL_TLS_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY_PATH: z.string().min(1).optional(),
  /** The CA (PEM) that signed Temporal's server certificate, when not a public one. */
  TEMPORAL_TLS_CA_PATH: z.string().min(1).optional(),
  /** The name Temporal's server certificate is checked against, when it is not TEMPORAL_ADDRESS's host. */
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /** AES-256-GCM key for secrets at rest (workspace, trigger and webhook secrets) and review links. */
  SVC_ENCRYPTION_KEY: key32.optional(),
  /**
   * Earlier encryption keys (comma-separated), still accepted for opening secrets and review
   * links while a rotation runs: set the new key, move the old one here, run
   * `svc secrets reencrypt`, then drop it. Nothing is ever sealed with these.
   */
  SVC_ENCRYPTION_KEY_PREVIOUS: csv.pipe(z.array(key32)).default([]),
  /** How long `wait: true` holds a start request. */
  RUN_WAIT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(25_000),
  /** Operator allowlist for outbound calls to otherwise refused ranges (tests, self-hosting). */
  OUTBOUND_ALLOW_CIDRS: csv.default([]),
  /**
   * Reverse proxies in front of the gateway (comma-separated IPv4/IPv6 CIDRs or addresses,
   * default none). A trigger's `ip_allowlist` is matched on the socket peer address; only
   * when that peer is inside one of these is `X-Forwarded-For` read (right to left, past
   * further trusted proxies) to find the client. Anything listed can claim any client address,
   * so list only your own proxies, which must append the real peer to X-Forwarded-For.
   */
  TRUSTED_PROXY_CIDRS: csv.default([]),
  /** Operator switch allowing plain http:// for outbound webhook endpoints. */
  OUTBOUND_ALLOW_HTTP: bool.default(false),
  /**
   * Rate limit on /api/v1 requests not authenticated by a valid key (the OpenAPI document,
   * requests answered 401 or browser-refused), per client address per minute. An address over
   * it gets 429 on every /api/v1 request, before any key lookup, until the minute is over.
   * 0 turns it off (e.g. when every client reaches the gateway through one shared address).
   */
  RATE_LIMIT_UNAUTHENTICATED_PER_MIN: z.coerce.number().int().min(0).max(1_000_000).default(300),
  /**
   * The most points of a busy API key's counts one key check takes at once (the gateway's lease,
   * never more than 1/8 of what is left of a figure). Requests a lease covers are checked with a
   * read-only statement: the counters' writes are most of the key check's database cost. No
   * figure is ever exceeded; points an instance leased but did not use count until the minute
   * ends. 1 counts every request on its own.
   */
  RATE_LIMIT_LEASE_MAX: z.coerce.number().int().min(1).max(1_000).default(64),
  // --- Gateway edge: /hooks limits and /metrics exposure ---
  /**
   * Inbound trigger requests (`/hooks/…`) per source address per minute, across all triggers,
   * counted before anything else (no lookup, no body read). Each trigger is also limited to its
   * workspace plan's per-key figure per minute. 0 turns the per-address limit off.
   */
  HOOKS_RATE_LIMIT_PER_ADDRESS_PER_MIN: z.coerce.number().int().min(0).max(1_000_000).default(600),
  /**
   * Bearer token `/metrics` requires (`Authorization: Bearer <token>`, compared in constant time).
   * Unset: `/metrics` answers anyone who reaches it, so keep it off the public port (METRICS_ADDRESS).
   */
  METRICS_TOKEN: z.string().min(16).optional(),
  /**
   * A separate `host:port` for `/metrics` (e.g. `127.0.0.1:9465` or a private interface; the worker's default is 9464). When set,
   * the public port no longer serves `/metrics` at all.
   */
  METRICS_ADDRESS: hostPort.optional(),
  // --- Operators ---
  /**
   * `host:port` where each worker serves Prometheus metrics at `/metrics`: the Temporal SDK's own
   * (task slots, schedule-to-start latency, sticky cache) and svc's `svc_*` counters. Unauthenticated:
   * keep it on a private interface. Every worker process needs its own port on a shared host.
   */
  WORKER_METRICS_ADDRESS: hostPort.default('127.0.0.1:9464'),
  /** The Temporal UI's base URL, for the links `svc runs show` prints (default: the one `npm start` runs). */
  TEMPORAL_UI_URL: z.url().optional(),
  // --- The web console ---
  /** Live console pages (server-sent events) one workspace may hold open on one gateway process. */
  CONSOLE_LIVE_MAX_PER_WORKSPACE: z.coerce.number().int().min(1).default(20),
  /** Live console pages one gateway process holds open in all; beyond either figure a page falls back to reloads. */
  CONSOLE_LIVE_MAX_PER_PROCESS: z.coerce.number().int().min(1).default(500),
  /** How often a live page's stream carries a heartbeat comment (ms), so proxies keep it open. */
  CONSOLE_LIVE_HEARTBEAT_MS: z.coerce.number().int().min(100).default(25_000),
  // --- Outbound webhooks and mail ---
  /**
   * Extra trusted CA certificate(s) for outbound HTTPS (PEM file), added to Node's default
   * roots: a private CA when self-hosting, or the self-signed receiver of the tests.
   */
  OUTBOUND_CA_FILE: z.string().min(1).optional(),
  /**
   * Delays between delivery attempts of one webhook delivery (comma-separated durations),
   * each jittered by ±10 %. The default spans about 24 h (attempt 1 at once, then after 5 s,
   * 5 min, 30 min, 2 h, 5 h, 10 h and the remainder to 24 h). Tests compress it, e.g. `200ms,200ms,400ms`.
   */
  WEBHOOK_RETRY_SCHEDULE: durationList.prefault('5s,5m,30m,2h,5h,10h,6h25m'),
  /** Whole-exchange time limit of one delivery attempt (connect, TLS, headers, 4 KB of body). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /** Upper bound on a receiver's Retry-After (429/503): never wait longer than this for one retry. */
  WEBHOOK_RETRY_AFTER_MAX_MS: z.coerce.number().int().min(0).max(86_400_000).default(21_600_000),
  /**
   * Delivery attempts one workspace may have in flight in one worker process; as many more wait up
   * to 2 s, the rest come back later (2 s, doubling to 30 s) without counting as an attempt.
   */
  WEBHOOK_MAX_IN_FLIGHT_PER_WORKSPACE: z.coerce.number().int().min(1).max(1_000).default(10),
  /**
   * How long the previous secret stays valid after a rotation (24 h): a webhook endpoint's keeps
   * signing, a trigger's pair is still accepted at /hooks (`svc triggers rotate`, §10).
   */
  WEBHOOK_SECRET_OVERLAP_MS: z.coerce.number().int().min(0).max(2_592_000_000).default(86_400_000),
  /**
   * How often each worker looks for deliveries whose Temporal workflow is not started yet
   * (the delivery outbox: events raised by the CLI, manual retries, and any start that was
   * interrupted). Cheap: one indexed query.
   */
  WEBHOOK_DISPATCH_INTERVAL_MS: z.coerce.number().int().min(50).max(300_000).default(1_000),
  /** SMTP server for notification mail, e.g. `smtp://user:pass@mail.example.com:587` or `smtps://…:465`. Unset: mail goes to the outbox (`svc mail list`). */
  SMTP_URL: z.string().min(1).optional(),
  /** Sender of notification mail. */
  MAIL_FROM: z.string().min(3).default('svc <no-reply@localhost>'),
  // --- Memory per process (`npm run bench` reads each process's peak, docs/performance.md) ---
  /**
   * Sandbox threads the gateway may start (on first use) to validate run input. No workspace runs
   * on every thread at once, so with two a second starts only when two workspaces validate at once.
   */
  GATEWAY_SANDBOX_THREADS: z.coerce.number().int().min(1).max(16).default(2),
  /** Expression-sandbox threads each worker may start: transforms, conditions and templates of every step. */
  WORKER_SANDBOX_THREADS: z.coerce.number().int().min(1).max(16).default(2),
  /**
   * How long a worker told to stop (SIGTERM) lets the activities in hand finish (an http step's
   * request, a delivery) before it cancels them; a cancelled one is tried again by another worker.
   */
  WORKER_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(20_000),
  /**
   * Workflows each worker keeps in memory between their tasks (Temporal's sticky cache, per task
   * queue). The SDK's default scales with the heap limit (~2,300 on a 4 GB heap) and lets a
   * backlog of waiting runs fill the workflow thread; an evicted run is replayed from its short
   * history on its next task.
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(100_000).default(250),
  /** Node/V8 flags each worker is started with (APP_PROCESSES, appLaunch); empty: V8's defaults. */
  WORKER_NODE_FLAGS: nodeFlags.default([...APP_PROCESSES.worker.nodeFlags]),
  /** The same for the gateway. */
  GATEWAY_NODE_FLAGS: nodeFlags.default([...APP_PROCESSES.gateway.nodeFlags]),
});

/** Mutual TLS needs the certificate and its key together. */
const withTlsPair = configSchema.superRefine((c, ctx) => {
  if (Boolean(c.TEMPORAL_TLS_CERT_PATH) !== Boolean(c.TEMPORAL_TLS_KEY_PATH)) {
    const missing = c.TEMPORAL_TLS_CERT_PATH ? 'TEMPORAL_TLS_KEY_PATH' : 'TEMPORAL_TLS_CERT_PATH';
    ctx.addIssue({ code: 'custom', path: [missing], message: 'set TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH together' });
  }
});

export type Config = z.infer<typeof configSchema> & { BASE_URL: string; TEMPORAL_DELIVERY_TASK_QUEUE: string };

/** Parses the environment once; throws a readable error naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = withTlsPair.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  return {
    ...c,
    BASE_URL: (c.BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/$/, ''),
    TEMPORAL_DELIVERY_TASK_QUEUE: c.TEMPORAL_DELIVERY_TASK_QUEUE ?? `${c.TEMPORAL_TASK_QUEUE}-deliveries`,
  };
}
