import type { Page } from 'playwright-core';
import { addMember, createMailer, setMemberPassword } from '@svc/domain';
import type { TestStack } from './stack';

export const PASSWORD = 'correct horse battery';

/** A member with a password (as after accepting the invitation), through the domain like `svc members add`. */
export async function member(stack: TestStack, workspaceId: string, email: string, role: 'admin' | 'member'): Promise<void> {
  const mailer = createMailer({ from: 'svc <no-reply@test>', logger: { info() {}, warn() {} } });
  const { member: m } = await addMember({ prisma: stack.db.prisma, mailer }, { workspaceId, email, role, baseUrl: stack.url });
  await setMemberPassword(stack.db.prisma, m.id, PASSWORD);
}

export async function signInAs(page: Page, url: string, email: string, password = PASSWORD): Promise<number> {
  await page.goto(`${url}/console/sign-in`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password').fill(password);
  const [response] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
  return response!.status();
}
