import { Router } from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { ConsoleSessionView } from '@svc/domain';
import { refusal } from './session';

/**
 * The only writes a `member` may make: cancel a run, decide a review, and start a run of a
 * workflow's stored definition (the test run). Every other write of a signed-in session is for
 * admins, whether or not its route remembers to say so.
 */
export const MEMBER_WRITES: readonly string[] = ['/runs/:id/cancel', '/runs/:id/review', '/workflows/:id/runs'];

/** Pages that are only a control for admins (an editor with nothing to read). */
export const ADMIN_PAGES: readonly string[] = ['/workflows/new'];

/** Whether the session may manage the workspace: pages show their controls only then. */
export function isAdmin(session: ConsoleSessionView | undefined): boolean {
  return session?.role === 'admin';
}

function refuse(req: Request, res: Response): void {
  refusal(res, 403, 'Admins only', 'Only workspace admins can do this; nothing was changed.', req.consoleSession);
}

function requireAdmin(req: Request, res: Response, next: NextFunction): void {
  if (!isAdmin(req.consoleSession)) return refuse(req, res);
  next();
}

/**
 * Roles for every route mounted after it: admin-only by default for any method but GET and
 * HEAD, except the member writes listed, which express matches exactly as it matches the pages'
 * own routes.
 */
export function rolesGate(memberWrites = MEMBER_WRITES, adminPages = ADMIN_PAGES): Router {
  const gate = Router();
  for (const path of memberWrites) gate.post(path, (_req, _res, next) => next('router'));
  for (const path of adminPages) gate.get(path, requireAdmin);
  gate.use((req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || isAdmin(req.consoleSession)) return next();
    refuse(req, res);
  });
  return gate;
}
