import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hmacSha256Hex, safeEqual } from '@svc/signing';

/** One webhook the receiver accepted. */
export interface Received {
  eventId: string;
  runId: string;
  /**
   * When the event was committed: its `created_at`, written in the transaction that records it
   * (by the worker, on this machine's clock), ms. The commit itself is a moment later.
   */
  eventCreatedAt: number;
  /** When the signed request had fully arrived here, ms. */
  receivedAt: number;
  /** Its `Svc-Delivery-Id` header, where the sender sent one (svc does). */
  deliveryId: string | undefined;
}

/**
 * A local webhook receiver (127.0.0.1) that does what API.md §7 asks of one: verifies
 * `Svc-Signature` (HMAC-SHA256 of "<t>.<raw body>" with the endpoint's secret) and dedupes on
 * the event id. It answers 200 at once and records, per run, when the event arrived.
 */
export class WebhookReceiver {
  readonly byRun = new Map<string, Received>();
  duplicates = 0;
  badSignatures = 0;
  /** Endpoint path → its signing secret: every phase subscribes an endpoint of its own. */
  private readonly secrets = new Map<string, string>();
  private server: Server | undefined;
  private base = '';

  /** A URL on this receiver for one endpoint; its requests are checked with `secret` (set later). */
  urlFor(name: string): string {
    return `${this.base}/hooks/${encodeURIComponent(name)}`;
  }

  setSecret(name: string, secret: string): void {
    this.secrets.set(`/hooks/${encodeURIComponent(name)}`, secret);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const receivedAt = Date.now();
        const raw = Buffer.concat(chunks).toString('utf8');
        res.writeHead(200).end();
        if (!this.verify(this.secrets.get(req.url ?? '') ?? '', String(req.headers['svc-signature'] ?? ''), raw)) {
          this.badSignatures++;
          return;
        }
        const event = JSON.parse(raw) as { id: string; type: string; created_at: string; data: { id: string } };
        if (event.type !== 'run.succeeded') return;
        if (this.byRun.has(event.data.id)) {
          this.duplicates++;
          return;
        }
        this.byRun.set(event.data.id, {
          eventId: event.id,
          runId: event.data.id,
          eventCreatedAt: Date.parse(event.created_at),
          receivedAt,
          deliveryId: typeof req.headers['svc-delivery-id'] === 'string' ? req.headers['svc-delivery-id'] : undefined,
        });
      });
    });
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private verify(secret: string, header: string, raw: string): boolean {
    const parts = header.split(',').map((p) => p.trim());
    const t = parts.find((p) => p.startsWith('t='))?.slice(2);
    if (!t || !secret) return false;
    const expected = hmacSha256Hex(secret, `${t}.${raw}`);
    return parts.some((p) => p.startsWith('v1=') && safeEqual(p.slice(3), expected));
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    const s = this.server;
    this.server = undefined;
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
}
