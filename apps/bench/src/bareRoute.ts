#!/usr/bin/env node
/**
 * The read row's baseline, a process of its own: a bare Express route on BARE_ROUTE_PORT with the
 * gateway's Node, node flags and `express`, answering the run JSON it was given (`PUT /fixture`)
 * with none of the gateway's work. Its own process, so the gateway's peak RSS is the gateway's.
 */
import express from 'express';
import { signalReady } from '@svc/config';

let fixture: unknown = {};
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.put('/fixture', express.json({ limit: '1mb' }), (req, res) => {
  fixture = req.body;
  res.status(204).end();
});
app.get('/runs/:id', (_req, res) => {
  res.json(fixture);
});
app.listen(Number(process.env.BARE_ROUTE_PORT), '127.0.0.1', () => signalReady());
