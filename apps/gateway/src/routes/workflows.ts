import type { IRouter } from 'express';
import { PageQuery } from '@svc/contract';
import { getWorkflow, listWorkflows } from '@svc/domain';
import type { GatewayDeps } from '../deps';
import { parseQuery } from '../http/validate';
import { principalOf, scope } from '../middleware/authenticate';

/** The workflows' reads, added to `r`. */
export function workflowRoutes(r: IRouter, deps: GatewayDeps): void {
  r.get('/workflows', scope('workflows:read'), async (req, res) => {
    const q = parseQuery(PageQuery, req.query);
    res.json(
      await listWorkflows(deps.prisma, {
        workspaceId: principalOf(res).workspaceId,
        limit: q.limit,
        cursor: q.cursor,
        baseUrl: deps.config.BASE_URL,
      }),
    );
  });

  r.get('/workflows/:workflow_id', scope('workflows:read'), async (req, res) => {
    res.json(
      await getWorkflow(deps.prisma, {
        workspaceId: principalOf(res).workspaceId,
        workflowId: String(req.params.workflow_id),
        baseUrl: deps.config.BASE_URL,
      }),
    );
  });
}
