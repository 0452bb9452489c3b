import { Client } from 'pg';
import type { ClientConfig, Notification } from 'pg';

/** Notifications of one key on the listener's channel, from when it was asked for. */
export interface NotificationWatch {
  /** Resolves at the next notification not yet taken (one call at a time), with its body if it has one. */
  next(): Promise<string | undefined>;
  /** Stops watching; a pending `next` then never resolves. */
  close(): void;
}

/**
 * One connection LISTENing on one channel, for requests that wait on a commit made elsewhere:
 * PostgreSQL delivers a NOTIFY only once its transaction has committed, to every listening
 * session. A payload is a key, optionally followed by a newline and a body; watchers watch a key.
 * Best effort by design: a notification sent while the connection is down is lost, so every
 * watcher keeps its own way to learn the same thing, only later. A connection that fails is
 * opened again after `retryMs` (until `close`).
 */
export class NotificationListener {
  private readonly watchers = new Map<string, Set<(body: string | undefined) => void>>();
  private client: Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly config: ClientConfig,
    readonly channel: string,
    private readonly opts: { retryMs?: number; onError?: (err: Error) => void } = {},
  ) {}

  /** Opens the connection; resolves once it listens (rejects, and retries, when it cannot). */
  async start(): Promise<void> {
    const client = new Client(this.config);
    this.client = client;
    // Without a listener a broken connection's 'error' would end the process.
    client.on('error', (err) => {
      this.opts.onError?.(err);
      this.reopen(client);
    });
    client.on('end', () => this.reopen(client));
    client.on('notification', (n: Notification) => {
      if (n.channel !== this.channel || n.payload === undefined) return;
      const cut = n.payload.indexOf('\n');
      const [key, body] = cut < 0 ? [n.payload, undefined] : [n.payload.slice(0, cut), n.payload.slice(cut + 1)];
      for (const onNotice of this.watchers.get(key) ?? []) onNotice(body);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
    } catch (err) {
      this.reopen(client);
      throw err;
    }
  }

  watch(key: string): NotificationWatch {
    // Bodies of the notices not taken yet, in order.
    const heard: Array<string | undefined> = [];
    let wake: (() => void) | undefined;
    const onNotice = (body: string | undefined): void => {
      heard.push(body);
      wake?.();
    };
    const set = this.watchers.get(key) ?? new Set();
    set.add(onNotice);
    this.watchers.set(key, set);
    return {
      next: () =>
        new Promise<string | undefined>((resolve) => {
          wake = () => {
            if (heard.length === 0) return;
            wake = undefined;
            resolve(heard.shift());
          };
          wake();
        }),
      close: () => {
        wake = undefined;
        set.delete(onNotice);
        if (set.size === 0 && this.watchers.get(key) === set) this.watchers.delete(key);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Replaces a failed connection (once per connection), after a pause. */
  private reopen(client: Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.retry = setTimeout(() => {
      this.start().catch((err: Error) => this.opts.onError?.(err));
    }, this.opts.retryMs ?? 1_000);
    // A pending retry never keeps the process alive.
    this.retry.unref();
  }
}
