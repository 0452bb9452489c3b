import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from './helpers/browser';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { call } from './helpers/http';
import { ERROR_STATUS, problemTypes } from '@svc/domain';

/**
 * The API reference page `GET /docs`: Swagger UI from the swagger-ui-dist package, served by the
 * gateway itself (no CDN) under a strict Content-Security-Policy, rendering the same document
 * as /api/v1/openapi.json; and the pages problem `type` URIs point at, under /docs/problems.
 * Checked over HTTP and in a real headless Chromium.
 */

let stack: TestStack;
let browser: Browser;
const committed = JSON.parse(readFileSync(path.resolve(__dirname, '../openapi/openapi.json'), 'utf8'));
const operationCount = Object.values(committed.paths as Record<string, object>).reduce((n, item) => n + Object.keys(item).length, 0);

beforeAll(async () => {
  stack = await startStack();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('GET /docs', () => {
  it('answers HTML (no key) that loads the bundled Swagger UI from this gateway under a strict CSP', async () => {
    const r = await call(`${stack.url}/docs`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    const html = r.body as string;
    expect(html).toContain('<script src="/docs/assets/swagger-ui-bundle.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="/docs/assets/swagger-ui.css">');
    expect(html).not.toMatch(/https?:\/\//); // nothing from elsewhere
    const csp = r.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("'unsafe-eval'");
    expect(r.headers.get('request-id')).toMatch(/^req_/);

    const bundle = await call(`${stack.url}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((bundle.body as string).length).toBeGreaterThan(500_000);
    expect((bundle.body as string).length).toBe(
      readFileSync(path.join(require('swagger-ui-dist').getAbsoluteFSPath(), 'swagger-ui-bundle.js'), 'utf8').length,
    );
    const css = await call(`${stack.url}/docs/assets/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);

    // Only the listed files of the package, never a path into node_modules.
    for (const p of ['/docs/assets/package.json', '/docs/assets/..%2Fpackage.json', '/docs/assets/index.html']) {
      expect({ p, status: (await call(stack.url + p)).status }).toEqual({ p, status: 404 });
    }

    // The document the page renders is the API's own.
    const doc = await call(`${stack.url}/docs/openapi.json`);
    const api = await stack.api('GET', '/api/v1/openapi.json');
    expect(doc.body).toEqual(api.body);
  });

  it('renders every operation and event in headless Chromium, with no CSP violation or script error', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (req) => requests.push(req.url()));
    try {
      await page.goto(`${stack.url}/docs`, { waitUntil: 'load' });
      await page.waitForFunction(`document.querySelectorAll('.opblock').length >= ${operationCount}`, undefined, { timeout: 30_000 });
      const paths = await page.$$eval('.opblock .opblock-summary-path', (els) =>
        els.map((e) => e.getAttribute('data-path') ?? e.textContent),
      );
      for (const p of Object.keys(committed.paths)) expect(paths).toContain(p);
      expect(await page.textContent('.info .title')).toContain(committed.info.title);
      // The webhooks section (outbound events) is rendered too.
      const text = (await page.textContent('#swagger-ui')) ?? '';
      for (const event of Object.keys(committed.webhooks)) expect(text).toContain(event);
      // Read-only: no "Try it out" buttons.
      expect(await page.$$('.try-out__btn')).toHaveLength(0);
      await page.screenshot({ path: path.join(os.tmpdir(), 'svc-docs.png'), fullPage: false });
      expect(problems).toEqual([]);
      expect(requests.filter((u) => !u.startsWith(stack.url) && !u.startsWith('data:'))).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

describe('GET /docs/problems/<code>', () => {
  it('resolves the type URI of a problem the API answers with to a page explaining its code', async () => {
    const { key } = await stack.tenant();
    const missing = await stack.api('GET', '/api/v1/runs/run_doesnotexist', { key });
    expect(missing.body).toMatchObject({ code: 'run_not_found', type: `${stack.url}/docs/problems/run-not-found` });
    const page = await call(missing.body.type);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.body).toContain('<h1>Run not found</h1>');
    expect(page.body).toContain('HTTP 404');
    expect(page.body).toContain('<code>run_not_found</code>');
    expect(page.body).not.toMatch(/<script/);
  });

  it('has a page for every code of the service, an index linking them, and sends the code spelling to its page', async () => {
    const problems = problemTypes(stack.url);
    expect(problems.map((p) => p.code)).toEqual(Object.keys(ERROR_STATUS));
    const index = await call(`${stack.url}/docs/problems`);
    expect(index.status).toBe(200);
    for (const p of problems) {
      const page = await call(p.type);
      expect({ code: p.code, status: page.status, title: (page.body as string).includes(`<h1>${p.title}</h1>`) }).toEqual({
        code: p.code,
        status: 200,
        title: true,
      });
      expect(index.body).toContain(`href="/docs/problems/${p.slug}"`);
    }
    const snake = await call(`${stack.url}/docs/problems/run_not_found`);
    expect(snake.status).toBe(301);
    expect(snake.headers.get('location')).toBe('/docs/problems/run-not-found');
    expect((await call(`${stack.url}/docs/problems/no-such-code`)).status).toBe(404);
  });

  it('renders in headless Chromium with no CSP violation or script error', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    try {
      await page.goto(`${stack.url}/docs/problems/rate-limited`, { waitUntil: 'load' });
      expect(await page.textContent('h1')).toBe('Rate limited');
      expect(await page.textContent('main')).toContain('Retry-After');
      await page.click('text=All error codes');
      await page.waitForURL(`${stack.url}/docs/problems`);
      expect(await page.$$eval('tbody tr', (rows) => rows.length)).toBe(Object.keys(ERROR_STATUS).length);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
