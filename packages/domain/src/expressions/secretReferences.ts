import type { WorkflowDefinition } from '../definitions/types';
import { compileExpression } from './evaluate';
import { findTemplateExpressions } from './templates';

/** The workspace secrets some expressions can read: these names, or all of them. */
export type SecretNames = ReadonlySet<string> | 'all';

interface AstNode {
  type: string;
  value?: unknown;
  [member: string]: unknown;
}

/**
 * Built-ins whose signature lets the context fill a missing first argument (`<x-…>`), with the
 * number of arguments that leaves none missing: called at the top with fewer, they are handed
 * the whole document, secrets included (`$string()`, `$lookup('secrets')`).
 */
const TAKE_CONTEXT: ReadonlyMap<string, number> = new Map([
  ['string', 1],
  ['keys', 1],
  ['lookup', 2],
  ['spread', 1],
  ['each', 2],
  ['sift', 2],
  ['clone', 1],
]);

/** Members holding expressions evaluated against an item, not against the document. */
const ITEM_SCOPED = new Set(['stages', 'predicate', 'group', 'terms', 'pattern', 'update', 'delete']);

const isNode = (v: unknown): v is AstNode => v !== null && typeof v === 'object' && typeof (v as AstNode).type === 'string';

/** A path step that is a bare name or variable: no filter, focus, index or grouping on it. */
const isPlain = (step: AstNode): boolean => Object.keys(step).every((k) => k === 'type' || k === 'value' || k === 'position');

/** Thrown inside the walk when a secret is reached in a way its name cannot be read from. */
class ReachesAll extends Error {}

/**
 * The secret names one expression reads, from its syntax tree: `secrets.NAME` at the top
 * (also `$$.secrets.NAME`, `$.secrets.NAME` there) and `$secrets.NAME` anywhere. Every other
 * way to the secrets object, or to the document that holds it, reads them all: the object
 * itself (`$secrets`, `$keys($secrets)`, `secrets.*`, `$lookup($secrets, …)`), the document
 * as a value (`$$`, a top-level `$`, `*`, `**`, `%`), a built-in handed the document as its
 * context (`$string()`), and `$eval`. `atTop` tracks whether the context is the document;
 * filters, sort terms, groupings and transforms see items instead.
 */
function readSecretNames(ast: AstNode): ReadonlySet<string> {
  const names = new Set<string>();

  const visitAny = (value: unknown, atTop: boolean): void => {
    if (Array.isArray(value)) for (const item of value) visitAny(item, atTop);
    else if (isNode(value)) visit(value, atTop);
  };

  const visitMembers = (node: AstNode, atTop: boolean, skip: readonly string[] = []): void => {
    for (const [key, member] of Object.entries(node)) {
      if (key !== 'value' && !skip.includes(key)) visitAny(member, atTop && !ITEM_SCOPED.has(key));
    }
  };

  const visitCall = (node: AstNode, atTop: boolean, suppliedBefore: number): void => {
    const procedure = node.procedure as AstNode;
    const args = (node.arguments as unknown[]) ?? [];
    if (procedure?.type === 'variable' && typeof procedure.value === 'string') {
      const name = procedure.value;
      if (name === 'eval') throw new ReachesAll();
      const needed = TAKE_CONTEXT.get(name);
      if (atTop && needed !== undefined && args.length + suppliedBefore < needed) throw new ReachesAll();
      visitMembers(node, atTop, ['procedure']);
    } else visitMembers(node, atTop);
  };

  /** Steps of a path, the first evaluated against the document when `firstAtTop`. */
  const visitSteps = (steps: AstNode[], firstAtTop: boolean): void => {
    const [first, second] = steps;
    const isSecrets = (first.type === 'variable' || (first.type === 'name' && firstAtTop)) && first.value === 'secrets';
    if (isSecrets) {
      if (!isPlain(first) || second?.type !== 'name' || typeof second.value !== 'string') throw new ReachesAll();
      names.add(second.value);
      steps.slice(1).forEach((step) => visit(step, false));
      return;
    }
    visit(first, firstAtTop);
    steps.slice(1).forEach((step) => visit(step, false));
  };

  const visit = (node: AstNode, atTop: boolean): void => {
    switch (node.type) {
      case 'path': {
        const steps = node.steps as AstNode[];
        const [first] = steps;
        const fromDocument = first.type === 'variable' && (first.value === '$' || (first.value === '' && atTop));
        if (fromDocument) {
          // `$$.x…` (and `$.x…` at the top) is `x…` at the top; the document alone is everything.
          if (!isPlain(first) || steps.length < 2) throw new ReachesAll();
          visitSteps(steps.slice(1), true);
        } else visitSteps(steps, atTop);
        visitMembers(node, atTop, ['steps']);
        return;
      }
      case 'variable':
        if (node.value === 'secrets' || node.value === '$' || node.value === 'eval') throw new ReachesAll();
        if (node.value === '' && atTop) throw new ReachesAll();
        // A context-taking built-in passed as a value may be called anywhere.
        if (typeof node.value === 'string' && TAKE_CONTEXT.has(node.value)) throw new ReachesAll();
        visitMembers(node, atTop);
        return;
      case 'wildcard':
      case 'descendant':
        if (atTop) throw new ReachesAll();
        visitMembers(node, atTop);
        return;
      case 'parent':
        throw new ReachesAll();
      case 'function':
      case 'partial':
        visitCall(node, atTop, 0);
        return;
      case 'apply': {
        // `x ~> $f(a)` calls `$f(x, a)`.
        const rhs = node.rhs as AstNode;
        visitAny(node.lhs, atTop);
        if (isNode(rhs) && rhs.type === 'function') visitCall(rhs, atTop, 1);
        else visitAny(rhs, atTop);
        visitMembers(node, atTop, ['lhs', 'rhs']);
        return;
      }
      default:
        visitMembers(node, atTop);
    }
  };

  visit(ast, true);
  return names;
}

/** The secrets an expression reads ('all' when that cannot be told from its text, or it does not compile). */
export function secretsReadBy(expression: string): SecretNames {
  try {
    return readSecretNames(compileExpression(expression).ast() as AstNode);
  } catch {
    // ReachesAll, or a syntax error (the expression fails when evaluated; nothing is read).
    return 'all';
  }
}

/** Every expression of a definition that sees the workspace's secrets (review texts see none). */
function expressionsOf(definition: WorkflowDefinition): string[] {
  const found: string[] = definition.output ? [definition.output] : [];
  for (const step of definition.steps) {
    if (step.if) found.push(step.if);
    if (step.type === 'transform' || step.type === 'condition') found.push(step.expression);
    if (step.type === 'review' && step.data) found.push(step.data);
    if (step.type === 'http') {
      for (const t of findTemplateExpressions({ url: step.url, headers: step.headers, body: step.body })) found.push(t.expression);
    }
  }
  return found;
}

const byDefinition = new WeakMap<WorkflowDefinition, SecretNames>();

/**
 * The secrets a run of this definition may read, worked out once per pinned definition: a
 * run opens only these, and redacts exactly these from what it writes.
 */
export function secretsUsedBy(definition: WorkflowDefinition): SecretNames {
  const known = byDefinition.get(definition);
  if (known) return known;
  const names = new Set<string>();
  let used: SecretNames = names;
  for (const expression of expressionsOf(definition)) {
    const read = secretsReadBy(expression);
    if (read === 'all') {
      used = 'all';
      break;
    }
    for (const name of read) names.add(name);
  }
  byDefinition.set(definition, used);
  return used;
}
