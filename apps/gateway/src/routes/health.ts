import type { IRouter } from 'express';
import type { Readiness } from '../deps';

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout(p: Promise<void>): Promise<'ok' | 'unavailable'> {
  return Promise.race([
    p.then(() => 'ok' as const),
    new Promise<'unavailable'>((resolve) => setTimeout(() => resolve('unavailable'), CHECK_TIMEOUT_MS).unref()),
  ]).catch(() => 'unavailable' as const);
}

/** `/healthz`: the process is alive. `/readyz`: the database and Temporal both answer. Added to `r`. */
export function healthRoutes(r: IRouter, readiness: Readiness): void {
  r.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  r.get('/readyz', async (_req, res) => {
    const [database, temporal] = await Promise.all([withTimeout(readiness.database()), withTimeout(readiness.temporal())]);
    const ready = database === 'ok' && temporal === 'ok';
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks: { database, temporal } });
  });
}
