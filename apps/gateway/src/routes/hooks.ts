import { Router } from 'express';
import type { RequestHandler } from 'express';
import { AppError, declaredLengthExceeds, fireTrigger, loadTrigger, TRIGGER_BODY_LIMIT, verifyBeforeBody } from '@svc/domain';
import { createSecretBox } from '@svc/signing';
import { HookAccepted } from '@svc/contract';
import type { GatewayDeps } from '../deps';
import { parseIdempotencyKey } from '../http/idempotencyKey';
import { payloadTooLarge, readBodyLimited } from '../hooks/readBody';
import { applyDecision, decide, orNull } from '../middleware/rateLimit';
import type { ClientAddresses } from '../middleware/clientAddress';

/**
 * `POST /hooks/{trigger_id}`: the fixed inbound trigger URL of a workflow.
 * No API key: the trigger's own secret and/or signature authenticate the caller. Mounted
 * at `/hooks` outside `/api/v1`, with no browser rule.
 *
 * Order: 413 (declared size) → 429 per source address → 404 (unknown trigger) → 403
 * ip_not_allowed → 403 required_header_missing → 401 invalid_trigger_secret → 429 per trigger →
 * (only now is the body read) 413 (streamed size) → 401 invalid_trigger_signature → 415/400/422
 * (body) → 400 (Idempotency-Key) → 403 plan_does_not_allow_runs → 422 (input schema) → 200
 * replay / 202 new run. Every refusal happens before any run exists; a refused request is not
 * counted. Secrets, signatures and header values are never logged.
 */
export function hookRoutes(deps: GatewayDeps, addresses: ClientAddresses): Router {
  const r = Router();
  const box = deps.config.SVC_ENCRYPTION_KEY
    ? createSecretBox(deps.config.SVC_ENCRYPTION_KEY, deps.config.SVC_ENCRYPTION_KEY_PREVIOUS)
    : undefined;

  r.post('/:trigger_id', async (req, res) => {
    if (declaredLengthExceeds(req.headers['content-length'], TRIGGER_BODY_LIMIT)) throw payloadTooLarge(TRIGGER_BODY_LIMIT);
    const perAddress = await orNull(deps.rateLimiter.takeForHookAddress(addresses.bucket(req)));
    if (perAddress) applyDecision(res, perAddress);
    if (!box) {
      deps.logger.error({ requestId: res.locals.requestId }, 'SVC_ENCRYPTION_KEY is not set: inbound triggers cannot be verified');
      throw new AppError('unavailable', 'Inbound triggers are not available; try again later');
    }
    const ip = addresses.ip(req);
    try {
      const trigger = await loadTrigger(deps.prisma, box, String(req.params.trigger_id));
      if (!trigger) throw new AppError('not_found', 'No trigger at this address');
      verifyBeforeBody(trigger, { ip, headers: req.headers });
      applyDecision(res, await decide(deps.rateLimiter.takeForTrigger(trigger.triggerId, trigger.limits.keyPerMin)));
      const rawBody = await readBodyLimited(req, TRIGGER_BODY_LIMIT);
      const { run, replayed } = await fireTrigger(
        { prisma: deps.prisma, sql: deps.sql, launcher: deps.launcher },
        {
          trigger,
          ip,
          headers: req.headers,
          rawBody,
          readIdempotencyKey: () => parseIdempotencyKey(req.header('idempotency-key')),
        },
      );
      deps.logger.info(
        { requestId: res.locals.requestId, workflowId: run.workflow_id, runId: run.id, replayed },
        replayed ? 'trigger replayed' : 'trigger started a run',
      );
      const answer = HookAccepted.parse({ run_id: run.id, status: run.status });
      if (replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(replayed ? 200 : 202).json(answer);
    } catch (err) {
      if (err instanceof AppError && err.status < 500) {
        deps.logger.info({ requestId: res.locals.requestId, code: err.code, ip }, 'trigger refused');
      }
      throw err;
    }
  });

  const onlyPost: RequestHandler = (_req, _res, next) => {
    next(new AppError('method_not_allowed', 'A trigger accepts POST only', { headers: { Allow: 'POST' } }));
  };
  r.all('/:trigger_id', onlyPost);
  return r;
}
