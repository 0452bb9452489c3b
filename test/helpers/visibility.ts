import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';

/**
 * Waits until Temporal's visibility store has caught up with every execution started before
 * this call — the positive signal that lets a test assert that something was *not* started.
 * It starts a marker execution (on a task queue no worker polls, so nothing runs it), waits
 * until a visibility query finds it, then terminates it. Visibility records are written in the
 * order their executions were started (the dev server has one history shard), so a stray
 * execution started earlier would show by then.
 */
export async function visibilityCaughtUp(client: Client, timeoutMs = 30_000): Promise<void> {
  const workflowId = `visibility-marker-${randomUUID()}`;
  const handle = await client.workflow.start('visibilityMarker', { workflowId, taskQueue: 'svc-test-visibility-marker', args: [] });
  try {
    const deadline = Date.now() + timeoutMs;
    while ((await client.workflow.count(`WorkflowId = "${workflowId}"`)).count === 0) {
      if (Date.now() > deadline) throw new Error(`visibility did not show ${workflowId} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await handle.terminate('visibility marker');
  }
}
