/**
 * Preloaded (`node -r`) into the gateway process by the bench: a bare Express route on its own
 * port (BENCH_BARE_PORT), the baseline of the read scenario. It runs in the same process, the
 * same Node and the same `express` module as the gateway, and answers the same run JSON, with
 * none of the gateway's work: no auth, no rate limit, no database. It shares nothing with the
 * gateway's app and has no access to it. Without BENCH_BARE_PORT it does nothing.
 */
import express from 'express';

const port = Number(process.env.BENCH_BARE_PORT);
if (Number.isInteger(port) && port > 0) {
  let fixture: unknown = { id: 'run_fixture' };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The bench sets the body to a real run object read from the API before measuring.
  app.put('/fixture', express.json({ limit: '1mb' }), (req, res) => {
    fixture = req.body;
    res.status(204).end();
  });
  app.get('/runs/:run_id', (_req, res) => {
    res.json(fixture);
  });
  const server = app.listen(port, '127.0.0.1');
  server.unref(); // never keeps the gateway alive on its own
}
