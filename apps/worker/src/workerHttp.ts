import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildInfo, splitHostPort } from '@svc/config';
import type { Logger } from '@svc/config';

/** A port on 127.0.0.1 that was free a moment ago: where the Runtime's own Prometheus listener goes. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The worker's one listener, on WORKER_METRICS_ADDRESS: `/metrics` (the SDK's and svc's, read
 * from the Runtime's Prometheus listener on loopback behind it), `/healthz` (alive, and which
 * build) and `/readyz` (200 while its Workers poll; 503 before, and while they drain on SIGTERM).
 */
export function listenWorkerHttp(o: { address: string; runtimeMetricsUrl: string; ready: () => boolean; logger: Logger }): Promise<Server> {
  const { version, commit } = buildInfo();
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return json(405, { status: 'method not allowed' });
    if (path === '/healthz') return json(200, { status: 'ok', version, commit });
    if (path === '/readyz') return o.ready() ? json(200, { status: 'ready' }) : json(503, { status: 'unavailable' });
    if (path !== '/metrics') return json(404, { status: 'not found' });
    fetch(o.runtimeMetricsUrl, { signal: AbortSignal.timeout(5_000) }).then(
      async (r) => {
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain; version=0.0.4' }).end(await r.text());
      },
      (err: Error) => {
        o.logger.warn({ err: err.message }, 'the Runtime metrics listener did not answer');
        json(503, { status: 'unavailable' });
      },
    );
  });
  const { host, port } = splitHostPort(o.address);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
