import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { addMember, createMailer } from '@svc/domain';
import { launchChromium } from './helpers/browser';
import { member, PASSWORD, signInAs } from './helpers/console';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { startSmtpSink } from './helpers/smtpSink';
import { waitFor } from './helpers/fixtures';
import { call } from './helpers/http';
import { ROOT } from './helpers/processes';
import { startHttpsReceiver, testCertificate } from './helpers/httpsReceiver';
import type { HttpsReceiver } from './helpers/httpsReceiver';
import type { Tenant } from './helpers/tenants';

let stack: TestStack;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let browser: Browser;
let receiver: HttpsReceiver;
let ws: Tenant;
let other: Tenant;
let admin: BrowserContext;
let adminPage: Page;
const tag = Math.random().toString(36).slice(2, 8);
const ADMIN = `admin-${tag}@example.test`;

const reviewFlow = {
  name: 'Payout <b>',
  slug: 'payout',
  steps: [
    { key: 'check', type: 'review', title: 'Approve the payout', instructions: 'Look at <script>x</script> the amount', data: 'input' },
    { key: 'pay', type: 'transform', expression: "'paid'" },
  ],
};

beforeAll(async () => {
  smtp = await startSmtpSink();
  stack = await startStack({
    SMTP_URL: smtp.url,
    // The loopback webhook receiver of this test and its self-signed CA; quick retries.
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    OUTBOUND_CA_FILE: testCertificate().certFile,
    WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,600ms',
    WEBHOOK_DISPATCH_INTERVAL_MS: '200',
  });
  receiver = await startHttpsReceiver();
  ws = await stack.tenant();
  other = await stack.tenant();
  await member(stack, ws.workspaceId, ADMIN, 'admin');
  browser = await launchChromium();
  admin = await browser.newContext();
  adminPage = await admin.newPage();
  expect(await signInAs(adminPage, stack.url, ADMIN)).toBe(200);
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await stack?.stop();
  await smtp?.close();
});

describe('console sign-in', () => {
  it('signs in with a password into an HttpOnly, SameSite=Lax session, and signs out for good', async () => {
    const email = `ana-${tag}@example.test`;
    await member(stack, ws.workspaceId, email, 'member');
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    expect(await signInAs(page, stack.url, email)).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/console/runs');
    await expect(page.locator('.who').innerText()).resolves.toContain(email);
    const cookie = (await ctx.cookies()).find((c) => c.name === 'svc_console')!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Lax');
    expect(cookie.secure).toBe(false); // http here; Secure over https

    // The session cookie is worthless on the API, and the console refuses API keys.
    const onApi = await call(`${stack.url}/api/v1/runs/run_x`, { headers: { cookie: `svc_console=${cookie.value}` } });
    expect(onApi.status).toBe(401);
    const keyOnConsole = await call(`${stack.url}/console/runs`, { headers: { authorization: `Bearer ${ws.key}` } });
    expect(keyOnConsole.status).toBe(401);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/console/sign-in');
    // The old cookie value no longer opens anything (the session is revoked on the server).
    const replay = await call(`${stack.url}/console/runs`, { headers: { cookie: `svc_console=${cookie.value}` } });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/console/sign-in');
    await ctx.close();
  });

  it('signs out everywhere: every session of the member ends at once', async () => {
    const email = `eve-${tag}@example.test`;
    await member(stack, ws.workspaceId, email, 'member');
    const [a, b] = [await browser.newContext(), await browser.newContext()];
    const [pa, pb] = [await a.newPage(), await b.newPage()];
    expect(await signInAs(pa, stack.url, email)).toBe(200);
    expect(await signInAs(pb, stack.url, email)).toBe(200);
    await pa.goto(`${stack.url}/console/workspace`);
    await Promise.all([pa.waitForURL('**/console/sign-in'), pa.getByRole('button', { name: 'Sign out everywhere' }).click()]);
    await pb.goto(`${stack.url}/console/runs`);
    expect(new URL(pb.url()).pathname).toBe('/console/sign-in');
    await a.close();
    await b.close();
  });

  it('svc members add and sign-in-link (what npm start prints for the demo admin) give a one-time link into the console', async () => {
    const email = `fay-${tag}@example.test`;
    const svc = (args: string[]) =>
      spawnSync(process.execPath, [path.join(ROOT, 'apps/cli/bin/svc.js'), ...args, '--json'], {
        env: { ...process.env, BASE_URL: stack.url },
        encoding: 'utf8',
      });
    const added = svc(['members', 'add', '--workspace', ws.workspaceId, '--email', email, '--role', 'admin']);
    expect(added.status).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ email, role: 'admin', has_password: false });
    expect(svc(['members', 'add', '--workspace', ws.workspaceId, '--email', email, '--role', 'nobody']).status).not.toBe(0);
    const printed = svc(['members', 'sign-in-link', '--email', email]);
    expect(printed.status).toBe(0);
    const link = JSON.parse(printed.stdout).link as string;
    expect(link.startsWith(`${stack.url}/console/link/`)).toBe(true);
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(link);
    await Promise.all([page.waitForURL('**/console/runs'), page.getByRole('button', { name: 'Sign in' }).click()]);
    await expect(page.locator('.who').innerText()).resolves.toContain(`${email} · admin`);
    expect((await page.goto(link))!.status()).toBe(403);
    await ctx.close();
  });

  it('throttles repeated wrong passwords, even when the right one follows', async () => {
    const email = `ben-${tag}@example.test`;
    await member(stack, ws.workspaceId, email, 'member');
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    for (let i = 0; i < 5; i++) {
      expect(await signInAs(page, stack.url, email, 'wrong password!')).toBe(401);
      await expect(page.getByRole('alert').innerText()).resolves.toContain('Wrong email or password');
    }
    expect(await signInAs(page, stack.url, email, PASSWORD)).toBe(429);
    await expect(page.getByRole('alert').innerText()).resolves.toContain('Too many failed sign-ins');
    expect((await ctx.cookies()).some((c) => c.name === 'svc_console')).toBe(false);
    await ctx.close();
  });

  it('invites by a mailed one-time link that sets the password', async () => {
    const email = `cat-${tag}@example.test`;
    const mailer = createMailer({ smtpUrl: smtp.url, from: 'svc <no-reply@test>', logger: { info() {}, warn() {} } });
    await addMember({ prisma: stack.db.prisma, mailer }, { workspaceId: ws.workspaceId, email, role: 'member', baseUrl: stack.url });
    mailer.close();
    const mail = await waitFor(
      async () => smtp.messages.find((m) => m.to.includes(email)),
      (m) => m !== undefined,
    );
    const decoded = mail!.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
    const link = new RegExp(`${stack.url}/console/link/[A-Za-z0-9_-]+`).exec(decoded)![0];
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(link);
    await page.getByLabel(/New password/).fill('a brand new password');
    await Promise.all([page.waitForURL('**/console/runs'), page.getByRole('button', { name: 'Save and sign in' }).click()]);
    // Spent: the same link does not work twice.
    const again = await page.goto(link);
    expect(again!.status()).toBe(403);
    await ctx.close();
  });
});

describe('console runs and reviews', () => {
  it('shows a run waiting for review; approving it on the page records the member and the run succeeds live', async () => {
    const wf = await stack.apply(ws.workspaceId, reviewFlow);
    const started = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key: ws.key, body: { input: { amount: 5 }, wait: true } });
    expect(started.body.status).toBe('waiting_for_review');
    const runId = started.body.id;

    await adminPage.goto(`${stack.url}/console/runs`);
    await expect(adminPage.locator(`a[href="/console/runs/${runId}"]`).count()).resolves.toBe(1);
    await expect(adminPage.locator('#runs-body').innerText()).resolves.toContain('Payout <b>');

    await adminPage.goto(`${stack.url}/console/reviews`);
    const card = adminPage.locator('section.review', { has: adminPage.locator(`a[href="/console/runs/${runId}"]`) });
    await expect(card.locator('h2').innerText()).resolves.toBe('Approve the payout');
    await card.getByLabel('Comment (optional)').fill('looks right');
    await Promise.all([adminPage.waitForURL(`**/console/runs/${runId}`), card.getByRole('button', { name: 'Approve' }).click()]);

    // The page polls (htmx) until the run ends.
    await adminPage.locator('#run-live .status-succeeded').first().waitFor({ timeout: 30_000 });
    await expect(adminPage.locator('#run-review').innerText()).resolves.toContain(`Decided by ${ADMIN}`);
    await expect(adminPage.locator('tr.step[data-step="pay"] .status').innerText()).resolves.toBe('succeeded');
    const review = await stack.db.prisma.review.findFirstOrThrow({ where: { runId } });
    expect(review.decidedBy).toBe(ADMIN);
    expect(review.comment).toBe('looks right');
    // No inline script was ever injected by the hostile workflow name or instructions.
    expect(await adminPage.locator('script:not([src])').count()).toBe(0);
  });

  it('refuses a form without the session CSRF token, and another workspace’s run', async () => {
    const wf = await stack.apply(ws.workspaceId, { ...reviewFlow, slug: 'payout-csrf' });
    const started = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key: ws.key, body: { input: {}, wait: true } });
    const runId = started.body.id;
    const forged = await adminPage.request.post(`${stack.url}/console/runs/${runId}/cancel`, { form: { _csrf: 'not-the-token' } });
    expect(forged.status()).toBe(403);
    const noToken = await adminPage.request.post(`${stack.url}/console/runs/${runId}/cancel`, { form: {} });
    expect(noToken.status()).toBe(403);
    const still = await stack.api('GET', `/api/v1/runs/${runId}`, { key: ws.key });
    expect(still.body.status).toBe('waiting_for_review');

    // The real page's cancel button does work (same session, its token).
    await adminPage.goto(`${stack.url}/console/runs/${runId}`);
    await Promise.all([adminPage.waitForURL(`**/console/runs/${runId}`), adminPage.getByRole('button', { name: 'Cancel run' }).click()]);
    await adminPage.locator('#run-live .status-cancelled').first().waitFor();

    const foreignWf = await stack.apply(other.workspaceId, { ...reviewFlow, slug: 'foreign' });
    const foreign = await stack.api('POST', `/api/v1/workflows/${foreignWf.id}/runs`, { key: other.key, body: { input: {}, wait: true } });
    const peek = await adminPage.goto(`${stack.url}/console/runs/${foreign.body.id}`);
    expect(peek!.status()).toBe(404);
    await adminPage.goto(`${stack.url}/console/reviews`);
    expect(await adminPage.locator(`a[href="/console/runs/${foreign.body.id}"]`).count()).toBe(0);
  });
});

describe('console keys and workspace', () => {
  it('creates a key shown once, which works on the API until revoked on the page', async () => {
    await adminPage.goto(`${stack.url}/console/keys`);
    await adminPage.getByLabel('Name').fill('ci <deploy>');
    await adminPage.getByLabel('runs:read').check();
    await adminPage.getByLabel('Expires in (e.g. 30d, 12h; empty: never)').fill('30d');
    await Promise.all([adminPage.waitForNavigation(), adminPage.getByRole('button', { name: 'Create key' }).click()]);
    const key = (await adminPage.locator('#new-key').innerText()).trim();
    expect(key).toMatch(/^svc_/);
    const runs = await stack.api('GET', `/api/v1/runs/run_nothere`, { key });
    expect(runs.status).toBe(404); // authenticated, the run just does not exist
    // Shown once: the list never shows it again.
    await adminPage.goto(`${stack.url}/console/keys`);
    expect(await adminPage.content()).not.toContain(key);
    const row = adminPage.locator('tr.key', { hasText: 'ci <deploy>' });
    await expect(row.innerText()).resolves.toContain(`svc_…${key.slice(-4)}`);
    await expect(row.innerText()).resolves.toContain('runs:read');
    await Promise.all([adminPage.waitForNavigation(), row.getByRole('button', { name: /Revoke/ }).click()]);
    const after = await stack.api('GET', `/api/v1/runs/run_nothere`, { key });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('api_key_revoked');
  });

  it('refuses key creation to a member without the admin role', async () => {
    const email = `dan-${tag}@example.test`;
    await member(stack, ws.workspaceId, email, 'member');
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signInAs(page, stack.url, email);
    await page.goto(`${stack.url}/console/keys`);
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    // Even a hand-made form post with the member's own valid CSRF token is refused.
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const before = await stack.db.prisma.apiKey.count({ where: { workspaceId: ws.workspaceId } });
    const forged = await page.request.post(`${stack.url}/console/keys`, { form: { _csrf: csrf, name: 'sneaky', scopes: 'runs:read' } });
    expect(forged.status()).toBe(403);
    expect(await stack.db.prisma.apiKey.count({ where: { workspaceId: ws.workspaceId } })).toBe(before);
    await ctx.close();
  });

  it('shows plan, use, members and secret names, never secret values', async () => {
    await adminPage.goto(`${stack.url}/console/workspace`);
    await adminPage.getByLabel('Name').fill('PAYMENT_TOKEN');
    await adminPage.getByLabel(/^Value/).fill('tok-very-secret-123');
    await Promise.all([adminPage.waitForURL('**/console/workspace'), adminPage.getByRole('button', { name: 'Save secret' }).click()]);
    const text = await adminPage.locator('main').innerText();
    expect(text).toContain('PAYMENT_TOKEN');
    expect(await adminPage.content()).not.toContain('tok-very-secret-123');
    expect(text).toContain(ADMIN);
    await expect(adminPage.locator('#use-running').innerText()).resolves.toMatch(/^\d+ of \d+ at once$/);
    await expect(adminPage.locator('#use-requests').innerText()).resolves.toMatch(/^\d+ of \d+ per 60 s/);
  });
});

describe('console workflows', () => {
  it('edits a workflow into an error (shown at its path), fixes it, diffs the versions and raises workflow.updated', async () => {
    // Without JavaScript the editor is the plain textarea, and works as it is.
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    const editorPage = await noScript.newPage();
    expect(await signInAs(editorPage, stack.url, ADMIN)).toBe(200);
    await editorPage.goto(`${stack.url}/console/workflows/new?template=transform`);
    await Promise.all([editorPage.waitForURL('**/console/workflows/wf_*'), editorPage.getByRole('button', { name: 'Save' }).click()]);
    const wfId = new URL(editorPage.url()).pathname.split('/').pop()!;
    await expect(editorPage.getByRole('status').innerText()).resolves.toContain('Saved as version 1');

    const editor = editorPage.getByLabel('Definition (YAML or JSON)');
    const original = await editor.inputValue();
    await editor.fill(original.replace('type: transform', 'type: transfrom'));
    const [bad] = await Promise.all([editorPage.waitForNavigation(), editorPage.getByRole('button', { name: 'Save' }).click()]);
    expect(bad!.status()).toBe(422);
    await expect(editorPage.locator('#problems').innerText()).resolves.toMatch(/steps\[0\]\.type/);
    expect((await stack.db.prisma.workflow.findUniqueOrThrow({ where: { id: wfId } })).version).toBe(1);

    // The editor keeps the text as typed; fix it and change the expression.
    const kept = await editorPage.getByLabel('Definition (YAML or JSON)').inputValue();
    expect(kept).toContain('transfrom');
    await editorPage.getByLabel('Definition (YAML or JSON)').fill(kept.replace('transfrom', 'transform').replace("'Hello, '", "'Hi, '"));
    await Promise.all([
      editorPage.waitForURL(`**/console/workflows/${wfId}?saved=updated`),
      editorPage.getByRole('button', { name: 'Save' }).click(),
    ]);
    await expect(editorPage.getByRole('status').innerText()).resolves.toContain('Saved as version 2');
    const diff = await editorPage.locator('#diff').innerText();
    expect(diff).toMatch(/^- +expression: "\{ 'greeting': 'Hello, ' & input\.name \}"$/m);
    expect(diff).toMatch(/^\+ +expression: "\{ 'greeting': 'Hi, ' & input\.name \}"$/m);
    const event = await stack.db.prisma.event.findFirst({
      where: { workspaceId: ws.workspaceId, type: 'workflow.updated', dedupeKey: `${wfId}:v2` },
    });
    expect(event).not.toBeNull();
    await expect(editorPage.locator('main').innerText()).resolves.toContain(`/hooks/trg_`);
    await noScript.close();
    await adminPage.goto(`${stack.url}/console/workflows/${wfId}`);

    // A test run from the page, watched until it succeeds.
    await adminPage.getByLabel('Input (JSON object)').fill('{"name": "Ada"}');
    await Promise.all([adminPage.waitForURL('**/console/runs/run_*'), adminPage.getByRole('button', { name: 'Start run' }).click()]);
    await adminPage.locator('#run-live .status-succeeded').first().waitFor({ timeout: 30_000 });
    await expect(adminPage.locator('#run-live').innerText()).resolves.toContain('Hi, Ada');
    const runId = new URL(adminPage.url()).pathname.split('/').pop()!;
    expect((await stack.db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).workflowVersion).toBe(2);
  });
});

describe('console webhooks', () => {
  it('creates an endpoint (secret shown once) and shows a delivery with every attempt; a retry sends it again', async () => {
    // The first attempt fails, the next ones succeed.
    let calls = 0;
    receiver.setHandler((_req, res) => {
      calls++;
      res.writeHead(calls === 1 ? 503 : 200, { 'content-type': 'text/plain' });
      res.end(calls === 1 ? 'busy' : 'ok');
    });
    await adminPage.goto(`${stack.url}/console/endpoints`);
    await adminPage.getByLabel('URL (https)').fill(`${receiver.origin}/hook`);
    await adminPage.getByLabel('Description').fill('ops <team>');
    await adminPage.getByLabel('workflow.updated').check();
    await Promise.all([adminPage.waitForNavigation(), adminPage.getByRole('button', { name: 'Create endpoint' }).click()]);
    const secret = (await adminPage.locator('#new-secret').innerText()).trim();
    expect(secret.length).toBeGreaterThan(20);
    const endpoint = await stack.db.prisma.webhookEndpoint.findFirstOrThrow({
      where: { workspaceId: ws.workspaceId, url: `${receiver.origin}/hook` },
    });
    await adminPage.goto(`${stack.url}/console/endpoints/${endpoint.id}`);
    expect(await adminPage.content()).not.toContain(secret);

    // A run that succeeds raises run.succeeded, delivered to the endpoint.
    const wf = await stack.apply(ws.workspaceId, {
      name: 'Hooked',
      slug: 'hooked',
      steps: [{ key: 'a', type: 'transform', expression: "'x'" }],
    });
    await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key: ws.key, body: { input: {}, wait: true } });
    // The delivery log refreshes itself (htmx) until the delivery succeeded on its second attempt.
    const row = adminPage.locator('#deliveries tr.delivery', { hasText: 'run.succeeded' });
    await row.locator('td', { hasText: /^succeeded$/ }).waitFor({ timeout: 30_000 });
    await expect(row.locator('td').nth(2).innerText()).resolves.toBe('2');
    await Promise.all([adminPage.waitForNavigation(), row.getByRole('link', { name: 'run.succeeded' }).click()]);
    const attempts = adminPage.locator('tr.attempt');
    await expect(attempts.count()).resolves.toBe(2);
    await expect(attempts.nth(0).innerText()).resolves.toContain('503');
    await expect(attempts.nth(1).innerText()).resolves.toContain('200');

    // Retry from the page: a third attempt reaches the receiver.
    const before = receiver.requests.length;
    await Promise.all([adminPage.waitForNavigation(), adminPage.getByRole('button', { name: 'Retry delivery' }).click()]);
    await waitFor(
      async () => receiver.requests.length,
      (n) => n > before,
    );

    // Disable from the page.
    await adminPage.goto(`${stack.url}/console/endpoints/${endpoint.id}`);
    await Promise.all([adminPage.waitForNavigation(), adminPage.getByRole('button', { name: 'Disable' }).click()]);
    expect((await stack.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).status).toBe('disabled');
  });
});

describe('console test events', () => {
  it('sends a signed test event of a subscribed type to one endpoint; it shows in the delivery log', async () => {
    receiver.setHandler((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    const created = await stack.api('POST', '/api/v1/webhook-endpoints', {
      key: ws.key,
      body: { url: `${receiver.origin}/test-events`, event_types: ['run.failed', 'review.decided'] },
    });
    expect(created.status).toBe(201);
    const before = receiver.requests.length;
    await adminPage.goto(`${stack.url}/console/endpoints/${created.body.id}`);
    await adminPage.getByLabel('Test event type').selectOption('review.decided');
    await Promise.all([adminPage.waitForNavigation(), adminPage.getByRole('button', { name: 'Send test event' }).click()]);
    await expect(adminPage.getByRole('status').innerText()).resolves.toMatch(
      /^Test event evt_\w+ \(review\.decided\) queued for delivery\.$/,
    );

    const got = await waitFor(
      async () => receiver.requests.slice(before).filter((r) => r.path === '/test-events'),
      (list) => list.length === 1,
    );
    const body = got[0].body;
    expect(body).toMatchObject({
      type: 'review.decided',
      workspace_id: ws.workspaceId,
      data: { test: true, endpoint_id: created.body.id },
    });
    expect(got[0].headers['svc-event-type']).toBe('review.decided');
    expect(got[0].headers['svc-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    // Only this endpoint got it, and its log shows it delivered.
    expect(await stack.db.prisma.webhookDelivery.count({ where: { eventId: body.id } })).toBe(1);
    const row = adminPage.locator('#deliveries tr.delivery', { hasText: 'review.decided' });
    await row.locator('td', { hasText: /^succeeded$/ }).waitFor({ timeout: 30_000 });
  });
});

describe('console pages', () => {
  // CONSOLE_SCREENSHOTS=1 also writes the README's screenshots (docs/console/*.png).
  const shots = process.env.CONSOLE_SCREENSHOTS === '1';
  it('serve a strict CSP and htmx from this origin, and fit laptop and phone widths', async () => {
    const runId = (
      await stack.db.prisma.run.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, status: 'succeeded' }, orderBy: { seq: 'desc' } })
    ).id;
    const wfId = (await stack.db.prisma.workflow.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, slug: 'greet-new' } })).id;
    const endpointId = (await stack.db.prisma.webhookEndpoint.findFirstOrThrow({ where: { workspaceId: ws.workspaceId } })).id;
    const pages: Record<string, string> = {
      runs: '/console/runs',
      run: `/console/runs/${runId}`,
      reviews: '/console/reviews',
      workflow: `/console/workflows/${wfId}?from=1&to=2`,
      keys: '/console/keys',
      endpoint: `/console/endpoints/${endpointId}`,
      workspace: '/console/workspace',
    };
    // Something waiting in the reviews inbox.
    const pending = await stack.apply(ws.workspaceId, { ...reviewFlow, slug: 'payout-pages' });
    const waiting = await stack.api('POST', `/api/v1/workflows/${pending.id}/runs`, {
      key: ws.key,
      body: { input: { amount: 40 }, wait: true },
    });
    expect(waiting.body.status).toBe('waiting_for_review');
    const htmx = await adminPage.request.get(`${stack.url}/console/static/htmx.min.js`);
    expect(htmx.status()).toBe(200);
    for (const [name, path] of Object.entries(pages)) {
      for (const [width, height] of [
        [1280, 800],
        [390, 844],
      ]) {
        await adminPage.setViewportSize({ width, height });
        const res = await adminPage.goto(stack.url + path);
        expect(res!.status()).toBe(200);
        const csp = res!.headers()['content-security-policy'];
        expect(csp).toContain("script-src 'self'");
        expect(csp).toContain("style-src 'self'");
        expect(csp).not.toContain('unsafe');
        // The page itself never scrolls sideways; wide tables scroll inside their section.
        const overflow = (await adminPage.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
        expect(overflow).toBeLessThanOrEqual(0);
        if (shots && width < 1000) await adminPage.screenshot({ path: `docs/console/${name}-${width}.png` });
        if (shots && width >= 1000) {
          // The whole page in one viewport, so the editor (which draws only what is in view) draws every line.
          const full = (await adminPage.evaluate('document.documentElement.scrollHeight')) as number;
          await adminPage.setViewportSize({ width, height: full });
          await adminPage.screenshot({ path: `docs/console/${name}-${width}.png` });
          await adminPage.setViewportSize({ width, height });
        }
      }
    }
    await adminPage.setViewportSize({ width: 1280, height: 800 });
  });
});
