import { Router } from 'express';
import { getEndpoint, getRun } from '@svc/domain';
import type { ConsoleDeps } from '../deps';

/**
 * The streams of live pages (server-sent events, console/live.ts). A run page says which run
 * and review statuses it shows, so a change made before its stream opened is sent at once.
 */
export function livePages(deps: ConsoleDeps): Router {
  const r = Router();
  r.get('/live/runs', async (req, res) => {
    await deps.live.serve(req, res, req.consoleSession!.workspaceId, { kind: 'runs' }, async () => []);
  });
  r.get('/live/runs/:id', async (req, res) => {
    const s = req.consoleSession!;
    const run = await getRun(deps.prisma, { workspaceId: s.workspaceId, runId: String(req.params.id) });
    const changed = async () => {
      const now = await getRun(deps.prisma, { workspaceId: s.workspaceId, runId: run.id });
      const events: string[] = [];
      if ((now.review?.status ?? 'none') !== req.query.review) events.push('review');
      if (now.status !== req.query.run || events.length) events.push('run');
      return events;
    };
    await deps.live.serve(req, res, s.workspaceId, { kind: 'run', id: run.id }, changed);
  });
  r.get('/live/endpoints/:id', async (req, res) => {
    const s = req.consoleSession!;
    const e = await getEndpoint(deps.prisma, { workspaceId: s.workspaceId, endpointId: String(req.params.id) });
    await deps.live.serve(req, res, s.workspaceId, { kind: 'endpoint', id: e.id }, async () => []);
  });
  return r;
}
