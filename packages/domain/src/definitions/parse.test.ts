import { AppError, type FieldError } from '../errors';
import { MAX_DEFINITION_DEPTH, parseDefinition, validateDefinition, detectDefinitionFormat } from './parse';
import type { ConditionStep, DelayStep, HttpStep, ReviewStep, TransformStep } from './types';

const EXAMPLE_YAML = `
name: Greet
slug: greet
input_schema: {type: object, required: [name], properties: {name: {type: string}}}
steps:
  - key: shape
    type: transform
    expression: "{ 'greeting': 'hello ' & input.name }"
  - key: notify
    type: http
    if: "input.notify = true"
    method: POST
    url: "https://hooks.example.com/{{ input.name }}"
    headers: {Authorization: "Bearer {{ secrets.EXAMPLE_TOKEN }}"}
    body: {text: "{{ steps.shape.output.greeting }}"}
output: "steps.shape.output"
trigger: {secret: true, signature: false}
`;

/** A minimal valid document plus overrides. */
function doc(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Test',
    slug: 'test',
    steps: [{ key: 'a', type: 'transform', expression: 'input' }],
    ...extra,
  };
}

function errorsOf(fn: () => unknown): FieldError[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect(e.code).toBe('validation_failed');
    expect(e.status).toBe(422);
    expect(e.message).toBe('Workflow definition is invalid');
    expect(Array.isArray(e.errors)).toBe(true);
    return e.errors ?? [];
  }
  throw new Error('expected the definition to be refused');
}

function messageAt(errors: FieldError[], path: string): string {
  const found = errors.filter((e) => e.path === path);
  if (found.length === 0) throw new Error(`no error at ${path}; got ${JSON.stringify(errors)}`);
  return found.map((e) => e.message).join(' | ');
}

describe('parseDefinition', () => {
  test('parses the documented example (YAML) and normalizes defaults', () => {
    const def = parseDefinition(EXAMPLE_YAML);
    expect(def.name).toBe('Greet');
    expect(def.slug).toBe('greet');
    expect(def.description).toBe('');
    expect(def.input_schema).toEqual({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } });
    expect(def.output).toBe('steps.shape.output');
    expect(def.trigger).toEqual({ secret: true, signature: false, ip_allowlist: [], required_headers: {} });
    const [shape, notify] = def.steps as [TransformStep, HttpStep];
    expect(shape).toEqual({
      key: 'shape',
      name: 'shape',
      type: 'transform',
      expression: "{ 'greeting': 'hello ' & input.name }",
      retry: { max_attempts: 1, backoff: 'exponential', interval: '1s', interval_ms: 1000 },
    });
    expect(notify).toEqual({
      key: 'notify',
      name: 'notify',
      type: 'http',
      if: 'input.notify = true',
      method: 'POST',
      url: 'https://hooks.example.com/{{ input.name }}',
      headers: { Authorization: 'Bearer {{ secrets.EXAMPLE_TOKEN }}' },
      body: { text: '{{ steps.shape.output.greeting }}' },
      timeout: '30s',
      timeout_ms: 30_000,
      allow_status: [],
      retry: { max_attempts: 1, backoff: 'exponential', interval: '1s', interval_ms: 1000 },
    });
  });

  test('JSON and YAML of the same document give the same definition', () => {
    const fromYaml = parseDefinition(EXAMPLE_YAML);
    const json = JSON.stringify(fromYaml);
    expect(parseDefinition(json)).toEqual(fromYaml);
    expect(parseDefinition(json, 'json')).toEqual(fromYaml);
    expect(parseDefinition(json, 'yaml')).toEqual(fromYaml); // JSON is YAML 1.2
  });

  test('detects the format from the first character', () => {
    expect(detectDefinitionFormat('  \n{"a":1}')).toBe('json');
    expect(detectDefinitionFormat('\uFEFF[1]')).toBe('json');
    expect(detectDefinitionFormat('name: x')).toBe('yaml');
    expect(detectDefinitionFormat('# comment\n{a: 1}')).toBe('yaml');
  });

  test('accepts a UTF-8 BOM', () => {
    expect(parseDefinition('\uFEFF' + JSON.stringify(doc())).slug).toBe('test');
  });

  test('JSON syntax errors carry line and column, path ""', () => {
    const errors = errorsOf(() => parseDefinition('{\n  "name": "x",\n  "slug": }'));
    expect(errors).toHaveLength(1);
    expect(errors[0].path).toBe('');
    expect(errors[0].message).toMatch(/^Invalid JSON at line 3, column \d+/);
  });

  test('truncated JSON reports the end position', () => {
    const errors = errorsOf(() => parseDefinition('{"name": "x",\n"steps": ['));
    expect(errors[0].message).toMatch(/^Invalid JSON at line 2, column \d+/);
  });

  test('a {-led document that is not JSON is a JSON error, not silently YAML', () => {
    const errors = errorsOf(() => parseDefinition('{name: x, slug: y}'));
    expect(errors[0].message).toMatch(/^Invalid JSON/);
    // …but the same text is fine when YAML is asked for explicitly (then fails validation only).
    const yamlErrors = errorsOf(() => parseDefinition('{name: x, slug: y}', 'yaml'));
    expect(yamlErrors.map((e) => e.path)).toEqual(['steps']);
  });

  test('YAML syntax errors carry line and column, path ""', () => {
    const errors = errorsOf(() => parseDefinition('name: x\nslug: y\nsteps:\n  - key: a\n   type: [\n'));
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) {
      expect(e.path).toBe('');
      expect(e.message).toMatch(/^Invalid YAML at line \d+, column \d+: /);
    }
  });

  test('YAML duplicate keys are refused (not last-one-wins)', () => {
    const errors = errorsOf(() => parseDefinition('name: x\nname: y\nslug: s\nsteps: []\n'));
    expect(errors[0]).toEqual({ path: '', message: expect.stringMatching(/^Invalid YAML at line 2, column 1: Map keys must be unique/) });
  });

  test('YAML multiple documents and unknown tags are refused', () => {
    expect(errorsOf(() => parseDefinition('name: x\n---\nname: y\n'))[0].message).toMatch(/multiple documents/);
    expect(errorsOf(() => parseDefinition('name: !!js/function x\n'))[0].message).toMatch(/Unresolved tag/);
  });

  test('YAML alias bombs are refused', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]',
    ].join('\n');
    const errors = errorsOf(() => parseDefinition(bomb));
    expect(errors[0].path).toBe('');
    expect(errors[0].message).toMatch(/^Invalid YAML/);
  });

  test('YAML 1.2 semantics: "no"/"on" are strings, not booleans', () => {
    const errors = errorsOf(() =>
      parseDefinition('name: x\nslug: x\nsteps:\n  - {key: a, type: transform, expression: "1"}\ntrigger: {secret: no}\n'),
    );
    expect(messageAt(errors, 'trigger.secret')).toBe('must be true or false');
  });

  test('empty, whitespace and non-object documents', () => {
    expect(errorsOf(() => parseDefinition(''))[0]).toEqual({ path: '', message: 'Definition is empty' });
    expect(errorsOf(() => parseDefinition('   \n  '))[0].message).toBe('Definition is empty');
    expect(errorsOf(() => parseDefinition('[1,2]'))[0]).toEqual({ path: '', message: expect.stringMatching(/must be an object/) });
    expect(errorsOf(() => parseDefinition('just a string'))[0].path).toBe('');
    expect(errorsOf(() => parseDefinition('~'))[0].path).toBe('');
  });

  test('refuses documents over the size limit', () => {
    const big = JSON.stringify(doc({ description: 'x'.repeat(1024 * 1024) }));
    expect(errorsOf(() => parseDefinition(big))[0].message).toMatch(/larger than/);
  });
});

describe('validateDefinition: document level', () => {
  test(`a document nested deeper than ${MAX_DEFINITION_DEPTH} levels is refused, even 100,000 deep, in JSON or YAML`, () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const http = (body: string) => ({ key: 'a', type: 'http', method: 'POST', url: 'https://a.example/', body: JSON.parse(body) });
    // The body's levels come below three (document, steps, step).
    expect(() => validateDefinition(doc({ steps: [http(deep(MAX_DEFINITION_DEPTH - 3))] }))).not.toThrow();
    const refused = `must not nest deeper than ${MAX_DEFINITION_DEPTH} levels`;
    expect(errorsOf(() => validateDefinition(doc({ steps: [http(deep(MAX_DEFINITION_DEPTH - 2))] })))).toEqual([
      { path: '', message: refused },
    ]);
    const json = JSON.stringify(doc({ steps: [{ ...http('[]'), body: '@' }] })).replace('"@"', deep(100_000));
    expect(errorsOf(() => parseDefinition(json))).toEqual([{ path: '', message: refused }]);
    const yaml = `name: x\nslug: x\nsteps:\n  - key: a\n    type: http\n    method: POST\n    url: https://a.example/\n    body: ${deep(100_000)}\n`;
    expect(errorsOf(() => parseDefinition(yaml))).toEqual([{ path: '', message: refused }]);
  });

  test('minimal document gets every default', () => {
    const def = validateDefinition(doc());
    expect(def).toEqual({
      name: 'Test',
      slug: 'test',
      description: '',
      steps: [
        {
          key: 'a',
          name: 'a',
          type: 'transform',
          expression: 'input',
          retry: { max_attempts: 1, backoff: 'exponential', interval: '1s', interval_ms: 1000 },
        },
      ],
      trigger: { secret: true, signature: false, ip_allowlist: [], required_headers: {} },
    });
    expect('output' in def).toBe(false);
    expect('input_schema' in def).toBe(false);
  });

  test('does not modify the input document', () => {
    const d = doc({ trigger: { ip_allowlist: ['10.0.0.1'] } });
    const before = JSON.stringify(d);
    validateDefinition(d);
    expect(JSON.stringify(d)).toBe(before);
  });

  test('non-object documents', () => {
    for (const v of [null, undefined, 42, 'x', [], true]) {
      expect(errorsOf(() => validateDefinition(v))).toEqual([{ path: '', message: expect.stringMatching(/must be an object/) }]);
    }
  });

  test('required fields', () => {
    const errors = errorsOf(() => validateDefinition({}));
    expect(messageAt(errors, 'name')).toBe('is required');
    expect(messageAt(errors, 'slug')).toBe('is required');
    expect(messageAt(errors, 'steps')).toBe('is required');
  });

  test('unknown fields are refused, with a hint for typos', () => {
    const errors = errorsOf(() => validateDefinition(doc({ descripton: 'x', stepz: [], totally_unrelated: 1 })));
    expect(messageAt(errors, 'descripton')).toBe('unknown field (did you mean "description"?)');
    expect(messageAt(errors, 'stepz')).toBe('unknown field (did you mean "steps"?)');
    expect(messageAt(errors, 'totally_unrelated')).toBe('unknown field');
    const stepErrors = errorsOf(() => validateDefinition(doc({ steps: [{ key: 'a', type: 'transform', expresion: '1', retyr: {} }] })));
    expect(messageAt(stepErrors, 'steps[0].expresion')).toBe('unknown field (did you mean "expression"?)');
    expect(messageAt(stepErrors, 'steps[0].retyr')).toBe('unknown field (did you mean "retry"?)'); // transposition
    expect(messageAt(stepErrors, 'steps[0].expression')).toBe('is required');
  });

  test.each([
    ['a', true],
    ['0abc', true],
    ['my-flow-2', true],
    ['a'.repeat(63), true],
    ['a'.repeat(64), false],
    ['', false],
    ['-abc', false],
    ['My-Flow', false],
    ['my_flow', false],
    ['my flow', false],
    ['ünïcode', false],
  ])('slug %j valid=%s', (slug, ok) => {
    if (ok) expect(validateDefinition(doc({ slug })).slug).toBe(slug);
    else
      expect(
        messageAt(
          errorsOf(() => validateDefinition(doc({ slug }))),
          'slug',
        ),
      ).toMatch(/must be/);
  });

  test('name must be non-empty text', () => {
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ name: '   ' }))),
        'name',
      ),
    ).toBe('must not be empty');
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ name: 5 }))),
        'name',
      ),
    ).toBe('must be a string');
    expect(validateDefinition(doc({ name: '  Padded  ' })).name).toBe('Padded');
  });

  test('description must be a string', () => {
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ description: ['x'] }))),
        'description',
      ),
    ).toBe('must be a string');
    expect(validateDefinition(doc({ description: 'Hello' })).description).toBe('Hello');
  });

  test('steps: at least one, at most 100', () => {
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ steps: [] }))),
        'steps',
      ),
    ).toBe('must have at least one step');
    const many = Array.from({ length: 101 }, (_, i) => ({ key: `s${i}`, type: 'transform', expression: '1' }));
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ steps: many }))),
        'steps',
      ),
    ).toBe('must have at most 100 steps');
    expect(validateDefinition(doc({ steps: many.slice(0, 100) })).steps).toHaveLength(100);
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ steps: {} }))),
        'steps',
      ),
    ).toBe('must be a list');
  });

  test('output must be a valid expression', () => {
    expect(validateDefinition(doc({ output: 'steps.a.output' })).output).toBe('steps.a.output');
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ output: 'steps.a.(' }))),
        'output',
      ),
    ).toMatch(/^invalid expression: /);
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ output: '' }))),
        'output',
      ),
    ).toBe('must not be empty');
  });

  test('collects every error in one AppError', () => {
    const errors = errorsOf(() =>
      validateDefinition({
        name: '',
        slug: 'Bad Slug',
        bogus: true,
        steps: [
          { key: 'a', type: 'transform', expression: '1 +' },
          { key: 'a', type: 'delay', duration: 'forever' },
          { key: 'c', type: 'http', url: 'https://x', retry: { max_attempts: 0 } },
        ],
        output: '}',
      }),
    );
    const paths = errors.map((e) => e.path).sort();
    expect(paths).toEqual(
      ['bogus', 'name', 'output', 'slug', 'steps[0].expression', 'steps[1].duration', 'steps[1].key', 'steps[2].retry.max_attempts'].sort(),
    );
  });
});

describe('validateDefinition: steps', () => {
  const one = (step: Record<string, unknown>) => validateDefinition(doc({ steps: [step] })).steps[0];
  const errs = (step: Record<string, unknown>) => errorsOf(() => validateDefinition(doc({ steps: [step] })));

  test.each([
    ['a', true],
    ['a1_b2', true],
    ['x'.repeat(64), true],
    ['x'.repeat(65), false],
    ['1a', false],
    ['_a', false],
    ['A', false],
    ['a-b', false],
    ['', false],
  ])('step key %j valid=%s', (key, ok) => {
    const step = { key, type: 'transform', expression: '1' };
    if (ok) expect(one(step).key).toBe(key);
    else expect(messageAt(errs(step), 'steps[0].key')).toMatch(/must start with a lower-case letter/);
  });

  test('duplicate keys are refused, pointing at the later one', () => {
    const errors = errorsOf(() =>
      validateDefinition(
        doc({
          steps: [
            { key: 'a', type: 'transform', expression: '1' },
            { key: 'b', type: 'transform', expression: '1' },
            { key: 'a', type: 'transform', expression: '1' },
          ],
        }),
      ),
    );
    expect(errors).toEqual([{ path: 'steps[2].key', message: 'duplicate step key "a" (already used by steps[0])' }]);
  });

  test('missing or unknown type', () => {
    expect(messageAt(errs({ key: 'a' }), 'steps[0].type')).toBe('is required (one of: http, transform, condition, delay, review)');
    expect(messageAt(errs({ key: 'a', type: 'email' }), 'steps[0].type')).toBe('must be one of: http, transform, condition, delay, review');
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ steps: ['a'] }))),
        'steps[0]',
      ),
    ).toMatch(/must be an object/);
  });

  test('name defaults to the key; explicit name kept', () => {
    expect(one({ key: 'k', type: 'transform', expression: '1' }).name).toBe('k');
    expect(one({ key: 'k', name: 'Shape the data', type: 'transform', expression: '1' }).name).toBe('Shape the data');
    expect(messageAt(errs({ key: 'k', name: '', type: 'transform', expression: '1' }), 'steps[0].name')).toBe('must not be empty');
  });

  test('fields of another step type are unknown fields', () => {
    const errors = errs({ key: 'a', type: 'transform', expression: '1', url: 'https://x', duration: '1s' });
    expect(messageAt(errors, 'steps[0].url')).toBe('unknown field (not a field of transform steps)');
    expect(messageAt(errors, 'steps[0].duration')).toBe('unknown field (not a field of transform steps)');
  });

  test('if: compiled; syntax errors point at steps[i].if', () => {
    expect(one({ key: 'a', type: 'transform', expression: '1', if: 'input.go = true' }).if).toBe('input.go = true');
    expect(messageAt(errs({ key: 'a', type: 'transform', expression: '1', if: 'input.go = ' }), 'steps[0].if')).toMatch(
      /^invalid expression: .*position/,
    );
  });

  describe('retry', () => {
    const base = { key: 'a', type: 'transform', expression: '1' };
    test('defaults when absent or partial', () => {
      expect(one(base).retry).toEqual({ max_attempts: 1, backoff: 'exponential', interval: '1s', interval_ms: 1000 });
      expect(one({ ...base, retry: { max_attempts: 5 } }).retry).toEqual({
        max_attempts: 5,
        backoff: 'exponential',
        interval: '1s',
        interval_ms: 1000,
      });
      expect(one({ ...base, retry: { backoff: 'fixed', interval: '1m30s' } }).retry).toEqual({
        max_attempts: 1,
        backoff: 'fixed',
        interval: '1m30s',
        interval_ms: 90_000,
      });
    });
    test.each([
      [{ max_attempts: 0 }, 'steps[0].retry.max_attempts', 'must be at least 1'],
      [{ max_attempts: 11 }, 'steps[0].retry.max_attempts', 'must be at most 10'],
      [{ max_attempts: 2.5 }, 'steps[0].retry.max_attempts', 'must be an integer'],
      [{ max_attempts: '3' }, 'steps[0].retry.max_attempts', 'must be a number'],
      [{ backoff: 'linear' }, 'steps[0].retry.backoff', 'must be one of: fixed, exponential'],
      [{ interval: '0s' }, 'steps[0].retry.interval', 'must be greater than zero'],
      [{ interval: 5 }, 'steps[0].retry.interval', 'must be a string'],
      [{ intervall: '1s' }, 'steps[0].retry.intervall', 'unknown field (did you mean "interval"?)'],
    ])('%j → %s', (retry, path, message) => {
      expect(messageAt(errs({ ...base, retry }), path)).toBe(message);
    });
    test('retry must be an object', () => {
      expect(messageAt(errs({ ...base, retry: 3 }), 'steps[0].retry')).toBe('must be an object');
    });
  });

  describe('http', () => {
    const http = (extra: Record<string, unknown> = {}) => ({ key: 'h', type: 'http', url: 'https://api.example.com/x', ...extra });

    test('defaults', () => {
      expect(one(http())).toEqual({
        key: 'h',
        name: 'h',
        type: 'http',
        method: 'GET',
        url: 'https://api.example.com/x',
        headers: {},
        timeout: '30s',
        timeout_ms: 30_000,
        allow_status: [],
        retry: { max_attempts: 1, backoff: 'exponential', interval: '1s', interval_ms: 1000 },
      });
    });

    test('url is required', () => {
      expect(messageAt(errs({ key: 'h', type: 'http' }), 'steps[0].url')).toBe('is required');
      expect(messageAt(errs(http({ url: '   ' })), 'steps[0].url')).toBe('must not be empty');
    });

    test('methods: upper-case set, any case accepted and normalized', () => {
      for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']) expect((one(http({ method: m })) as HttpStep).method).toBe(m);
      expect((one(http({ method: 'post' })) as HttpStep).method).toBe('POST');
      expect(messageAt(errs(http({ method: 'TRACE' })), 'steps[0].method')).toMatch(/must be one of: GET, POST/);
      expect(messageAt(errs(http({ method: 'CONNECT' })), 'steps[0].method')).toMatch(/must be one of/);
      expect(messageAt(errs(http({ method: 1 })), 'steps[0].method')).toBe('must be a string');
    });

    test('literal URLs must be absolute http(s) without credentials', () => {
      expect(messageAt(errs(http({ url: 'ftp://example.com/x' })), 'steps[0].url')).toMatch(/scheme ftp: is not allowed/);
      expect(messageAt(errs(http({ url: 'file:///etc/passwd' })), 'steps[0].url')).toMatch(/scheme file: is not allowed/);
      expect(messageAt(errs(http({ url: '/relative' })), 'steps[0].url')).toBe('must be an absolute http or https URL');
      expect(messageAt(errs(http({ url: 'https://u:p@example.com/' })), 'steps[0].url')).toMatch(/credentials/);
      expect((one(http({ url: 'http://example.com' })) as HttpStep).url).toBe('http://example.com');
    });

    test('templated URLs: templates compiled, scheme checked when written literally', () => {
      expect((one(http({ url: '{{ input.url }}' })) as HttpStep).url).toBe('{{ input.url }}');
      expect((one(http({ url: 'https://{{ input.host }}/a' })) as HttpStep).url).toBe('https://{{ input.host }}/a');
      expect(messageAt(errs(http({ url: 'gopher://{{ input.host }}' })), 'steps[0].url')).toMatch(/scheme gopher: is not allowed/);
      expect(messageAt(errs(http({ url: 'https://x/{{ input. }}' })), 'steps[0].url')).toMatch(/^In template \{\{ input\. \}\}: /);
      expect(messageAt(errs(http({ url: 'https://x/{{ input.a' })), 'steps[0].url')).toMatch(/Unterminated template/);
      expect(messageAt(errs(http({ url: 'https://x/{{ }}' })), 'steps[0].url')).toMatch(/Empty template/);
    });

    test('headers: template strings, valid names, no duplicates ignoring case, no CR/LF', () => {
      const step = one(http({ headers: { Authorization: 'Bearer {{ secrets.T }}', 'X-Id': '{{ input.id }}' } })) as HttpStep;
      expect(step.headers).toEqual({ Authorization: 'Bearer {{ secrets.T }}', 'X-Id': '{{ input.id }}' });
      const errors = errs(
        http({ headers: { 'Bad Header': 'x', 'X-A': 'a', 'x-a': 'b', 'X-Inject': 'a\r\nHost: evil', 'X-T': '{{ ( }}', 'X-N': 5 } }),
      );
      expect(messageAt(errors, 'steps[0].headers["Bad Header"]')).toBe('is not a valid HTTP header name');
      expect(messageAt(errors, 'steps[0].headers["x-a"]')).toMatch(/repeats header "X-A"/);
      expect(messageAt(errors, 'steps[0].headers["X-Inject"]')).toMatch(/line breaks/);
      expect(messageAt(errors, 'steps[0].headers["X-T"]')).toMatch(/^In template/);
      expect(messageAt(errors, 'steps[0].headers["X-N"]')).toBe('must be a string');
      expect(messageAt(errs(http({ headers: ['a'] })), 'steps[0].headers')).toBe('must be an object');
    });

    test('body: any JSON; every string template compiled with its path', () => {
      const body = { text: '{{ steps.a.output }}', list: [1, true, null, { x: 'literal' }] };
      expect((one(http({ method: 'POST', body })) as HttpStep).body).toEqual(body);
      expect((one(http({ method: 'POST', body: 'raw {{ input.x }}' })) as HttpStep).body).toBe('raw {{ input.x }}');
      expect((one(http({ method: 'POST', body: null })) as HttpStep).body).toBeNull();
      const errors = errs(http({ method: 'POST', body: { a: [{ b: '{{ ]] }}' }], c: 'ok {{ 1 + }}' } }));
      expect(messageAt(errors, 'steps[0].body.a[0].b')).toMatch(/^In template/);
      expect(messageAt(errors, 'steps[0].body.c')).toMatch(/^In template/);
    });

    test('a HEAD request cannot have a body', () => {
      expect(messageAt(errs(http({ method: 'head', body: { a: 1 } })), 'steps[0].body')).toBe('a HEAD request cannot have a body');
    });

    test('timeout: default 30s, at most 5m', () => {
      expect((one(http({ timeout: '5m' })) as HttpStep).timeout_ms).toBe(300_000);
      expect((one(http({ timeout: '250ms' })) as HttpStep).timeout_ms).toBe(250);
      expect(messageAt(errs(http({ timeout: '5m1s' })), 'steps[0].timeout')).toBe('must be at most 5m');
      expect(messageAt(errs(http({ timeout: '0s' })), 'steps[0].timeout')).toBe('must be greater than zero');
      expect(messageAt(errs(http({ timeout: 30 })), 'steps[0].timeout')).toBe('must be a string');
    });

    test('allow_status: integers 100–599, deduplicated', () => {
      expect((one(http({ allow_status: [404, 409, 404] })) as HttpStep).allow_status).toEqual([404, 409]);
      const errors = errs(http({ allow_status: [99, 600, 404.5, '404'] }));
      expect(messageAt(errors, 'steps[0].allow_status[0]')).toBe('must be at least 100');
      expect(messageAt(errors, 'steps[0].allow_status[1]')).toBe('must be at most 599');
      expect(messageAt(errors, 'steps[0].allow_status[2]')).toBe('must be an integer');
      expect(messageAt(errors, 'steps[0].allow_status[3]')).toBe('must be a number');
    });
  });

  describe('transform and condition', () => {
    test('expression required and compiled', () => {
      expect(messageAt(errs({ key: 't', type: 'transform' }), 'steps[0].expression')).toBe('is required');
      expect(messageAt(errs({ key: 't', type: 'transform', expression: '' }), 'steps[0].expression')).toBe('must not be empty');
      expect(messageAt(errs({ key: 't', type: 'condition', expression: 'a ==== b' }), 'steps[0].expression')).toMatch(
        /^invalid expression/,
      );
    });

    test('syntax error path points at the right step index', () => {
      const errors = errorsOf(() =>
        validateDefinition(
          doc({
            steps: [
              { key: 'a', type: 'transform', expression: '1' },
              { key: 'b', type: 'transform', expression: '$sum(' },
            ],
          }),
        ),
      );
      expect(errors).toHaveLength(1);
      expect(errors[0].path).toBe('steps[1].expression');
    });

    test('condition: message and else optional; else must name a LATER step', () => {
      const steps = [
        { key: 'check', type: 'condition', expression: 'input.ok', message: 'Not ok', else: 'fallback' },
        { key: 'main', type: 'transform', expression: '1' },
        { key: 'fallback', type: 'transform', expression: '2' },
      ];
      const c = validateDefinition(doc({ steps })).steps[0] as ConditionStep;
      expect(c).toMatchObject({ type: 'condition', expression: 'input.ok', message: 'Not ok', else: 'fallback' });
      const bare = one({ key: 'c', type: 'condition', expression: 'true' }) as ConditionStep;
      expect('else' in bare).toBe(false);
      expect('message' in bare).toBe(false);

      const backwards = errorsOf(() =>
        validateDefinition(
          doc({
            steps: [
              { key: 'first', type: 'transform', expression: '1' },
              { key: 'check', type: 'condition', expression: 'true', else: 'first' },
            ],
          }),
        ),
      );
      expect(messageAt(backwards, 'steps[1].else')).toBe('must name a later step ("first" is steps[0])');
      expect(messageAt(errs({ key: 'c', type: 'condition', expression: 'true', else: 'c' }), 'steps[0].else')).toMatch(
        /must name a later step/,
      );
      expect(messageAt(errs({ key: 'c', type: 'condition', expression: 'true', else: 'nowhere' }), 'steps[0].else')).toBe(
        'no step has the key "nowhere"',
      );
      expect(messageAt(errs({ key: 'c', type: 'condition', expression: 'true', else: 'Bad-Key' }), 'steps[0].else')).toMatch(
        /must start with/,
      );
    });
  });

  describe('delay', () => {
    test('duration required, parsed', () => {
      expect(one({ key: 'd', type: 'delay', duration: '2h' })).toMatchObject({ duration: '2h', duration_ms: 7_200_000 });
      expect(messageAt(errs({ key: 'd', type: 'delay' }), 'steps[0].duration')).toBe('is required');
      expect(messageAt(errs({ key: 'd', type: 'delay', duration: '400d' }), 'steps[0].duration')).toBe('must be at most 365d');
      expect(messageAt(errs({ key: 'd', type: 'delay', duration: '-1s' }), 'steps[0].duration')).toMatch(/not a valid duration/);
    });
  });

  describe('review', () => {
    const review = (extra: Record<string, unknown> = {}) => ({ key: 'r', type: 'review', title: 'Approve?', ...extra });

    test('defaults', () => {
      expect(one(review())).toEqual({
        key: 'r',
        name: 'r',
        type: 'review',
        title: 'Approve?',
        instructions: '',
        assignees: [],
        timeout: '7d',
        timeout_ms: 7 * 86_400_000,
        on_timeout: 'reject',
        on_reject: 'fail',
        retry: { max_attempts: 1, backoff: 'exponential', interval: '1s', interval_ms: 1000 },
      });
    });

    test('all fields', () => {
      const r = one(
        review({
          instructions: '## Check\nthe *amount*',
          assignees: ['a@example.com', 'b.c+tag@sub.example.org'],
          data: '{ "amount": input.amount }',
          timeout: '2h',
          on_timeout: 'approve',
          on_reject: 'continue',
        }),
      ) as ReviewStep;
      expect(r).toMatchObject({
        assignees: ['a@example.com', 'b.c+tag@sub.example.org'],
        data: '{ "amount": input.amount }',
        timeout_ms: 7_200_000,
        on_timeout: 'approve',
        on_reject: 'continue',
      });
    });

    test('invalid fields', () => {
      expect(messageAt(errs({ key: 'r', type: 'review' }), 'steps[0].title')).toBe('is required');
      expect(messageAt(errs(review({ title: ' ' })), 'steps[0].title')).toBe('must not be empty');
      const errors = errs(
        review({ assignees: ['ok@example.com', 'not-an-email'], data: '{', on_timeout: 'ignore', on_reject: 'retry', timeout: '1y' }),
      );
      expect(messageAt(errors, 'steps[0].assignees[1]')).toBe('must be an email address');
      expect(messageAt(errors, 'steps[0].data')).toMatch(/^invalid expression/);
      expect(messageAt(errors, 'steps[0].on_timeout')).toBe('must be one of: reject, approve');
      expect(messageAt(errors, 'steps[0].on_reject')).toBe('must be one of: fail, continue');
      expect(messageAt(errors, 'steps[0].timeout')).toMatch(/not a valid duration/);
    });
  });
});

describe('validateDefinition: input_schema', () => {
  test('valid schemas are kept as written', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 0 }, e: { type: 'string', format: 'email' } } };
    expect(validateDefinition(doc({ input_schema: schema })).input_schema).toEqual(schema);
  });

  test('an invalid JSON Schema is reported at input_schema', () => {
    const errors = errorsOf(() => validateDefinition(doc({ input_schema: { type: 'strng' } })));
    expect(errors).toHaveLength(1);
    expect(errors[0].path).toBe('input_schema');
    expect(errors[0].message).toMatch(/^is not a valid JSON Schema/);
  });

  test('bad regex patterns and unresolvable refs are compile errors', () => {
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ input_schema: { type: 'string', pattern: '(' } }))),
        'input_schema',
      ),
    ).toMatch(/not a valid JSON Schema/);
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ input_schema: { $ref: 'https://evil.example/schema.json' } }))),
        'input_schema',
      ),
    ).toMatch(/not a valid JSON Schema/);
  });

  test('must be an object', () => {
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ input_schema: 'object' }))),
        'input_schema',
      ),
    ).toBe('must be a JSON Schema object');
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ input_schema: [] }))),
        'input_schema',
      ),
    ).toBe('must be a JSON Schema object');
  });

  test('unsupported $schema dialects are refused', () => {
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ input_schema: { $schema: 'http://json-schema.org/draft-04/schema#' } }))),
        'input_schema',
      ),
    ).toMatch(/unsupported \$schema/);
  });
});

describe('validateDefinition: trigger', () => {
  test('given partially: per-field defaults', () => {
    expect(validateDefinition(doc({ trigger: { signature: true } })).trigger).toEqual({
      secret: true,
      signature: true,
      ip_allowlist: [],
      required_headers: {},
    });
    expect(validateDefinition(doc({ trigger: { secret: false, signature: true } })).trigger.secret).toBe(false);
  });

  test('at least one of secret and signature', () => {
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ trigger: { secret: false } }))),
        'trigger',
      ),
    ).toBe('at least one of "secret" and "signature" must be true');
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ trigger: { secret: false, signature: false } }))),
        'trigger',
      ),
    ).toMatch(/at least one/);
  });

  test('ip_allowlist: CIDRs normalized, single addresses become /32 and /128, duplicates dropped', () => {
    const t = validateDefinition(
      doc({ trigger: { ip_allowlist: ['10.1.2.3/8', '192.168.1.5', '2001:DB8:0:0::1', '2001:db8::/32', '10.0.0.0/8'] } }),
    ).trigger;
    expect(t.ip_allowlist).toEqual(['10.0.0.0/8', '192.168.1.5/32', '2001:db8::1/128', '2001:db8::/32']);
  });

  test.each(['nope', '10.0.0.0/33', '::/129', '300.1.1.1', '10.0.0.1/', '10.0.0/8', 'fe80::1%eth0', '', '10.0.0.1/-1'])(
    'ip_allowlist rejects %j',
    (entry) => {
      expect(
        messageAt(
          errorsOf(() => validateDefinition(doc({ trigger: { ip_allowlist: ['10.0.0.0/8', entry] } }))),
          'trigger.ip_allowlist[1]',
        ),
      ).toMatch(/must be an IPv4 or IPv6 address or CIDR/);
    },
  );

  test('required_headers: names lower-cased, values string or null', () => {
    const t = validateDefinition(doc({ trigger: { required_headers: { 'X-Source': 'github', 'X-Present': null } } })).trigger;
    expect(t.required_headers).toEqual({ 'x-source': 'github', 'x-present': null });
    const errors = errorsOf(() =>
      validateDefinition(doc({ trigger: { required_headers: { 'X-A': 'a', 'x-a': 'b', 'Bad Name': 'c', 'X-Num': 5 } } })),
    );
    expect(messageAt(errors, 'trigger.required_headers["x-a"]')).toMatch(/repeats header/);
    expect(messageAt(errors, 'trigger.required_headers["Bad Name"]')).toBe('is not a valid HTTP header name');
    expect(messageAt(errors, 'trigger.required_headers["X-Num"]')).toBe('must be a string or null');
  });

  test('unknown trigger fields are refused', () => {
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ trigger: { secrett: true } }))),
        'trigger.secrett',
      ),
    ).toBe('unknown field (did you mean "secret"?)');
    expect(
      messageAt(
        errorsOf(() => validateDefinition(doc({ trigger: { ip_allow: [] } }))),
        'trigger.ip_allow',
      ),
    ).toMatch(/^unknown field/);
  });
});

describe('validateDefinition: normalized result is usable data', () => {
  test('a normalized definition validates again to itself (idempotent)', () => {
    const def = parseDefinition(EXAMPLE_YAML);
    expect(validateDefinition(JSON.parse(JSON.stringify(def)))).toEqual(def);
    const all = validateDefinition(
      doc({
        steps: [
          { key: 'h', type: 'http', url: 'https://x', timeout: '10s', retry: { max_attempts: 3, interval: '2s' } },
          { key: 'd', type: 'delay', duration: '1h' },
          { key: 'r', type: 'review', title: 'T' },
          { key: 'c', type: 'condition', expression: 'true' },
        ],
        trigger: { required_headers: { 'X-A': null }, ip_allowlist: ['10.0.0.1'] },
      }),
    );
    expect(validateDefinition(JSON.parse(JSON.stringify(all)))).toEqual(all);
  });

  test('derived *_ms fields must agree with their text', () => {
    const errors = errorsOf(() =>
      validateDefinition(
        doc({
          steps: [
            { key: 'h', type: 'http', url: 'https://x', timeout_ms: 5, retry: { interval: '2s', interval_ms: 1000 } },
            { key: 'd', type: 'delay', duration: '1h', duration_ms: 1 },
            { key: 'r', type: 'review', title: 'T', timeout: '1d', timeout_ms: 'x' },
          ],
        }),
      ),
    );
    expect(messageAt(errors, 'steps[0].timeout_ms')).toMatch(/must equal timeout \("30s" = 30000 ms\)/);
    expect(messageAt(errors, 'steps[0].retry.interval_ms')).toMatch(/must equal interval/);
    expect(messageAt(errors, 'steps[1].duration_ms')).toMatch(/must equal duration/);
    expect(messageAt(errors, 'steps[2].timeout_ms')).toBe('must be a number');
  });

  test('delay and review *_ms are numbers; result is JSON round-trippable', () => {
    const def = validateDefinition(
      doc({
        steps: [
          { key: 'wait', type: 'delay', duration: '1m30s' },
          { key: 'ok', type: 'review', title: 'OK?', timeout: '1d' },
        ],
      }),
    );
    expect((def.steps[0] as DelayStep).duration_ms).toBe(90_000);
    expect((def.steps[1] as ReviewStep).timeout_ms).toBe(86_400_000);
    expect(JSON.parse(JSON.stringify(def))).toEqual(def);
  });
});
