import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { ROOT } from './helpers/processes';

let db: DbHandle;
let dir: string;

beforeAll(() => {
  db = createDb(process.env.DATABASE_URL!);
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await db.close();
});

/** Runs the real `svc` bin as an integrator would (the same as `npm run -s svc -- …`). */
function svc(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'apps/cli/bin/svc.js'), ...args], {
    env: { ...process.env, BASE_URL: 'http://api.example.test', DATA_DIR: dir },
    input,
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

function file(name: string, text: string) {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('svc CLI', () => {
  let ws: string;

  it('creates a workspace with a plan and admin emails', () => {
    const r = svc([
      'workspace',
      'create',
      '--name',
      'Acme',
      '--plan',
      'pro',
      '--admin-email',
      'a@acme.test',
      '--admin-email',
      'b@acme.test',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const out = r.json();
    expect(out).toMatchObject({ name: 'Acme', plan: 'pro', admin_emails: ['a@acme.test', 'b@acme.test'] });
    expect(out.id).toMatch(/^ws_/);
    ws = out.id;
  });

  it('refuses an unknown plan with a clear error and a non-zero exit', () => {
    const r = svc(['workspace', 'create', '--name', 'X', '--plan', 'gold']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Unknown plan "gold"');
    expect(r.stdout).toBe('');
  });

  it('sets custom enterprise figures', () => {
    const r = svc(['workspace', 'set-plan', ws, 'enterprise', '--rate-limit', '5000', '--concurrency', '80', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ plan: 'enterprise', rate_limit_per_min: 5000, concurrency: 80 });
  });

  it('creates, lists and revokes keys; the key is shown once and stored hashed', async () => {
    const created = svc([
      'keys',
      'create',
      '--workspace',
      ws,
      '--name',
      'ci',
      '--scopes',
      'runs:read,runs:write',
      '--expires-in',
      '30d',
      '--json',
    ]);
    expect(created.code).toBe(0);
    const k = created.json();
    expect(k.key).toMatch(/^svc_/);
    expect(Date.parse(k.expires_at) - Date.now()).toBeGreaterThan(29 * 24 * 3600_000);
    const listed = svc(['keys', 'list', '--workspace', ws, '--json']);
    expect(listed.stdout).not.toContain(k.key);
    expect(listed.json().data).toEqual([
      expect.objectContaining({ id: k.id, last4: k.key.slice(-4), scopes: ['runs:read', 'runs:write'], revoked_at: null }),
    ]);
    const revoked = svc(['keys', 'revoke', k.id, '--json']);
    expect(revoked.json().revoked_at).not.toBeNull();
    const row = await db.prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } });
    expect(row.keyHash).not.toContain(k.key);

    const bad = svc(['keys', 'create', '--workspace', ws, '--name', 'x', '--scopes', 'runs:admin']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('runs:admin');
  });

  it('applies a YAML workflow, then updates it by slug bumping the version', () => {
    const yaml = `name: Greet
slug: greet
input_schema: {type: object, required: [name], properties: {name: {type: string}}}
steps:
  - key: shape
    type: transform
    expression: "{ 'greeting': 'hello ' & input.name }"
output: "steps.shape.output"
`;
    const first = svc(['workflows', 'apply', '--workspace', ws, '-f', file('greet.yaml', yaml), '--json']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const wf = first.json();
    expect(wf).toMatchObject({ slug: 'greet', version: 1, change: 'created', steps: [{ key: 'shape', type: 'transform' }] });
    expect(wf.trigger.url).toMatch(/^http:\/\/api\.example\.test\/hooks\/trg_/);

    const same = svc(['workflows', 'apply', '--workspace', ws, '-f', file('greet2.yaml', yaml), '--json']);
    expect(same.json()).toMatchObject({ id: wf.id, version: 1, change: 'unchanged' });

    const changed = svc(['workflows', 'apply', '--workspace', ws, '-f', file('greet3.yaml', yaml.replace("'hello '", "'hi '")), '--json']);
    expect(changed.json()).toMatchObject({ id: wf.id, version: 2, change: 'updated' });

    const listed = svc(['workflows', 'list', '--workspace', ws, '--json']);
    expect(listed.json().data.map((w: any) => [w.id, w.version])).toEqual([[wf.id, 2]]);

    const trigger = svc(['triggers', 'show', wf.id, '--json']).json();
    expect(trigger).toMatchObject({ workflow_id: wf.id, url: wf.trigger.url, auth: { secret: true, signature: false } });
    expect(trigger.secret).toMatch(/^tsec_/);
    expect(trigger.signing_secret).toMatch(/^tsig_/);
  });

  it('reports every problem of an invalid definition with its path', () => {
    const r = svc([
      'workflows',
      'apply',
      '--workspace',
      ws,
      '-f',
      file(
        'bad.json',
        JSON.stringify({
          name: 'Bad',
          slug: 'Bad Slug',
          steps: [
            { key: 'a', type: 'transform', expression: '1 +' },
            { key: 'a', type: 'teleport' },
          ],
        }),
      ),
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('slug');
    expect(r.stderr).toContain('steps[0].expression');
    expect(r.stderr).toMatch(/steps\[1\]/);
  });

  it('stores secrets encrypted and never prints them back', async () => {
    const value = 'sk_live_very_secret_value_123';
    const set = svc(['secrets', 'set', '--workspace', ws, 'STRIPE_KEY', '--json'], `${value}\n`);
    expect(set.code).toBe(0);
    expect(set.stdout).not.toContain(value);
    const listed = svc(['secrets', 'list', '--workspace', ws, '--json']);
    expect(listed.json().data).toEqual([expect.objectContaining({ name: 'STRIPE_KEY' })]);
    expect(listed.stdout).not.toContain(value);
    const row = await db.prisma.secret.findFirstOrThrow({ where: { workspaceId: ws, name: 'STRIPE_KEY' } });
    expect(row.valueEnc).not.toContain(value);
    expect(row.valueEnc).toMatch(/^v2\.[\w-]{8}\./);
  });

  it('prints errors as JSON on stderr with --json', () => {
    const r = svc(['keys', 'revoke', 'key_nope', '--json']);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({ error: expect.objectContaining({ code: 'not_found' }) });
  });
});
