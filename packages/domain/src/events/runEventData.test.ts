import { jsonBytes } from '../runs/limits';
import type { RunView, StepView } from '../runs/runView';
import { MAX_EVENT_BODY_BYTES, runEventData } from './runEventData';

const step = (key: string, output: unknown, error: StepView['error'] = null): StepView => ({
  key,
  name: key,
  type: 'transform',
  status: error ? 'failed' : 'succeeded',
  attempts: 1,
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: '2026-01-01T00:00:01.000Z',
  duration_ms: 1000,
  output,
  error,
});

const run = (over: Partial<RunView>): RunView => ({
  id: 'run_1',
  workflow_id: 'wf_1',
  workflow_version: 1,
  status: 'succeeded',
  input: { name: 'a' },
  output: { ok: true },
  error: null,
  steps: [step('a', { ok: true })],
  review: null,
  trigger: 'api',
  idempotency_key: null,
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: '2026-01-01T00:00:01.000Z',
  duration_ms: 1000,
  ...over,
});

/** The delivery body as the sender writes it. */
const bodyBytes = (data: unknown) =>
  jsonBytes({
    id: 'evt_0123456789abcdefghijklmn',
    type: 'run.waiting_for_review',
    created_at: '2026-01-01T00:00:00.000Z',
    workspace_id: 'ws_0123456789abcdefghijklmn',
    data,
  });

describe('runEventData', () => {
  test('a run whose body fits is sent as it is, without a truncated key', () => {
    const small = run({});
    expect(runEventData(small)).toBe(small);
    expect(runEventData(small)).not.toHaveProperty('truncated');
  });

  test('a larger run is sent with truncated: true and its data as null, the rest as it is', () => {
    const big = 'x'.repeat(1024 * 1024);
    const large = run({
      input: { big },
      output: big,
      steps: [step('a', big), step('b', { small: 1 })],
      review: {
        id: 'rev_1',
        step_key: 'b',
        status: 'approved',
        title: 't',
        instructions: '',
        assignees: [],
        data: big,
        requested_at: null,
        expires_at: null,
        decision: 'approved',
        decided_by: null,
        decided_via: null,
        decided_at: null,
        comment: null,
      },
    });
    const data = runEventData(large);
    expect(data).toMatchObject({
      id: 'run_1',
      status: 'succeeded',
      truncated: true,
      input: null,
      output: null,
      review: { id: 'rev_1', data: null },
    });
    expect(data.steps?.map((s) => [s.key, s.output, s.status])).toEqual([
      ['a', null, 'succeeded'],
      ['b', null, 'succeeded'],
    ]);
    expect(bodyBytes(data)).toBeLessThanOrEqual(MAX_EVENT_BODY_BYTES);
    expect(large.output).toBe(big); // the run itself is not changed
  });

  test('whatever the run holds, its body stays under the cap', () => {
    const message = '\u0001'.repeat(100_000); // six bytes each once escaped
    const worst = run({
      status: 'failed',
      error: { code: 'expression_error', message, step_key: 's99' },
      steps: Array.from({ length: 100 }, (_, i) => step(`s${i}`, null, { code: 'expression_error', message })),
    });
    const data = runEventData(worst);
    expect(data).toMatchObject({ truncated: true, steps: null, review: null, error: { code: 'expression_error', step_key: 's99' } });
    expect(bodyBytes(data)).toBeLessThanOrEqual(MAX_EVENT_BODY_BYTES);
  });
});
