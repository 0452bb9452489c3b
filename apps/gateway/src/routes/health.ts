import type { IRouter } from 'express';
import { buildInfo } from '@svc/config';
import type { Readiness } from '../deps';

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout(p: Promise<void>): Promise<'ok' | 'unavailable'> {
  return Promise.race([
    p.then(() => 'ok' as const),
    new Promise<'unavailable'>((resolve) => setTimeout(() => resolve('unavailable'), CHECK_TIMEOUT_MS).unref()),
  ]).catch(() => 'unavailable' as const);
}

/**
 * `/healthz`: the process is alive, and which build it runs. `/readyz`: the database and Temporal
 * both answer and the gateway is not draining (503 from SIGTERM on). Added to `r`.
 */
export function healthRoutes(r: IRouter, readiness: Readiness): void {
  const { version, commit } = buildInfo();
  r.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', version, commit });
  });
  r.get('/readyz', async (_req, res) => {
    if (readiness.draining?.()) {
      res.status(503).json({ status: 'draining' });
      return;
    }
    const [database, temporal] = await Promise.all([withTimeout(readiness.database()), withTimeout(readiness.temporal())]);
    const ready = database === 'ok' && temporal === 'ok';
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks: { database, temporal } });
  });
}
