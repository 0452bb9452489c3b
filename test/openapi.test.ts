import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument, CURSOR_PATTERN, DEFAULT_BASE_URL, IDEMPOTENCY_KEY_PATTERN } from '@svc/contract';
import { decodeCursor, encodeCursor, ERROR_STATUS, problemTypes } from '@svc/domain';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/**
 * The committed OpenAPI documents (openapi/openapi.json, and its 3.0 rendering openapi-3.0.json)
 * are the server's real contract: generated from the Zod schemas the gateway validates with,
 * unchanged since, clean under a real OpenAPI linter, covering every route of the gateway, in the
 * shapes every common client generator takes whole, and the documents the gateway serves.
 */

const exec = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');
const COMMITTED = path.join(ROOT, 'openapi/openapi.json');
const COMMITTED_30 = path.join(ROOT, 'openapi/openapi-3.0.json');
const REGENERATE = 'run `npm run openapi` and commit openapi/ (the documents are generated from packages/contract)';

type Doc = ReturnType<typeof buildOpenApiDocument>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function operations(doc: Doc, section: 'paths' | 'webhooks' = 'paths'): Array<{ key: string; op: Record<string, any> }> {
  const out: Array<{ key: string; op: Record<string, any> }> = [];
  for (const [p, item] of Object.entries(doc[section] ?? {})) {
    for (const m of METHODS) if (item[m]) out.push({ key: `${m.toUpperCase()} ${p}`, op: item[m] as Record<string, any> });
  }
  return out;
}

/** The documents as the gateway at `baseUrl` builds them. */
const documentsFor = (baseUrl: string) => {
  const problems = problemTypes(baseUrl);
  return {
    v31: JSON.parse(JSON.stringify(buildOpenApiDocument({ baseUrl, problems }))) as Doc,
    v30: JSON.parse(JSON.stringify(buildOpenApiDocument({ baseUrl, problems, openapiVersion: '3.0.3' }))) as Doc,
  };
};

/** Every schema object of a document, with its JSON pointer (examples are values, not schemas). */
function schemaNodes(node: unknown, pointer = ''): Array<{ pointer: string; schema: Record<string, any> }> {
  if (!node || typeof node !== 'object') return [];
  const out: Array<{ pointer: string; schema: Record<string, any> }> = [];
  const obj = node as Record<string, any>;
  if (typeof obj.type === 'string' || Array.isArray(obj.type) || obj.anyOf || obj.$ref) out.push({ pointer, schema: obj });
  for (const [k, v] of Object.entries(obj)) if (k !== 'example' && k !== 'examples') out.push(...schemaNodes(v, `${pointer}/${k}`));
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
  const committed30 = JSON.parse(readFileSync(COMMITTED_30, 'utf8')) as Doc;

  it('is exactly what the contract generates, as OpenAPI 3.1 and as OpenAPI 3.0', async () => {
    // The schemas as they are in the source…
    const generated = documentsFor(DEFAULT_BASE_URL);
    for (const [file, document, fresh] of [
      ['openapi.json', committed, generated.v31],
      ['openapi-3.0.json', committed30, generated.v30],
    ] as const) {
      if (JSON.stringify(fresh) !== JSON.stringify(document)) {
        expect({ hint: REGENERATE, file, document }).toEqual({ hint: REGENERATE, file, document: fresh });
      }
    }
    expect(committed.openapi).toBe('3.1.0');
    expect(committed30.openapi).toBe('3.0.3');
    // The same contract: the same operations, schemas and examples.
    expect(operations(committed30).map((o) => o.key)).toEqual(operations(committed).map((o) => o.key));
    expect(Object.keys(committed30.components!.schemas!)).toEqual(
      Object.keys(committed.components!.schemas!).filter((n) => n !== 'WebhookEvent'),
    );
    // …and byte for byte as the generator writes it (built contract, formatting, types).
    const check = await exec(process.execPath, [path.join(ROOT, 'scripts/generate-openapi.js'), '--check']).then(
      () => '',
      (err: { stderr: string }) => err.stderr,
    );
    expect(check).toBe('');
  });

  it.each([COMMITTED, COMMITTED_30])(
    '%s passes the Redocly OpenAPI linter with no error and no warning (examples included)',
    async (file) => {
      const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
      const result = await exec(
        process.execPath,
        [cli, 'lint', file, '--config', path.join(ROOT, 'openapi/redocly.yaml'), '--format', 'json'],
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
    },
  );

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
        headers: expect.arrayContaining([
          'Svc-Signature',
          'Svc-Event-Id',
          'Svc-Event-Type',
          'Svc-Delivery-Id',
          'Svc-Delivery-Attempt',
          'webhook-id',
          'webhook-timestamp',
          'webhook-signature',
        ]),
      });
      expect(item.post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WebhookEvent' });
    }
  });

  it('lists every error code as an enum, and each answer lists the codes of its own status', () => {
    const schema = committed.components!.schemas!.Problem as Record<string, any>;
    expect(schema.properties.code.enum).toEqual(Object.keys(ERROR_STATUS));
    for (const { key, op } of operations(committed)) {
      for (const [status, response] of Object.entries(op.responses) as [string, any][]) {
        if (Number(status) < 400) continue;
        const examples = response.content['application/problem+json'].examples as Record<string, { value: Record<string, any> }>;
        expect({ key, status, codes: Object.keys(examples).length > 0 }).toEqual({ key, status, codes: true });
        for (const [code, { value }] of Object.entries(examples)) {
          expect({ key, code, status: value.status, type: value.type }).toEqual({
            key,
            code,
            status: ERROR_STATUS[code as keyof typeof ERROR_STATUS],
            type: `${DEFAULT_BASE_URL}/docs/problems/${code.replace(/_/g, '-')}`,
          });
          expect(value.status).toBe(Number(status));
        }
        if (op['x-required-scope'] && status === '403') {
          expect({ key, codes: Object.keys(examples) }).toEqual({
            key,
            codes: expect.arrayContaining(['insufficient_scope', 'browser_requests_not_allowed']),
          });
        }
      }
    }
    // docs/api.md lists them all too.
    const page = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
    expect(Object.keys(ERROR_STATUS).filter((code) => !page.includes(`\`${code}\``))).toEqual([]);
    const start = committed.paths!['/api/v1/workflows/{workflow_id}/runs']!.post!.responses as Record<string, any>;
    expect(Object.keys(start['403'].content['application/problem+json'].examples)).toContain('plan_does_not_allow_runs');
    expect(Object.keys(start['429'].content['application/problem+json'].examples)).toEqual(['rate_limited', 'queue_full']);
  });

  it('takes the shapes every common generator reads: camelCase ids, one nullability, plain JSON fields, bounds, examples, a server variable', () => {
    for (const { key, op } of [...operations(committed), ...operations(committed, 'webhooks')]) {
      expect({ key, id: op.operationId }).toEqual({ key, id: expect.stringMatching(/^[a-z][a-zA-Z0-9]*$/) });
      for (const media of Object.values(op.requestBody?.content ?? {}) as Array<Record<string, unknown>>) {
        expect({ key, example: media.example !== undefined }).toEqual({ key, example: true });
      }
      for (const [status, response] of Object.entries(op.responses) as [string, any][]) {
        for (const media of Object.values(response.content ?? {}) as Array<Record<string, unknown>>) {
          expect({ key, status, example: media.example !== undefined || media.examples !== undefined }).toEqual({
            key,
            status,
            example: true,
          });
        }
      }
    }
    // Nullable values are spelled one way: anyOf with {type: null}; no type arrays, no recursion, no propertyNames.
    const nodes = schemaNodes(committed);
    expect(nodes.filter(({ schema }) => Array.isArray(schema.type)).map((n) => n.pointer)).toEqual([]);
    for (const { pointer, schema } of nodes.filter((n) => n.schema.anyOf)) {
      expect({ pointer, anyOf: schema.anyOf.length, last: schema.anyOf.at(-1) }).toEqual({ pointer, anyOf: 2, last: { type: 'null' } });
    }
    expect(JSON.stringify(committed)).not.toMatch(/propertyNames|JsonValue/);
    // Integers are never negative here (durations, counts, attempts, statuses) and say their width.
    const integers = nodes.filter((n) => n.schema.type === 'integer');
    expect(integers.length).toBeGreaterThan(10);
    for (const { pointer, schema } of integers) {
      expect({ pointer, minimum: schema.minimum >= 0, format: schema.format }).toEqual({
        pointer,
        minimum: true,
        format: expect.stringMatching(/^int(32|64)$/),
      });
    }
    // Customer data is any JSON, in the plainest schema: an open object or the empty schema.
    const schemas = committed.components!.schemas! as Record<string, any>;
    const anyObject = expect.objectContaining({ type: 'object', additionalProperties: true });
    expect(schemas.StartRunRequest.properties.input).toEqual(anyObject);
    expect(schemas.Run.properties.input).toEqual(anyObject);
    expect(schemas.TriggerPayload).toEqual(anyObject);
    for (const [name, field] of [
      ['Run', 'output'],
      ['Step', 'output'],
      ['Review', 'data'],
      ['WebhookEvent', 'data'],
    ]) {
      expect({ name, field, schema: Object.keys(schemas[name].properties[field]) }).toEqual({ name, field, schema: ['description'] });
    }
    expect(committed.servers).toEqual([
      {
        url: '{base_url}',
        description: 'The gateway.',
        variables: { base_url: { default: DEFAULT_BASE_URL, description: expect.stringContaining('BASE_URL') } },
      },
    ]);
    expect(committed30.servers).toEqual(committed.servers);
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

    it('GET /api/v1/openapi.json and /api/v1/openapi-3.0.json (no key) are the committed documents with this gateway as their server', async () => {
      const r = await stack.api('GET', '/api/v1/openapi.json');
      expect(r.status).toBe(200);
      expect(r.headers.get('request-id')).toMatch(/^req_/);
      // The gateway's BASE_URL is the default of the server variable, and the base of problem type URIs.
      const baseUrl = r.body.servers[0].variables.base_url.default as string;
      expect(baseUrl).toBe(stack.url);
      const expected = documentsFor(baseUrl);
      expect(r.body).toEqual(expected.v31);
      const r30 = await stack.api('GET', '/api/v1/openapi-3.0.json');
      expect(r30.status).toBe(200);
      expect(r30.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r30.body).toEqual(expected.v30);
      // Only the server and the problem type URIs (under the server) differ from the committed documents.
      const relative = (doc: unknown) => JSON.stringify(doc).replaceAll(baseUrl, DEFAULT_BASE_URL);
      expect(relative(r.body)).toBe(JSON.stringify(committed));
      expect(relative(r30.body)).toBe(JSON.stringify(committed30));
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
