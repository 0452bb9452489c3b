import { evaluateExpression } from './evaluate';
import { stepOutputReference } from './stepReference';

describe('stepOutputReference', () => {
  test('names the step of an expression that is exactly steps.<key>.output', () => {
    expect(['steps.shape.output', ' steps . shape . output ', 'steps.`and`.output', 'steps.a_1.output'].map(stepOutputReference)).toEqual([
      'shape',
      'shape',
      'and',
      'a_1',
    ]);
  });

  test('is null for anything more or else, which the sandbox evaluates', () => {
    const others = [
      'steps.shape.output[]',
      'steps.shape.output[0]',
      'steps.shape.output.greeting',
      'steps.shape.status',
      '$.steps.shape.output',
      '$steps.shape.output',
      'steps[0].shape.output',
      'steps.shape.(output)',
      'steps.shape.output#$i',
      'steps.shape.output@$x',
      'steps.shape.output^(a)',
      'input.name',
      "'steps.shape.output'",
      'steps.shape.output & ""',
      'steps.(',
      '',
    ];
    expect(others.map(stepOutputReference)).toEqual(others.map(() => null));
  });

  // Why the engine may read such an output in SQL instead: JSONata gives every kind of JSON value
  // back unchanged along this path (a change to JSONata's path semantics fails here).
  test.each([
    null,
    0,
    -1.5,
    'text',
    '',
    true,
    false,
    [],
    [1],
    [[1]],
    [[1, 2], [3]],
    [1, [2, [3]]],
    [null],
    [[]],
    [[], 1],
    [{}],
    [{ a: 1 }],
    [{ a: [1] }],
    {},
    { a: 1 },
    { a: [1] },
    { a: [] },
    { a: { b: [[null]] } },
  ])('JSONata gives %j back unchanged', async (output) => {
    const steps = { s: { output, status: 'succeeded' } };
    expect(await evaluateExpression('steps.s.output', { input: null, steps, secrets: {} })).toEqual(output);
  });

  test('a step with no output yet reads as null, as its empty column does', async () => {
    expect(await evaluateExpression('steps.s.output', { input: null, steps: {}, secrets: {} })).toBeNull();
  });
});
