import { randomBytes } from 'node:crypto';
import { connectionConfig, NotificationListener } from '@svc/db';

/**
 * A gateway process's listener (LISTEN) for the runs its `wait: true` requests wait on, on a new
 * channel of its own. Such a run keeps the channel (`settle_channel`, startRun.ts), and the
 * transaction that settles it (ends it, or pauses it for a review) sends it there (NOTIFY,
 * runStore.ts readSettled), delivered when that transaction commits: its id, then a newline and
 * its row as `GET` reads it when that is small enough. The waiting request answers from it without
 * waiting for Temporal to finish the workflow task. Nothing else sends on the channel, and no
 * other gateway hears it. Call `start` to listen.
 */
export function listenForSettledRuns(databaseUrl: string, opts: { onError?: (err: Error) => void } = {}): NotificationListener {
  return new NotificationListener(connectionConfig(databaseUrl), `svc_run_settled_${randomBytes(8).toString('hex')}`, opts);
}
