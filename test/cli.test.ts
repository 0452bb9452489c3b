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
function svc(args: string[], input?: string, env: Record<string, string | undefined> = {}) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'apps/cli/bin/svc.js'), ...args], {
    env: { ...process.env, BASE_URL: 'http://api.example.test', DATA_DIR: dir, ...env } as NodeJS.ProcessEnv,
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
  let greetId: string;

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
    greetId = wf.id;
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

  it('diffs two versions of a workflow as a unified diff', () => {
    const r = svc(['workflows', 'diff', greetId, '--from', '1', '--to', '2']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual([`--- ${greetId} v1`, `+++ ${greetId} v2`]);
    expect(lines).toContain(`-    expression: "{ 'greeting': 'hello ' & input.name }"`);
    expect(lines).toContain(`+    expression: "{ 'greeting': 'hi ' & input.name }"`);
    expect(lines.filter((l) => /^[-+][^-+]/.test(l))).toHaveLength(2);
    expect(r.stdout).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/m);

    const json = svc(['workflows', 'diff', greetId, '--from', '2', '--to', '2', '--json']).json();
    expect(json).toEqual({ workflow_id: greetId, from: 2, to: 2, changed: false, diff: expect.stringContaining(`--- ${greetId} v2`) });
    expect(json.diff).not.toContain('@@');

    const missing = svc(['workflows', 'diff', greetId, '--from', '1', '--to', '9']);
    expect([missing.code, missing.stderr.trim()]).toEqual([
      1,
      `error: Workflow ${greetId} has no version 9 (its versions are 1 to 2) (not_found)`,
    ]);
    expect(svc(['workflows', 'diff', 'wf_nope', '--from', '1', '--to', '2']).stderr).toContain('(workflow_not_found)');
  });

  it('validates a definition file with the parser apply uses, without a database', () => {
    // No database and no stack: validate needs neither.
    const offline = { DATABASE_URL: undefined, TEMPORAL_ADDRESS: undefined, SVC_ENCRYPTION_KEY: undefined };
    const good = file('good.yaml', 'name: Greet\nslug: greet-ok\nsteps:\n  - key: shape\n    type: transform\n    expression: "1 + 1"\n');
    const ok = svc(['workflows', 'validate', '-f', good], undefined, offline);
    expect([ok.code, ok.stdout, ok.stderr]).toEqual([0, `${good}: valid (greet-ok, 1 step)\n`, '']);
    expect(svc(['workflows', 'validate', '-f', good, '--json'], undefined, offline).json()).toEqual({
      file: good,
      valid: true,
      name: 'Greet',
      slug: 'greet-ok',
      steps: 1,
    });

    const bad = file(
      'bad.yaml',
      [
        'name: Bad',
        'slug: Bad Slug',
        'steps:',
        '  - key: a',
        '    type: transform',
        '    expression: "1 +"',
        '  - key: a',
        '    type: teleport',
        '',
      ].join('\n'),
    );
    const r = svc(['workflows', 'validate', '-f', bad], undefined, offline);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(/^error: Workflow definition is invalid \(validation_failed\)$/m);
    expect(r.stderr).toMatch(new RegExp(`^  ${bad}:2:1: slug: `, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^  ${bad}:6:5: steps\\[0\\]\\.expression: `, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^  ${bad}:7:5: steps\\[1\\]\\.key: duplicate step key "a"`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^  ${bad}:8:5: steps\\[1\\]\\.type: `, 'm'));
    const errors = JSON.parse(svc(['workflows', 'validate', '-f', bad, '--json'], undefined, offline).stderr).error.errors;
    expect(errors).toContainEqual(expect.objectContaining({ path: 'slug', file: bad, line: 2, column: 1 }));

    const broken = file('broken.json', '{\n  "name": "X",\n  "steps": [,]\n}\n');
    const syntax = svc(['workflows', 'validate', '-f', broken], undefined, offline);
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toContain(`  ${broken}:3:13: (document): Invalid JSON at line 3, column 13`);

    // apply reports the same problems at the same places.
    const applied = svc(['workflows', 'apply', '--workspace', ws, '-f', bad]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toMatch(new RegExp(`^  ${bad}:6:5: steps\\[0\\]\\.expression: `, 'm'));
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
