import type { Db } from '@svc/db';
import { randomToken, sha256Hex } from '@svc/signing';

export const SESSION_TTL_MS = 12 * 60 * 60_000;

export interface ConsoleSessionView {
  memberId: string;
  workspaceId: string;
  email: string;
  role: 'admin' | 'member';
  /** The synchronizer token every form of this session carries. */
  csrfToken: string;
}

/** A new server-side session; only the SHA-256 of the returned id is stored. */
export async function createSession(db: Db, memberId: string): Promise<string> {
  const id = randomToken('', 32);
  await db.consoleSession.create({
    data: { idHash: sha256Hex(id), memberId, csrfToken: randomToken('', 24), expiresAt: new Date(Date.now() + SESSION_TTL_MS) },
  });
  return id;
}

export async function loadSession(db: Db, id: string): Promise<ConsoleSessionView | null> {
  const row = await db.consoleSession.findUnique({ where: { idHash: sha256Hex(id) }, include: { member: true } });
  if (!row || row.revokedAt || row.expiresAt.getTime() <= Date.now()) return null;
  return {
    memberId: row.memberId,
    workspaceId: row.member.workspaceId,
    email: row.member.email,
    role: row.member.role === 'admin' ? 'admin' : 'member',
    csrfToken: row.csrfToken,
  };
}

export async function revokeSession(db: Db, id: string): Promise<void> {
  await db.consoleSession.updateMany({ where: { idHash: sha256Hex(id), revokedAt: null }, data: { revokedAt: new Date() } });
}

/** Sign-out everywhere: every session of the member. */
export async function revokeAllSessions(db: Db, memberId: string): Promise<number> {
  const r = await db.consoleSession.updateMany({ where: { memberId, revokedAt: null }, data: { revokedAt: new Date() } });
  return r.count;
}
