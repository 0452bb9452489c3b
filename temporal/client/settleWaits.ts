import type { Client } from '@temporalio/client';
import type { WaitOptions } from '@svc/domain';
import { waitForSettleUpdate } from '../shared/messages';
import { SETTLED_STATUSES } from '../shared/runTypes';
import type { RunStatus } from '../shared/runTypes';
import { withAbortSignal } from './connection';
import { isResourceExhausted } from './updateLimit';
import { isWorkflowClosed, sendUpdate } from './updateRetry';

/** Pause before asking again after Temporal refused a wait for its in-flight update limit. */
const REFUSED_BACKOFF_MS = [100, 250, 500, 1_000] as const;
/** How long past its own timeout a wait's update may stay unanswered before it is given up. */
const UPDATE_GRACE_MS = 2_000;

/** How one shared wait ended: the run settled (or its workflow closed), or not (yet). */
type Ended = 'settled' | 'open';

/**
 * Waits for runs to settle through Temporal, one `waitForSettle` update per run at a time in this
 * process, whoever waits: any number of concurrent waits for one run (replays with the same key)
 * share it, so they never meet Temporal's limit of in-flight updates per workflow (10 by default).
 * Should another process's waits fill that limit, a refused wait asks again after a pause, until
 * its deadline: a wait is never refused for it.
 */
export function createSettleWaits(client: Client) {
  const shared = new Map<string, Promise<Ended>>();

  /** One update for the workflow, waiting up to `timeoutMs`; joined by every wait that comes meanwhile. */
  function sharedWait(temporalWorkflowId: string, timeoutMs: number): Promise<Ended> {
    const existing = shared.get(temporalWorkflowId);
    if (existing) return existing;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs + UPDATE_GRACE_MS);
    const wait = withAbortSignal(client, abort.signal, () =>
      sendUpdate((updateId) =>
        client.workflow.getHandle(temporalWorkflowId).executeUpdate(waitForSettleUpdate, { args: [{ timeoutMs }], updateId }),
      ),
    )
      .then((status: RunStatus): Ended => (SETTLED_STATUSES.includes(status) ? 'settled' : 'open'))
      .catch((err: unknown): Ended => {
        if (isWorkflowClosed(err)) return 'settled';
        throw err;
      })
      .finally(() => {
        clearTimeout(timer);
        shared.delete(temporalWorkflowId);
      });
    shared.set(temporalWorkflowId, wait);
    return wait;
  }

  /**
   * Resolves once the run has settled (or `wait.settled` says so first), `wait.timeoutMs` have
   * passed, or `wait.signal` aborts, whichever is first; never rejects for a refusal or a lost
   * call (the caller reads the run as it is then).
   */
  async function waitForSettle(temporalWorkflowId: string, wait: WaitOptions): Promise<void> {
    const { timeoutMs, signal } = wait;
    const deadline = Date.now() + timeoutMs;
    let refusals = 0;
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      const onAbort = () => resolve();
      void wait.settled?.then(resolve);
      signal?.addEventListener('abort', onAbort, { once: true });
      stop = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
    });
    let done = false;
    void stopped.then(() => (done = true));
    const loop = async () => {
      while (!done && Date.now() < deadline) {
        try {
          if ((await sharedWait(temporalWorkflowId, deadline - Date.now())) === 'settled') return;
          refusals = 0;
        } catch (err) {
          if (!isResourceExhausted(err)) return;
          const pause = REFUSED_BACKOFF_MS[Math.min(refusals++, REFUSED_BACKOFF_MS.length - 1)];
          await Promise.race([new Promise((resolve) => setTimeout(resolve, pause)), stopped]);
        }
      }
    };
    try {
      await Promise.race([loop(), stopped]);
    } finally {
      stop();
    }
  }

  return { waitForSettle };
}

export type SettleWaits = ReturnType<typeof createSettleWaits>;
