import { slow } from './helpers/fixtures';
import { startExtraGateway } from './helpers/extraGateway';
import type { ExtraGateway } from './helpers/extraGateway';
import { apiCall } from './helpers/http';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/**
 * Waiting is cheap: any number of concurrent `wait: true` replays of one run are answered, on
 * every gateway, none refused by Temporal's limit of in-flight updates per workflow (10 on the
 * test server, its default): each gateway process sends one wait per run, shared by its callers.
 */
let stack: TestStack;
let second: ExtraGateway;
beforeAll(async () => {
  stack = await startStack();
  second = await startExtraGateway(stack, '127.0.0.1');
});
afterAll(async () => {
  await second?.close();
  await stack?.stop();
});

it('answers thirty-one concurrent waits of one run across two gateways with the settled run', async () => {
  const { key, workspaceId } = await stack.tenant();
  const wf = await stack.apply(workspaceId, slow(3_000, 'replayed-wait'));
  const request = { key, body: { input: {}, wait: true }, headers: { 'idempotency-key': 'many-waiters' } };
  // One request creates the run; the thirty others replay it, each holding its wait.
  const answers = await Promise.all(
    Array.from({ length: 31 }, (_, i) => apiCall(i % 2 === 0 ? stack.url : second.url, 'POST', `/api/v1/workflows/${wf.id}/runs`, request)),
  );
  expect(answers.map((r) => r.status).sort()).toEqual([...Array(30).fill(200), 201]);
  expect(new Set(answers.map((r) => r.body.id)).size).toBe(1);
  expect(answers.map((r) => r.body.status)).toEqual(Array(31).fill('succeeded'));
});
