/**
 * The baseline of the read scenario, a process of its own started by the bench: a bare Express
 * route on BENCH_BARE_PORT, with the same Node, node flags and `express` module as the gateway,
 * answering the same run JSON with none of the gateway's work (no auth, no rate limit, no
 * database). Its own process, so the gateway's peak RSS is the gateway's alone: in the gateway's
 * process, its thousands of requests a second grew that heap past 150 MB by themselves.
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
  app.listen(port, '127.0.0.1', () => {
    process.stdout.write('bare route listening\n');
  });
}
