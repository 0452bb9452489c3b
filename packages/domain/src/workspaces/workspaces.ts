import type { Db } from '@svc/db';
import { AppError } from '../errors';
import { newId } from '../ids';
import { iso } from '../shared/time';
import { CAP_CEILINGS } from './caps';
import type { CapName } from './caps';
import { CUSTOM_FIGURE_PLANS } from './limits';
import { isPlan, PLAN_NAMES } from './plans';
import type { Plan } from './plans';

export interface WorkspaceView {
  id: string;
  name: string;
  plan: Plan;
  rate_limit_per_min: number | null;
  concurrency: number | null;
  /** Enterprise only: the workspace's own caps (null: the plan's figure). */
  max_webhook_endpoints: number | null;
  max_secrets: number | null;
  max_review_assignees: number | null;
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
    max_webhook_endpoints: w.maxWebhookEndpoints,
    max_secrets: w.maxSecrets,
    max_review_assignees: w.maxReviewAssignees,
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

/** Custom figures an operator may give an enterprise workspace; an omitted one is the plan's. */
export interface CustomFigures {
  rateLimitPerMin?: number;
  concurrency?: number;
  maxWebhookEndpoints?: number;
  maxSecrets?: number;
  maxReviewAssignees?: number;
}

const CAP_OPTIONS: Record<CapName, 'maxWebhookEndpoints' | 'maxSecrets' | 'maxReviewAssignees'> = {
  webhook_endpoints: 'maxWebhookEndpoints',
  secrets: 'maxSecrets',
  review_assignees: 'maxReviewAssignees',
};

function checkCaps(args: CustomFigures): void {
  for (const [cap, option] of Object.entries(CAP_OPTIONS) as [CapName, keyof CustomFigures][]) {
    const v = args[option];
    if (v !== undefined && (!Number.isInteger(v) || v < 1 || v > CAP_CEILINGS[cap])) {
      throw new AppError('validation_failed', `The ${cap} cap must be a whole number from 1 to ${CAP_CEILINGS[cap]}`, {
        errors: [{ path: cap, message: `1 to ${CAP_CEILINGS[cap]}` }],
      });
    }
  }
}

/**
 * Moves a workspace to a plan. On the enterprise plan the operator states its own figures here,
 * all at once: one left out is the plan's. Lowering a cap removes nothing the workspace holds;
 * it only refuses new ones while the workspace is at or over it.
 */
export async function setWorkspacePlan(db: Db, id: string, args: { plan: string } & CustomFigures): Promise<WorkspaceView> {
  const plan = checkPlan(args.plan);
  const ownFigures = CUSTOM_FIGURE_PLANS.includes(plan);
  const { plan: _plan, ...figures } = args;
  if (!ownFigures && Object.values(figures).some((v) => v !== undefined)) {
    throw new AppError('validation_failed', 'Custom figures are only for the enterprise plan');
  }
  checkCaps(figures);
  await getWorkspace(db, id);
  const own = (v: number | undefined) => (ownFigures ? (v ?? null) : null);
  const row = await db.workspace.update({
    where: { id },
    data: {
      plan,
      rateLimitPerMin: own(figures.rateLimitPerMin),
      concurrency: own(figures.concurrency),
      maxWebhookEndpoints: own(figures.maxWebhookEndpoints),
      maxSecrets: own(figures.maxSecrets),
      maxReviewAssignees: own(figures.maxReviewAssignees),
    },
  });
  return toWorkspaceView(row);
}
