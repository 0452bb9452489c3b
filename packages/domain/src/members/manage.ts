import type { Db } from '@svc/db';
import { AppError } from '../errors';
import type { MemberRole } from './members';

/**
 * A workspace keeps at least one admin: removing or demoting the last one is refused (409
 * `conflict`), since nobody could then manage the workspace from the console. The count and
 * the change are one transaction under a lock of the workspace's admin rows.
 */
async function changeMember(
  db: Db,
  args: { workspaceId: string; memberId: string },
  change: { role: MemberRole } | 'remove',
): Promise<void> {
  await db.$transaction(async (tx) => {
    const admins = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM members WHERE workspace_id = ${args.workspaceId} AND role = 'admin' FOR UPDATE`;
    const member = await tx.member.findFirst({ where: { id: args.memberId, workspaceId: args.workspaceId } });
    if (!member) throw new AppError('not_found', 'Member not found');
    const losesAdmin = member.role === 'admin' && (change === 'remove' || change.role !== 'admin');
    if (losesAdmin && admins.length <= 1) throw new AppError('conflict', 'A workspace keeps at least one admin');
    if (change === 'remove') await tx.member.delete({ where: { id: member.id } });
    else await tx.member.update({ where: { id: member.id }, data: { role: change.role } });
  });
}

export async function setMemberRole(db: Db, args: { workspaceId: string; memberId: string; role: MemberRole }): Promise<void> {
  await changeMember(db, args, { role: args.role });
}

/** Removes the member; their sessions and links go with them. A role change applies at the next request (sessions read it). */
export async function removeMember(db: Db, args: { workspaceId: string; memberId: string }): Promise<void> {
  await changeMember(db, args, 'remove');
}
