import type { Db } from '@svc/db';
import { randomToken, sha256Hex } from '@svc/signing';
import { AppError } from '../errors';
import { newId } from '../ids';
import type { Mailer } from '../mail/mailer';
import { iso } from '../shared/time';
import { hashPassword, verifyPassword } from './password';
import { admitLinkRequest, admitSignIn, forgiveSignIn } from './throttle';

export const MEMBER_ROLES = ['admin', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];
export const INVITE_TTL_MS = 7 * 24 * 60 * 60_000;
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
export const MIN_PASSWORD_LENGTH = 12;
const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

export interface MemberView {
  id: string;
  workspace_id: string;
  email: string;
  role: MemberRole;
  has_password: boolean;
  created_at: string | null;
}

type MemberRow = Awaited<ReturnType<Db['member']['findUniqueOrThrow']>>;

function toView(m: MemberRow): MemberView {
  return {
    id: m.id,
    workspace_id: m.workspaceId,
    email: m.email,
    role: m.role === 'admin' ? 'admin' : 'member',
    has_password: m.passwordHash !== null,
    created_at: iso(m.createdAt),
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function listMembers(db: Db, workspaceId: string): Promise<MemberView[]> {
  const rows = await db.member.findMany({ where: { workspaceId }, orderBy: { createdAt: 'asc' } });
  return rows.map(toView);
}

/** A one-time link (`invite` sets a password; `sign_in` signs straight in); the token is returned once, only its digest kept. */
export async function issueSignInLink(db: Db, args: { memberId: string; purpose: 'invite' | 'sign_in'; baseUrl: string }): Promise<string> {
  const token = randomToken('', 32);
  const ttl = args.purpose === 'invite' ? INVITE_TTL_MS : SIGN_IN_LINK_TTL_MS;
  await db.signInLink.create({
    data: { tokenHash: sha256Hex(token), memberId: args.memberId, purpose: args.purpose, expiresAt: new Date(Date.now() + ttl) },
  });
  return `${args.baseUrl.replace(/\/$/, '')}/console/link/${token}`;
}

/** `svc members add`: creates the member and mails an invitation link to set a password. */
export async function addMember(
  deps: { prisma: Db; mailer: Mailer },
  args: { workspaceId: string; email: string; role: string; baseUrl: string },
): Promise<{ member: MemberView; link: string }> {
  const email = normalizeEmail(args.email);
  if (!EMAIL.test(email)) throw new AppError('validation_failed', `Not an email address: ${args.email}`);
  if (!(MEMBER_ROLES as readonly string[]).includes(args.role)) throw new AppError('validation_failed', 'role must be admin or member');
  const ws = await deps.prisma.workspace.findUnique({ where: { id: args.workspaceId } });
  if (!ws) throw new AppError('not_found', `Workspace ${args.workspaceId} not found`);
  if (await deps.prisma.member.findUnique({ where: { email } })) throw new AppError('conflict', `${email} is already a member`);
  const row = await deps.prisma.member.create({ data: { id: newId('mem'), workspaceId: ws.id, email, role: args.role } });
  const link = await issueSignInLink(deps.prisma, { memberId: row.id, purpose: 'invite', baseUrl: args.baseUrl });
  await deps.mailer.send({
    to: [email],
    subject: `You are invited to the svc workspace ${ws.name}`,
    text: `You were added to the svc workspace "${ws.name}" as ${args.role}.\n\nChoose your password here (the link works once, for 7 days):\n${link}\n`,
  });
  return { member: toView(row), link };
}

/**
 * The console's "mail me a link": throttled per email whether or not it is a member's, and
 * silent for unknown emails, so neither the answer nor a refusal reveals who is a member.
 * Links an operator prints (`issueSignInLink`) are not counted.
 */
export async function mailSignInLink(
  deps: { prisma: Db; mailer: Mailer },
  args: { email: string; baseUrl: string },
): Promise<{ sent: true } | { sent: false; retryAfterSeconds: number }> {
  const email = normalizeEmail(args.email);
  const admission = await admitLinkRequest(deps.prisma, email);
  if (!admission.admitted) return { sent: false, retryAfterSeconds: admission.retryAfterSeconds };
  const member = await deps.prisma.member.findUnique({ where: { email } });
  if (!member) return { sent: true };
  const link = await issueSignInLink(deps.prisma, { memberId: member.id, purpose: 'sign_in', baseUrl: args.baseUrl });
  await deps.mailer.send({
    to: [member.email],
    subject: 'Your svc sign-in link',
    text: `Sign in to the svc console (the link works once, for 15 minutes):\n${link}\n`,
  });
  return { sent: true };
}

/** The member a valid, unused, unexpired link names, with its purpose; the link is then spent. */
export async function redeemSignInLink(db: Db, token: string): Promise<{ memberId: string; purpose: string } | null> {
  const now = new Date();
  const hash = sha256Hex(token);
  // One statement: two concurrent redemptions cannot both succeed.
  const spent = await db.signInLink.updateMany({ where: { tokenHash: hash, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  if (spent.count !== 1) return null;
  const link = await db.signInLink.findUniqueOrThrow({ where: { tokenHash: hash } });
  return { memberId: link.memberId, purpose: link.purpose };
}

export async function setMemberPassword(db: Db, memberId: string, password: string): Promise<void> {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError('validation_failed', `A password has at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  await db.member.update({ where: { id: memberId }, data: { passwordHash: await hashPassword(password) } });
}

export type SignInOutcome =
  { ok: true; memberId: string } | { ok: false; reason: 'invalid' } | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/** Email + password, throttled per email and per client address (throttle.ts) before the password is checked. */
export async function signIn(db: Db, args: { email: string; password: string; address: string }): Promise<SignInOutcome> {
  const email = normalizeEmail(args.email);
  const admission = await admitSignIn(db, { email, address: args.address });
  if (!admission.admitted) return { ok: false, reason: 'throttled', retryAfterSeconds: admission.retryAfterSeconds };
  const member = await db.member.findUnique({ where: { email } });
  if (!(await verifyPassword(args.password, member?.passwordHash ?? null))) return { ok: false, reason: 'invalid' };
  await forgiveSignIn(db, admission.failureId);
  return { ok: true, memberId: member!.id };
}

/** What a link is for, without spending it (the GET of the link page; mail scanners prefetch links). */
export async function peekSignInLink(db: Db, token: string): Promise<{ purpose: string; email: string } | null> {
  const link = await db.signInLink.findUnique({ where: { tokenHash: sha256Hex(token) }, include: { member: true } });
  if (!link || link.usedAt || link.expiresAt.getTime() <= Date.now()) return null;
  return { purpose: link.purpose, email: link.member.email };
}
