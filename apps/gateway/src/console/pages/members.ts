import { Router } from 'express';
import type { Response } from 'express';
import { addMember, AppError, MEMBER_ROLES, removeMember, setMemberRole } from '@svc/domain';
import type { ConsoleSessionView, MemberRole, MemberView } from '@svc/domain';
import type { ConsoleDeps } from '../deps';
import { html } from '../html';
import type { Safe } from '../html';
import { isAdmin } from '../roles';
import { refusal } from '../session';
import { time } from '../time';

/** The members table of the workspace page; admins invite, change roles and remove here. */
export function membersSection(members: MemberView[], s: ConsoleSessionView): Safe {
  const admin = isAdmin(s);
  const csrf = html`<input type="hidden" name="_csrf" value="${s.csrfToken}" />`;
  return html`<section>
    <h2>Members</h2>
    <div class="table-wrap">
      <table class="members stack">
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Joined</th>
            ${admin ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${members.map(
            (m) =>
              html`<tr class="member" data-email="${m.email}">
                <td>${m.email}</td>
                <td>
                  ${
                    admin
                      ? html`<form method="post" action="/console/workspace/members/${m.id}/role" class="row">
                          ${csrf}
                          <label class="visually-hidden" for="role-${m.id}">Role of ${m.email}</label>
                          <select id="role-${m.id}" name="role">
                            ${MEMBER_ROLES.map((r) => html`<option ${r === m.role ? 'selected' : ''}>${r}</option>`)}
                          </select>
                          <button type="submit" class="secondary" aria-label="Change role of ${m.email}">Change</button>
                        </form>`
                      : m.role
                  }
                </td>
                <td>${m.has_password ? time(m.created_at) : 'invited'}</td>
                ${
                  admin
                    ? html`<td>
                        <form method="post" action="/console/workspace/members/${m.id}/remove">
                          ${csrf}<button type="submit" class="danger" aria-label="Remove ${m.email}">Remove</button>
                        </form>
                      </td>`
                    : ''
                }
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${
      admin
        ? html`<form method="post" action="/console/workspace/members" class="filters">
            ${csrf}
            <div><label for="invite-email">Invite by email</label><input id="invite-email" name="email" type="email" required /></div>
            <div>
              <label for="invite-role">Role</label
              ><select id="invite-role" name="role">
                ${MEMBER_ROLES.map((r) => html`<option ${r === 'member' ? 'selected' : ''}>${r}</option>`)}
              </select>
            </div>
            <div><button type="submit">Send invitation</button></div>
          </form>`
        : html`<p class="muted">Workspace admins invite and manage members.</p>`
    }
  </section>`;
}

/** Invite (a mailed one-time link), change a role, remove: admins only, the last admin kept. */
export function memberPages(deps: ConsoleDeps): Router {
  const r = Router();
  const notDone = (res: Response, s: ConsoleSessionView, err: unknown) => {
    if (err instanceof AppError && err.status < 500 && err.status !== 404) return refusal(res, err.status, 'Not done', err.message, s);
    throw err;
  };
  const role = (v: unknown): MemberRole | null =>
    (MEMBER_ROLES as readonly string[]).includes(String(v)) ? (String(v) as MemberRole) : null;

  r.post('/workspace/members', async (req, res) => {
    const s = req.consoleSession!;
    const body = req.body as Record<string, unknown>;
    try {
      await addMember(
        { prisma: deps.prisma, mailer: deps.mailer },
        {
          workspaceId: s.workspaceId,
          email: String(body.email ?? '').slice(0, 320),
          role: String(body.role ?? ''),
          baseUrl: deps.config.BASE_URL,
        },
      );
    } catch (err) {
      return notDone(res, s, err);
    }
    res.redirect(303, '/console/workspace');
  });

  r.post('/workspace/members/:id/role', async (req, res) => {
    const s = req.consoleSession!;
    const next = role((req.body as Record<string, unknown>).role);
    if (!next) return refusal(res, 400, 'Not done', 'A role is admin or member.', s);
    try {
      await setMemberRole(deps.prisma, { workspaceId: s.workspaceId, memberId: String(req.params.id), role: next });
    } catch (err) {
      return notDone(res, s, err);
    }
    res.redirect(303, '/console/workspace');
  });

  r.post('/workspace/members/:id/remove', async (req, res) => {
    const s = req.consoleSession!;
    try {
      await removeMember(deps.prisma, { workspaceId: s.workspaceId, memberId: String(req.params.id) });
    } catch (err) {
      return notDone(res, s, err);
    }
    // Removing oneself ends one's own session with the membership.
    res.redirect(303, String(req.params.id) === s.memberId ? '/console/sign-in' : '/console/workspace');
  });
  return r;
}
