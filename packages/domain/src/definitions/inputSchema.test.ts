import { AppError, type FieldError } from '../errors';
import { InputSchemaError, compileInputValidator, compileJsonSchema } from './inputSchema';

function inputErrors(schema: object, input: unknown): FieldError[] {
  const validate = compileInputValidator(schema);
  try {
    validate(input);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect(e.code).toBe('validation_failed');
    expect(e.message).toBe("Input does not match the workflow's input_schema");
    return e.errors ?? [];
  }
  throw new Error('expected the input to be refused');
}

const PERSON = {
  type: 'object',
  required: ['name', 'email'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1 },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' } },
    address: {
      type: 'object',
      properties: { city: { type: 'string' }, 'zip/code': { type: 'string', pattern: '^[0-9]{5}$' } },
    },
    kind: { enum: ['a', 'b'] },
  },
};

describe('compileInputValidator', () => {
  test('no schema: everything passes', () => {
    expect(() => compileInputValidator(undefined)({ anything: 1 })).not.toThrow();
    expect(() => compileInputValidator(null)('x')).not.toThrow();
  });

  test('valid input passes and is not modified (no defaults, no coercion)', () => {
    const schema = { type: 'object', properties: { n: { type: 'number', default: 5 }, s: { type: 'string' } } };
    const input = { s: 'x' };
    compileInputValidator(schema)(input);
    expect(input).toEqual({ s: 'x' });
    expect(inputErrors(schema, { n: '5' })).toEqual([{ path: 'input.n', message: 'must be number' }]);
  });

  test('reports ALL errors with dotted paths from the JSON pointer', () => {
    const errors = inputErrors(PERSON, {
      email: 'not-an-email',
      age: -1,
      tags: ['ok', 3],
      address: { city: 7, 'zip/code': 'abc' },
      kind: 'c',
      extra: true,
    });
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: 'input.name', message: 'is required' },
        { path: 'input.extra', message: 'is not allowed' },
        { path: 'input.email', message: 'must match format "email"' },
        { path: 'input.age', message: 'must be >= 0' },
        { path: 'input.tags[1]', message: 'must be string' },
        { path: 'input.address.city', message: 'must be string' },
        { path: 'input.address["zip/code"]', message: 'must match pattern "^[0-9]{5}$"' },
        { path: 'input.kind', message: 'must be one of: "a", "b"' },
      ]),
    );
    expect(errors).toHaveLength(8);
  });

  test('root-level errors use the path "input"', () => {
    expect(inputErrors(PERSON, 'a string')).toEqual([{ path: 'input', message: 'must be object' }]);
    expect(inputErrors({ type: 'object' }, null)).toEqual([{ path: 'input', message: 'must be object' }]);
  });

  test('object keys that look like numbers are not array indices', () => {
    const schema = { type: 'object', properties: { '0': { type: 'string' } } };
    expect(inputErrors(schema, { '0': 1 })).toEqual([{ path: 'input["0"]', message: 'must be string' }]);
  });

  test('2020-12 keywords work by default (prefixItems, unevaluatedProperties, dependentRequired)', () => {
    const schema = {
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] }, a: {}, b: {} },
      dependentRequired: { a: ['b'] },
      unevaluatedProperties: false,
    };
    const errors = inputErrors(schema, { pair: [1, 'x'], a: 1, zzz: 1 });
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: 'input.pair[0]', message: 'must be string' },
        { path: 'input.pair[1]', message: 'must be number' },
        { path: 'input.zzz', message: 'is not allowed' },
      ]),
    );
    expect(errors.some((e) => e.path === 'input' && /property b/.test(e.message))).toBe(true);
  });

  test('draft-07 schemas are honoured when $schema says so', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { list: { type: 'array', items: [{ type: 'string' }], additionalItems: false } },
    };
    expect(inputErrors(schema, { list: ['a', 'b'] })).toEqual([{ path: 'input.list', message: 'must NOT have more than 1 items' }]);
  });

  test('formats are checked (ajv-formats)', () => {
    const schema = { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, u: { type: 'string', format: 'uri' } } };
    expect(() => compileInputValidator(schema)({ at: '2024-01-02T03:04:05Z', u: 'https://x.y/z' })).not.toThrow();
    expect(inputErrors(schema, { at: 'yesterday', u: 'not a uri' }).map((e) => e.path)).toEqual(['input.at', 'input.u']);
  });

  test('caches validators by identity and by content', () => {
    const a = { type: 'string' };
    const b = { type: 'string' };
    const va = compileInputValidator(a);
    expect(compileInputValidator(a)).toBe(va);
    expect(compileInputValidator(b)).toBe(va);
    expect(compileInputValidator({ type: 'number' })).not.toBe(va);
  });

  test('schemas with the same $id in different workflows do not interfere', () => {
    const s1 = { $id: 'https://example.com/input', type: 'object', properties: { a: { type: 'string' } } };
    const s2 = { $id: 'https://example.com/input', type: 'object', properties: { a: { type: 'number' } } };
    const v1 = compileInputValidator(s1);
    const v2 = compileInputValidator(s2);
    expect(() => v1({ a: 'x' })).not.toThrow();
    expect(() => v2({ a: 1 })).not.toThrow();
    expect(() => v2({ a: 'x' })).toThrow(AppError);
  });

  test("a schema cannot reach another workflow's schema by $ref", () => {
    compileInputValidator({ $id: 'https://example.com/shared', type: 'string' });
    expect(() => compileJsonSchema({ $ref: 'https://example.com/shared' })).toThrow(InputSchemaError);
  });

  test('an invalid stored schema fails with path input_schema', () => {
    try {
      compileInputValidator({ type: 'nope' });
      throw new Error('should have thrown');
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).errors).toEqual([{ path: 'input_schema', message: expect.stringMatching(/not a valid JSON Schema/) }]);
    }
  });

  test('caps the number of reported errors', () => {
    const schema = { type: 'array', items: { type: 'string' } };
    const errors = inputErrors(
      schema,
      Array.from({ length: 500 }, (_, i) => i),
    );
    expect(errors).toHaveLength(100);
    expect(errors[0]).toEqual({ path: 'input[0]', message: 'must be string' });
  });
});

describe('compileJsonSchema', () => {
  test.each([
    [{ type: 'strng' }],
    [{ type: 'string', minLength: -1 }],
    [{ properties: [] }],
    [{ type: 'string', pattern: '[' }],
    [{ $ref: '#/$defs/missing' }],
  ])('refuses %j', (schema) => {
    expect(() => compileJsonSchema(schema)).toThrow(/is not a valid JSON Schema/);
  });

  test('refuses non-objects and unsupported dialects', () => {
    expect(() => compileJsonSchema('x')).toThrow('must be a JSON Schema object');
    expect(() => compileJsonSchema([])).toThrow('must be a JSON Schema object');
    expect(() => compileJsonSchema({ $schema: 'http://json-schema.org/draft-04/schema#' })).toThrow(/unsupported \$schema/);
  });

  test('unknown keywords are ignored (strict: false)', () => {
    expect(() => compileJsonSchema({ type: 'object', 'x-ui-widget': 'textarea', example: 1 })).not.toThrow();
  });

  test('accepts the other supported dialects', () => {
    for (const $schema of [
      'https://json-schema.org/draft/2020-12/schema',
      'https://json-schema.org/draft/2019-09/schema',
      'http://json-schema.org/draft-07/schema#',
      'http://json-schema.org/draft-06/schema#',
    ]) {
      expect(() => compileJsonSchema({ $schema, type: 'object' })).not.toThrow();
    }
  });
});
