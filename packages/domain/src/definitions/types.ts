/**
 * A validated, normalized workflow definition. Durations are kept as
 * written and also resolved to milliseconds (`*_ms`) at apply time, so the run
 * workflow (deterministic code) never parses text.
 */
export interface WorkflowDefinition {
  name: string;
  slug: string;
  description: string;
  input_schema?: Record<string, unknown>;
  steps: StepDefinition[];
  /** JSONata expression; absent = the last executed step's output. */
  output?: string;
  trigger: TriggerSettings;
}

export interface TriggerSettings {
  secret: boolean;
  signature: boolean;
  ip_allowlist: string[];
  /** header name (lower-cased) → exact value, or null for "must be present". */
  required_headers: Record<string, string | null>;
}

export interface RetryPolicy {
  max_attempts: number;
  backoff: 'fixed' | 'exponential';
  interval: string;
  interval_ms: number;
}

interface StepBase {
  key: string;
  name: string;
  /** JSONata expression; the step is skipped unless it evaluates truthy. */
  if?: string;
  retry: RetryPolicy;
}

export interface HttpStep extends StepBase {
  type: 'http';
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  timeout: string;
  timeout_ms: number;
  allow_status: number[];
}

export interface TransformStep extends StepBase {
  type: 'transform';
  expression: string;
}

export interface ConditionStep extends StepBase {
  type: 'condition';
  expression: string;
  message?: string;
  /** Key of a later step to jump to when the expression is false. */
  else?: string;
}

export interface DelayStep extends StepBase {
  type: 'delay';
  duration: string;
  duration_ms: number;
}

export interface ReviewStep extends StepBase {
  type: 'review';
  title: string;
  instructions: string;
  assignees: string[];
  /** JSONata expression: what the reviewer looks at. */
  data?: string;
  timeout: string;
  timeout_ms: number;
  on_timeout: 'reject' | 'approve';
  on_reject: 'fail' | 'continue';
}

export type StepDefinition = HttpStep | TransformStep | ConditionStep | DelayStep | ReviewStep;
export type StepType = StepDefinition['type'];

/** What expressions and templates see. */
export interface ExpressionContext {
  input: unknown;
  steps: Record<string, { output: unknown; status: string }>;
  secrets: Record<string, string>;
  /** Whose work this is: the sandbox serves each workspace's evaluations in turn. Not visible to expressions. */
  workspaceId?: string;
}
