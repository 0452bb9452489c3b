import type { Db } from '@svc/db';
import { AppError } from '../errors';
import { newId } from '../ids';
import { iso } from '../shared/time';
import { CUSTOM_FIGURE_PLANS } from './limits';
import { isPlan, PLAN_NAMES } from './plans';
import type { Plan } from './plans';

export interface WorkspaceView {
  id: string;
  name: string;
  plan: Plan;
  rate_limit_per_min: number | null;
  concurrency: number | null;
  admin_emails: string[];
  created_at: string | null;
}

type WorkspaceRow = Awaited<ReturnType<Db['workspace']['findUniqueOrThrow']>>;

export function toWorkspaceView(w: WorkspaceRow): WorkspaceView {
  return {
    id: w.id,
    name: w.name,
    plan: w.plan as Plan,
    rate_limit_per_min: w.rateLimitPerMin,
    concurrency: w.concurrency,
    admin_emails: w.adminEmails,
    created_at: iso(w.createdAt),
  };
}

function checkPlan(plan: string): Plan {
  if (!isPlan(plan))
    throw new AppError('validation_failed', `Unknown plan "${plan}"`, {
      errors: [{ path: 'plan', message: `one of ${PLAN_NAMES.join(', ')}` }],
    });
  return plan;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createWorkspace(db: Db, args: { name: string; plan?: string; adminEmails?: string[] }): Promise<WorkspaceView> {
  const name = args.name.trim();
  if (!name) throw new AppError('validation_failed', 'A workspace needs a name', { errors: [{ path: 'name', message: 'required' }] });
  const bad = (args.adminEmails ?? []).filter((e) => !EMAIL.test(e));
  if (bad.length)
    throw new AppError('validation_failed', `Not an email address: ${bad.join(', ')}`, {
      errors: [{ path: 'admin_emails', message: 'must be email addresses' }],
    });
  const row = await db.workspace.create({
    data: { id: newId('ws'), name, plan: checkPlan(args.plan ?? 'basic'), adminEmails: args.adminEmails ?? [] },
  });
  return toWorkspaceView(row);
}

export async function getWorkspace(db: Db, id: string): Promise<WorkspaceView> {
  const row = await db.workspace.findUnique({ where: { id } });
  if (!row) throw new AppError('not_found', `Workspace ${id} not found`);
  return toWorkspaceView(row);
}

export async function setWorkspacePlan(
  db: Db,
  id: string,
  args: { plan: string; rateLimitPerMin?: number; concurrency?: number },
): Promise<WorkspaceView> {
  const plan = checkPlan(args.plan);
  const ownFigures = CUSTOM_FIGURE_PLANS.includes(plan);
  if (!ownFigures && (args.rateLimitPerMin !== undefined || args.concurrency !== undefined)) {
    throw new AppError('validation_failed', 'Custom figures are only for the enterprise plan');
  }
  await getWorkspace(db, id);
  const row = await db.workspace.update({
    where: { id },
    data: {
      plan,
      rateLimitPerMin: ownFigures ? (args.rateLimitPerMin ?? null) : null,
      concurrency: ownFigures ? (args.concurrency ?? null) : null,
    },
  });
  return toWorkspaceView(row);
}
