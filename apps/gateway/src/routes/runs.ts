import type { IRouter, Response } from 'express';
import { DecideReviewBody, ListRunsQuery, NoRequestBody, StartRunBody } from '@svc/contract';
import { cancelRun, decideReview, getRun, listRuns, normalizeDecision, startRun } from '@svc/domain';
import type { GatewayDeps } from '../deps';
import { parseIdempotencyKey } from '../http/idempotencyKey';
import { parseBody, parseQuery } from '../http/validate';
import { principalOf, scope } from '../middleware/authenticate';
import { jsonBody } from '../middleware/jsonBody';

/** An action that takes no body reads at most this much of one (`{}` is accepted; anything else is refused). */
const NO_BODY_LIMIT = 1024;

/** Aborts when the client goes away before we answered; the run itself is never touched. */
function clientGone(res: Response): AbortSignal {
  const ac = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  return ac.signal;
}

/** Runs and their reviews, added to `r`. */
export function runRoutes(r: IRouter, deps: GatewayDeps): void {
  r.post('/workflows/:workflow_id/runs', scope('runs:write'), ...jsonBody(), async (req, res) => {
    const idempotencyKey = parseIdempotencyKey(req.header('idempotency-key'));
    const body = parseBody(StartRunBody, req.body);
    const { run, replayed } = await startRun(
      { prisma: deps.prisma, sql: deps.sql, launcher: deps.launcher, settleNotices: deps.settleNotices },
      {
        workspaceId: principalOf(res).workspaceId,
        workflowId: String(req.params.workflow_id),
        input: body.input,
        body,
        idempotencyKey,
        trigger: 'api',
        wait: body.wait ? { timeoutMs: deps.config.RUN_WAIT_TIMEOUT_MS, signal: clientGone(res) } : undefined,
      },
    );
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    else res.setHeader('Location', `/api/v1/runs/${run.id}`);
    res.status(replayed ? 200 : 201).json(run);
  });

  r.get('/workflows/:workflow_id/runs', scope('runs:read'), async (req, res) => {
    const q = parseQuery(ListRunsQuery, req.query);
    res.json(
      await listRuns(deps.prisma, {
        workspaceId: principalOf(res).workspaceId,
        workflowId: String(req.params.workflow_id),
        status: q.status,
        limit: q.limit,
        cursor: q.cursor,
      }),
    );
  });

  r.get('/runs/:run_id', scope('runs:read'), async (req, res) => {
    // On a pooled connection of its own: a run with large outputs never holds up the key checks.
    res.json(await getRun(deps.pooledSql, { workspaceId: principalOf(res).workspaceId, runId: String(req.params.run_id) }));
  });

  r.post('/runs/:run_id/cancel', scope('runs:write'), ...jsonBody(NO_BODY_LIMIT), async (req, res) => {
    parseBody(NoRequestBody, req.body);
    res.json(
      await cancelRun(
        { prisma: deps.prisma, control: deps.control },
        { workspaceId: principalOf(res).workspaceId, runId: String(req.params.run_id) },
      ),
    );
  });

  r.post('/runs/:run_id/review', scope('reviews:write'), ...jsonBody(), async (req, res) => {
    const body = parseBody(DecideReviewBody, req.body);
    const principal = principalOf(res);
    const runId = String(req.params.run_id);
    await decideReview(
      { prisma: deps.prisma, control: deps.control },
      {
        workspaceId: principal.workspaceId,
        runId,
        decision: normalizeDecision(body.decision),
        comment: body.comment ?? null,
        decidedBy: body.decided_by ?? principal.keyId,
        // The label is the caller's to choose; who decided is the key that authenticated.
        decidedVia: { type: 'api_key', id: principal.keyId },
      },
    );
    res.json(await getRun(deps.prisma, { workspaceId: principal.workspaceId, runId }));
  });
}
