import { compileExpression } from './evaluate';

interface PathStep {
  type: string;
  value?: unknown;
  [other: string]: unknown;
}

/** A path step that is a plain name: no filter, sort, index, focus or `[]` on it. */
function plainName(step: PathStep): string | null {
  const extra = Object.keys(step).some((k) => k !== 'type' && k !== 'value' && k !== 'position');
  return step.type === 'name' && typeof step.value === 'string' && !extra ? step.value : null;
}

/**
 * The step key when an expression is exactly `steps.<key>.output` (as JSONata parses it), else
 * null. JSONata's path through one object gives that output back unchanged (stepReference.test.ts
 * checks it over every kind of JSON value), so a run whose `output` names one step's output takes
 * it as stored, read in SQL like a workflow without `output`, and no sandbox thread is asked.
 */
export function stepOutputReference(expr: string): string | null {
  let ast: { type: string; steps?: PathStep[]; [other: string]: unknown };
  try {
    ast = compileExpression(expr).ast() as typeof ast;
  } catch {
    return null; // evaluating it reports the error
  }
  if (ast.type !== 'path' || Object.keys(ast).some((k) => k !== 'type' && k !== 'steps') || ast.steps?.length !== 3) return null;
  const [root, key, output] = ast.steps.map(plainName);
  return root === 'steps' && output === 'output' ? key : null;
}
