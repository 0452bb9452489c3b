// `svc triggers rotate WORKFLOW_ID`: a new trigger secret and signing secret; the previous pair keeps working at /hooks until its overlap ends. The end of
// the overlap is reached without waiting 24 h by moving its recorded expiry into the past.
import { createHmac, randomBytes } from 'node:crypto';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { call } from './helpers/http';
import { svcCli } from './helpers/cli';

let stack: TestStack;
let workspaceId: string;

beforeAll(async () => {
  stack = await startStack();
  ({ workspaceId } = await stack.tenant());
});
afterAll(async () => {
  await stack.stop();
});

interface Shown {
  url: string;
  secret: string;
  signing_secret: string;
  previous_secrets_expire_at: string | null;
}

const svc = async (args: string[]) => {
  const r = await svcCli([...args, '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.json() as Shown;
};

const sign = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

/** Delivers `body` to the trigger at `path` with this secret and signing secret. */
const deliver = (path: string, pair: { secret: string; signing: string }) => {
  const body = JSON.stringify({ n: randomBytes(4).toString('hex') });
  return call(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-secret': pair.secret, 'x-svc-signature': sign(pair.signing, body) },
    body,
  });
};

/** A workflow whose trigger needs both the secret and the signature. */
const echoWorkflow = (slug: string) =>
  stack.apply(workspaceId, {
    name: 'Rotating',
    slug,
    steps: [{ key: 'echo', type: 'transform', expression: 'input' }],
    trigger: { secret: true, signature: true },
  });

describe('svc triggers rotate', () => {
  it('issues a new pair; the previous one stays valid until its expiry and is refused after it', async () => {
    const wf = await echoWorkflow('rotating');
    const before = await svc(['triggers', 'show', wf.id]);
    expect(before.previous_secrets_expire_at).toBeNull();
    const path = new URL(before.url).pathname;
    const old = { secret: before.secret, signing: before.signing_secret };

    const t0 = Date.now();
    const rotated = await svc(['triggers', 'rotate', wf.id]);
    expect(new URL(rotated.url).pathname).toBe(path); // the trigger URL never changes
    expect(rotated.secret).toMatch(/^tsec_[A-Za-z0-9_-]{43}$/);
    expect(rotated.signing_secret).toMatch(/^tsig_[A-Za-z0-9_-]{43}$/);
    expect([rotated.secret, rotated.signing_secret]).not.toContain(old.secret);
    expect(rotated.signing_secret).not.toBe(old.signing);
    // 24 h of overlap (WEBHOOK_SECRET_OVERLAP_MS), within the time the command took.
    const expiresAt = Date.parse(rotated.previous_secrets_expire_at!);
    expect(expiresAt).toBeGreaterThanOrEqual(t0 + 86_400_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 86_400_000);
    expect(await svc(['triggers', 'show', wf.id])).toEqual(rotated);
    const row = await stack.db.prisma.workflow.findUniqueOrThrow({ where: { id: wf.id } });
    for (const enc of [
      row.triggerSecretEnc,
      row.triggerPreviousSecretEnc!,
      row.triggerSigningSecretEnc,
      row.triggerPreviousSigningSecretEnc!,
    ]) {
      for (const clear of [old.secret, old.signing, rotated.secret, rotated.signing_secret]) expect(enc).not.toContain(clear.slice(5));
    }

    const fresh = { secret: rotated.secret, signing: rotated.signing_secret };
    // During the overlap: the old pair, the new pair, and either mixed, are all accepted.
    for (const pair of [old, fresh, { secret: old.secret, signing: fresh.signing }, { secret: fresh.secret, signing: old.signing }]) {
      expect((await deliver(path, pair)).status).toBe(202);
    }

    // The overlap ends: the old secret and the old signing secret are refused, the new pair works.
    await stack.db.prisma.workflow.update({ where: { id: wf.id }, data: { triggerPreviousExpiresAt: new Date(Date.now() - 1000) } });
    const runsBefore = await stack.db.prisma.run.count({ where: { workflowId: wf.id } });
    const oldSecret = await deliver(path, { secret: old.secret, signing: fresh.signing });
    expect([oldSecret.status, oldSecret.body.code]).toEqual([401, 'invalid_trigger_secret']);
    const oldSigning = await deliver(path, { secret: fresh.secret, signing: old.signing });
    expect([oldSigning.status, oldSigning.body.code]).toEqual([401, 'invalid_trigger_signature']);
    expect(await stack.db.prisma.run.count({ where: { workflowId: wf.id } })).toBe(runsBefore);
    expect((await deliver(path, fresh)).status).toBe(202);
    expect((await svc(['triggers', 'show', wf.id])).previous_secrets_expire_at).toBeNull();
  });

  it('rotating again during an overlap retires the oldest pair at once (at most two are valid)', async () => {
    const wf = await echoWorkflow('rotating-twice');
    const first = await svc(['triggers', 'show', wf.id]);
    const path = new URL(first.url).pathname;
    const second = await svc(['triggers', 'rotate', wf.id]);
    const third = await svc(['triggers', 'rotate', wf.id]);
    const refused = await deliver(path, { secret: first.secret, signing: first.signing_secret });
    expect([refused.status, refused.body.code]).toEqual([401, 'invalid_trigger_secret']);
    expect((await deliver(path, { secret: second.secret, signing: second.signing_secret })).status).toBe(202);
    expect((await deliver(path, { secret: third.secret, signing: third.signing_secret })).status).toBe(202);
  });

  it('refuses an unknown workflow with workflow_not_found and a non-zero exit', async () => {
    const r = await svcCli(['triggers', 'rotate', 'wf_000000000000000000000000', '--json']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('workflow_not_found');
  });
});
