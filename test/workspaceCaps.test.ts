import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import YAML from 'yaml';
import { AppError, setSecret, setWorkspacePlan } from '@svc/domain';
import { launchChromium } from './helpers/browser';
import { svcCli } from './helpers/cli';
import { member, signInAs } from './helpers/console';
import type { HttpAnswer } from './helpers/http';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import type { Tenant } from './helpers/tenants';

/**
 * The per-workspace caps (webhook endpoints, secrets, assignees per review step): one workspace
 * driven to its cap, and past it concurrently, while another workspace goes on creating.
 */

let stack: TestStack;
let dir: string;
beforeAll(async () => {
  stack = await startStack();
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-caps-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await stack?.stop();
});

function expectLimitExceeded(r: HttpAnswer, limit: string, figure: number) {
  expect(r.status).toBe(422);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({
    status: 422,
    code: 'limit_exceeded',
    type: expect.stringContaining('limit-exceeded'),
    limit,
    limit_value: figure,
  });
}

/** A CLI failure printed with --json: its error object. */
function cliError(r: { code: number; stderr: string }) {
  expect(r.code).not.toBe(0);
  return JSON.parse(r.stderr.trim().split('\n').pop()!).error;
}

describe('webhook endpoints', () => {
  const create = (t: Tenant, n: number) =>
    stack.api('POST', '/api/v1/webhook-endpoints', {
      key: t.key,
      body: { url: `https://hooks.example.com/${n}`, event_types: ['run.succeeded'] },
    });
  const held = (t: Tenant) => stack.db.prisma.webhookEndpoint.count({ where: { workspaceId: t.workspaceId } });

  it('stops at 50 however many creates race at 49, creating nothing more, while another workspace creates', async () => {
    const a = await stack.tenant();
    const b = await stack.tenant();
    for (let i = 0; i < 49; i++) expect((await create(a, i)).status).toBe(201);

    // Eight creates for the last place at once, with another workspace's create among them.
    const [raced, beside] = await Promise.all([Promise.all(Array.from({ length: 8 }, (_, i) => create(a, 100 + i))), create(b, 0)]);
    expect(raced.filter((r) => r.status === 201)).toHaveLength(1);
    const refused = raced.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(7);
    for (const r of refused) expectLimitExceeded(r, 'webhook_endpoints', 50);
    expect(await held(a)).toBe(50);
    expect(beside.status).toBe(201);

    // At the cap: refused, and the list read back still holds 50.
    expectLimitExceeded(await create(a, 200), 'webhook_endpoints', 50);
    const listed = await stack.api('GET', '/api/v1/webhook-endpoints?limit=100', { key: a.key });
    expect(listed.body.data).toHaveLength(50);
    expect(listed.body.data.some((e: { url: string }) => e.url.endsWith('/200'))).toBe(false);

    // Deleting one makes room for exactly one.
    expect((await stack.api('DELETE', `/api/v1/webhook-endpoints/${listed.body.data[0].id}`, { key: a.key })).status).toBe(204);
    expect((await create(a, 300)).status).toBe(201);
    expectLimitExceeded(await create(a, 301), 'webhook_endpoints', 50);

    // The other workspace is untouched by all of it.
    for (let i = 1; i < 5; i++) expect((await create(b, i)).status).toBe(201);
    expect(await held(b)).toBe(5);
  });

  it("applies an enterprise workspace's own figure, set with `svc workspace set-plan`", async () => {
    const a = await stack.tenant();
    const set = await svcCli(['workspace', 'set-plan', a.workspaceId, 'enterprise', '--webhook-endpoints', '2', '--json']);
    expect(set.code).toBe(0);
    expect(set.json()).toMatchObject({ plan: 'enterprise', max_webhook_endpoints: 2, max_secrets: null, max_review_assignees: null });
    expect((await create(a, 1)).status).toBe(201);
    expect((await create(a, 2)).status).toBe(201);
    expectLimitExceeded(await create(a, 3), 'webhook_endpoints', 2);
    expect(await held(a)).toBe(2);

    // Only for enterprise, and never past the ceiling.
    expect(cliError(await svcCli(['workspace', 'set-plan', a.workspaceId, 'pro', '--secrets', '5', '--json']))).toMatchObject({
      code: 'validation_failed',
    });
    expect(cliError(await svcCli(['workspace', 'set-plan', a.workspaceId, 'enterprise', '--secrets', '5000', '--json']))).toMatchObject({
      code: 'validation_failed',
    });
  });
});

describe('secrets', () => {
  const names = (t: Tenant) =>
    stack.db.prisma.secret.findMany({ where: { workspaceId: t.workspaceId }, select: { name: true } }).then((r) => r.map((s) => s.name));
  const set = (t: Tenant, name: string, value = 'v') => setSecret(stack.db.prisma, stack.box, { workspaceId: t.workspaceId, name, value });

  it('stops at 100 however many new names race at 99; the CLI refuses the 101st; a replacement and another workspace still pass', async () => {
    const a = await stack.tenant();
    const b = await stack.tenant();
    await Promise.all(Array.from({ length: 99 }, (_, i) => set(a, `S${i}`)));

    const raced = await Promise.allSettled([...Array.from({ length: 8 }, (_, i) => set(a, `RACE${i}`)), set(b, 'BESIDE')]);
    const ofA = raced.slice(0, 8);
    expect(ofA.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of ofA.filter((x) => x.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(AppError);
      expect((r as PromiseRejectedResult).reason).toMatchObject({
        code: 'limit_exceeded',
        extensions: { limit: 'secrets', limit_value: 100 },
      });
    }
    expect(raced[8].status).toBe('fulfilled');
    expect(await names(a)).toHaveLength(100);

    // Through the CLI: a new name is refused and not stored; a value replaced at the cap is fine.
    const refused = await svcCli(['secrets', 'set', '--workspace', a.workspaceId, 'ONE_MORE', '--json'], {}, 'x');
    expect(cliError(refused)).toMatchObject({ code: 'limit_exceeded', limit: 'secrets', limit_value: 100 });
    expect(await names(a)).not.toContain('ONE_MORE');
    expect((await svcCli(['secrets', 'set', '--workspace', a.workspaceId, 'S0', '--json'], {}, 'new value')).code).toBe(0);
    expect(await names(a)).toHaveLength(100);

    const beside = await svcCli(['secrets', 'set', '--workspace', b.workspaceId, 'SECOND', '--json'], {}, 'y');
    expect(beside.code).toBe(0);
    expect((await names(b)).sort()).toEqual(['BESIDE', 'SECOND']);
  });

  it('refuses a value over 64 KiB, and takes one of exactly 64 KiB', async () => {
    const a = await stack.tenant();
    await expect(set(a, 'BIG', 'x'.repeat(64 * 1024 + 1))).rejects.toMatchObject({ code: 'validation_failed' });
    await set(a, 'BIG', 'x'.repeat(64 * 1024));
    expect(await names(a)).toEqual(['BIG']);
  });
});

describe('assignees per review step', () => {
  const people = (n: number) => Array.from({ length: n }, (_, i) => `person${i}@example.test`);
  const review = (slug: string, assignees: string[]) => ({
    name: 'Approve',
    slug,
    steps: [
      { key: 'shape', type: 'transform', expression: "'ok'" },
      { key: 'check', type: 'review', title: 'Approve?', assignees },
    ],
  });
  const apply = (t: Tenant, doc: unknown) => {
    const file = path.join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, YAML.stringify(doc));
    return svcCli(['workflows', 'apply', '--workspace', t.workspaceId, '-f', file, '--json']);
  };

  it('refuses 11 at apply, at the step, creating and changing nothing; 10 pass; an enterprise figure counts', async () => {
    const a = await stack.tenant();
    const eleven = cliError(await apply(a, review('eleven', people(11))));
    expect(eleven).toMatchObject({ code: 'limit_exceeded', limit: 'review_assignees', limit_value: 10 });
    expect(eleven.errors).toEqual([{ path: 'steps[1].assignees', message: expect.stringContaining('at most 10') }]);
    expect(await stack.db.prisma.workflow.count({ where: { workspaceId: a.workspaceId } })).toBe(0);

    const ten = await apply(a, review('ten', people(10)));
    expect(ten.code).toBe(0);
    // An update to 11 leaves the workflow at its version.
    expect(cliError(await apply(a, review('ten', people(11))))).toMatchObject({ code: 'limit_exceeded' });
    expect((await stack.db.prisma.workflow.findFirstOrThrow({ where: { id: ten.json().id } })).version).toBe(1);

    await setWorkspacePlan(stack.db.prisma, a.workspaceId, { plan: 'enterprise', maxReviewAssignees: 12 });
    expect((await apply(a, review('eleven', people(11)))).code).toBe(0);
    expect(cliError(await apply(a, review('thirteen', people(13))))).toMatchObject({ limit_value: 12 });
  });
});

describe('the console', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("refuses, with 422, a definition over the assignees cap in the editor and a secret over the workspace's cap", async () => {
    const a = await stack.tenant();
    await setWorkspacePlan(stack.db.prisma, a.workspaceId, { plan: 'enterprise', maxSecrets: 1 });
    const email = `caps-${Math.random().toString(36).slice(2, 8)}@example.test`;
    await member(stack, a.workspaceId, email, 'admin');
    // Without JavaScript the editor is the plain textarea the form posts.
    const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    expect(await signInAs(page, stack.url, email)).toBe(200);

    await page.goto(`${stack.url}/console/workflows/new?template=transform`);
    const doc = {
      name: 'Approve',
      slug: 'approve',
      steps: [{ key: 'check', type: 'review', title: 'Approve?', assignees: Array.from({ length: 11 }, (_, i) => `p${i}@example.test`) }],
    };
    await page.getByLabel('Definition (YAML or JSON)').fill(YAML.stringify(doc));
    const [refusedDefinition] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Save', exact: true }).click(),
    ]);
    expect(refusedDefinition!.status()).toBe(422);
    await expect(page.locator('#problems').innerText()).resolves.toMatch(/steps\[0\]\.assignees.*at most 10/);
    expect(await stack.db.prisma.workflow.count({ where: { workspaceId: a.workspaceId } })).toBe(0);

    const saveSecret = async (name: string) => {
      await page.goto(`${stack.url}/console/workspace`);
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByLabel('Value (set or replace; never shown back)').fill('value');
      const [answer] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Save secret' }).click()]);
      return answer!.status();
    };
    expect(await saveSecret('FIRST')).toBe(200);
    expect(await saveSecret('SECOND')).toBe(422);
    await expect(page.locator('main').innerText()).resolves.toContain('its cap of secrets (1)');
    expect((await stack.db.prisma.secret.findMany({ where: { workspaceId: a.workspaceId } })).map((s) => s.name)).toEqual(['FIRST']);
  });
});
