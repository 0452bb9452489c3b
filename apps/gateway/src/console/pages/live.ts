import { Router } from 'express';
import { getEndpoint, getRun } from '@svc/domain';
import type { ConsoleDeps } from '../deps';

/**
 * The streams of live pages (server-sent events, console/live.ts). A change made between a
 * page's rendering and its stream's opening is not lost: a run page says which run and review
 * statuses it shows and hears of a difference at once; a list is refreshed once when its stream
 * opens (and so after every reconnection).
 */
export function livePages(deps: ConsoleDeps): Router {
  const r = Router();
  r.get('/live/runs', async (req, res) => {
    await deps.live.serve(req, res, req.consoleSession!.workspaceId, { kind: 'runs' }, async () => ['runs']);
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
    await deps.live.serve(req, res, s.workspaceId, { kind: 'endpoint', id: e.id }, async () => ['deliveries']);
  });
  return r;
}
