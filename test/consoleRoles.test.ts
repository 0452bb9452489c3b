import type { Browser, BrowserContext, Page } from 'playwright-core';
import { stringify as toYaml } from 'yaml';
import { createMailer, setSecret } from '@svc/domain';
import { clientAddresses, consoleRouter, MEMBER_WRITES } from '@svc/gateway';
import { launchChromium } from './helpers/browser';
import { member, signInAs } from './helpers/console';
import { waitFor } from './helpers/fixtures';
import { startHttpsReceiver, testCertificate } from './helpers/httpsReceiver';
import type { HttpsReceiver } from './helpers/httpsReceiver';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import type { Tenant } from './helpers/tenants';

// Console roles: a `member` reads everything, starts and cancels runs and decides reviews; every
// other write is refused (403, nothing changed) and its controls are not shown.
let stack: TestStack;
let browser: Browser;
let receiver: HttpsReceiver;
let ws: Tenant;
let admin: BrowserContext;
let adminPage: Page;
let memberCtx: BrowserContext;
let memberPage: Page;
const tag = Math.random().toString(36).slice(2, 8);
const ADMIN = `root-${tag}@example.test`;
const MEMBER = `mia-${tag}@example.test`;
const TOKEN = `tok-${tag}-do-not-leak`;

const greet = {
  name: 'Greet',
  slug: 'greet',
  steps: [{ key: 'shape', type: 'transform', expression: "'Hello, ' & input.name" }],
};
const review = {
  name: 'Approve',
  slug: 'approve',
  steps: [
    { key: 'check', type: 'review', title: 'Approve it' },
    { key: 'done', type: 'transform', expression: "'approved'" },
  ],
};

async function csrfOf(page: Page): Promise<string> {
  await page.goto(`${stack.url}/console/runs`);
  return page.locator('input[name="_csrf"]').first().inputValue();
}

/** A form post of a signed-in page's session (its cookie and its own CSRF token), redirects not followed. */
async function post(page: Page, path: string, form: Record<string, string> = {}): Promise<number> {
  const res = await page.request.post(`${stack.url}/console${path}`, { form: { _csrf: await csrfOf(page), ...form }, maxRedirects: 0 });
  return res.status();
}

/** Everything in the workspace an admin-only write could change, read back from the database. */
async function workspaceState() {
  const { prisma } = stack.db;
  const where = { workspaceId: ws.workspaceId };
  const endpoints = await prisma.webhookEndpoint.findMany({ where, orderBy: { id: 'asc' } });
  return {
    workflows: await prisma.workflow.findMany({
      where,
      select: { id: true, slug: true, version: true, archivedAt: true, triggerEnabled: true },
      orderBy: { id: 'asc' },
    }),
    versions: await prisma.workflowVersion.count({ where: { workflow: where } }),
    keys: await prisma.apiKey.findMany({ where, select: { id: true, name: true, revokedAt: true }, orderBy: { id: 'asc' } }),
    endpoints: endpoints.map((e) => [e.id, e.url, e.description, e.eventTypes, e.status, e.secretEnc, e.previousSecretEnc]),
    deliveries: await prisma.webhookDelivery.findMany({ where, select: { id: true, generation: true }, orderBy: { id: 'asc' } }),
    events: await prisma.event.count({ where }),
    secrets: await prisma.secret.findMany({ where, select: { name: true, valueEnc: true }, orderBy: { name: 'asc' } }),
    members: await prisma.member.findMany({ where, select: { id: true, role: true }, orderBy: { id: 'asc' } }),
    runs: await prisma.run.count({ where }),
  };
}

const firstEndpoint = () => stack.db.prisma.webhookEndpoint.findFirstOrThrow({ where: { workspaceId: ws.workspaceId } });
const invited = () => stack.db.prisma.member.findUniqueOrThrow({ where: { email: `ned-${tag}@example.test` } });
const greetWorkflow = () => stack.db.prisma.workflow.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, slug: 'greet' } });
const editedGreet = (greeting: string) => toYaml({ ...greet, steps: [{ ...greet.steps[0], expression: `'${greeting}, ' & input.name` }] });

/**
 * Every admin-only write of the console, by its route: the path to post and its form. Each
 * entry is posted by the member (403, nothing changed), then by the admin (it works), in order.
 */
const ADMIN_WRITES: Record<string, () => Promise<{ path: string; form: Record<string, string> }>> = {
  '/workflows': async () => ({ path: '/workflows', form: { definition: toYaml({ ...greet, slug: 'greet-two' }) } }),
  '/workflows/:id': async () => ({ path: `/workflows/${(await greetWorkflow()).id}`, form: { definition: editedGreet('Hi') } }),
  '/keys': async () => ({ path: '/keys', form: { name: 'ci', scopes: 'runs:read' } }),
  '/keys/:id/revoke': async () => {
    const key = await stack.db.prisma.apiKey.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, name: 'ci' } });
    return { path: `/keys/${key.id}/revoke`, form: {} };
  },
  '/endpoints': async () => ({
    path: '/endpoints',
    form: { url: `${receiver.origin}/hook`, event_types: 'run.failed', description: 'ops' },
  }),
  '/endpoints/:id': async () => ({
    path: `/endpoints/${(await firstEndpoint()).id}`,
    form: { url: `${receiver.origin}/hook`, event_types: 'run.failed', description: 'changed' },
  }),
  '/endpoints/:id/disable': async () => ({ path: `/endpoints/${(await firstEndpoint()).id}/disable`, form: {} }),
  '/endpoints/:id/enable': async () => ({ path: `/endpoints/${(await firstEndpoint()).id}/enable`, form: {} }),
  '/endpoints/:id/rotate': async () => ({ path: `/endpoints/${(await firstEndpoint()).id}/rotate`, form: {} }),
  '/endpoints/:id/test': async () => ({ path: `/endpoints/${(await firstEndpoint()).id}/test`, form: { type: 'run.failed' } }),
  '/endpoints/:id/deliveries/:delivery/retry': async () => {
    const d = await stack.db.prisma.webhookDelivery.findFirstOrThrow({ where: { workspaceId: ws.workspaceId } });
    return { path: `/endpoints/${d.endpointId}/deliveries/${d.id}/retry`, form: {} };
  },
  '/workspace/secrets': async () => ({ path: '/workspace/secrets', form: { name: 'OTHER_TOKEN', value: 'other-value' } }),
  '/workspace/secrets/:name/delete': async () => ({ path: '/workspace/secrets/OTHER_TOKEN/delete', form: {} }),
  '/workflows/:id/archive': async () => ({ path: `/workflows/${(await greetWorkflow()).id}/archive`, form: {} }),
  '/workflows/:id/restore': async () => ({ path: `/workflows/${(await greetWorkflow()).id}/restore`, form: {} }),
  '/workflows/:id/trigger/:state': async () => ({ path: `/workflows/${(await greetWorkflow()).id}/trigger/off`, form: {} }),
  '/workspace/members': async () => ({ path: '/workspace/members', form: { email: `ned-${tag}@example.test`, role: 'member' } }),
  '/workspace/members/:id/role': async () => ({ path: `/workspace/members/${(await invited()).id}/role`, form: { role: 'admin' } }),
  '/workspace/members/:id/remove': async () => ({ path: `/workspace/members/${(await invited()).id}/remove`, form: {} }),
};

/** Admin-only posts that change nothing (Validate checks a definition without saving it). */
const ADMIN_CHECKS: Record<string, () => Promise<{ path: string; form: Record<string, string> }>> = {
  '/workflows/validate': async () => ({ path: '/workflows/validate', form: { definition: editedGreet('Hey') } }),
};

/** Writes of the sign-in pages, before any session (or the session's own sign-out). */
const SESSION_WRITES = ['/sign-in', '/sign-in/link', '/link/:token', '/sign-out'];

/** The console router's routes for every method but GET and HEAD, as `POST /path`, walked from express's own stack. */
function writeRoutes(): Set<string> {
  const mailer = createMailer({ from: 'svc <no-reply@test>', logger: { info() {}, warn() {} } });
  const router = consoleRouter({ ...stack.gatewayDeps, mailer, addresses: clientAddresses([]), live: stack.gatewayDeps.live! });
  type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle: { stack?: Layer[] } };
  const found = new Set<string>();
  const walk = (layers: Layer[]) => {
    for (const layer of layers) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods)) {
          if (method !== 'get' && method !== 'head') found.add(`${method.toUpperCase()} ${layer.route.path}`);
        }
      } else if (layer.handle.stack) walk(layer.handle.stack);
    }
  };
  walk((router as unknown as { stack: Layer[] }).stack);
  return found;
}

/** The routes a form action names: express's `:param` as one path segment. */
const matches = (route: string, action: string) => new RegExp(`^/console${route.replace(/:[a-z]+/g, '[^/]+')}$`).test(action);

beforeAll(async () => {
  stack = await startStack({
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    OUTBOUND_CA_FILE: testCertificate().certFile,
    WEBHOOK_DISPATCH_INTERVAL_MS: '200',
  });
  receiver = await startHttpsReceiver();
  receiver.setHandler((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  ws = await stack.tenant();
  await stack.apply(ws.workspaceId, greet);
  await setSecret(stack.db.prisma, stack.box, { workspaceId: ws.workspaceId, name: 'API_TOKEN', value: TOKEN });
  await member(stack, ws.workspaceId, ADMIN, 'admin');
  await member(stack, ws.workspaceId, MEMBER, 'member');
  browser = await launchChromium();
  admin = await browser.newContext();
  adminPage = await admin.newPage();
  expect(await signInAs(adminPage, stack.url, ADMIN)).toBe(200);
  memberCtx = await browser.newContext();
  memberPage = await memberCtx.newPage();
  expect(await signInAs(memberPage, stack.url, MEMBER)).toBe(200);
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await stack?.stop();
});

describe('console roles', () => {
  it('knows every write route of the console: sign-in, member-allowed, or admin-only', () => {
    const expected = [...SESSION_WRITES, ...MEMBER_WRITES, ...Object.keys(ADMIN_WRITES), ...Object.keys(ADMIN_CHECKS)].map(
      (p) => `POST ${p}`,
    );
    expect([...writeRoutes()].sort()).toEqual([...new Set(expected)].sort());
  });

  it("refuses every admin-only write to a member with a 403 page that changes nothing; the admin's same post works", async () => {
    for (const [route, prepare] of Object.entries(ADMIN_WRITES)) {
      const { path, form } = await prepare();
      const before = await workspaceState();
      const refused = await memberPage.request.post(`${stack.url}/console${path}`, {
        form: { _csrf: await csrfOf(memberPage), ...form },
        maxRedirects: 0,
      });
      expect([route, refused.status()]).toEqual([route, 403]);
      expect(await refused.text()).toContain('Only workspace admins can do this');
      expect([route, await workspaceState()]).toEqual([route, before]);

      const status = await post(adminPage, path, form);
      expect([route, status < 400]).toEqual([route, true]);
      expect([route, await workspaceState()]).not.toEqual([route, before]);
    }
    for (const [route, prepare] of Object.entries(ADMIN_CHECKS)) {
      const { path, form } = await prepare();
      const refused = await memberPage.request.post(`${stack.url}/console${path}`, {
        form: { _csrf: await csrfOf(memberPage), ...form },
        maxRedirects: 0,
      });
      expect([route, refused.status()]).toEqual([route, 403]);
      expect([route, await post(adminPage, path, form)]).toEqual([route, 200]);
    }
    // What the admin's posts did, read back: a workflow edited, archived and restored, its trigger
    // off; a key revoked; a secret added and deleted; a member invited, made admin and removed.
    const greetNow = await greetWorkflow();
    expect([greetNow.version, greetNow.archivedAt, greetNow.triggerEnabled]).toEqual([2, null, false]);
    expect(await stack.db.prisma.member.count({ where: { email: `ned-${tag}@example.test` } })).toBe(0);
    expect(
      (await stack.db.prisma.apiKey.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, name: 'ci' } })).revokedAt,
    ).not.toBeNull();
    expect((await workspaceState()).secrets.map((s) => s.name)).toEqual(['API_TOKEN']);
  });

  it('refuses a member the workflow editor page, and shows a member no control but the ones members may use', async () => {
    const wf = await greetWorkflow();
    const endpoint = await firstEndpoint();
    const delivery = await stack.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } });
    const pages = [
      '/console/runs',
      '/console/reviews',
      '/console/workflows',
      `/console/workflows/${wf.id}`,
      '/console/keys',
      '/console/endpoints',
      `/console/endpoints/${endpoint.id}`,
      `/console/endpoints/${endpoint.id}/deliveries/${delivery.id}`,
      '/console/workspace',
    ];
    const formActions = async (page: Page) => {
      const actions: string[] = [];
      for (const path of pages) {
        expect((await page.goto(stack.url + path))!.status()).toBe(200);
        actions.push(...(await page.locator('form[method="post"]').evaluateAll((forms) => forms.map((f) => f.getAttribute('action')!))));
      }
      return actions;
    };
    const memberWrite = (action: string) => action === '/console/sign-out' || MEMBER_WRITES.some((route) => matches(route, action));
    // The admin's pages carry the admin-only forms, so the same walk would find them on the member's.
    expect((await formActions(adminPage)).filter((a) => !memberWrite(a))).toEqual(
      expect.arrayContaining([
        `/console/workflows/${wf.id}`,
        '/console/keys',
        '/console/endpoints',
        `/console/endpoints/${endpoint.id}`,
        `/console/endpoints/${endpoint.id}/rotate`,
        `/console/endpoints/${endpoint.id}/deliveries/${delivery.id}/retry`,
        '/console/workspace/secrets',
      ]),
    );
    const shown = await formActions(memberPage);
    expect(shown.filter((a) => !memberWrite(a))).toEqual([]);
    expect(shown).toContain(`/console/workflows/${wf.id}/runs`);

    await memberPage.goto(`${stack.url}/console/workflows`);
    expect(await memberPage.locator('a[href^="/console/workflows/new"]').count()).toBe(0);
    const editor = await memberPage.goto(`${stack.url}/console/workflows/new?template=http`);
    expect(editor!.status()).toBe(403);
    expect(await memberPage.getByLabel('Definition (YAML or JSON)').count()).toBe(0);
  });

  it('lets a member start a test run of the stored definition, cancel a run and decide a review', async () => {
    const wf = await greetWorkflow();
    const stored = (await stack.db.prisma.workflow.findUniqueOrThrow({ where: { id: wf.id } })).version;
    await memberPage.goto(`${stack.url}/console/workflows/${wf.id}`);
    await memberPage.getByLabel('Input (JSON object)').fill('{"name": "Ada"}');
    await Promise.all([memberPage.waitForURL('**/console/runs/run_*'), memberPage.getByRole('button', { name: 'Start run' }).click()]);
    const runId = new URL(memberPage.url()).pathname.split('/').pop()!;
    const run = await waitFor(
      () => stack.db.prisma.run.findUniqueOrThrow({ where: { id: runId } }),
      (r) => r.status === 'succeeded',
    );
    expect([run.workflowVersion, run.output]).toEqual([stored, 'Hi, Ada']);

    const flow = await stack.apply(ws.workspaceId, review);
    const start = () => stack.api('POST', `/api/v1/workflows/${flow.id}/runs`, { key: ws.key, body: { input: {}, wait: true } });
    const [toDecide, toCancel] = [await start(), await start()];
    expect([toDecide.body.status, toCancel.body.status]).toEqual(['waiting_for_review', 'waiting_for_review']);
    expect(await post(memberPage, `/runs/${toDecide.body.id}/review`, { decision: 'approve' })).toBe(303);
    expect(await post(memberPage, `/runs/${toCancel.body.id}/cancel`)).toBe(303);
    const settled = (id: string) =>
      waitFor(
        async () => (await stack.api('GET', `/api/v1/runs/${id}`, { key: ws.key })).body.status,
        (s) => s === 'succeeded' || s === 'cancelled',
      );
    expect([await settled(toDecide.body.id), await settled(toCancel.body.id)]).toEqual(['succeeded', 'cancelled']);
    expect((await stack.db.prisma.review.findFirstOrThrow({ where: { runId: toDecide.body.id } })).decidedBy).toBe(MEMBER);
  });

  it('stops a member reading the workspace secrets through a workflow: no new or edited workflow that reads one', async () => {
    const stealByHeader = toYaml({
      name: 'Steal',
      slug: `steal-${tag}`,
      steps: [
        {
          key: 'send',
          type: 'http',
          method: 'GET',
          url: `${receiver.origin}/steal`,
          headers: { Authorization: 'Bearer {{ secrets.API_TOKEN }}' },
        },
      ],
    });
    const wf = await greetWorkflow();
    const stealByTransform = toYaml({
      ...greet,
      steps: [{ key: 'shape', type: 'transform', expression: '$base64encode(secrets.API_TOKEN)' }],
    });
    const before = await workspaceState();

    expect(await post(memberPage, '/workflows', { definition: stealByHeader })).toBe(403);
    expect(await post(memberPage, `/workflows/${wf.id}`, { definition: stealByTransform })).toBe(403);
    // A test run takes the input only: a definition posted with it is not read.
    expect(await post(memberPage, `/workflows/${wf.id}/runs`, { input: '{"name":"Bo"}', definition: stealByTransform })).toBe(303);
    const run = await waitFor(
      () => stack.db.prisma.run.findFirstOrThrow({ where: { workflowId: wf.id, input: { equals: { name: 'Bo' } } } }),
      (r) => r.status === 'succeeded',
    );
    expect(run.output).toBe('Hi, Bo');

    const after = await workspaceState();
    // Only the test run and its run.succeeded event are new.
    expect({ ...after, runs: 0, events: 0 }).toEqual({ ...before, runs: 0, events: 0 });
    expect([after.runs - before.runs, after.events - before.events]).toEqual([1, 1]);
    expect(await stack.db.prisma.workflow.count({ where: { workspaceId: ws.workspaceId, slug: `steal-${tag}` } })).toBe(0);
    const where = { workspaceId: ws.workspaceId };
    const everything = JSON.stringify([
      await stack.db.prisma.run.findMany({ where, select: { input: true, output: true, error: true } }),
      await stack.db.prisma.runStep.findMany({ where: { run: where }, select: { output: true, error: true } }),
    ]);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(Buffer.from(TOKEN).toString('base64'));
    expect(receiver.requests.filter((r) => r.path === '/steal')).toEqual([]);

    // The same definitions are valid: the admin may save them, so the role alone refused the member.
    expect(await post(adminPage, '/workflows', { definition: stealByHeader })).toBe(303);
    expect(await post(adminPage, `/workflows/${wf.id}`, { definition: stealByTransform })).toBe(303);
    expect((await greetWorkflow()).version).toBe(3);
  });
});
