import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { RunStatus } from './runTypes';

/** Current status of a run, straight from its workflow. */
export const runStatusQuery = defineQuery<RunStatus>('runStatus');

/**
 * Completes when the run settles (succeeded, failed, cancelled or waiting for review)
 * and returns the status. Used by `wait: true` so the gateway never polls the database.
 */
export const waitForSettleUpdate = defineUpdate<RunStatus>('waitForSettle');
