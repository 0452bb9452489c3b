import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes so operators can filter runs in the Temporal UI, e.g.
 * `SvcWorkspaceId = "ws_…" AND SvcRunStatus = "waiting_for_review"`.
 * The embedded dev server registers them at start (packages/devstack); a production
 * cluster needs them created once (`temporal operator search-attribute create`).
 */
/** The run's API id (`run_…`): finds a run whose workflow id is its Idempotency-Key. */
export const SA_RUN_ID = defineSearchAttributeKey('SvcRunId', SearchAttributeType.KEYWORD);
export const SA_WORKSPACE_ID = defineSearchAttributeKey('SvcWorkspaceId', SearchAttributeType.KEYWORD);
export const SA_WORKFLOW_ID = defineSearchAttributeKey('SvcWorkflowId', SearchAttributeType.KEYWORD);
export const SA_RUN_STATUS = defineSearchAttributeKey('SvcRunStatus', SearchAttributeType.KEYWORD);
