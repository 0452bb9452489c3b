import type { ExpressionLimits } from '../evaluate';

/** What the sandbox threads run: one JSONata evaluation, or one input-schema validation. */
export type SandboxTask =
  | { kind: 'evaluate'; expr: string; ctx: { input: unknown; steps: unknown; secrets: unknown }; limits: ExpressionLimits }
  | { kind: 'validate'; schema: object; input: unknown };

export interface SandboxFailure {
  code: string;
  message: string;
  position?: number;
  /** Validation errors, for `validate` tasks. */
  errors?: { path: string; message: string }[];
}

/** Errors cross the thread boundary as data: structured clone drops an Error's own fields. */
export type SandboxResult = { ok: true; value: unknown } | { ok: false; error: SandboxFailure };
