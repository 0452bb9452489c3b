import { Router } from 'express';
import { archiveWorkflow, restoreWorkflow, setTriggerEnabled } from '@svc/domain';
import type { ConsoleDeps } from '../deps';

/** Archive and restore a workflow; turn its trigger off and on (admins). */
export function workflowAdminPages(deps: ConsoleDeps): Router {
  const r = Router();
  const back = (id: string) => `/console/workflows/${encodeURIComponent(id)}`;
  r.post('/workflows/:id/archive', async (req, res) => {
    await archiveWorkflow(deps.prisma, { workspaceId: req.consoleSession!.workspaceId, workflowId: String(req.params.id) });
    res.redirect(303, back(String(req.params.id)));
  });
  r.post('/workflows/:id/restore', async (req, res) => {
    await restoreWorkflow(deps.prisma, { workspaceId: req.consoleSession!.workspaceId, workflowId: String(req.params.id) });
    res.redirect(303, back(String(req.params.id)));
  });
  r.post('/workflows/:id/trigger/:state', async (req, res) => {
    const state = String(req.params.state);
    if (state !== 'on' && state !== 'off') return res.redirect(303, back(String(req.params.id)));
    await setTriggerEnabled(deps.prisma, {
      workspaceId: req.consoleSession!.workspaceId,
      workflowId: String(req.params.id),
      enabled: state === 'on',
    });
    res.redirect(303, back(String(req.params.id)));
  });
  return r;
}
