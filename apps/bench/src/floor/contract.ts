/**
 * What the contract floor (durableApi.ts `POST /contract-runs`, workflows.ts `floorContract`)
 * shares between its API and its workflow: the wait update, and the search attributes svc's
 * contract gives every run's workflow (API.md §12), under the names the bench's dev server has
 * registered for svc. Written for the floor, as a user would, not imported from svc.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineUpdate } from '@temporalio/workflow';

/** Answers `succeeded` once the run has, or `running` when the caller's wait (ms) is over first. */
export const contractWait = defineUpdate<'succeeded' | 'running', [number]>('wait');

export const CONTRACT_RUN_ID = defineSearchAttributeKey('SvcRunId', SearchAttributeType.KEYWORD);
export const CONTRACT_WORKSPACE_ID = defineSearchAttributeKey('SvcWorkspaceId', SearchAttributeType.KEYWORD);
export const CONTRACT_WORKFLOW_ID = defineSearchAttributeKey('SvcWorkflowId', SearchAttributeType.KEYWORD);
export const CONTRACT_RUN_STATUS = defineSearchAttributeKey('SvcRunStatus', SearchAttributeType.KEYWORD);
