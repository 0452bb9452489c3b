import { svcCli } from './helpers/cli';
import { waitFor } from './helpers/fixtures';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import type { Tenant } from './helpers/tenants';

/** The run lists' shape (no run data in them) and the cancel action's body. */

let stack: TestStack;
let tenant: Tenant;
beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.tenant();
});
afterAll(async () => {
  await stack?.stop();
});

const HEAVY = ['input', 'output', 'steps', 'review'];

describe('run lists', () => {
  it('answer 20 runs holding 1 MiB of input and output each in a small page without their data; one run still has it', async () => {
    const wf = await stack.apply(tenant.workspaceId, {
      name: 'Echo',
      slug: 'echo-big',
      steps: [{ key: 'echo', type: 'transform', expression: 'input' }],
    });
    // Just under the 1 MiB input limit, once serialized.
    const input = { blob: 'x'.repeat(1024 * 1024 - 64) };
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key: tenant.key, body: { input } });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    await waitFor(
      () => stack.db.prisma.run.count({ where: { id: { in: ids }, status: 'succeeded' } }),
      (n) => n === 20,
      120_000,
      250,
    );

    const page = await stack.api('GET', `/api/v1/workflows/${wf.id}/runs?limit=20`, { key: tenant.key });
    expect(page.status).toBe(200);
    const bytes = Buffer.byteLength(JSON.stringify(page.body));
    expect(bytes).toBeLessThan(20 * 1024);
    expect(page.body.data.map((r: { id: string }) => r.id).sort()).toEqual([...ids].sort());
    for (const item of page.body.data) {
      expect(item).toMatchObject({ workflow_id: wf.id, status: 'succeeded', error: null, trigger: 'api' });
      for (const field of HEAVY) expect(item).not.toHaveProperty(field);
    }

    const one = await stack.api('GET', `/api/v1/runs/${ids[0]}`, { key: tenant.key });
    expect(one.body.input).toEqual(input);
    expect(one.body.output).toEqual(input);
    expect(one.body.steps[0].output).toEqual(input);

    // The CLI's list, as `--json` prints it.
    const cli = await svcCli(['runs', 'list', '--workspace', tenant.workspaceId, '--workflow', wf.id, '--json']);
    expect(cli.code).toBe(0);
    expect(Buffer.byteLength(cli.stdout)).toBeLessThan(20 * 1024);
    const listed = cli.json().data;
    expect(listed).toHaveLength(20);
    for (const item of listed) for (const field of HEAVY) expect(item).not.toHaveProperty(field);
  });
});

describe('cancel', () => {
  it('takes no body or {}; any field, or a body that is not an object, is 422 validation_failed and changes nothing', async () => {
    const wf = await stack.apply(tenant.workspaceId, {
      name: 'Hold',
      slug: 'hold',
      steps: [{ key: 'check', type: 'review', title: 'Hold on' }],
    });
    const start = async () => {
      const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key: tenant.key, body: { input: {}, wait: true } });
      expect(r.body.status).toBe('waiting_for_review');
      return r.body.id as string;
    };
    const cancel = (id: string, rawBody?: string) =>
      stack.api('POST', `/api/v1/runs/${id}/cancel`, {
        key: tenant.key,
        rawBody,
        headers: rawBody === undefined ? {} : { 'content-type': 'application/json' },
      });

    const id = await start();
    for (const body of ['{"reason":"no"}', '{"force":true}', '[]', '"cancel"', 'null', '1']) {
      const r = await cancel(id, body);
      expect({ body, status: r.status, code: r.body.code }).toEqual({ body, status: 422, code: 'validation_failed' });
    }
    expect((await stack.api('GET', `/api/v1/runs/${id}`, { key: tenant.key })).body.status).toBe('waiting_for_review');

    const withEmptyObject = await cancel(id, '{}');
    expect([withEmptyObject.status, withEmptyObject.body.status]).toEqual([200, 'cancelled']);
    const withNothing = await cancel(await start());
    expect([withNothing.status, withNothing.body.status]).toEqual([200, 'cancelled']);
  });
});
