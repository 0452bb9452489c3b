import type { Db } from '@svc/db';
import { randomToken, sha256Hex } from '@svc/signing';
import { AppError } from '../errors';
import { newId } from '../ids';
import { iso } from '../shared/time';
import type { WorkspaceLimits } from '../workspaces/limits';
import { isScope, SCOPES } from './scopes';
import type { Scope } from './scopes';

export const API_KEY_PREFIX = 'svc_';
// 32 random bytes = 256 bits, well above the 128 the contract asks for.
const API_KEY_BYTES = 32;
export const API_KEY_SHAPE = /^svc_[A-Za-z0-9_-]{20,100}$/;

export interface ApiKeyView {
  id: string;
  workspace_id: string;
  name: string;
  scopes: string[];
  last4: string;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string | null;
  last_used_at: string | null;
}

type ApiKeyRow = Awaited<ReturnType<Db['apiKey']['findUniqueOrThrow']>>;

function toView(k: ApiKeyRow): ApiKeyView {
  return {
    id: k.id,
    workspace_id: k.workspaceId,
    name: k.name,
    scopes: k.scopes,
    last4: k.last4,
    expires_at: iso(k.expiresAt),
    revoked_at: iso(k.revokedAt),
    created_at: iso(k.createdAt),
    last_used_at: iso(k.lastUsedAt),
  };
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/** Creates a key; the clear key is returned only here. */
export async function createApiKey(
  db: Db,
  args: { workspaceId: string; name: string; scopes: string[]; expiresAt?: Date },
): Promise<ApiKeyView & { key: string }> {
  const unknown = args.scopes.filter((s) => !isScope(s));
  if (unknown.length || args.scopes.length === 0) {
    throw new AppError('validation_failed', `Unknown or missing scopes: ${unknown.join(', ') || '(none)'}`, {
      errors: [{ path: 'scopes', message: `one or more of ${SCOPES.join(', ')}` }],
    });
  }
  if (args.expiresAt && args.expiresAt.getTime() <= Date.now()) {
    throw new AppError('validation_failed', 'Expiry must be in the future', { errors: [{ path: 'expires_at', message: 'in the past' }] });
  }
  const ws = await db.workspace.findUnique({ where: { id: args.workspaceId }, select: { id: true } });
  if (!ws) throw new AppError('not_found', `Workspace ${args.workspaceId} not found`);
  const key = randomToken(API_KEY_PREFIX, API_KEY_BYTES);
  const row = await db.apiKey.create({
    data: {
      id: newId('key'),
      workspaceId: args.workspaceId,
      name: args.name,
      keyHash: hashApiKey(key),
      last4: key.slice(-4),
      scopes: [...new Set(args.scopes)],
      expiresAt: args.expiresAt ?? null,
    },
  });
  return { ...toView(row), key };
}

export async function listApiKeys(db: Db, workspaceId: string): Promise<ApiKeyView[]> {
  const rows = await db.apiKey.findMany({ where: { workspaceId }, orderBy: { createdAt: 'desc' } });
  return rows.map(toView);
}

export async function revokeApiKey(db: Db, id: string): Promise<ApiKeyView> {
  const found = await db.apiKey.findUnique({ where: { id } });
  if (!found) throw new AppError('not_found', `API key ${id} not found`);
  const row = found.revokedAt ? found : await db.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
  return toView(row);
}

export interface Principal {
  keyId: string;
  workspaceId: string;
  scopes: Scope[];
  /** The workspace's effective plan figures, read with the key, so a plan change holds on the next request. */
  limits: WorkspaceLimits;
}

export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) {
    throw new AppError('insufficient_scope', `This request needs the "${scope}" scope`, {
      headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
    });
  }
}
