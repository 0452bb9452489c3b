import { AppError } from '../errors';
import { checkEndpointUrl, createEndpointUrlPolicy } from './urlRules';

const strict = createEndpointUrlPolicy({});

function refusal(url: string, policy = strict): string {
  try {
    checkEndpointUrl(url, policy);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe('url_not_allowed');
    return (e as AppError).message;
  }
  throw new Error(`${url} was accepted`);
}

describe('checkEndpointUrl', () => {
  test('public https URLs pass, normalized', () => {
    expect(checkEndpointUrl('https://hooks.example.com/svc?x=1', strict)).toBe('https://hooks.example.com/svc?x=1');
    expect(checkEndpointUrl('HTTPS://Hooks.Example.COM:8443', strict)).toBe('https://hooks.example.com:8443/');
    expect(checkEndpointUrl('https://8.8.8.8/in', strict)).toBe('https://8.8.8.8/in');
    expect(checkEndpointUrl('https://[2606:4700:4700::1111]/', strict)).toBe('https://[2606:4700:4700::1111]/');
  });

  test.each([
    ['http://hooks.example.com/', /Only https/],
    ['ftp://hooks.example.com/', /Only https/],
    ['not a url', /valid absolute URL/],
    ['https://user:pass@hooks.example.com/', /Credentials/],
    ['https://hooks.example.com/#frag', /fragment/],
    ['https://127.0.0.1/', /loopback/],
    ['https://127.1.2.3:8443/x', /loopback/],
    ['https://2130706433/', /loopback/], // decimal form of 127.0.0.1
    ['https://0x7f.0.0.1/', /loopback/],
    ['https://[::1]/', /loopback/],
    ['https://[::ffff:127.0.0.1]/', /loopback/],
    ['https://10.1.2.3/', /private/],
    ['https://172.16.0.1/', /private/],
    ['https://192.168.1.1/', /private/],
    ['https://169.254.169.254/latest/meta-data', /metadata/],
    ['https://[fd00:ec2::254]/', /metadata/],
    ['https://169.254.1.1/', /link-local/],
    ['https://[fe80::1]/', /link-local/],
    ['https://100.64.0.1/', /cgnat/],
    ['https://224.0.0.1/', /multicast/],
    ['https://240.0.0.1/', /reserved/],
    ['https://0.0.0.0/', /unspecified/],
    ['https://[fc00::1]/', /unique-local/],
  ])('refuses %s', (url, why) => {
    expect(refusal(url)).toMatch(why);
  });

  test('a URL longer than 2048 characters is refused', () => {
    expect(refusal(`https://hooks.example.com/${'a'.repeat(2100)}`)).toMatch(/longer/);
  });

  test('operators can allow plain http and CIDRs; nothing else changes', () => {
    const open = createEndpointUrlPolicy({ allowHttp: true, allowCidrs: ['127.0.0.0/8'] });
    expect(checkEndpointUrl('http://127.0.0.1:9000/hook', open)).toBe('http://127.0.0.1:9000/hook');
    expect(checkEndpointUrl('https://127.0.0.1:9000/hook', open)).toBe('https://127.0.0.1:9000/hook');
    expect(refusal('https://10.0.0.1/', open)).toMatch(/private/);
    expect(refusal('https://169.254.169.254/', open)).toMatch(/metadata/);
    expect(refusal('ftp://127.0.0.1/', open)).toMatch(/Only https/);
  });

  test('host names pass at creation: they are checked on every resolved address at connect time', () => {
    expect(checkEndpointUrl('https://localhost:8443/', strict)).toBe('https://localhost:8443/');
  });
});
