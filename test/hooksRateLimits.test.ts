import { randomInt } from 'node:crypto';
import { Agent } from 'undici';
import { showTrigger } from '@svc/domain';
import { call } from './helpers/http';
import type { HttpAnswer } from './helpers/http';
import { rawExchange } from './helpers/rawHttp';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

/**
 * Abuse limits of `/hooks/{trigger_id}`: per trigger at the workspace plan's
 * per-key figure, per source address at HOOKS_RATE_LIMIT_PER_ADDRESS_PER_MIN, both checked
 * before the body is read, and a flood never starts more runs than the limits allow.
 */

const PER_ADDRESS = 6;
let stack: TestStack;
const agents: Agent[] = [];

beforeAll(async () => {
  stack = await startStack({ HOOKS_RATE_LIMIT_PER_ADDRESS_PER_MIN: String(PER_ADDRESS) });
});
afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await stack?.stop();
});

/** A client on its own loopback address (all of 127.0.0.0/8 is local on Linux). */
function client(): { from: string; dispatcher: Agent } {
  const from = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  const dispatcher = new Agent({ localAddress: from });
  agents.push(dispatcher);
  return { from, dispatcher };
}

/** A workflow with a secret-only trigger (plus `settings`), in a workspace whose per-key figure is `perMin`. */
async function trigger(perMin: number, settings: Record<string, unknown> = {}) {
  const t = await stack.tenant({ limits: { rateLimitPerMin: perMin } });
  const wf = await stack.apply(t.workspaceId, {
    name: 'Echo',
    slug: `echo-${randomInt(1e9)}`,
    steps: [{ key: 'echo', type: 'transform', expression: 'input' }],
    trigger: { secret: true, signature: false, ...settings },
  });
  const shown = await showTrigger(stack.db.prisma, stack.box, { workflowId: wf.id, baseUrl: stack.url });
  return { wfId: wf.id, url: shown.url, secret: shown.secret };
}

const fire = (url: string, secret: string, dispatcher: Agent, body = '{"n":1}'): Promise<HttpAnswer> =>
  call(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-secret': secret }, body, dispatcher });

const runsOf = (wfId: string) => stack.db.prisma.run.count({ where: { workflowId: wfId } });

/**
 * Headers announcing a 1000-byte body, and only 10 bytes of it: any answer proves the body was
 * not awaited. Resolves to the answer's status and problem code.
 */
async function announced(url: string, secret: string, from: string, extraHeaders = ''): Promise<[number, string]> {
  const head =
    `POST ${new URL(url).pathname} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n` +
    `x-svc-secret: ${secret}\r\n${extraHeaders}\r\n`;
  const r = await rawExchange(url, head, [Buffer.from('{"a":"0123')], 5_000, from);
  return [r.status, JSON.parse(r.body).code];
}

function expectRateLimited(r: HttpAnswer, policy: string, quota: number) {
  expect([r.status, r.body.code]).toEqual([429, 'rate_limited']);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(r.headers.get('ratelimit-policy')).toBe(`"${policy}";q=${quota};w=60`);
}

describe('/hooks rate limits', () => {
  it('limits each trigger to its plan figure per minute: a flood from many addresses starts exactly that many runs', async () => {
    const t = await trigger(3);
    const answers = await Promise.all(Array.from({ length: 12 }, () => fire(t.url, t.secret, client().dispatcher)));
    expect(answers.filter((r) => r.status === 202)).toHaveLength(3);
    const refused = answers.filter((r) => r.status !== 202);
    expect(refused).toHaveLength(9);
    for (const r of refused) expectRateLimited(r, 'trigger', 3);
    expect(await runsOf(t.wfId)).toBe(3);
  });

  it('limits each source address across triggers, before any lookup: a flood from one address starts only its budget', async () => {
    const a = await trigger(1000);
    const b = await trigger(1000);
    const { dispatcher } = client();
    const answers: HttpAnswer[] = [];
    for (let i = 0; i < PER_ADDRESS + 4; i++) answers.push(await fire((i % 2 ? a : b).url, (i % 2 ? a : b).secret, dispatcher));
    expect(answers.map((r) => r.status)).toEqual([...Array(PER_ADDRESS).fill(202), 429, 429, 429, 429]);
    for (const r of answers.slice(PER_ADDRESS)) expectRateLimited(r, 'hook_ip', PER_ADDRESS);
    // Even an unknown trigger is refused by the address limit first.
    const unknown = await call(`${stack.url}/hooks/trg_000000000000000000000000`, { method: 'POST', dispatcher });
    expectRateLimited(unknown, 'hook_ip', PER_ADDRESS);
    expect((await runsOf(a.wfId)) + (await runsOf(b.wfId))).toBe(PER_ADDRESS);
    // Another address is unaffected.
    expect((await fire(a.url, a.secret, client().dispatcher)).status).toBe(202);
  });

  it('answers a wrong secret, and a trigger over its limit, without waiting for the body', async () => {
    const t = await trigger(1);
    expect((await fire(t.url, t.secret, client().dispatcher)).status).toBe(202);
    // From an address of its own, so no other test's requests count against its address budget.
    const { from } = client();
    expect(await announced(t.url, 'nope', from)).toEqual([401, 'invalid_trigger_secret']);
    expect(await announced(t.url, t.secret, from)).toEqual([429, 'rate_limited']);
    expect(await runsOf(t.wfId)).toBe(1);
  });

  it('answers an unknown trigger, an address off the allowlist and a missing required header without waiting for the body', async () => {
    const listed = await trigger(1000, { ip_allowlist: ['192.0.2.0/24'] });
    const guarded = await trigger(1000, { required_headers: { 'x-tenant': 'acme' } });
    const { from } = client();
    expect(await announced(`${stack.url}/hooks/trg_000000000000000000000000`, 'x', from)).toEqual([404, 'not_found']);
    expect(await announced(listed.url, listed.secret, from)).toEqual([403, 'ip_not_allowed']);
    expect(await announced(guarded.url, guarded.secret, from)).toEqual([403, 'required_header_missing']);
    expect(await announced(guarded.url, guarded.secret, from, 'x-tenant: other\r\n')).toEqual([403, 'required_header_missing']);
    expect((await runsOf(listed.wfId)) + (await runsOf(guarded.wfId))).toBe(0);
  });
});
