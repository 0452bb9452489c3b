import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '@svc/signing';

/**
 * A local webhook receiver (127.0.0.1) that does what a receiver should: checks `Svc-Signature`
 * with its endpoint's secret and keeps the first event per run, answering 200 at once. Each
 * endpoint is a path of its own. Latency = received − the event's `created_at` (the run settled).
 */
export class WebhookReceiver {
  /** Run id → when its signed event arrived, and how long after the run settled (ms). */
  readonly arrivals = new Map<string, { receivedAt: number; latencyMs: number }>();
  badSignatures = 0;
  private readonly secrets = new Map<string, string>();
  private readonly server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const receivedAt = Date.now();
      res.writeHead(200).end();
      const body = Buffer.concat(chunks).toString('utf8');
      const secret = this.secrets.get(req.url ?? '') ?? '';
      if (!verifyWebhook({ body, header: req.headers['svc-signature'] as string | undefined, secret }).ok) {
        this.badSignatures++;
        return;
      }
      const event = JSON.parse(body) as { type: string; created_at: string; data: { id: string } };
      if (event.type !== 'run.succeeded' || this.arrivals.has(event.data.id)) return;
      this.arrivals.set(event.data.id, { receivedAt, latencyMs: receivedAt - Date.parse(event.created_at) });
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  /** The URL of an endpoint whose requests are checked with `secret` (settable later). */
  endpoint(name: string, secret?: string): { url: string; setSecret(secret: string): void } {
    const path = `/hooks/${encodeURIComponent(name)}`;
    const setSecret = (s: string) => void this.secrets.set(path, s);
    if (secret) setSecret(secret);
    return { url: `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`, setSecret };
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
