import { AppError } from '../errors';
import { definitionJsonSchema } from './jsonSchema';
import { locateProblems } from './locate';
import { parseDefinition } from './parse';

function problemsOf(text: string) {
  try {
    parseDefinition(text);
  } catch (err) {
    if (err instanceof AppError) return locateProblems(text, err.errors ?? []);
    throw err;
  }
  throw new Error('the definition was accepted');
}

describe('locating definition problems in their text', () => {
  it('points a field error at its line and column, in YAML and in JSON', () => {
    const yaml = 'name: A\nslug: a\nsteps:\n  - key: get\n    type: http\n    url: ftp://example.com/\n';
    expect(problemsOf(yaml)).toEqual([expect.objectContaining({ path: 'steps[0].url', line: 6, column: 5 })]);
    const json = '{\n  "name": "A",\n  "slug": "a",\n  "steps": [{"key": "x", "type": "transform", "expression": "1", "bogus": 1}]\n}';
    const [p] = problemsOf(json);
    expect(p).toMatchObject({ line: 4, column: 66 });
    expect(json.slice(p!.from, p!.to)).toBe('"bogus"');
  });

  it('points a syntax error where the parser found it, and a missing field at its object', () => {
    expect(problemsOf('{"name": "A",\n "slug": }')).toEqual([expect.objectContaining({ line: 2, column: 10 })]);
    const missing = problemsOf('name: A\nslug: a\nsteps:\n  - key: r\n    type: review\n');
    expect(missing).toEqual([expect.objectContaining({ path: 'steps[0].title', line: 4, column: 5 })]);
  });
});

describe('the JSON Schema of the definition format', () => {
  it('is generated from the parser’s schema: strict objects, step types, help on hover', () => {
    const schema = definitionJsonSchema('https://svc.example/') as Record<string, any>;
    expect(schema.$id).toBe('https://svc.example/schemas/workflow-definition.json');
    expect(schema.required).toEqual(expect.arrayContaining(['name', 'slug', 'steps']));
    expect(schema.additionalProperties).toBe(false);
    const steps = schema.properties.steps.items;
    const types = (steps.oneOf ?? steps.anyOf).map((s: any) => s.properties.type.const);
    expect(types).toEqual(['http', 'transform', 'condition', 'delay', 'review']);
    expect(schema.properties.slug.description).toMatch(/identifier/);
  });
});
