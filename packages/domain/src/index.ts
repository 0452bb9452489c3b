// The domain's public surface: every name another package may use, named here. A module's
// other exports are its own (the domain's tests import them from the module itself).
export { API_KEY_SHAPE, createApiKey, hashApiKey, listApiKeys, requireScope, revokeApiKey } from './apiKeys/apiKeys';
export type { Principal } from './apiKeys/apiKeys';
export { authenticateRequest } from './apiKeys/authenticate';
export { SCOPES } from './apiKeys/scopes';
export type { Scope } from './apiKeys/scopes';
export { applyWorkflowAndAnnounce } from './console/applyAndAnnounce';
export { listWorkspaceRuns } from './console/listWorkspaceRuns';
export { DEFINITION_SCHEMA_PATH, definitionJsonSchema } from './definitions/jsonSchema';
export { locateProblems } from './definitions/locate';
export type { LocatedProblem } from './definitions/locate';
export { parseDefinition, validateDefinition } from './definitions/parse';
export type {
  ConditionStep,
  ExpressionContext,
  HttpStep,
  ReviewStep,
  StepDefinition,
  TransformStep,
  WorkflowDefinition,
} from './definitions/types';
export { AppError, ERROR_STATUS, errorTypeUri, PROBLEM_PAGES_PATH } from './errors';
export type { FieldError } from './errors';
export { EVENT_TYPES } from './events/events';
export { MAX_EVENT_BODY_BYTES } from './events/runEventData';
export { evaluateExpression } from './expressions/evaluate';
export { ExpressionError, expressionErrorCode } from './expressions/expressionError';
export { configureSandbox, SandboxBusyError, sandboxStats } from './expressions/sandbox/pool';
export { stepOutputReference } from './expressions/stepReference';
export { renderHttpRequest } from './expressions/urlTemplate';
export { OUTBOX_RETENTION_MS, sweepExpired } from './housekeeping/sweep';
export type { SweepResult } from './housekeeping/sweep';
export { hasPrefix, newId } from './ids';
export { createMailer, listOutboxEmails } from './mail/mailer';
export type { Mailer } from './mail/mailer';
export { removeMember, setMemberRole } from './members/manage';
export {
  addMember,
  issueSignInLink,
  listMembers,
  mailSignInLink,
  MEMBER_ROLES,
  MIN_PASSWORD_LENGTH,
  normalizeEmail,
  peekSignInLink,
  redeemSignInLink,
  setMemberPassword,
  signIn,
} from './members/members';
export type { MemberRole, MemberView } from './members/members';
export { createSession, loadSession, revokeAllSessions, revokeSession } from './members/sessions';
export type { ConsoleSessionView } from './members/sessions';
export {
  LINK_REQUEST_WINDOW_MS,
  MAX_FAILURES_PER_ADDRESS,
  MAX_FAILURES_PER_EMAIL,
  MAX_LINK_REQUESTS_PER_EMAIL,
  SIGN_IN_WINDOW_MS,
} from './members/throttle';
export { createAddressPolicy, createCidrMatcher, parseIp } from './net/addressPolicy';
export { createGuardedDispatcher } from './net/guardedDispatcher';
export { HttpRequestError, performHttpRequest, toHttpRequestError } from './net/httpRequest';
export { problemTypes } from './problemTypes';
export type { ProblemType } from './problemTypes';
export { givePointsBack, peekCounter, sweepCounters, takePoint } from './rateLimits/counters';
export type { CounterState } from './rateLimits/counters';
export { REDACTED, redactHeaders, secretRedactor } from './redaction/redact';
export { DECIDED_VIA_TYPES, decidedViaText } from './reviews/decidedVia';
export type { DecidedVia } from './reviews/decidedVia';
export { reviewRequestMail } from './reviews/reviewMail';
export { renderReviewText } from './reviews/reviewText';
export { decideReview, listReviews, normalizeDecision } from './reviews/reviews';
export { cancelRun } from './runs/cancelRun';
export type {
  LaunchRequest,
  ReviewDecision,
  RunControl,
  RunLauncher,
  RunRef,
  SettleNotices,
  StartOutcome,
  WaitOptions,
} from './runs/launcher';
export { MAX_RUN_DATA_BYTES, outputOverLimit, stepOutputProblem } from './runs/limits';
export { getRun, listRuns, runFromJson, runSelectJson } from './runs/readRuns';
export { openRunSecrets } from './runs/runSecrets';
export { createRunStore } from './runs/runStore';
export type { RunStore } from './runs/runStore';
export { RUN_SUMMARY_COLUMNS, toReviewView, toRunSummary } from './runs/runView';
export type { ReviewView, RunSummaryView, RunView } from './runs/runView';
export { listenForSettledRuns } from './runs/settleNotices';
export { claimSlot, endSlot, holdersWhereRunsWait, isEndSlotExclusively, releaseSlots, slotLimits } from './runs/slots';
export type { SlotGrant, SlotRequest } from './runs/slots';
export { startRun } from './runs/startRun';
export type { AfterCommit, FinishRun, RunError, StepError, StepsData, StepStatus, StepWrite, TerminalRunStatus } from './runs/store/types';
export { sealedContext } from './secrets/contexts';
export { reencryptSecrets } from './secrets/reencrypt';
export { deleteSecret, listSecrets, loadWorkspaceSecrets, setSecret } from './secrets/secrets';
export { assertJsonDepth } from './shared/jsonDepth';
export { decodeCursor, encodeCursor } from './shared/pagination';
export { declaredLengthExceeds, resolveClientIp, TRIGGER_BODY_LIMIT, verifyBeforeBody } from './triggers/checks';
export { rotateTriggerSecrets } from './triggers/secrets';
export { fireTrigger, loadTrigger } from './triggers/triggers';
export {
  endpointDisabledNotice,
  parseRetryAfter,
  prepareAttempt,
  recordAttempt,
  RESPONSE_EXCERPT_BYTES,
  responseExcerpt,
  stopDelivery,
} from './webhooks/attempts';
export type { AttemptDecision, AttemptErrorClass, AttemptMeasurement, PreparedAttempt } from './webhooks/attempts';
export { DELIVERY_STATUSES, deliveryWorkflowId, getDelivery, listDeliveries, retryDelivery } from './webhooks/deliveries';
export type { DeliveryStatus } from './webhooks/deliveries';
export {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  signingSecrets,
  updateEndpoint,
} from './webhooks/endpoints';
export type { EndpointDeps, WebhookEndpointView } from './webhooks/endpoints';
export { makeDeliveriesDue, markDeliveriesDispatched, recordEventAndDeliveries, undispatchedDeliveries } from './webhooks/fanOut';
export type { DeliveryRef } from './webhooks/fanOut';
export { sendTestEvent } from './webhooks/testEvent';
export { createEndpointUrlPolicy } from './webhooks/urlRules';
export { archiveWorkflow, restoreWorkflow, setTriggerEnabled } from './workflows/archive';
export { applyWorkflow, findWorkflow, getWorkflow, listWorkflows, showTrigger, toWorkflowView } from './workflows/workflows';
export type { TriggerSecrets, WorkflowView } from './workflows/workflows';
export { WORKSPACE_CAP_NAMES } from './workspaces/caps';
export { planFiguresArg, RATE_WINDOW_SECONDS, WORKSPACE_RATE_MULTIPLIER, workspaceLimits } from './workspaces/limits';
export type { WorkspaceLimits } from './workspaces/limits';
export { PLANS } from './workspaces/plans';
export { createWorkspace, getWorkspace, setWorkspacePlan } from './workspaces/workspaces';
