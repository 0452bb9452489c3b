import type { ExpressionContext } from '../definitions/types';
import { ExpressionError } from './evaluate';
import {
  TemplateSyntaxError,
  compileTemplates,
  findTemplateExpressions,
  parseTemplate,
  renderTemplateString,
  renderTemplateText,
  renderTemplates,
} from './templates';

const ctx: ExpressionContext = {
  input: { name: 'Ada', count: 3, flag: false, nothing: null, obj: { a: 1 }, list: [1, 'two'], text: 'a}}b' },
  steps: { shape: { output: { greeting: 'hello Ada' }, status: 'succeeded' } },
  secrets: { TOKEN: 'tok' },
};

describe('parseTemplate', () => {
  test('splits text and expressions', () => {
    expect(parseTemplate('a {{ x }} b {{y}}')).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'expr', expression: ' x ', offset: 4, raw: false },
      { kind: 'text', text: ' b ' },
      { kind: 'expr', expression: 'y', offset: 14, raw: false },
    ]);
    expect(parseTemplate('no templates')).toEqual([{ kind: 'text', text: 'no templates' }]);
    expect(parseTemplate('')).toEqual([]);
    expect(parseTemplate('{{a}}{{b}}')).toEqual([
      { kind: 'expr', expression: 'a', offset: 2, raw: false },
      { kind: 'expr', expression: 'b', offset: 7, raw: false },
    ]);
  });

  test('"}}" inside strings, objects, arrays and comments does not end the template', () => {
    const exprOf = (s: string) =>
      parseTemplate(s)
        .filter((p) => p.kind === 'expr')
        .map((p) => (p as { expression: string }).expression);
    expect(exprOf("{{ {'a': {'b': 1}} }}")).toEqual([" {'a': {'b': 1}} "]);
    expect(exprOf('{{ "}}" & "x" }}')).toEqual([' "}}" & "x" ']);
    expect(exprOf("{{ 'it\\'s }}' }}")).toEqual([" 'it\\'s }}' "]);
    expect(exprOf('{{ [[1],[2]] }}')).toEqual([' [[1],[2]] ']);
    expect(exprOf('{{ 1 /* }} */ + 1 }}')).toEqual([' 1 /* }} */ + 1 ']);
    expect(exprOf('{{ `odd}}name` }}')).toEqual([' `odd}}name` ']);
  });

  test('unterminated and empty templates are syntax errors', () => {
    expect(() => parseTemplate('a {{ b')).toThrow(TemplateSyntaxError);
    expect(() => parseTemplate('a {{ b')).toThrow(/position 2/);
    expect(() => parseTemplate('{{ }}')).toThrow(/Empty template/);
    expect(() => parseTemplate('{{}}')).toThrow(/Empty template/);
  });

  test('an unterminated string literal ends at "}}" and is reported by the expression compiler', () => {
    expect(parseTemplate("{{ 'open string }}")).toEqual([{ kind: 'expr', expression: " 'open string ", offset: 2, raw: false }]);
    expect(compileTemplates("{{ 'open string }}")).toEqual([
      { path: [], message: expect.stringMatching(/String literal must be terminated/) },
    ]);
  });

  test('unbalanced brackets end at the first "}}" so the real syntax error surfaces', () => {
    expect(parseTemplate('{{ ( }} tail')).toEqual([
      { kind: 'expr', expression: ' ( ', offset: 2, raw: false },
      { kind: 'text', text: ' tail' },
    ]);
  });

  test('single braces and lone "}}" are plain text', () => {
    expect(parseTemplate('{a} }} {')).toEqual([{ kind: 'text', text: '{a} }} {' }]);
  });
});

describe('renderTemplates', () => {
  test('a sole template yields the raw typed value', async () => {
    expect(await renderTemplateString('{{ input.count }}', ctx)).toBe(3);
    expect(await renderTemplateString('  {{ input.flag }}  ', ctx)).toBe(false);
    expect(await renderTemplateString('{{ input.obj }}', ctx)).toEqual({ a: 1 });
    expect(await renderTemplateString('{{ input.list }}', ctx)).toEqual([1, 'two']);
    expect(await renderTemplateString('{{ input.nothing }}', ctx)).toBeNull();
    expect(await renderTemplateString('{{ input.missing }}', ctx)).toBeNull();
    expect(await renderTemplateString('\n{{ input.name }}\t', ctx)).toBe('Ada');
  });

  test('embedded templates are stringified', async () => {
    expect(await renderTemplateString('Hi {{ input.name }}!', ctx)).toBe('Hi Ada!');
    expect(await renderTemplateString('n={{ input.count }} f={{ input.flag }}', ctx)).toBe('n=3 f=false');
    expect(await renderTemplateString('o={{ input.obj }} l={{ input.list }}', ctx)).toBe('o={"a":1} l=[1,"two"]');
    expect(await renderTemplateString('[{{ input.nothing }}][{{ input.missing }}]', ctx)).toBe('[][]');
    expect(await renderTemplateString('{{ input.name }}{{ input.count }}', ctx)).toBe('Ada3');
    expect(await renderTemplateString('{{ input.text }}', ctx)).toBe('a}}b');
  });

  test('a literal "{{" can be written as an expression', async () => {
    expect(await renderTemplateString("use {{ '{{' }} name }}", ctx)).toBe('use {{ name }}');
  });

  test('values containing "{{" are not rendered again', async () => {
    const c = { ...ctx, input: { evil: '{{ secrets.TOKEN }}' } };
    expect(await renderTemplateString('x {{ input.evil }}', c)).toBe('x {{ secrets.TOKEN }}');
    expect(await renderTemplates({ a: '{{ input.evil }}' }, c)).toEqual({ a: '{{ secrets.TOKEN }}' });
  });

  test('walks objects and arrays; keys and non-strings untouched', async () => {
    const value = {
      '{{ input.name }}': 'key stays',
      text: '{{ steps.shape.output.greeting }}',
      nested: [{ n: '{{ input.count }}', s: 'n={{ input.count }}' }, 42, true, null],
      auth: 'Bearer {{ secrets.TOKEN }}',
    };
    const out = await renderTemplates(value, ctx);
    expect(out).toEqual({
      '{{ input.name }}': 'key stays',
      text: 'hello Ada',
      nested: [{ n: 3, s: 'n=3' }, 42, true, null],
      auth: 'Bearer tok',
    });
    expect(value.text).toBe('{{ steps.shape.output.greeting }}'); // input not modified
  });

  test('plain strings are returned unchanged, non-strings as they are', async () => {
    expect(await renderTemplates('no templates', ctx)).toBe('no templates');
    expect(await renderTemplates(5, ctx)).toBe(5);
    expect(await renderTemplates(null, ctx)).toBeNull();
    expect(await renderTemplates(undefined, ctx)).toBeUndefined();
  });

  test('errors are ExpressionErrors', async () => {
    await expect(renderTemplates({ a: ['{{ input.name + 1 }}'] }, ctx)).rejects.toBeInstanceOf(ExpressionError);
    await expect(renderTemplateString('x {{ input.name + 1 }}', ctx)).rejects.toBeInstanceOf(ExpressionError);
    await expect(renderTemplateString('x {{ input.name', ctx)).rejects.toBeInstanceOf(TemplateSyntaxError);
  });

  test('renderTemplateText always gives a string', async () => {
    expect(await renderTemplateText('{{ input.count }}', ctx)).toBe('3');
    expect(await renderTemplateText('{{ input.obj }}', ctx)).toBe('{"a":1}');
    expect(await renderTemplateText('{{ input.missing }}', ctx)).toBe('');
    expect(await renderTemplateText('https://x/{{ input.name }}', ctx)).toBe('https://x/Ada');
  });

  test('__proto__ keys are copied as own properties', async () => {
    const value = JSON.parse('{"__proto__": {"x": "{{ input.name }}"}}');
    const out = (await renderTemplates(value, ctx)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(out['__proto__']).toEqual({ x: 'Ada' });
  });
});

describe('findTemplateExpressions / compileTemplates', () => {
  const body = {
    a: 'x {{ input.a }} y {{ input.b }}',
    list: ['{{ steps.s.output }}', 'plain', 3],
    '{{ key }}': 'keys are not templates',
    bad: '{{ input. }}',
    open: '{{ never closed',
  };

  test('finds every expression with its path', () => {
    expect(findTemplateExpressions(body)).toEqual([
      { path: ['a'], expression: ' input.a ', offset: 4 },
      { path: ['a'], expression: ' input.b ', offset: 20 },
      { path: ['list', 0], expression: ' steps.s.output ', offset: 2 },
      { path: ['bad'], expression: ' input. ', offset: 2 },
    ]);
    expect(findTemplateExpressions('{{ x }}')).toEqual([{ path: [], expression: ' x ', offset: 2 }]);
    expect(findTemplateExpressions(42)).toEqual([]);
  });

  test('compileTemplates reports syntax problems with paths; never throws', () => {
    const problems = compileTemplates(body);
    expect(problems).toEqual([
      { path: ['bad'], message: expect.stringMatching(/^In template \{\{ input\. \}\}: /) },
      { path: ['open'], message: expect.stringMatching(/Unterminated template/) },
    ]);
    expect(compileTemplates({ ok: 'a {{ 1 + 1 }}' })).toEqual([]);
    expect(compileTemplates(null)).toEqual([]);
  });
});
