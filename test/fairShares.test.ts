import { sandboxStats } from '@svc/domain';
import { waitFor } from './helpers/fixtures';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/**
 * Workspaces share the expression sandbox fairly: each attack comes from one workspace and the
 * victim is another. The stack's gateway and worker share this process's sandbox (2 threads), as
 * the worst case of a small deployment.
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.stop();
});

/** Burns a few hundred milliseconds of a sandbox thread, inside the expression time limit. */
const SLOW = '$count([1..25].($sum([1..90000])))';
/**
 * The bound of a victim's trivial `wait: true` answer while another workspace floods: 5 s, or ten
 * times its answer alone on a machine that slow (without fairness, the attacks below cost 20 s and more).
 */
const VICTIM_BOUND_MS = 5_000;

async function victim() {
  const { key, workspaceId } = await stack.tenant();
  const wf = await stack.apply(workspaceId, {
    name: 'Victim',
    slug: 'victim',
    input_schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    steps: [{ key: 'shape', type: 'transform', expression: "{ 'greeting': 'hello ' & input.name }" }],
  });
  /** One trivial run with `wait: true`: its status and how long the answer took. */
  const once = async () => {
    const t0 = Date.now();
    const r = await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: { name: 'v' }, wait: true } });
    return { status: r.status, run: r.body.status as string, ms: Date.now() - t0 };
  };
  // Alone first: its definition and the sandbox's threads are warm before the attack, and its
  // answers alone bound what the attack may cost it on this machine now.
  expect((await once()).run).toBe('succeeded');
  const alone = await once();
  expect(alone.run).toBe('succeeded');
  return { once, bound: Math.max(VICTIM_BOUND_MS, 10 * alone.ms) };
}

async function expectVictimUnharmed(v: Awaited<ReturnType<typeof victim>>, runs: number): Promise<void> {
  for (let i = 0; i < runs; i++) {
    const r = await v.once();
    expect([r.status, r.run]).toEqual([201, 'succeeded']);
    expect(r.ms).toBeLessThan(v.bound);
  }
}

it("evaluates nothing for a queued run: a flooding workspace's runs are evaluated once each", async () => {
  const { key, workspaceId } = await stack.tenant({ limits: { concurrency: 1 } });
  const wf = await stack.apply(workspaceId, {
    name: 'Queued',
    slug: 'queued-flood',
    steps: [{ key: 'shape', type: 'transform', expression: "'x'" }],
  });
  const before = sandboxStats().ran;
  const runs = await stack.withoutWorker(() =>
    Promise.all(
      Array.from(
        { length: 20 },
        async () => (await stack.api('POST', `/api/v1/workflows/${wf.id}/runs`, { key, body: { input: {} } })).body.id,
      ),
    ),
  );
  await waitFor(
    () => stack.db.prisma.run.count({ where: { id: { in: runs }, status: 'succeeded' } }),
    (n) => n === runs.length,
    60_000,
  );
  // One evaluation per run: none ran its step before it held the workspace's one slot.
  expect(sandboxStats().ran - before).toBe(runs.length);
});

it("keeps another workspace's runs fast while a basic-plan workspace floods slow transforms", async () => {
  const v = await victim();
  const attacker = await stack.tenant({ plan: 'basic' });
  const slow = await stack.apply(attacker.workspaceId, {
    name: 'Slow',
    slug: 'slow-transform',
    steps: [{ key: 'burn', type: 'transform', expression: SLOW }],
  });
  const flood = Array.from({ length: 60 }, () =>
    stack.api('POST', `/api/v1/workflows/${slow.id}/runs`, { key: attacker.key, body: { input: {} } }).then((r) => r.status),
  );
  expect(await Promise.all(flood)).toEqual(Array(60).fill(201));
  // The attacker's backlog is queued behind its own 5 slots; the victim's runs pass it.
  await expectVictimUnharmed(v, 10);
  const attackerRunning = await stack.db.prisma.run.count({ where: { workspaceId: attacker.workspaceId, status: 'running' } });
  expect(attackerRunning).toBeLessThanOrEqual(5);
});

it("keeps another workspace's starts fast while one floods input validations that run to their deadline", async () => {
  const v = await victim();
  const attacker = await stack.tenant();
  const costly = await stack.apply(attacker.workspaceId, {
    name: 'Costly schema',
    slug: 'costly-schema',
    input_schema: { type: 'object', properties: { items: { type: 'array', uniqueItems: true } } },
    steps: [{ key: 'shape', type: 'transform', expression: "'x'" }],
  });
  // Distinct objects: uniqueItems compares every pair, past the validation's own deadline.
  const items = Array.from({ length: 12_000 }, (_, i) => ({ a: i, b: 'x'.repeat(20), c: [1, 2, { d: i }] }));
  const answers: Array<Promise<{ status: number; code: string; retryAfter: string | null }>> = [];
  for (let i = 0; i < 24; i++) {
    answers.push(
      stack
        .api('POST', `/api/v1/workflows/${costly.id}/runs`, { key: attacker.key, body: { input: { items } } })
        .then((r) => ({ status: r.status, code: r.body.code, retryAfter: r.headers.get('retry-after') })),
    );
  }
  await expectVictimUnharmed(v, 5);
  const attacked = await Promise.all(answers);
  // The attacker pays for its own input: refused as invalid (its validation ran out of time), or
  // told to come back (its own line is full); never a server error, never blamed on another.
  for (const a of attacked) {
    if (a.status === 503) expect([a.code, Number(a.retryAfter) >= 1]).toEqual(['unavailable', true]);
    else expect([a.status, a.code]).toEqual([422, 'validation_failed']);
  }
  expect(attacked.some((a) => a.status === 503)).toBe(true);
});
