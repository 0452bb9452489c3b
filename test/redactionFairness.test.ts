import { performance } from 'node:perf_hooks';
import { setSecret } from '@svc/domain';
import { SETTLED_STATUSES } from '@svc/temporal';
import { waitFor } from './helpers/fixtures';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import type { Tenant } from './helpers/tenants';

/**
 * Redaction runs on the worker's main thread, which every workspace shares: one workspace's
 * outputs dense with its secret and with `[REDACTED]` markers must not hold up another's runs.
 */
let stack: TestStack;
let attacker: Tenant & { workflowId: string };
let victim: Tenant & { workflowId: string };

beforeAll(async () => {
  stack = await startStack();
  const a = await stack.tenant();
  // A one-character secret: every `k` in the output is a match, between markers.
  await setSecret(stack.db.prisma, stack.box, { workspaceId: a.workspaceId, name: 'K', value: 'k' });
  const attack = await stack.apply(a.workspaceId, {
    name: 'Markers',
    slug: 'markers',
    steps: [
      {
        key: 'dense',
        type: 'transform',
        // About 1.4 million characters: 130,000 markers, each followed by the secret.
        expression: "($p := $pad('', 360000, '[REDACTED]' & secrets.K); $p & $p & $p & $p)",
      },
    ],
  });
  attacker = { ...a, workflowId: attack.id };
  const v = await stack.tenant();
  const one = await stack.apply(v.workspaceId, {
    name: 'One step',
    slug: 'one-step',
    steps: [{ key: 'shape', type: 'transform', expression: "{ 'greeting': 'hello ' & input.name }" }],
  });
  victim = { ...v, workflowId: one.id };
});

afterAll(async () => {
  await stack?.stop();
});

/** Starts a run with `wait: true` and answers once it has settled (reading it on when the wait gave up). */
async function settled(t: Tenant & { workflowId: string }, input: Record<string, unknown>) {
  const started = await stack.api('POST', `/api/v1/workflows/${t.workflowId}/runs`, { key: t.key, body: { input, wait: true } });
  expect(started.status).toBe(201);
  if (SETTLED_STATUSES.includes(started.body.status)) return started.body;
  return (
    await waitFor(
      () => stack.api('GET', `/api/v1/runs/${started.body.id}`, { key: t.key }),
      (r) => SETTLED_STATUSES.includes(r.body.status),
      90_000,
    )
  ).body;
}

/** The median time the victim's one-step run takes to answer, over `n` runs one after another. */
async function victimMs(n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const run = await settled(victim, { name: `v${i}` });
    times.push(performance.now() - started);
    expect(run).toMatchObject({ status: 'succeeded', output: { greeting: `hello v${i}` } });
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)];
}

it("one workspace's redaction-heavy runs delay another's one-step run only briefly", async () => {
  await victimMs(2); // warm-up: compiled expressions, prepared statements
  const baseline = await victimMs(5);

  // Three runs of the attacker's in flight at all times, until the victim has been measured.
  let attacking = true;
  const attacks: Array<{ status: string; error: { code: string } | null }> = [];
  const loops = Array.from({ length: 3 }, async () => {
    while (attacking) attacks.push(await settled(attacker, {}));
  });
  // The attack is under way: its outputs have been redacted (and then found too large to keep).
  await waitFor(
    async () => attacks.length,
    (n) => n >= 3,
    90_000,
  );
  const underAttack = await victimMs(3);
  attacking = false;
  await Promise.all(loops);

  expect(attacks[0]).toMatchObject({ status: 'failed', error: { code: 'step_output_too_large' } });
  // Generous for a loaded 2-core machine (the attack's evaluations take CPU too); a redaction
  // quadratic in the markers held the thread for minutes.
  expect(underAttack).toBeLessThan(Math.max(8 * baseline, baseline + 10_000));
});
