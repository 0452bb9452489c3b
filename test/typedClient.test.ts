import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createSvcClient } from '../openapi/typescript/client';
import type { components } from '../openapi/typescript/client';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/**
 * The typed client integrators get: TypeScript types generated from the committed OpenAPI
 * document (openapi-typescript; committed as openapi/typescript/schema.d.ts and checked fresh
 * here), type-checked with tsc, and used through openapi-fetch on Node's global fetch against a
 * live stack.
 */

const exec = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');

describe('typed client (openapi-typescript + openapi-fetch)', () => {
  it('is generated from the committed document: openapi/typescript/schema.d.ts is fresh', async () => {
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'svc-types-')), 'schema.d.ts');
    await exec(process.execPath, [path.join(ROOT, 'scripts/generate-openapi.js'), '--types', path.join(ROOT, 'openapi/openapi.json'), out]);
    const committed = readFileSync(path.join(ROOT, 'openapi/typescript/schema.d.ts'), 'utf8');
    if (readFileSync(out, 'utf8') !== committed) {
      throw new Error(
        'openapi/typescript/schema.d.ts is not generated from openapi/openapi.json: run `npm run openapi` and commit the result',
      );
    }
  });

  it('type-checks with tsc, and tsc refuses a call the document does not allow', async () => {
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    await exec(process.execPath, [tsc, '-p', path.join(ROOT, 'openapi/typescript/tsconfig.json')]);
    // The same project plus a file that misuses the client: the types must catch every misuse.
    const dir = mkdtempSync(path.join(ROOT, 'openapi/typescript/.typecheck-'));
    try {
      writeFileSync(
        path.join(dir, 'misuse.ts'),
        [
          "import { createSvcClient } from '../client';",
          "const c = createSvcClient({ baseUrl: 'http://x', apiKey: 'k' });",
          "void c.GET('/api/v1/nope');",
          "void c.GET('/api/v1/runs/{run_id}', {});",
          "void c.POST('/api/v1/workflows/{workflow_id}/runs', { params: { path: { workflow_id: 'wf_1' } }, body: { wait: true } });",
          "void c.GET('/api/v1/workflows').then((r) => r.data?.data[0].no_such_field);",
          '',
        ].join('\n'),
      );
      writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ extends: '../tsconfig.json', include: ['misuse.ts', '../client.ts', '../schema.d.ts'] }),
      );
      const failed = await exec(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')]).then(
        () => null,
        (err: { stdout: string }) => err.stdout,
      );
      expect(failed).not.toBeNull();
      const errors = failed!.split('\n').filter((l) => /error TS\d+/.test(l));
      expect(errors.map((l) => Number(/misuse\.ts\((\d+),/.exec(l)?.[1]))).toEqual([3, 4, 5, 6]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('against a live stack', () => {
    let stack: TestStack;
    let client: ReturnType<typeof createSvcClient>;
    let workspaceId: string;

    beforeAll(async () => {
      stack = await startStack();
      const t = await stack.tenant();
      workspaceId = t.workspaceId;
      client = createSvcClient({ baseUrl: stack.url, apiKey: t.key });
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it('lists workflows, starts a run with wait, reads it, and cancels another', async () => {
      const greet = await stack.apply(workspaceId, {
        name: 'Greet',
        slug: 'greet',
        input_schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        steps: [{ key: 'shape', type: 'transform', expression: "{ 'greeting': 'hello ' & input.name }" }],
        output: 'steps.shape.output',
      });
      const review = await stack.apply(workspaceId, {
        name: 'Approve',
        slug: 'approve',
        steps: [{ key: 'check', type: 'review', title: 'Check', assignees: ['ops@example.test'] }],
      });

      const list = await client.GET('/api/v1/workflows', { params: { query: { limit: 10 } } });
      expect(list.response.status).toBe(200);
      expect(list.data!.data.map((w) => w.slug).sort()).toEqual(['approve', 'greet']);
      expect(list.data!.next_cursor).toBeNull();

      const started = await client.POST('/api/v1/workflows/{workflow_id}/runs', {
        params: { path: { workflow_id: greet.id }, header: { 'Idempotency-Key': 'typed-client-1' } },
        body: { input: { name: 'Ada' }, wait: true },
      });
      expect(started.response.status).toBe(201);
      const run = started.data!;
      expect(run.status).toBe('succeeded');
      expect(run.output).toEqual({ greeting: 'hello Ada' });
      expect(started.response.headers.get('location')).toBe(`/api/v1/runs/${run.id}`);
      expect(started.response.headers.get('request-id')).toMatch(/^req_/);
      expect(started.response.headers.get('ratelimit-policy')).toContain('"key"');

      const read = await client.GET('/api/v1/runs/{run_id}', { params: { path: { run_id: run.id } } });
      expect(read.data!.id).toBe(run.id);
      expect(read.data!.steps.map((s) => [s.key, s.status])).toEqual([['shape', 'succeeded']]);

      // Problems come back typed as the error.
      const missing = await client.GET('/api/v1/runs/{run_id}', { params: { path: { run_id: 'run_doesnotexist' } } });
      expect(missing.response.status).toBe(404);
      const problem: components['schemas']['Problem'] | undefined = missing.error;
      expect(problem?.code).toBe('run_not_found');
      expect(missing.response.headers.get('content-type')).toContain('application/problem+json');

      const waiting = await client.POST('/api/v1/workflows/{workflow_id}/runs', {
        params: { path: { workflow_id: review.id } },
        body: { input: {}, wait: true },
      });
      expect(waiting.data!.status).toBe('waiting_for_review');
      const cancelled = await client.POST('/api/v1/runs/{run_id}/cancel', { params: { path: { run_id: waiting.data!.id } } });
      expect(cancelled.response.status).toBe(200);
      expect(cancelled.data!.status).toBe('cancelled');
      expect(cancelled.data!.review?.status).toBe('cancelled');

      // The finished run cannot be cancelled: 409 with the run's status.
      const refused = await client.POST('/api/v1/runs/{run_id}/cancel', { params: { path: { run_id: run.id } } });
      expect(refused.response.status).toBe(409);
      expect(refused.error).toMatchObject({ code: 'run_not_cancellable', run_status: 'succeeded' });
    });
  });
});
