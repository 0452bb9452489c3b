import { createServer } from 'node:net';
import { waitFor } from './helpers/fixtures';
import { call } from './helpers/http';
import { spawnApp } from './helpers/processes';
import type { Spawned } from './helpers/processes';

/** `/metrics` protection: a bearer token (METRICS_TOKEN) and/or its own address (METRICS_ADDRESS). */

const TOKEN = 'metrics-token-0123456789abcdef';
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });

const spawned: Spawned[] = [];
afterAll(async () => {
  await Promise.all(spawned.map((s) => s.stop()));
});

async function gateway(env: Record<string, string>): Promise<{ base: string; app: Spawned }> {
  const port = await freePort();
  const app = await spawnApp('gateway', { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env });
  spawned.push(app);
  return { base: `http://127.0.0.1:${port}`, app };
}

const scrape = (base: string, token?: string) => call(`${base}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('/metrics', () => {
  it('requires the bearer token when METRICS_TOKEN is set', async () => {
    const { base } = await gateway({ METRICS_TOKEN: TOKEN });
    const none = await scrape(base);
    expect([none.status, none.body.code]).toEqual([401, 'unauthenticated']);
    expect(String(none.body)).not.toContain('svc_http_request_duration_seconds');
    const wrong = await scrape(base, TOKEN.slice(0, -1) + 'x');
    expect(wrong.status).toBe(401);
    const right = await scrape(base, TOKEN);
    expect(right.status).toBe(200);
    expect(String(right.body)).toContain('svc_http_request_duration_seconds');
  });

  it('moves to METRICS_ADDRESS: the public port no longer serves it', async () => {
    const metricsPort = await freePort();
    const { base, app } = await gateway({ METRICS_ADDRESS: `127.0.0.1:${metricsPort}`, METRICS_TOKEN: TOKEN });
    // Ready means the API listens; the metrics address says so in the log.
    await waitFor(
      async () => app.output(),
      (out) => out.includes('metrics listening'),
    );
    const publicAnswer = await scrape(base, TOKEN);
    expect([publicAnswer.status, publicAnswer.body.code]).toEqual([404, 'not_found']);
    const privateBase = `http://127.0.0.1:${metricsPort}`;
    expect((await scrape(privateBase)).status).toBe(401);
    const right = await scrape(privateBase, TOKEN);
    expect(right.status).toBe(200);
    expect(String(right.body)).toContain('process_resident_memory_bytes');
  });
});
