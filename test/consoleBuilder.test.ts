import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClientRequest, IncomingMessage } from 'node:http';
import path from 'node:path';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { connectionConfig } from '@svc/db';
import { RUN_STATUSES } from '@svc/contract';
import { showTrigger } from '@svc/domain';
import { launchChromium } from './helpers/browser';
import { member, signInAs } from './helpers/console';
import { waitFor } from './helpers/fixtures';
import { ROOT } from './helpers/processes';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import type { Tenant } from './helpers/tenants';

// The console as the place where workflows are built: editor, graph, trace, live pages,
// administration, accessibility and phone layouts, in Debian's Chromium. One stack and one
// browser for the file.
let stack: TestStack;
let browser: Browser;
let ws: Tenant;
let other: Tenant;
let admin: BrowserContext;
let page: Page;
const tag = Math.random().toString(36).slice(2, 8);
const ADMIN = `builder-${tag}@example.test`;
const OTHER_ADMIN = `other-${tag}@example.test`;
const TEMPORAL_UI = 'http://127.0.0.1:8233';
// CONSOLE_SCREENSHOTS=1 writes the documentation's screenshots (docs/console/*.png); otherwise they go to .test-results.
const SHOTS = process.env.CONSOLE_SCREENSHOTS === '1' ? path.join(ROOT, 'docs/console') : path.join(ROOT, '.test-results/console');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const approval = {
  name: 'Refund',
  slug: 'refund',
  input_schema: {
    type: 'object',
    required: ['customer', 'amount'],
    properties: { customer: { type: 'string' }, amount: { type: 'integer' } },
  },
  steps: [
    { key: 'wait', type: 'delay', duration: '4s' },
    {
      key: 'check',
      type: 'review',
      title: 'Refund {{ input.customer }}?',
      instructions: 'Check **the amount** first.\n\n<script>alert(1)</script>',
      data: 'input',
      assignees: [ADMIN],
    },
    { key: 'big', type: 'condition', expression: 'input.amount > 100', else: 'small' },
    { key: 'notify', type: 'transform', if: 'input.amount > 1000', expression: "'large'" },
    { key: 'small', type: 'transform', expression: "'done'", retry: { max_attempts: 2, interval: '1s' } },
  ],
};

const start = (t: Tenant, workflowId: string, input: Record<string, unknown> = {}) =>
  stack.api('POST', `/api/v1/workflows/${workflowId}/runs`, { key: t.key, body: { input } });
const runStatus = async (runId: string) => (await stack.db.prisma.run.findUniqueOrThrow({ where: { id: runId } })).status;

/** Waits until the page's live stream is open (console.js marks it on <body>). */
const liveOpen = (p: Page) => p.waitForSelector('body[data-live="open"]', { state: 'attached', timeout: 15_000 });

/** The serious and critical accessibility violations axe-core finds on the page as it is. */
async function axeViolations(p: Page): Promise<string[]> {
  const result = (await p.evaluate(`${AXE}; axe.run(document, { resultTypes: ['violations'] })`)) as {
    violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>;
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** A raw request to a live stream with the page's session cookie; resolves once its headers arrive. */
async function openStream(ctx: BrowserContext, urlPath: string): Promise<{ res: IncomingMessage; req: ClientRequest; text: () => string }> {
  const cookie = (await ctx.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${stack.url}${urlPath}`, { headers: { cookie, accept: 'text/event-stream' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('error', () => undefined);
      resolve({ res, req, text: () => body });
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  stack = await startStack({
    TEMPORAL_UI_URL: TEMPORAL_UI,
    // The flaky service a retried http step calls, on this machine.
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    CONSOLE_LIVE_MAX_PER_WORKSPACE: '4',
    CONSOLE_LIVE_HEARTBEAT_MS: '300',
  });
  ws = await stack.tenant();
  other = await stack.tenant();
  await member(stack, ws.workspaceId, ADMIN, 'admin');
  await member(stack, other.workspaceId, OTHER_ADMIN, 'admin');
  browser = await launchChromium();
  admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await admin.newPage();
  expect(await signInAs(page, stack.url, ADMIN)).toBe(200);
  mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('the definition editor', () => {
  it('publishes the definition format as JSON Schema at a stable URL', async () => {
    const res = await fetch(`${stack.url}/schemas/workflow-definition.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/schema+json');
    const schema = (await res.json()) as Record<string, any>;
    expect(schema.$id).toBe(`${stack.url}/schemas/workflow-definition.json`);
    expect(schema.properties.steps.items).toBeDefined();
  });

  it('saves every template the console offers, as offered', async () => {
    await page.goto(`${stack.url}/console/workflows`);
    const links = await page
      .locator('a[href^="/console/workflows/new?template="]')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    expect(links.length).toBeGreaterThanOrEqual(3);
    for (const link of links) {
      await page.goto(stack.url + link);
      await page.locator('.cm-editor[data-editor="ready"]').waitFor();
      await Promise.all([
        page.waitForURL('**/console/workflows/wf_*?saved=created'),
        page.getByRole('button', { name: 'Save', exact: true }).click(),
      ]);
      expect([link, await page.getByRole('status').innerText()]).toEqual([link, 'Saved as version 1.']);
    }
  });

  it('is CodeMirror with completion, hover help and problems marked at their line, from the server’s parser', async () => {
    const refused: string[] = [];
    const onConsole = (m: { type(): string; text(): string }) => {
      if (m.text().includes('Content Security Policy')) refused.push(m.text());
    };
    page.on('console', onConsole);
    await page.goto(`${stack.url}/console/workflows/new?template=transform`);
    await page.locator('.cm-editor[data-editor="ready"]').waitFor();
    // CodeMirror's own stylesheet is admitted by the page's nonce (its scroller scrolls), and nothing is refused.
    expect(
      await page
        .locator('.cm-scroller')
        .evaluate((e) => (globalThis as unknown as { getComputedStyle(e: unknown): { overflowX: string } }).getComputedStyle(e).overflowX),
    ).toBe('auto');
    // A typo'd field on line 3: the parser's problem is marked there.
    await page.locator('.cm-line').first().click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.type('\ndescriptoin: typo');
    const marked = page.locator('.cm-lintRange-error');
    await marked.first().waitFor({ timeout: 15_000 });
    expect(await marked.first().innerText()).toContain('descriptoin');
    // Completion from the JSON Schema at the document's top level.
    await page.keyboard.press('Control+End');
    await page.keyboard.type('trig');
    await page.keyboard.press('Control+Space');
    await expect(page.locator('.cm-tooltip-autocomplete').first().innerText()).resolves.toContain('trigger');
    await page.keyboard.press('Escape');
    for (let i = 0; i < 'trig'.length; i++) await page.keyboard.press('Backspace');
    // Hover help over a key.
    await page
      .locator('.cm-line', { hasText: 'slug:' })
      .first()
      .hover({ position: { x: 10, y: 5 } });
    await expect(page.locator('.cm-tooltip-hover').first().innerText()).resolves.toMatch(/identifier/);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: path.join(SHOTS, 'editor-1280.png') });
    // Validate checks without saving.
    const before = await stack.db.prisma.workflow.count({ where: { workspaceId: ws.workspaceId } });
    const [validated] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Validate' }).click()]);
    expect(validated!.status()).toBe(422);
    await expect(page.locator('#problems li', { hasText: 'descriptoin' }).innerText()).resolves.toMatch(/^line 4, column 1: /);
    expect(await stack.db.prisma.workflow.count({ where: { workspaceId: ws.workspaceId } })).toBe(before);
    page.off('console', onConsole);
    expect(refused).toEqual([]);
  });

  it('keeps the author’s text (comments and all), shows it again, diffs it in colour, and edits old versions without derived fields', async () => {
    const text =
      '# Greets people.\nname: Hello\nslug: hello\nsteps:\n  - key: shape # the only step\n    type: transform\n    expression: "\'Hi \' & input.name"\n';
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    const plain = await noScript.newPage();
    expect(await signInAs(plain, stack.url, ADMIN)).toBe(200);
    await plain.goto(`${stack.url}/console/workflows/new`);
    await plain.getByLabel('Definition (YAML or JSON)').fill(text);
    await Promise.all([
      plain.waitForURL('**/console/workflows/wf_*?saved=created'),
      plain.getByRole('button', { name: 'Save', exact: true }).click(),
    ]);
    expect(await plain.getByLabel('Definition (YAML or JSON)').inputValue()).toBe(text);
    await plain.getByLabel('Definition (YAML or JSON)').fill(text.replace("'Hi '", "'Hello '"));
    await Promise.all([plain.waitForURL('**?saved=updated'), plain.getByRole('button', { name: 'Save', exact: true }).click()]);
    expect(await plain.getByLabel('Definition (YAML or JSON)').inputValue()).toContain('# the only step');
    const added = plain.locator('#diff .diff-add');
    await expect(added.innerText()).resolves.toContain("'Hello '");
    await expect(plain.locator('#diff .diff-del').innerText()).resolves.toContain("'Hi '");
    const colour = (l: typeof added) =>
      l.evaluate(
        (e) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(e).backgroundColor,
      );
    expect(await colour(added)).not.toBe(await colour(plain.locator('#diff .diff-ctx').first()));

    // A version saved without its text (through the CLI's apply) shows as YAML without derived fields.
    const old = await stack.apply(ws.workspaceId, {
      name: 'Old',
      slug: 'old',
      steps: [{ key: 'call', type: 'transform', expression: '1', retry: { max_attempts: 2, interval: '1s' } }],
    });
    await plain.goto(`${stack.url}/console/workflows/${old.id}`);
    const shown = await plain.getByLabel('Definition (YAML or JSON)').inputValue();
    expect(shown).toContain('interval: 1s');
    expect(shown).not.toContain('interval_ms');
    await plain.getByLabel('Definition (YAML or JSON)').fill(shown.replace('interval: 1s', 'interval: 5s'));
    await Promise.all([plain.waitForURL('**?saved=updated'), plain.getByRole('button', { name: 'Save', exact: true }).click()]);
    await noScript.close();
  });
});

describe('workflow and run pages', () => {
  let wfId: string;
  let runId: string;

  it('draws the step graph, starts the test run from an example of the input schema, and counts it like an API start', async () => {
    wfId = (await stack.apply(ws.workspaceId, approval)).id;
    await page.goto(`${stack.url}/console/workflows/${wfId}`);
    const graph = page.locator('svg.step-graph');
    await expect(graph.locator('title').first().textContent()).resolves.toBe('Steps of this workflow');
    expect(await graph.locator('g.node[data-step]').count()).toBe(approval.steps.length);
    expect(await graph.locator('path.edge.else').count()).toBe(1);
    expect(await graph.locator('path.edge.skip').count()).toBe(1);
    await expect(graph.locator('desc').textContent()).resolves.toContain('2. check (review)');
    expect(JSON.parse(await page.getByLabel('Input (JSON object)').inputValue())).toEqual({ customer: 'text', amount: 0 });
    await page.screenshot({ path: path.join(SHOTS, 'graph-1280.png') });

    const counter = async () =>
      (
        await stack.db.prisma.$queryRaw<
          { points: number }[]
        >`SELECT points FROM rate_limits WHERE key = ${`ws:${ws.workspaceId}`} AND expire > ${Date.now()}`
      )[0]?.points ?? 0;
    const before = await counter();
    await page.getByLabel('Input (JSON object)').fill('{"customer": "Ada", "amount": 150}');
    await Promise.all([page.waitForURL('**/console/runs/run_*'), page.getByRole('button', { name: 'Start run' }).click()]);
    runId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await counter()).toBeGreaterThanOrEqual(before + 1);
  });

  it('updates the run page live without a reload; a comment typed in the review form survives', async () => {
    // The page was rendered while the run waited out its delay: the review arrives live.
    const form = page.locator('#run-review textarea');
    expect(await form.count()).toBe(0);
    await page.evaluate('window.notReloaded = true');
    await liveOpen(page);
    await form.waitFor({ timeout: 30_000 });
    await page.locator('#run-status .status-waiting_for_review').waitFor();
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(1);
    await expect(page.locator('#run-review .instructions strong').innerText()).resolves.toBe('the amount');
    expect(await page.locator('#run-review pre', { hasText: 'the amount' }).count()).toBe(0);
    expect(await page.locator('script:not([src])').count()).toBe(0);
    await form.fill('looks right to me');
    // The run changes meanwhile (as any change of it is told): the live part is fetched again, the form stays.
    const refetched = page.waitForResponse((r) => r.url().endsWith(`/console/runs/${runId}/live`));
    await stack.db.prisma.$executeRaw`SELECT pg_notify('svc_console', ${`ws:${ws.workspaceId}\nrun ${runId}`})`;
    await refetched;
    await page.waitForTimeout(300);
    expect(await form.inputValue()).toBe('looks right to me');
    await page.screenshot({ path: path.join(SHOTS, 'run-review-1280.png'), fullPage: true });
    await Promise.all([page.waitForURL(`**/console/runs/${runId}`), page.getByRole('button', { name: 'Approve' }).click()]);
    await page.locator('#run-live #run-status .status-succeeded').waitFor({ timeout: 30_000 });
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    const review = await stack.db.prisma.review.findFirstOrThrow({ where: { runId } });
    expect(review.comment).toBe('looks right to me');
  });

  it('shows the run’s graph in step statuses and its trace, with a link into the Temporal UI', async () => {
    await page.goto(`${stack.url}/console/runs/${runId}`);
    const graph = page.locator('svg.step-graph');
    expect(await graph.locator('g.node.status-succeeded').count()).toBe(4);
    expect(await graph.locator('g.node.status-skipped[data-step="notify"]').count()).toBe(1);
    const trace = page.locator('svg.trace-chart');
    const rows = await trace.locator('g.trace-row').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-row')));
    expect(rows[0]).toBe('queued');
    expect(rows).toEqual(expect.arrayContaining(['wait', 'check', 'big', 'small']));
    expect(await trace.locator('g.trace-row.kind-delay').count()).toBe(1);
    expect(await trace.locator('g.trace-row.kind-wait').count()).toBe(1);
    const run = await stack.db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
    const link = await page.getByRole('link', { name: 'Open this run in the Temporal UI' }).getAttribute('href');
    expect(link).toBe(`${TEMPORAL_UI}/namespaces/${stack.config.TEMPORAL_NAMESPACE}/workflows/${run.temporalWorkflowId}`);
    await page.screenshot({ path: path.join(SHOTS, 'trace-1280.png'), fullPage: true });
  });

  it('draws each attempt of a retried step on its trace, with its error', async () => {
    // Answers 503 to the first call, then 200.
    let calls = 0;
    const flaky = createServer((_req, res) => {
      calls++;
      res.writeHead(calls === 1 ? 503 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ calls }));
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/`;
    const wf = await stack.apply(ws.workspaceId, {
      name: 'Flaky',
      slug: 'flaky',
      steps: [{ key: 'call', type: 'http', url, retry: { max_attempts: 3, interval: '1s', backoff: 'fixed' } }],
    });
    const started = await start(ws, wf.id);
    await waitFor(
      () => runStatus(started.body.id),
      (s) => s === 'succeeded',
    );
    flaky.close();
    await page.goto(`${stack.url}/console/runs/${started.body.id}`);
    const row = page.locator('svg.trace-chart g.trace-row[data-row="call"]');
    expect(await row.locator('rect.attempt.failed').count()).toBe(1);
    expect(await row.locator('rect.attempt.ok').count()).toBe(1);
    const title = (await row.locator('title').textContent())!;
    expect(title).toMatch(/attempt 1 \(.+ from .+\): .*503/);
    expect(title).toMatch(/attempt 2 \(.+ from .+\)/);
    // The failed attempt ends before the next one starts (the retry's interval lies between).
    const [failed, ok] = await Promise.all(
      [row.locator('rect.attempt.failed'), row.locator('rect.attempt.ok')].map((r) => r.getAttribute('x')),
    );
    expect(Number(ok)).toBeGreaterThan(Number(failed));
  });

  it('offers cancel only where the contract allows, and filters runs by the contract’s statuses', async () => {
    await page.goto(`${stack.url}/console/runs`);
    const offered = await page
      .locator('#f-status option')
      .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value).filter(Boolean));
    expect(offered).toEqual([...RUN_STATUSES]);
    // A running run (its delay) offers no cancel.
    const slow = await stack.apply(ws.workspaceId, { name: 'Slow', slug: 'slow', steps: [{ key: 'nap', type: 'delay', duration: '20s' }] });
    const started = await start(ws, slow.id);
    await waitFor(
      () => runStatus(started.body.id),
      (s) => s === 'running',
    );
    await page.goto(`${stack.url}/console/runs/${started.body.id}`);
    await page.locator('#run-status .status-running').waitFor();
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
  });

  it('updates the runs list live, keeping its page; and the deliveries log keeps its older page', async () => {
    const quick = await stack.apply(ws.workspaceId, {
      name: 'Quick',
      slug: 'quick',
      steps: [{ key: 'x', type: 'transform', expression: '1' }],
    });
    await page.goto(`${stack.url}/console/runs`);
    await page.evaluate('window.notReloaded = true');
    await liveOpen(page);
    const started = await start(ws, quick.id);
    await page.locator(`#runs-body a[href="/console/runs/${started.body.id}"]`).waitFor({ timeout: 15_000 });
    expect(await page.evaluate('window.notReloaded')).toBe(true);

    // More deliveries than one page, then the older page, then a new delivery: the older page stays.
    const endpoint = await stack.db.prisma.webhookEndpoint.create({
      data: {
        id: `we_${tag}`,
        workspaceId: ws.workspaceId,
        url: 'https://127.0.0.1:9/hook',
        eventTypes: ['run.succeeded'],
        secretEnc: stack.box.seal('whsec', `endpoint:${tag}`),
        // Disabled: the runs of this file add no deliveries of their own to its log.
        status: 'disabled',
        disabledReason: 'manual',
      },
    });
    const delivery = async (i: number) => {
      const event = await stack.db.prisma.event.create({
        data: { id: `evt_${tag}${i}`, workspaceId: ws.workspaceId, type: 'run.succeeded', dedupeKey: `log-${tag}-${i}`, data: { i } },
      });
      await stack.db.prisma.webhookDelivery.create({
        data: {
          id: `wd_${tag}${i}`,
          workspaceId: ws.workspaceId,
          endpointId: endpoint.id,
          eventId: event.id,
          eventType: 'run.succeeded',
          status: 'failed',
        },
      });
    };
    for (let i = 0; i < 30; i++) await delivery(i);
    await page.goto(`${stack.url}/console/endpoints/${endpoint.id}`);
    const refreshOf = (url: string) => url.includes(`/console/endpoints/${endpoint.id}?cursor=`);
    // A list is refreshed once when its stream opens, then at each change.
    const opened = page.waitForResponse((r) => refreshOf(r.url()));
    await page.getByRole('link', { name: 'Older deliveries →' }).click();
    await page.waitForURL('**cursor=*');
    await opened;
    const shownIds = () =>
      page.locator('#deliveries tr.delivery a').evaluateAll((as) => as.map((a) => a.getAttribute('href')!.split('/').pop()));
    const older = await shownIds();
    expect(older).toHaveLength(5);
    const refetched = page.waitForResponse((r) => refreshOf(r.url()));
    await delivery(30);
    await refetched;
    await page.waitForTimeout(300);
    expect(await shownIds()).toEqual(older);
  });
});

describe('live streams', () => {
  it('are bounded per workspace with a clear refusal, beat while idle, and are cleaned up on disconnect', async () => {
    await page.goto(`${stack.url}/console/keys`);
    await waitFor(
      async () => stack.gatewayDeps.live!.count(ws.workspaceId),
      (n) => n === 0,
    );
    const streams: Array<Awaited<ReturnType<typeof openStream>>> = [];
    for (let i = 0; i < 4; i++) streams.push(await openStream(admin, '/console/live/runs'));
    expect(streams.map((s) => s.res.statusCode)).toEqual([200, 200, 200, 200]);
    const refused = await openStream(admin, '/console/live/runs');
    expect(refused.res.statusCode).toBe(503);
    await waitFor(
      async () => refused.text(),
      (t) => t.length > 0,
    );
    expect(refused.text()).toMatch(/Too many live console pages/);
    // Another workspace is not refused for this one's pages.
    const otherCtx = await browser.newContext();
    const otherPage = await otherCtx.newPage();
    expect(await signInAs(otherPage, stack.url, OTHER_ADMIN)).toBe(200);
    const theirs = await openStream(otherCtx, '/console/live/runs');
    expect(theirs.res.statusCode).toBe(200);
    // Heartbeat comments while nothing changes.
    await waitFor(
      async () => streams[0]!.text(),
      (t) => t.includes(': heartbeat'),
    );
    for (const s of [...streams, theirs]) s.req.destroy();
    // The other workspace's signed-in page (its runs list) is live too.
    await otherCtx.close();
    await waitFor(
      async () => stack.gatewayDeps.live!.count(ws.workspaceId),
      (n) => n === 0,
    );
    await waitFor(
      async () => stack.gatewayDeps.live!.count(other.workspaceId),
      (n) => n === 0,
    );
  });
});

describe('console notices', () => {
  it('are sent for a workspace only while one of its pages holds a lease: nothing while nobody looks', async () => {
    const quiet = await stack.tenant();
    const wf = await stack.apply(quiet.workspaceId, {
      name: 'Quiet',
      slug: 'quiet',
      steps: [{ key: 'x', type: 'transform', expression: '1' }],
    });
    const listener = new Client(connectionConfig(stack.config.DATABASE_URL!));
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    await listener.query('LISTEN svc_console');
    const ran = async () => {
      const started = await start(quiet, wf.id);
      await waitFor(
        () => runStatus(started.body.id),
        (s) => s === 'succeeded',
      );
      // Notices arrive in commit order: a marker sent after the run's last write comes after its notices.
      const marker = `marker ${started.body.id}`;
      await stack.db.prisma.$executeRaw`SELECT pg_notify('svc_console', ${marker})`;
      await waitFor(
        async () => heard,
        (h) => h.includes(marker),
      );
      return started.body.id as string;
    };
    const unseen = await ran();
    expect(heard.filter((h) => h.startsWith(`ws:${quiet.workspaceId}`))).toEqual([]);
    // A page's lease (what a live page of the workspace writes) turns the notices on.
    await stack.db.prisma.consoleWatcher.create({ data: { workspaceId: quiet.workspaceId, until: new Date(Date.now() + 60_000) } });
    const seen = await ran();
    expect(heard).toContain(`ws:${quiet.workspaceId}\nrun ${seen}`);
    expect(heard.filter((h) => h.startsWith(`ws:${quiet.workspaceId}`) && h.endsWith(unseen))).toEqual([]);
    await listener.end();
  });
});

describe('administration in the console', () => {
  it('invites, changes the role of and removes members; keeps the last admin; deletes a secret', async () => {
    const email = `new-${tag}@example.test`;
    await page.goto(`${stack.url}/console/workspace`);
    await page.getByLabel('Invite by email').fill(email);
    await Promise.all([page.waitForURL('**/console/workspace'), page.getByRole('button', { name: 'Send invitation' }).click()]);
    const row = page.locator(`tr.member[data-email="${email}"]`);
    await expect(row.innerText()).resolves.toContain('invited');
    expect(await stack.db.prisma.outboxEmail.count({ where: { recipients: { has: email } } })).toBe(1);
    await row.getByLabel(`Role of ${email}`, { exact: true }).selectOption('admin');
    await Promise.all([page.waitForURL('**/console/workspace'), row.getByRole('button', { name: `Change role of ${email}` }).click()]);
    expect((await stack.db.prisma.member.findUniqueOrThrow({ where: { email } })).role).toBe('admin');
    await Promise.all([page.waitForURL('**/console/workspace'), row.getByRole('button', { name: `Remove ${email}` }).click()]);
    expect(await stack.db.prisma.member.count({ where: { email } })).toBe(0);
    // The last admin cannot be demoted.
    const me = page.locator(`tr.member[data-email="${ADMIN}"]`);
    await me.getByLabel(`Role of ${ADMIN}`, { exact: true }).selectOption('member');
    const [refused] = await Promise.all([page.waitForNavigation(), me.getByRole('button', { name: `Change role of ${ADMIN}` }).click()]);
    expect(refused!.status()).toBe(409);
    await expect(page.getByText('keeps at least one admin').count()).resolves.toBe(1);

    await page.goto(`${stack.url}/console/workspace`);
    await page.getByLabel('Name', { exact: true }).fill('OLD_TOKEN');
    await page.getByLabel(/^Value/).fill('v');
    await Promise.all([page.waitForURL('**/console/workspace'), page.getByRole('button', { name: 'Save secret' }).click()]);
    await Promise.all([page.waitForURL('**/console/workspace'), page.getByRole('button', { name: 'Delete secret OLD_TOKEN' }).click()]);
    expect(await stack.db.prisma.secret.count({ where: { workspaceId: ws.workspaceId, name: 'OLD_TOKEN' } })).toBe(0);
  });

  it('archives a workflow (hidden, no new runs by API or trigger, runs kept) and turns its trigger off and on', async () => {
    const wf = await stack.apply(ws.workspaceId, {
      name: 'Retired',
      slug: 'retired',
      steps: [{ key: 'x', type: 'transform', expression: '1' }],
    });
    const ran = await start(ws, wf.id);
    expect(ran.status).toBe(201);
    const { url: triggerUrl, secret } = await showTrigger(stack.db.prisma, stack.box, { workflowId: wf.id, baseUrl: stack.url });
    const fire = () =>
      fetch(triggerUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-secret': secret }, body: '{}' });
    expect((await fire()).status).toBe(202);

    await page.goto(`${stack.url}/console/workflows/${wf.id}`);
    await Promise.all([page.waitForURL(`**/console/workflows/${wf.id}`), page.getByRole('button', { name: 'Turn trigger off' }).click()]);
    await expect(page.locator('#trigger-state').innerText()).resolves.toBe('off');
    expect((await fire()).status).toBe(404);
    await Promise.all([page.waitForURL(`**/console/workflows/${wf.id}`), page.getByRole('button', { name: 'Turn trigger on' }).click()]);
    expect((await fire()).status).toBe(202);

    await Promise.all([page.waitForURL(`**/console/workflows/${wf.id}`), page.getByRole('button', { name: 'Archive' }).click()]);
    await page.locator('#archived').waitFor();
    expect((await start(ws, wf.id)).body.code).toBe('workflow_not_found');
    expect((await start(ws, wf.id)).status).toBe(404);
    expect((await fire()).status).toBe(404);
    const listed = await stack.api('GET', '/api/v1/workflows?limit=100', { key: ws.key });
    expect(listed.body.data.map((w: { id: string }) => w.id)).not.toContain(wf.id);
    await page.goto(`${stack.url}/console/workflows`);
    expect(await page.locator(`a[href="/console/workflows/${wf.id}"]`).count()).toBe(0);
    expect((await stack.api('GET', `/api/v1/runs/${ran.body.id}`, { key: ws.key })).status).toBe(200);

    await page.goto(`${stack.url}/console/workflows/${wf.id}`);
    await Promise.all([page.waitForURL(`**/console/workflows/${wf.id}`), page.getByRole('button', { name: 'Restore' }).click()]);
    expect((await start(ws, wf.id)).status).toBe(201);
  });

  it('refuses test runs past the workspace’s request budget, which API starts share', async () => {
    // Two requests a minute per key: four for the workspace.
    const tight = await stack.tenant({ limits: { rateLimitPerMin: 2 } });
    const email = `tight-${tag}@example.test`;
    await member(stack, tight.workspaceId, email, 'admin');
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    expect(await signInAs(p, stack.url, email)).toBe(200);
    const wf = await stack.apply(tight.workspaceId, {
      name: 'One',
      slug: 'one',
      steps: [{ key: 'x', type: 'transform', expression: '1' }],
    });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await p.request.post(`${stack.url}/console/workflows/${wf.id}/runs`, {
        form: { _csrf: await p.locator('input[name="_csrf"]').first().inputValue(), input: '{}' },
        maxRedirects: 0,
      });
      statuses.push(res.status());
    }
    expect(statuses).toEqual([303, 303, 303, 303, 429]);
    expect((await start(tight, wf.id)).status).toBe(429);
    await ctx.close();
  });
});

describe('comforts, accessibility and phone widths', () => {
  it('filters reviews assigned to me, counts pending reviews in the navigation, and localizes times', async () => {
    const wf = await stack.apply(ws.workspaceId, { ...approval, slug: 'refund-two', steps: approval.steps.slice(1) });
    const unassigned = await stack.apply(ws.workspaceId, {
      name: 'Anyone',
      slug: 'anyone',
      steps: [{ key: 'check', type: 'review', title: 'Anyone may decide' }],
    });
    const mine = await start(ws, wf.id, { customer: 'Bo', amount: 5 });
    const theirs = await start(ws, unassigned.id);
    await waitFor(
      () => runStatus(mine.body.id),
      (s) => s === 'waiting_for_review',
    );
    await waitFor(
      () => runStatus(theirs.body.id),
      (s) => s === 'waiting_for_review',
    );
    const pending = await stack.db.prisma.review.count({ where: { status: 'pending', run: { workspaceId: ws.workspaceId } } });
    await page.goto(`${stack.url}/console/reviews?assigned=me`);
    await expect(page.locator('nav[aria-label="Main"] .count').innerText()).resolves.toBe(String(pending));
    const titles = await page.locator('section.review h2').allInnerTexts();
    expect(titles).toContain('Refund Bo?');
    expect(titles).not.toContain('Anyone may decide');
    await page.goto(`${stack.url}/console/reviews`);
    expect(await page.locator('section.review h2').allInnerTexts()).toEqual(expect.arrayContaining(['Refund Bo?', 'Anyone may decide']));
    const time = page.locator('section.review time').first();
    const iso = (await time.getAttribute('datetime'))!;
    await expect(time.getAttribute('title')).resolves.toBe(iso);
    expect(await time.innerText()).not.toContain('UTC');
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    const plain = await noScript.newPage();
    expect(await signInAs(plain, stack.url, ADMIN)).toBe(200);
    await plain.goto(`${stack.url}/console/reviews`);
    await expect(plain.locator('section.review time').first().innerText()).resolves.toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    await noScript.close();
  });

  it('follows a dark colour scheme', async () => {
    const dark = await browser.newContext({ colorScheme: 'dark' });
    const p = await dark.newPage();
    expect(await signInAs(p, stack.url, ADMIN)).toBe(200);
    const background = () => p.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(await background()).toBe('rgb(13, 17, 23)');
    await dark.close();
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(246, 247, 249)');
  });

  it('has no serious or critical accessibility violation and no sideways scrolling at 390 px, on every page, in both themes', async () => {
    const run = await stack.db.prisma.run.findFirstOrThrow({
      where: { workspaceId: ws.workspaceId, status: 'succeeded' },
      orderBy: { seq: 'desc' },
    });
    const wf = await stack.db.prisma.workflow.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, slug: 'refund' } });
    const endpoint = await stack.db.prisma.webhookEndpoint.findFirstOrThrow({ where: { workspaceId: ws.workspaceId } });
    const delivery = await stack.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } });
    const pages = [
      '/console/runs',
      `/console/runs/${run.id}`,
      '/console/reviews',
      '/console/workflows',
      `/console/workflows/${wf.id}`,
      '/console/workflows/new?template=http',
      '/console/keys',
      '/console/endpoints',
      `/console/endpoints/${endpoint.id}`,
      `/console/endpoints/${endpoint.id}/deliveries/${delivery.id}`,
      '/console/workspace',
    ];
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      const ctx = await browser.newContext({ colorScheme: scheme, viewport: { width: 390, height: 844 } });
      const p = await ctx.newPage();
      expect(await signInAs(p, stack.url, ADMIN)).toBe(200);
      // Pages before sign-in (and a spent link's refusal), then every page of a signed-in admin, and a 404.
      const out = await browser.newContext({ colorScheme: scheme, viewport: { width: 390, height: 844 } });
      const signedOut = await out.newPage();
      for (const [url, status] of [
        ['/console/sign-in', 200],
        ['/console/link/not-a-link', 403],
      ] as const) {
        expect([url, (await signedOut.goto(stack.url + url))!.status()]).toEqual([url, status]);
        found.push(...(await axeViolations(signedOut)).map((v) => `${scheme} ${url}: ${v}`));
      }
      await out.close();
      for (const [url, status] of [...pages.map((u) => [u, 200] as const), ['/console/no-such-page', 404] as const]) {
        expect([url, (await p.goto(stack.url + url))!.status()]).toEqual([url, status]);
        await p.waitForLoadState('networkidle').catch(() => undefined);
        const overflow = (await p.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
        expect([url, overflow]).toEqual([url, 0]);
        found.push(...(await axeViolations(p)).map((v) => `${scheme} ${url}: ${v}`));
      }
      if (scheme === 'light') {
        // The run id heading and the Revoke buttons are on screen at phone width.
        const refund = await stack.db.prisma.run.findFirstOrThrow({ where: { workflowId: wf.id, status: 'succeeded' } });
        await p.goto(`${stack.url}/console/runs/${refund.id}`);
        const heading = await p.locator('h1.run-title').boundingBox();
        expect(heading!.x + heading!.width).toBeLessThanOrEqual(390);
        await p.screenshot({ path: path.join(SHOTS, 'trace-390.png'), fullPage: true });
        await p.goto(`${stack.url}/console/workflows/${wf.id}`);
        await p.screenshot({ path: path.join(SHOTS, 'graph-390.png') });
        await p.goto(`${stack.url}/console/workflows/new?template=review`);
        await p.locator('.cm-editor[data-editor="ready"]').waitFor();
        await p.screenshot({ path: path.join(SHOTS, 'editor-390.png') });
        await p.goto(`${stack.url}/console/keys`);
        for (const box of await p
          .getByRole('button', { name: /^Revoke/ })
          .evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().right))) {
          expect(box).toBeLessThanOrEqual(390);
        }
      }
      await ctx.close();
    }
    expect(found).toEqual([]);
  });
});
