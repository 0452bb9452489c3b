import { closeSandbox } from './sandbox/pool';
import { compileTemplates, parseTemplate } from './templates';
import { encodeUrlValue, renderHttpRequest, renderUrlTemplate } from './urlTemplate';

const ctx = (input: unknown) => ({ input, steps: {}, secrets: { TOKEN: 's3cret' } });

afterAll(closeSandbox);

describe('url templates', () => {
  it('percent-encodes every reserved character, like RFC 6570 simple expansion', () => {
    expect(encodeUrlValue("a/b?c#d@e:f[g]!$&'()*+,;= %é")).toBe(
      'a%2Fb%3Fc%23d%40e%3Af%5Bg%5D%21%24%26%27%28%29%2A%2B%2C%3B%3D%20%25%C3%A9',
    );
    expect(encodeUrlValue('AZaz09-._~')).toBe('AZaz09-._~');
  });

  it('keeps a forged tenant inside the host the template names', async () => {
    const url = await renderUrlTemplate('https://{{ input.tenant }}.api.example.com/x', ctx({ tenant: 'evil.example:9000/steal?' }));
    expect(url).toBe('https://evil.example%3A9000%2Fsteal%3F.api.example.com/x');
    // Not a valid host any more: the request fails (http_invalid_url) rather than going elsewhere.
    expect(() => new URL(url)).toThrow();
    const path = await renderUrlTemplate(
      'https://api.example.com/users/{{ input.id }}?q={{ input.q }}',
      ctx({ id: '../admin', q: 'a&b=c#f' }),
    );
    expect(new URL(path).host).toBe('api.example.com');
    expect(new URL(path).pathname).toBe('/users/..%2Fadmin');
    expect([...new URL(path).searchParams]).toEqual([['q', 'a&b=c#f']]);
  });

  it('inserts raw(…) values unencoded (the opt-in for a whole trusted URL)', async () => {
    await expect(renderUrlTemplate('{{ raw(input.url) }}', ctx({ url: 'https://hooks.example.com/a?b=1' }))).resolves.toBe(
      'https://hooks.example.com/a?b=1',
    );
    expect(parseTemplate('{{ raw( input.url ) }}')).toEqual([{ kind: 'expr', expression: ' input.url ', offset: 2, raw: true }]);
    expect(compileTemplates('{{ raw(input.url) }}/x')).toEqual([]);
    expect(compileTemplates('{{ raw() }}')).toHaveLength(1);
  });

  it('renders headers and body as before (values not encoded)', async () => {
    const r = await renderHttpRequest(
      { url: 'https://a.example/{{ input.p }}', headers: { Authorization: 'Bearer {{ secrets.TOKEN }}' }, body: { t: '{{ input.p }}' } },
      ctx({ p: 'x/y' }),
    );
    expect(r).toEqual({ url: 'https://a.example/x%2Fy', headers: { Authorization: 'Bearer s3cret' }, body: { t: 'x/y' } });
  });
});
