import type { ExpressionContext, ReviewStep } from '../definitions';
import { renderTemplates } from '../expressions';

/**
 * A review's `title` and `instructions` as the reviewer reads them: `{{ … }}`
 * templates over `{input, steps}`, rendered when the review opens. Secrets are not in scope, so a
 * title can never show one.
 */
export async function renderReviewText(
  step: Pick<ReviewStep, 'title' | 'instructions'>,
  ctx: Pick<ExpressionContext, 'input' | 'steps' | 'workspaceId'>,
): Promise<{ title: string; instructions: string }> {
  const scope: ExpressionContext = { input: ctx.input, steps: ctx.steps, secrets: {}, workspaceId: ctx.workspaceId };
  const [title, instructions] = await Promise.all([renderTemplates(step.title, scope), renderTemplates(step.instructions, scope)]);
  return { title: asText(title), instructions: asText(instructions) };
}

/** A template that is exactly one expression keeps its value's type: show it as text. */
function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  return v === null || v === undefined ? '' : JSON.stringify(v);
}
