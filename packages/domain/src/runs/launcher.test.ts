import { newId } from '../ids';
import { runWorkflowIdFor } from './launcher';

describe('runWorkflowIdFor', () => {
  it('is the run id without a key', () => {
    expect(runWorkflowIdFor({ runId: 'run_1', workspaceId: 'ws_1', scope: 'wf_1' })).toBe('run_1');
  });

  it('is <ws>/<scope>/<key> with one, the key kept as sent ("/" included)', () => {
    expect(runWorkflowIdFor({ runId: 'run_1', workspaceId: 'ws_1', scope: 'wf_1', idempotencyKey: 'a/b "c"' })).toBe('ws_1/wf_1/a/b "c"');
    expect(runWorkflowIdFor({ runId: 'run_1', workspaceId: 'ws_1', scope: 'trg_1', idempotencyKey: 'k' })).toBe('ws_1/trg_1/k');
  });

  it("keeps within 255 characters (Temporal on SQL): a longer one ends in the key's SHA-256", () => {
    const ids = { runId: 'run_1', workspaceId: newId('ws'), scope: newId('wf') };
    const fits = 'k'.repeat(255 - `${ids.workspaceId}/${ids.scope}/`.length);
    expect(runWorkflowIdFor({ ...ids, idempotencyKey: fits })).toBe(`${ids.workspaceId}/${ids.scope}/${fits}`);
    const long = `${fits}-and-more`;
    const id = runWorkflowIdFor({ ...ids, idempotencyKey: long });
    expect(id).toHaveLength(255);
    expect(id).toMatch(new RegExp(`^${ids.workspaceId}/${ids.scope}/k+~[0-9a-f]{64}$`));
    expect(runWorkflowIdFor({ ...ids, idempotencyKey: `${fits}-and-less` })).not.toBe(id);
    expect(runWorkflowIdFor({ ...ids, idempotencyKey: long })).toBe(id);
  });

  it('keeps its first two segments fixed: the ids before the key never contain "/"', () => {
    for (const prefix of ['ws', 'wf', 'trg'] as const) expect(newId(prefix)).toMatch(/^[a-z]+_[0-9a-z]+$/);
  });
});
