import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument, CURSOR_PATTERN, IDEMPOTENCY_KEY_PATTERN } from '@svc/contract';
import { decodeCursor, encodeCursor } from '@svc/domain';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/**
 * The committed OpenAPI document (openapi/openapi.json) is the server's real contract: generated
 * from the Zod schemas the gateway validates with, unchanged since, clean under a real OpenAPI
 * linter, covering every route of the gateway, and the document the gateway serves.
 */

const exec = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');
const COMMITTED = path.join(ROOT, 'openapi/openapi.json');
const REGENERATE = 'run `npm run openapi` and commit openapi/ (the document is generated from packages/contract)';

type Doc = ReturnType<typeof buildOpenApiDocument>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function operations(doc: Doc): Array<{ key: string; op: Record<string, any> }> {
  const out: Array<{ key: string; op: Record<string, any> }> = [];
  for (const [p, item] of Object.entries(doc.paths ?? {})) {
    for (const m of METHODS) if (item[m]) out.push({ key: `${m.toUpperCase()} ${p}`, op: item[m] as Record<string, any> });
  }
  return out;
}

/**
 * Every route the gateway registers for the API, read from its source: `r.get('/runs/:run_id',
 * scope('runs:read'), …)` in apps/gateway/src/routes, with the prefix each router is mounted at.
 */
function gatewayRoutes(): Map<string, string | null> {
  const mounts: Record<string, string> = {
    'routes/workflows.ts': '/api/v1',
    'routes/runs.ts': '/api/v1',
    'routes/webhookEndpoints.ts': '/api/v1',
    'routes/hooks.ts': '/hooks',
    'app.ts': '/api/v1',
  };
  const routes = new Map<string, string | null>();
  for (const [file, prefix] of Object.entries(mounts)) {
    const source = readFileSync(path.join(ROOT, 'apps/gateway/src', file), 'utf8');
    const re =
      file === 'app.ts'
        ? /\bapi\.(get|post|patch|put|delete)\(\s*'([^']+)'/g
        : /\br\.(get|post|patch|put|delete)\(\s*'([^']+)'(?:,\s*scope\('([^']+)'\))?/g;
    for (const m of source.matchAll(re)) {
      const p = prefix + m[2].replace(/:([a-z_]+)/g, '{$1}');
      routes.set(`${m[1].toUpperCase()} ${p}`, m[3] ?? null);
    }
  }
  return routes;
}

describe('the committed OpenAPI document', () => {
  const committed = JSON.parse(readFileSync(COMMITTED, 'utf8')) as Doc;

  it('is exactly what the contract generates', async () => {
    // The schemas as they are in the source…
    const generated = JSON.parse(JSON.stringify(buildOpenApiDocument()));
    if (JSON.stringify(generated) !== JSON.stringify(committed)) {
      expect({ hint: REGENERATE, document: committed }).toEqual({ hint: REGENERATE, document: generated });
    }
    // …and byte for byte as the generator writes it (built contract, formatting, types).
    const check = await exec(process.execPath, [path.join(ROOT, 'scripts/generate-openapi.js'), '--check']).then(
      () => '',
      (err: { stderr: string }) => err.stderr,
    );
    expect(check).toBe('');
  });

  it('passes the Redocly OpenAPI linter with no error and no warning', async () => {
    const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
    const result = await exec(
      process.execPath,
      [cli, 'lint', COMMITTED, '--config', path.join(ROOT, 'openapi/redocly.yaml'), '--format', 'json'],
      {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        maxBuffer: 16 * 1024 * 1024,
      },
    ).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
    };
    const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(result.code).toBe(0);
  });

  it('documents every route of /api/v1 and /hooks the gateway registers, with the scope the route requires', () => {
    const routes = gatewayRoutes();
    expect(routes.size).toBeGreaterThanOrEqual(17);
    const documented = new Map(operations(committed).map(({ key, op }) => [key, (op['x-required-scope'] as string | undefined) ?? null]));
    expect([...documented.keys()].sort()).toEqual([...routes.keys()].sort());
    for (const [key, scope] of routes) expect({ key, scope: documented.get(key) }).toEqual({ key, scope });
  });

  it('gives every operation an id, a summary, a tag, its problems and the headers every answer carries', () => {
    for (const { key, op } of operations(committed)) {
      expect({ key, id: typeof op.operationId, summary: typeof op.summary, tags: op.tags?.length }).toEqual({
        key,
        id: 'string',
        summary: 'string',
        tags: 1,
      });
      const statuses = Object.keys(op.responses);
      if (op['x-required-scope']) {
        expect({ key, statuses: statuses.filter((s) => ['401', '403', '429', '500', '503'].includes(s)) }).toEqual({
          key,
          statuses: ['401', '403', '429', '500', '503'],
        });
        expect(op.security).toEqual([{ bearerAuth: [op['x-required-scope']] }]);
      } else {
        expect(op.security).toEqual([]);
      }
      for (const [status, response] of Object.entries(op.responses) as [string, any][]) {
        expect({ key, status, requestId: response.headers?.['Request-Id'] }).toEqual({
          key,
          status,
          requestId: { $ref: '#/components/headers/Request-Id' },
        });
        if (key.includes(' /api/v1/'))
          expect(Object.keys(response.headers)).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit']));
        if (status === '429') expect(Object.keys(response.headers)).toContain('Retry-After');
        if (Number(status) >= 400) expect(Object.keys(response.content)).toEqual(['application/problem+json']);
      }
    }
    const start = committed.paths!['/api/v1/workflows/{workflow_id}/runs']!.post! as Record<string, any>;
    expect(start.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['path:workflow_id', 'header:Idempotency-Key']),
    );
    expect(Object.keys(start.responses['201'].headers)).toEqual(expect.arrayContaining(['Location', 'Request-Id']));
    expect(Object.keys(start.responses['200'].headers)).toContain('Idempotent-Replayed');
    expect(Object.keys(start.responses).sort()).toEqual([
      '200',
      '201',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
    ]);
    expect(committed.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('describes the outbound webhooks: every event kind, its payload and the Svc-Signature header', () => {
    const webhooks = committed.webhooks as Record<string, { post: Record<string, any> }>;
    expect(Object.keys(webhooks).sort()).toEqual(
      ['review.decided', 'run.cancelled', 'run.failed', 'run.succeeded', 'run.waiting_for_review', 'workflow.updated'].sort(),
    );
    for (const [name, item] of Object.entries(webhooks)) {
      const headers = item.post.parameters.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name);
      expect({ name, headers }).toEqual({
        name,
        headers: expect.arrayContaining(['Svc-Signature', 'Svc-Event-Id', 'Svc-Event-Type', 'Svc-Delivery-Id', 'Svc-Delivery-Attempt']),
      });
      expect(item.post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WebhookEvent' });
    }
  });

  it('publishes exactly the cursors the server accepts (every value of the pattern, nothing else)', () => {
    const re = new RegExp(CURSOR_PATTERN);
    for (const seq of [0n, 1n, 100n, 2n ** 40n, 2n ** 63n - 1n]) {
      expect(encodeCursor(seq)).toMatch(re);
      expect(decodeCursor(encodeCursor(seq))).toBe(seq);
    }
    const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < 2000; i++) {
      let c = '';
      for (let j = 0; j < 11; j++) c += chars[(i * 7 + j * 13 + (i >> 3) * j) % 64];
      expect(re.test(c) ? typeof decodeCursor(c) : 'refused').toBe(re.test(c) ? 'bigint' : 'refused');
      if (!re.test(c)) expect(() => decodeCursor(c)).toThrow(/cursor is not valid/);
    }
    expect(() => decodeCursor('notacursor')).toThrow();
  });

  describe('as served by the gateway', () => {
    let stack: TestStack;
    beforeAll(async () => {
      stack = await startStack();
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it('GET /api/v1/openapi.json (no key) is the committed document with this gateway as its server', async () => {
      const r = await stack.api('GET', '/api/v1/openapi.json');
      expect(r.status).toBe(200);
      expect(r.headers.get('request-id')).toMatch(/^req_/);
      // The gateway's BASE_URL as configured when the app was built (the test stack learns its port later).
      expect(r.body.servers).toEqual([
        { url: expect.stringMatching(/^http:\/\/(localhost|127\.0\.0\.1):\d+$/), description: 'The gateway serving this document.' },
      ]);
      expect({ ...r.body, servers: committed.servers }).toEqual(committed);
    });

    it('refuses what the document refuses: U+0000 in run input (422, not 500), Idempotency-Key per its pattern', async () => {
      const { key, workspaceId } = await stack.tenant();
      const wf = await stack.apply(workspaceId, {
        name: 'Echo',
        slug: 'echo',
        steps: [{ key: 'e', type: 'transform', expression: 'input' }],
      });
      const nul = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, {
        key,
        rawBody: '{"input":{"a":{"b":["x\\u0000y"]}}}',
        headers: { 'content-type': 'application/json' },
      });
      expect(nul.status).toBe(422);
      expect(nul.body).toMatchObject({ code: 'validation_failed' });
      const nulKey = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, {
        key,
        rawBody: '{"input":{"\\u0000":1}}',
        headers: { 'content-type': 'application/json' },
      });
      expect(nulKey.status).toBe(422);

      const re = new RegExp(IDEMPOTENCY_KEY_PATTERN);
      const first = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, {
        key,
        body: { input: { n: 1 } },
        headers: { 'idempotency-key': '"k 1"' },
      });
      expect(first.status).toBe(201);
      const bare = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, {
        key,
        body: { input: { n: 1 } },
        headers: { 'idempotency-key': 'k 1' },
      });
      expect(bare.status).toBe(200);
      expect(bare.body.id).toBe(first.body.id);
      // The quoted form of a key is the same key: a replay.
      for (const [value, status] of [
        ['""', 201],
        ['"', 201],
        ['x'.repeat(255), 201],
        [`"${'x'.repeat(255)}"`, 200],
      ] as const) {
        expect(re.test(value)).toBe(true);
        const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, {
          key,
          body: { input: {} },
          headers: { 'idempotency-key': value },
        });
        expect({ value: value.slice(0, 5), status: r.status }).toEqual({ value: value.slice(0, 5), status });
      }
      for (const value of ['x'.repeat(256), `"${'x'.repeat(256)}"`, 'a\tb']) {
        expect(re.test(value)).toBe(false);
        const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, {
          key,
          body: { input: {} },
          headers: { 'idempotency-key': value },
        });
        expect({ value: value.slice(0, 5), status: r.status }).toEqual({ value: value.slice(0, 5), status: 400 });
      }
    });

    it('answers 405 with Allow for a method a documented path does not have, after authentication', async () => {
      const { key } = await stack.tenant();
      const put = await stack.api('PUT', '/api/v1/workflows', { key });
      expect(put.status).toBe(405);
      expect(put.headers.get('allow')).toBe('GET');
      expect(put.body).toMatchObject({ code: 'method_not_allowed', status: 405 });
      const del = await stack.api('DELETE', '/api/v1/runs/run_abc/cancel', { key });
      expect(del.status).toBe(405);
      expect(del.headers.get('allow')).toBe('POST');
      expect((await stack.api('PUT', '/api/v1/workflows')).status).toBe(401);
      expect((await stack.api('GET', '/api/v1/no-such-thing', { key })).status).toBe(404);
    });
  });
});
