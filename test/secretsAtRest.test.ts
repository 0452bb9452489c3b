import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '@svc/db';
import type { DbHandle } from '@svc/db';
import {
  createEndpoint,
  createEndpointUrlPolicy,
  loadTrigger,
  loadWorkspaceSecrets,
  reencryptSecrets,
  rotateEndpointSecret,
  setSecret,
  showTrigger,
  signingSecrets,
} from '@svc/domain';
import { createSecretBox, signWebhook } from '@svc/signing';
import type { SecretBox } from '@svc/signing';
import { svcCli } from './helpers/cli';
import { json, startEchoServer } from './helpers/echoServer';
import { greet, waitFor } from './helpers/fixtures';
import { startHttpsReceiver, testCertificate } from './helpers/httpsReceiver';
import { legacySeal } from './helpers/legacySeal';
import { createScratchDatabase } from './helpers/scratchDatabase';
import { startStack } from './helpers/stack';
import type { TestStack } from './helpers/stack';
import { tenantFactory } from './helpers/tenants';

/** Every sealed value in the database, whatever its table. */
async function sealedValues(db: DbHandle): Promise<string[]> {
  const secrets = await db.prisma.secret.findMany();
  const workflows = await db.prisma.workflow.findMany();
  const endpoints = await db.prisma.webhookEndpoint.findMany();
  return [
    ...secrets.map((s) => s.valueEnc),
    ...workflows.flatMap((w) => [w.triggerSecretEnc, w.triggerSigningSecretEnc]),
    ...endpoints.flatMap((e) => [e.secretEnc, e.previousSecretEnc].filter((v): v is string => v !== null)),
  ];
}

describe('a ciphertext is bound to its workspace, row and purpose', () => {
  let db: DbHandle;
  let box: SecretBox;
  let t: ReturnType<typeof tenantFactory>;

  beforeAll(() => {
    db = createDb(process.env.DATABASE_URL!, { max: 2 });
    box = createSecretBox(Buffer.from(process.env.SVC_ENCRYPTION_KEY!, 'hex'));
    t = tenantFactory(db, box, () => 'http://api.example.test');
  });
  afterAll(() => db.close());

  /** Writes a copied ciphertext for the time of `check`, then the original again. */
  async function whileCopied(write: (value: string) => Promise<unknown>, copy: string, original: string, check: () => Promise<void>) {
    await write(copy);
    try {
      await check();
    } finally {
      await write(original);
    }
  }

  it('carries the key id, and a copy in another workspace, name, workflow or column does not open', async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    await setSecret(db.prisma, box, { workspaceId: a.workspaceId, name: 'TOKEN', value: 'tok-a' });
    await setSecret(db.prisma, box, { workspaceId: a.workspaceId, name: 'OTHER', value: 'other-a' });
    await setSecret(db.prisma, box, { workspaceId: b.workspaceId, name: 'TOKEN', value: 'tok-b' });
    const wfA = await t.apply(a.workspaceId, greet);
    const wfA2 = await t.apply(a.workspaceId, { ...greet, slug: 'greet-two' });
    const wfB = await t.apply(b.workspaceId, greet);

    const tokenA = await db.prisma.secret.findUniqueOrThrow({ where: { workspaceId_name: { workspaceId: a.workspaceId, name: 'TOKEN' } } });
    expect(tokenA.valueEnc.startsWith(box.currentPrefix)).toBe(true);
    expect(tokenA.valueEnc.split('.')).toEqual(['v2', box.keyId, expect.any(String), expect.any(String), expect.any(String)]);
    expect(await loadWorkspaceSecrets(db.prisma, box, a.workspaceId)).toEqual({ TOKEN: 'tok-a', OTHER: 'other-a' });

    // Workspace A's TOKEN copied into workspace B, and under another name in A.
    const tokenB = await db.prisma.secret.findUniqueOrThrow({ where: { workspaceId_name: { workspaceId: b.workspaceId, name: 'TOKEN' } } });
    const other = await db.prisma.secret.findUniqueOrThrow({ where: { workspaceId_name: { workspaceId: a.workspaceId, name: 'OTHER' } } });
    for (const target of [tokenB, other]) {
      const where = { workspaceId_name: { workspaceId: target.workspaceId, name: target.name } };
      await whileCopied(
        (valueEnc) => db.prisma.secret.update({ where, data: { valueEnc } }),
        tokenA.valueEnc,
        target.valueEnc,
        () => expect(loadWorkspaceSecrets(db.prisma, box, target.workspaceId)).rejects.toThrow(),
      );
    }

    const rowA = await db.prisma.workflow.findUniqueOrThrow({ where: { id: wfA.id } });
    const rowA2 = await db.prisma.workflow.findUniqueOrThrow({ where: { id: wfA2.id } });
    const rowB = await db.prisma.workflow.findUniqueOrThrow({ where: { id: wfB.id } });
    expect((await loadTrigger(db.prisma, box, rowA.triggerId))!.secrets[0]).toMatch(/^tsec_/);
    // A trigger secret moved to another workflow (same or other workspace), or into the signing-secret column.
    for (const [target, column] of [
      [rowA2, 'triggerSecretEnc'],
      [rowB, 'triggerSecretEnc'],
      [rowA, 'triggerSigningSecretEnc'],
    ] as const) {
      await whileCopied(
        (value) => db.prisma.workflow.update({ where: { id: target.id }, data: { [column]: value } }),
        rowA.triggerSecretEnc,
        target[column],
        () => expect(loadTrigger(db.prisma, box, target.triggerId)).rejects.toThrow(),
      );
    }
    // An endpoint's signing secret copied to another workspace's endpoint.
    const endpointDeps = { prisma: db.prisma, box, urls: createEndpointUrlPolicy({}), secretOverlapMs: 86_400_000 };
    const epA = await createEndpoint(endpointDeps, {
      workspaceId: a.workspaceId,
      url: 'https://a.example.com/h',
      eventTypes: ['run.succeeded'],
    });
    const epB = await createEndpoint(endpointDeps, {
      workspaceId: b.workspaceId,
      url: 'https://b.example.com/h',
      eventTypes: ['run.succeeded'],
    });
    const epRowA = await db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: epA.id } });
    const epRowB = await db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: epB.id } });
    expect(signingSecrets(box, epRowA)).toEqual([epA.secret]);
    expect(() => signingSecrets(box, { ...epRowB, secretEnc: epRowA.secretEnc })).toThrow();

    // Restored rows open again: the refusals came from the copies alone.
    expect((await loadTrigger(db.prisma, box, rowB.triggerId))!.secrets[0]).toMatch(/^tsec_/);
    expect(await loadWorkspaceSecrets(db.prisma, box, b.workspaceId)).toEqual({ TOKEN: 'tok-b' });
  });
});

describe('rotating the encryption key with `svc secrets reencrypt`', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const oldBox = createSecretBox(oldKey);
  const newBox = createSecretBox(newKey);
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let db: DbHandle;
  let dataDir: string;
  let stack: TestStack | undefined;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let receiver: Awaited<ReturnType<typeof startHttpsReceiver>>;

  beforeAll(async () => {
    scratch = await createScratchDatabase('rotation');
    db = createDb(scratch.url, { max: 4 });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-rotation-'));
    echo = await startEchoServer((req, res) => json(res, 200, { ok: true }));
    receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await stack?.stop();
    await echo?.close();
    await receiver?.close();
    await db?.close();
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const reencrypt = (env: Record<string, string>) =>
    svcCli(['secrets', 'reencrypt', '--json'], { DATABASE_URL: scratch.url, DATA_DIR: dataDir, ...env });

  it('re-seals every value under the new key, after which the old key can go and everything still works', async () => {
    // Data written under the old key, as the CLI and API write it; one workspace secret is a legacy v1 value.
    const tenants = tenantFactory(db, oldBox, () => 'http://api.example.test');
    const { workspaceId, key } = await tenants.tenant();
    await setSecret(db.prisma, oldBox, { workspaceId, name: 'TOKEN', value: 'tok-rotated' });
    await db.prisma.secret.create({ data: { workspaceId, name: 'LEGACY', valueEnc: legacySeal(oldKey, 'legacy-value') } });
    const call = await tenants.apply(workspaceId, {
      name: 'Call',
      slug: 'call',
      steps: [
        {
          key: 'call',
          type: 'http',
          method: 'POST',
          url: `${echo.url}/rotated`,
          headers: { Authorization: 'Bearer {{ secrets.TOKEN }}', 'X-Legacy': '{{ secrets.LEGACY }}' },
        },
      ],
    });
    const hook = await tenants.apply(workspaceId, { ...greet, slug: 'hooked', trigger: { secret: true, signature: true } });
    const trigger = await showTrigger(db.prisma, oldBox, { workflowId: hook.id, baseUrl: 'http://api.example.test' });
    const endpointDeps = {
      prisma: db.prisma,
      box: oldBox,
      urls: createEndpointUrlPolicy({ allowCidrs: ['127.0.0.0/8'] }),
      secretOverlapMs: 86_400_000,
    };
    const ep = await createEndpoint(endpointDeps, { workspaceId, url: receiver.origin, eventTypes: ['run.succeeded'] });
    const rotated = await rotateEndpointSecret(endpointDeps, { workspaceId, endpointId: ep.id });

    const before = await sealedValues(db);
    expect(before).toHaveLength(8);
    expect(before.every((v) => !v.startsWith(newBox.currentPrefix))).toBe(true);
    expect(() => newBox.open(before[0], 'anything')).toThrow();

    // Without the old key the command cannot open anything and says which key to add.
    const refused = await reencrypt({ SVC_ENCRYPTION_KEY: newKey.toString('hex') });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Cannot open the value_enc of secrets ws_\w+\/LEGACY: .*SVC_ENCRYPTION_KEY_PREVIOUS/);

    const first = await reencrypt({ SVC_ENCRYPTION_KEY: newKey.toString('hex'), SVC_ENCRYPTION_KEY_PREVIOUS: oldKey.toString('hex') });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.json()).toEqual({
      key_id: newBox.keyId,
      reencrypted: {
        workspace_secrets: 2,
        trigger_secrets: 2,
        trigger_signing_secrets: 2,
        trigger_previous_secrets: 0,
        trigger_previous_signing_secrets: 0,
        endpoint_secrets: 1,
        endpoint_previous_secrets: 1,
      },
    });
    const after = await sealedValues(db);
    expect(after).toHaveLength(8);
    expect(after.every((v) => v.startsWith(newBox.currentPrefix))).toBe(true);
    const legacy = await db.prisma.secret.findUniqueOrThrow({ where: { workspaceId_name: { workspaceId, name: 'LEGACY' } } });
    expect(legacy.valueEnc.startsWith(newBox.currentPrefix)).toBe(true);

    // Idempotent: nothing is left to do, and the human output says so kind by kind.
    const second = await reencrypt({ SVC_ENCRYPTION_KEY: newKey.toString('hex'), SVC_ENCRYPTION_KEY_PREVIOUS: oldKey.toString('hex') });
    expect(second.json().reencrypted).toEqual({
      workspace_secrets: 0,
      trigger_secrets: 0,
      trigger_signing_secrets: 0,
      trigger_previous_secrets: 0,
      trigger_previous_signing_secrets: 0,
      endpoint_secrets: 0,
      endpoint_previous_secrets: 0,
    });
    const human = await svcCli(['secrets', 'reencrypt'], {
      DATABASE_URL: scratch.url,
      DATA_DIR: dataDir,
      SVC_ENCRYPTION_KEY: newKey.toString('hex'),
    });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`re-encrypted under key ${newBox.keyId}:`);
    expect(human.stdout).toContain('workspace_secrets: 0');

    // The old key is gone: a stack with the new key alone serves every secret.
    stack = await startStack({
      DATABASE_URL: scratch.url,
      SVC_ENCRYPTION_KEY: newKey.toString('hex'),
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      OUTBOUND_CA_FILE: testCertificate().certFile,
      WEBHOOK_DISPATCH_INTERVAL_MS: '200',
    });
    expect(stack.config.SVC_ENCRYPTION_KEY_PREVIOUS).toEqual([]);

    // Workspace secrets (the legacy one included) in a run.
    const run = await stack.api('POST', `/api/v1/workflows/${call.id}/runs`, { key, body: { input: {}, wait: true } });
    expect(run.status).toBe(201);
    expect(run.body.status).toBe('succeeded');
    const sent = echo.requests.find((r) => r.url === '/rotated')!;
    expect(sent.headers.authorization).toBe('Bearer tok-rotated');
    expect(sent.headers['x-legacy']).toBe('legacy-value');

    // Trigger secrets: the same secret and signing secret are still accepted.
    const body = JSON.stringify({ name: 'Ada' });
    const fired = await stack.api('POST', new URL(trigger.url).pathname, {
      rawBody: body,
      headers: {
        'content-type': 'application/json',
        'x-svc-secret': trigger.secret,
        'x-svc-signature': createHmac('sha256', trigger.signing_secret).update(body).digest('hex'),
      },
    });
    expect(fired.status).toBe(202);

    // Endpoint secrets: both runs' run.succeeded are signed with the current and the previous secret.
    await waitFor(
      async () => receiver.requests.length,
      (n) => n >= 2,
    );
    for (const delivery of receiver.requests) {
      const header = String(delivery.headers['svc-signature']);
      const timestamp = Number(/^t=(\d+)/.exec(header)![1]);
      expect(header).toBe(signWebhook({ secrets: [rotated.secret, ep.secret], timestamp, body: delivery.raw }));
    }
  });

  it('walks every row in batches, re-sealing values a previous key sealed', async () => {
    const tenants = tenantFactory(db, newBox, () => 'http://api.example.test');
    const { workspaceId } = await tenants.tenant();
    const names = ['A', 'B', 'C', 'D', 'E'];
    for (const name of names) await setSecret(db.prisma, oldBox, { workspaceId, name, value: `v-${name}` });
    // Only what is not under the new key yet counts (the test above may have left none).
    const stale = (await db.prisma.secret.findMany()).filter((s) => !s.valueEnc.startsWith(newBox.currentPrefix));
    expect(stale.length).toBeGreaterThanOrEqual(names.length);
    const both = createSecretBox(newKey, [oldKey]);
    const counts = await reencryptSecrets(db.prisma, both, { batch: 2 });
    expect(counts.workspace_secrets).toBe(stale.length);
    expect(await loadWorkspaceSecrets(db.prisma, newBox, workspaceId)).toEqual(Object.fromEntries(names.map((n) => [n, `v-${n}`])));
    expect((await reencryptSecrets(db.prisma, both, { batch: 2 })).workspace_secrets).toBe(0);
  });

  it('never overwrites a write made between its read and its write: the row is read again', async () => {
    const tenants = tenantFactory(db, newBox, () => 'http://api.example.test');
    const { workspaceId } = await tenants.tenant();
    const urls = createEndpointUrlPolicy({ allowCidrs: ['127.0.0.0/8'] });
    const ep = await createEndpoint(
      { prisma: db.prisma, box: oldBox, urls, secretOverlapMs: 86_400_000 },
      {
        workspaceId,
        url: receiver.origin,
        eventTypes: ['run.succeeded'],
      },
    );
    const both = createSecretBox(newKey, [oldKey]);
    let rotated: { secret: string } | undefined;
    // The real database, with an endpoint secret rotation (a real write) slipped in just before
    // the command's first write: the command read the row before the rotation.
    const racing = new Proxy(db.prisma, {
      get(target, prop, receiver) {
        if (prop !== '$executeRaw') return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<typeof target.$executeRaw>) => {
          rotated ??= await rotateEndpointSecret(
            { prisma: target, box: both, urls, secretOverlapMs: 86_400_000 },
            { workspaceId, endpointId: ep.id },
          );
          return target.$executeRaw(...args);
        };
      },
    });
    const counts = await reencryptSecrets(racing, both);
    expect(rotated).toBeDefined();
    // The rotation's new secret was already under the new key; the old one, moved to the previous
    // column by the rotation, is what was left to re-seal.
    expect(counts).toMatchObject({ endpoint_secrets: 0, endpoint_previous_secrets: 1 });
    const row = await db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } });
    expect([row.secretEnc, row.previousSecretEnc].every((v) => v!.startsWith(newBox.currentPrefix))).toBe(true);
    expect(signingSecrets(newBox, row)).toEqual([rotated!.secret, ep.secret]);
  });
});
