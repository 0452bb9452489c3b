import { spawnSync } from 'node:child_process';
import path from 'node:path';
import {
  LINK_REQUEST_WINDOW_MS,
  MAX_FAILURES_PER_ADDRESS,
  MAX_FAILURES_PER_EMAIL,
  MAX_LINK_REQUESTS_PER_EMAIL,
  SIGN_IN_WINDOW_MS,
} from '@svc/domain';
import { member, PASSWORD } from './helpers/console';
import { call } from './helpers/http';
import type { HttpAnswer } from './helpers/http';
import { ROOT } from './helpers/processes';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';

// The console's sign-in throttle, through a trusted proxy (this test's own connections) whose
// X-Forwarded-For names each client: failures per email and per client address (IPv6 per /64),
// decided atomically, and mailed sign-in links per email, member or not.
let stack: TestStack;
let workspaceId: string;
const tag = Math.random().toString(36).slice(2, 8);
const email = (name: string) => `${name}-${tag}@example.test`;

beforeAll(async () => {
  stack = await startStack({ TRUSTED_PROXY_CIDRS: '127.0.0.1/32' });
  ({ workspaceId } = await stack.tenant());
});
afterAll(async () => {
  await stack?.stop();
});

/** The sign-in page's pre-session cookie and the CSRF token its forms carry. */
async function signInForm(): Promise<{ cookie: string; csrf: string }> {
  const page = await call(`${stack.url}/console/sign-in`);
  const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body as string)![1]!;
  return { cookie, csrf };
}

async function postForm(path: string, client: string, fields: Record<string, string>): Promise<HttpAnswer> {
  const { cookie, csrf } = await signInForm();
  return call(`${stack.url}/console${path}`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': client },
    body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
  });
}

const signIn = (client: string, address: string, password: string) => postForm('/sign-in', client, { email: address, password });
const askLink = (client: string, address: string) => postForm('/sign-in/link', client, { email: address });
/** Floods are sent one after another: concurrency is the email test's subject, and each wrong guess costs a password hash. */
async function oneAfterAnother(n: number, send: (i: number) => Promise<HttpAnswer>): Promise<HttpAnswer[]> {
  const answers: HttpAnswer[] = [];
  for (let i = 0; i < n; i++) answers.push(await send(i));
  return answers;
}
const statuses = (answers: HttpAnswer[]) => answers.map((a) => a.status).sort();
const failuresOf = (where: { email?: string; address?: string }) => stack.db.prisma.signInFailure.count({ where });
const signedIn = (a: HttpAnswer) =>
  a.status === 303 && a.headers.get('location') === '/console/runs' && /svc_console=/.test(a.headers.get('set-cookie') ?? '');

/** A 429 page saying to try later, with Retry-After within the throttle's window, and no session. */
function expectTryLater(a: HttpAnswer, text: RegExp, windowMs = SIGN_IN_WINDOW_MS) {
  expect(a.status).toBe(429);
  const wait = Number(a.headers.get('retry-after'));
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(windowMs / 1000);
  expect(a.body).toMatch(text);
  expect(a.headers.get('set-cookie') ?? '').not.toContain('svc_console=');
}

describe('console sign-in throttle', () => {
  it('lets at most 5 of 30 concurrent wrong guesses for one email through, then refuses the right password until the window slides', async () => {
    const target = email('ann');
    await member(stack, workspaceId, target, 'member');
    // From 30 client addresses at once: only the email's budget holds them back.
    const guesses = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn(`203.0.113.${i + 1}`, target, `wrong guess ${i}`)));
    expect(statuses(guesses)).toEqual([
      ...Array<number>(MAX_FAILURES_PER_EMAIL).fill(401),
      ...Array<number>(30 - MAX_FAILURES_PER_EMAIL).fill(429),
    ]);
    expect(await failuresOf({ email: target })).toBe(MAX_FAILURES_PER_EMAIL);

    const right = await signIn('203.0.113.99', target, PASSWORD);
    expectTryLater(right, /Too many failed sign-ins/);
    expect(await failuresOf({ email: target })).toBe(MAX_FAILURES_PER_EMAIL);

    // Once the failures are older than the window, the right password signs in.
    await stack.db.prisma.$executeRaw`
      UPDATE sign_in_failures SET at = at - ${SIGN_IN_WINDOW_MS}::int * interval '1 millisecond' WHERE email = ${target}`;
    expect(signedIn(await signIn('203.0.113.99', target, PASSWORD))).toBe(true);
  });

  it('refuses a client address after 20 failures without locking out another address or the emails it guessed at', async () => {
    const victim = email('bob');
    await member(stack, workspaceId, victim, 'member');
    const flooder = '198.51.100.7';
    const flood = await oneAfterAnother(25, (i) => signIn(flooder, email(`nobody${i}`), 'wrong password!'));
    expect(statuses(flood)).toEqual([
      ...Array<number>(MAX_FAILURES_PER_ADDRESS).fill(401),
      ...Array<number>(25 - MAX_FAILURES_PER_ADDRESS).fill(429),
    ]);
    expect(await failuresOf({ address: flooder })).toBe(MAX_FAILURES_PER_ADDRESS);
    expectTryLater(await signIn(flooder, victim, PASSWORD), /Too many failed sign-ins/);

    // Another client behind the same proxy, and the emails the flood tried, are not held back.
    expect(signedIn(await signIn('198.51.100.8', victim, PASSWORD))).toBe(true);
    expect((await signIn('198.51.100.8', email('nobody0'), 'wrong password!')).status).toBe(401);
  });

  it('counts IPv6 clients per /64: one allocation shares a budget, the next one does not', async () => {
    const user = email('cyd');
    await member(stack, workspaceId, user, 'member');
    const flood = await oneAfterAnother(MAX_FAILURES_PER_ADDRESS, (i) =>
      signIn(`2001:db8:1:2::${(i + 1).toString(16)}`, email(`v6-${i}`), 'wrong!'),
    );
    expect(statuses(flood)).toEqual(Array<number>(MAX_FAILURES_PER_ADDRESS).fill(401));
    expect(await failuresOf({ address: '2001:db8:1:2::/64' })).toBe(MAX_FAILURES_PER_ADDRESS);
    expectTryLater(await signIn('2001:db8:1:2:ffff:ffff:ffff:fffe', user, PASSWORD), /Too many failed sign-ins/);
    expect(signedIn(await signIn('2001:db8:1:3::1', user, PASSWORD))).toBe(true);
  });
});

describe('mailed sign-in links', () => {
  it('refuses the 6th link within the hour for an email, member or not, with the same answer', async () => {
    const known = email('dee');
    await member(stack, workspaceId, known, 'member');
    const unknown = email('stranger');
    // Each from another client: the budget is the email's.
    const asked = [];
    for (let i = 0; i < MAX_LINK_REQUESTS_PER_EMAIL; i++) asked.push(await askLink(`192.0.2.${i + 1}`, known));
    expect(asked.map((a) => a.status)).toEqual(Array<number>(MAX_LINK_REQUESTS_PER_EMAIL).fill(200));
    const mails = () => stack.db.prisma.outboxEmail.count({ where: { recipients: { has: known }, subject: 'Your svc sign-in link' } });
    expect(await mails()).toBe(MAX_LINK_REQUESTS_PER_EMAIL);

    const sixth = await askLink('192.0.2.50', known);
    expectTryLater(sixth, /Too many sign-in links were asked for this address/, LINK_REQUEST_WINDOW_MS);
    expect(await mails()).toBe(MAX_LINK_REQUESTS_PER_EMAIL);

    // A stranger's address, asked for concurrently: the same count, the same refusal.
    const strangers = await Promise.all(Array.from({ length: 10 }, (_, i) => askLink(`192.0.2.${100 + i}`, unknown)));
    expect(statuses(strangers)).toEqual([
      ...Array<number>(MAX_LINK_REQUESTS_PER_EMAIL).fill(200),
      ...Array<number>(10 - MAX_LINK_REQUESTS_PER_EMAIL).fill(429),
    ]);
    // The same words, whatever the minutes left.
    const alert = (a: HttpAnswer) => /<p class="notice error" role="alert">([^<]*)<\/p>/.exec(a.body as string)?.[1]?.replace(/\d+/g, 'N');
    const refused = strangers.find((a) => a.status === 429)!;
    expectTryLater(refused, /Too many sign-in links were asked for this address/, LINK_REQUEST_WINDOW_MS);
    expect(alert(sixth)).toContain('Too many sign-in links');
    expect(alert(refused)).toBe(alert(sixth));
  });

  it('does not count the links an operator prints with the CLI, which still sign in past the limit', async () => {
    const known = email('eli');
    await member(stack, workspaceId, known, 'admin');
    for (let i = 0; i < MAX_LINK_REQUESTS_PER_EMAIL; i++) expect((await askLink('192.0.2.200', known)).status).toBe(200);
    expect((await askLink('192.0.2.200', known)).status).toBe(429);

    const printed = spawnSync(
      process.execPath,
      [path.join(ROOT, 'apps/cli/bin/svc.js'), 'members', 'sign-in-link', '--email', known, '--json'],
      { env: { ...process.env, BASE_URL: stack.url }, encoding: 'utf8' },
    );
    expect(printed.status).toBe(0);
    const link = JSON.parse(printed.stdout).link as string;
    const page = await call(link);
    expect(page.status).toBe(200);
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body as string)![1]!;
    const used = await call(link, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(signedIn(used)).toBe(true);
    expect(await stack.db.prisma.signInLinkRequest.count({ where: { email: known } })).toBe(MAX_LINK_REQUESTS_PER_EMAIL);
  });
});
