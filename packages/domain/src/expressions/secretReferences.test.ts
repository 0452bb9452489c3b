import { parseDefinition } from '../definitions/parse';
import { evaluateInThisThread } from './evaluate';
import { secretsReadBy, secretsUsedBy } from './secretReferences';

const SECRETS = { A: 'sa', B: 'sb', C: 'sc', D: 'sd', 'A B': 'sab', TOKEN: 'st' };
const INPUT = {
  x: 'ix',
  items: [
    { price: 5, secrets: { X: 1 } },
    { price: 1, secrets: { X: 2 } },
  ],
};

/** The expression's value with the given secrets only. */
const valueWith = (expr: string, secrets: Record<string, string>) => evaluateInThisThread(expr, { input: INPUT, steps: {}, secrets });

const only = (names: ReadonlySet<string>) => Object.fromEntries(Object.entries(SECRETS).filter(([k]) => names.has(k)));

describe('secretsReadBy', () => {
  test.each([
    ['secrets.A', ['A']],
    ['$secrets.B', ['B']],
    ['$$.secrets.C', ['C']],
    ['$.secrets.D', ['D']],
    ["'Bearer ' & secrets.TOKEN", ['TOKEN']],
    ['secrets.`A B`', ['A B']],
    ['secrets.A[0] & $secrets.B', ['A', 'B']],
    ['{ "a": secrets.A, "b": [secrets.B] }', ['A', 'B']],
    ['input.items.($secrets.C)', ['C']],
    ['input.items.($$.secrets.D)', ['D']],
    ['(function($v) { secrets.A & $v })("x")', ['A']],
    ['secrets.A ? 1 : 2', ['A']],
    // Inside a filter, a sort or a grouping the context is an item: its own `secrets` member.
    ['input.items[secrets.X = 1].price', []],
    ['input.items^(secrets.X).price', []],
    ['input.items{ $string(price): secrets.X }', []],
    ['input.items[$.secrets.X = 2].price', []],
    // The document's other parts, and context-taking built-ins given their arguments.
    ['$string(input.x) & $keys(input)[0] & $lookup(input, "x")', []],
    ['input ~> $string()', []],
    ['input ~> $lookup("x")', []],
    ['input.items[$.price > 3].price', []],
    ['$map(input.items, function($i) { $i.price })', []],
    ['input.*', []],
    ['input.**.X', []],
    ['input.items.$string()', []],
  ])('%s reads %j', async (expr, expected) => {
    const read = secretsReadBy(expr);
    expect(read).not.toBe('all');
    expect([...(read as ReadonlySet<string>)].sort()).toEqual(expected);
    // Opening only those secrets changes nothing in the expression's value.
    expect(await valueWith(expr, only(read as ReadonlySet<string>))).toEqual(await valueWith(expr, SECRETS));
  });

  test.each([
    '$secrets',
    'secrets',
    '$keys($secrets)',
    'secrets.*',
    'secrets["A"]',
    '$lookup($secrets, "A")',
    '$lookup(secrets, "A")',
    '$secrets ~> $keys()',
    '$$',
    '$',
    '$$.secrets',
    '$merge([$$]).secrets.A',
    '(secrets).A',
    '$string()',
    '$string($)',
    '$keys()',
    '$lookup("secrets")',
    '$sift(function($v) { true })',
    '$each(function($v) { $v })',
    '$spread()',
    '$clone()',
    '$ ~> $string()',
    '$x := $lookup; $x("secrets")',
    '$eval("secrets.A")',
    'input.($eval("$$.secrets.B"))',
    '*.A',
    '**.A',
    '$$.*',
    'input.%.secrets.A',
    'secrets@$s.$s.A',
    'not an expression (',
  ])('%s reads them all', (expr) => {
    expect(secretsReadBy(expr)).toBe('all');
  });
});

describe('secretsUsedBy', () => {
  test('the names every expression and template of a definition reads', () => {
    const definition = parseDefinition(`
name: Uses
slug: uses
steps:
  - key: shape
    type: transform
    if: "secrets.A != ''"
    expression: "{ 'x': input.x }"
  - key: call
    type: http
    method: POST
    url: "https://example.com/{{ secrets.B }}/{{ raw(input.x) }}"
    headers: {Authorization: "Bearer {{ $secrets.TOKEN }}", X-Plain: "no secret"}
    body: {nested: ["{{ secrets.C }}"]}
  - key: check
    type: condition
    expression: "steps.call.output.status = 200"
  - key: approve
    type: review
    title: "{{ input.x }}"
    data: "secrets.D"
output: "steps.shape.output"
`);
    const used = secretsUsedBy(definition);
    expect(used).not.toBe('all');
    expect([...(used as ReadonlySet<string>)].sort()).toEqual(['A', 'B', 'C', 'D', 'TOKEN']);
    expect(secretsUsedBy(definition)).toBe(used);
  });

  test('none for a definition that reads no secret; all when one expression may read any', () => {
    const plain = parseDefinition('{"name":"P","slug":"p","steps":[{"key":"a","type":"transform","expression":"input"}]}');
    expect(secretsUsedBy(plain)).toEqual(new Set());
    const dynamic = parseDefinition(
      '{"name":"D","slug":"d","steps":[{"key":"a","type":"transform","expression":"secrets.A"}],"output":"$lookup($secrets, input.name)"}',
    );
    expect(secretsUsedBy(dynamic)).toBe('all');
  });
});
