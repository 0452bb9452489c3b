import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { request } from 'undici';
import { BENCH_CONCURRENCY, BENCH_INPUT, BENCH_RATE_LIMIT_PER_MIN, BENCH_WORKFLOW } from '../fixtures';
import { EXECUTE_TIMEOUT_MS } from '../sdk';
import { floorDeliveryId } from './deliveryActivities';
import type { Greeting } from './activities';
import type { ApiFloorWorkflow } from './apiRoutes';
import type { SvcLaunch } from './durableApi';
import type { floorActivity, floorLocalActivity, floorRunWithDelivery } from './workflows';

/** Both floor workflows take and answer the same. */
type FloorWorkflow = typeof floorLocalActivity & typeof floorActivity;

/**
 * The floor baselines as a user calls them: `client.workflow.execute` of the hand-written
 * workflows (floor/workflows.ts) on the floor worker's task queue, same server, same client.
 */
export class FloorBaseline {
  /** The workflow ids of the last executions started (to read one run's history). */
  lastLocalId: string | undefined;
  lastActivityId: string | undefined;

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** One local activity: the floor the targets are set against. */
  readonly executeLocal = async (): Promise<void> => {
    this.lastLocalId = await this.execute('floorLocalActivity');
  };

  /** One regular activity. */
  readonly executeActivity = async (): Promise<void> => {
    this.lastActivityId = await this.execute('floorActivity');
  };

  /**
   * Starts one run of the transform followed by a signed webhook of its result, delivered by a
   * workflow of its own to `webhookUrl` (floorRunWithDelivery); answers its workflow id, which
   * is the event's `data.id`.
   */
  async startWithDelivery(webhookUrl: string): Promise<string> {
    const workflowId = `floor-${randomUUID()}`;
    await this.client.workflow.start<typeof floorRunWithDelivery>('floorRunWithDelivery', {
      taskQueue: this.taskQueue,
      workflowId,
      args: [{ ...BENCH_INPUT, webhookUrl }],
    });
    return workflowId;
  }

  /** Terminates what runs of a floor's webhook path left open (startWithDelivery's, the durable floor's), and their deliveries. */
  async terminateWithDelivery(runIds: string[]): Promise<void> {
    const ids = runIds.flatMap((id) => [id, floorDeliveryId(id)]);
    const next = () => ids.pop();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let id = next(); id; id = next()) {
          await this.client.workflow
            .getHandle(id)
            .terminate('bench: backlog of a finished measurement')
            .catch(() => undefined); // finished meanwhile, or never started
        }
      }),
    );
  }

  private async execute(type: 'floorLocalActivity' | 'floorActivity'): Promise<string> {
    const workflowId = `floor-${randomUUID()}`;
    const result = await this.client.withAbortSignal(AbortSignal.timeout(EXECUTE_TIMEOUT_MS), () =>
      this.client.workflow.execute<FloorWorkflow>(type, { taskQueue: this.taskQueue, workflowId, args: [BENCH_INPUT] }),
    );
    if (result.greeting !== `hello ${BENCH_INPUT.name}`) throw new Error(`${type} answered ${JSON.stringify(result)}`);
    return workflowId;
  }
}

/** What the bench's details say the contract floor is. */
export const CONTRACT_FLOOR_SHAPE = "the durable floor with update-with-start, svc's search attributes and status upsert";

/** What the bench's details say the API floor is. */
export const API_FLOOR_SHAPE =
  'the contract floor with a key check, rate limits, the input_schema, step rows, a concurrency slot, and the event with its deliveries';

/**
 * Registers the bench workflow with the API floor (`PUT /api-workflows/{id}`) under a workspace and
 * key of its own, with the bench's figures, and answers one `wait: true` run of it through the
 * floor's `POST /api-runs/{id}`, checked as durableFloorRun checks its runs.
 */
export async function apiFloorRun(durableFloorUrl: string, label: string): Promise<() => Promise<void>> {
  const [shape] = BENCH_WORKFLOW.steps;
  const workflowId = `wf_floor_${label}_${randomUUID()}`;
  const wf: ApiFloorWorkflow = {
    workspaceId: `ws_floor_${label}_${randomUUID()}`,
    key: `floor_${randomUUID()}`,
    ratePerMin: BENCH_RATE_LIMIT_PER_MIN,
    concurrency: BENCH_CONCURRENCY,
    inputSchema: BENCH_WORKFLOW.input_schema,
    stepKey: shape.key,
    expression: shape.expression,
  };
  const put = await request(`${durableFloorUrl}/api-workflows/${workflowId}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(wf),
  });
  await put.body.dump();
  if (put.statusCode !== 204) throw new Error(`the API floor refused the workflow: ${put.statusCode}`);
  return checkedRun(`${durableFloorUrl}/api-runs/${workflowId}`, { authorization: `Bearer ${wf.key}` });
}

/**
 * Registers svc's workflow with the durable floor's start route (`PUT /svc-starts/{id}`) and
 * answers the route's URL and body: `POST` them to start a run of it as an SDK start behind the
 * least durable HTTP API (floor/durableApi.ts).
 */
export async function durableFloorStarts(durableFloorUrl: string, launch: SvcLaunch): Promise<{ url: string; body: string }> {
  const url = `${durableFloorUrl}/svc-starts/${encodeURIComponent(launch.workflowId)}`;
  const res = await request(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(launch) });
  await res.body.dump();
  if (res.statusCode !== 204) throw new Error(`the durable floor refused the launch: ${res.statusCode}`);
  return { url, body: JSON.stringify({ input: BENCH_INPUT }) };
}

/**
 * Starts one run of the durable floor's webhook path (durableApi.ts `POST /delivery-runs`),
 * whose `run.succeeded` event goes to `webhookUrl`; answers the run's id (the event's `data.id`).
 */
export async function startDurableWithDelivery(durableFloorUrl: string, webhookUrl: string): Promise<string> {
  const res = await request(`${durableFloorUrl}/delivery-runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: BENCH_INPUT, webhookUrl }),
  });
  const text = await res.body.text();
  if (res.statusCode !== 201) throw new Error(`the durable floor answered ${res.statusCode}: ${text.slice(0, 200)}`);
  return (JSON.parse(text) as { id: string }).id;
}

/**
 * One run through the durable floor's API (durableApi.ts), as a `wait: true` caller makes it;
 * with `contract`, through its contract floor (`POST /contract-runs`).
 */
export function durableFloorRun(durableFloorUrl: string, opts: { contract?: boolean } = {}): () => Promise<void> {
  return checkedRun(`${durableFloorUrl}/${opts.contract ? 'contract-runs' : 'runs'}`);
}

/** One `POST` of the bench input to a floor's run route, which must answer the run succeeded with its greeting. */
function checkedRun(url: string, headers: Record<string, string> = {}): () => Promise<void> {
  const body = JSON.stringify({ input: BENCH_INPUT });
  return async () => {
    const res = await request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    const text = await res.body.text();
    const run = res.statusCode === 201 ? (JSON.parse(text) as { status: string; output: Greeting | null }) : undefined;
    if (run?.status !== 'succeeded' || run.output?.greeting !== `hello ${BENCH_INPUT.name}`) {
      throw new Error(`the durable floor answered ${res.statusCode}: ${text.slice(0, 200)}`);
    }
  };
}
