import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { evaluateExpression, parseDefinition } from '@svc/domain';
import { createDemo, DEMO_SCOPES, parseCliJson, readDemoFile, writeDemoFile, type CliRunner } from './demo';

describe('demo data', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-demo-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates workspace, key (all scopes) and workflow through the CLI, in that order', async () => {
    const calls: string[][] = [];
    const run: CliRunner = async (args) => {
      calls.push(args);
      if (args[0] === 'workspace') return { id: 'ws_9', name: 'Demo' };
      if (args[0] === 'keys') return { id: 'key_9', key: 'svc_secret' };
      return { id: 'wf_9', slug: 'greet', version: 1 };
    };
    const demo = await createDemo(run, '/defs/greet.yaml');
    expect(calls).toEqual([
      ['workspace', 'create', '--name', 'Demo', '--plan', 'pro'],
      ['keys', 'create', '--workspace', 'ws_9', '--name', 'demo', '--scopes', DEMO_SCOPES.join(',')],
      ['workflows', 'apply', '--workspace', 'ws_9', '-f', '/defs/greet.yaml'],
    ]);
    expect(DEMO_SCOPES).toEqual(['workflows:read', 'runs:read', 'runs:write', 'reviews:write', 'webhooks:read', 'webhooks:write']);
    expect(demo).toMatchObject({ workspaceId: 'ws_9', keyId: 'key_9', key: 'svc_secret', workflowId: 'wf_9', workflowSlug: 'greet' });
  });

  it('fails clearly when the CLI answer lacks an id', async () => {
    await expect(createDemo(async () => ({}), 'f')).rejects.toThrow(/workspace create: the CLI answer has no "id"/);
  });

  it('keeps demo.json with mode 0600 and reads it back', () => {
    expect(readDemoFile(dir)).toBeNull();
    const info = { workspaceId: 'ws', keyId: 'k', key: 'svc_x', workflowId: 'wf', workflowSlug: 'greet', createdAt: 'now' };
    writeDemoFile(dir, info);
    expect(statSync(path.join(dir, 'demo.json')).mode & 0o777).toBe(0o600);
    expect(readDemoFile(dir)).toEqual(info);
  });

  it('parses the JSON object a --json command prints, even after stray lines', () => {
    expect(parseCliJson('{"id":"ws_1"}\n')).toEqual({ id: 'ws_1' });
    expect(parseCliJson('warning: something\n{"id":"ws_2"}\n')).toEqual({ id: 'ws_2' });
    expect(parseCliJson('{\n  "id": "ws_3"\n}\n')).toEqual({ id: 'ws_3' });
    expect(() => parseCliJson('nope')).toThrow(/expected a JSON object/);
  });

  it('ships a demo workflow that is a valid definition and greets', async () => {
    const file = path.resolve(__dirname, '..', 'demo', 'greet.yaml');
    const def = parseDefinition(readFileSync(file, 'utf8'));
    expect(def.slug).toBe('greet');
    expect(def.steps.map((s) => s.type)).toEqual(['transform', 'condition']);
    const shape = def.steps[0] as { expression: string };
    const out = await evaluateExpression(shape.expression, { input: { name: 'Ada' }, steps: {}, secrets: {} });
    expect(out).toEqual({ greeting: 'Hello, Ada!', length: 3 });
    const check = def.steps[1] as { expression: string };
    expect(
      await evaluateExpression(check.expression, { input: {}, steps: { shape: { output: out, status: 'succeeded' } }, secrets: {} }),
    ).toBe(true);
    expect(
      await evaluateExpression(def.output!, { input: {}, steps: { shape: { output: out, status: 'succeeded' } }, secrets: {} }),
    ).toEqual(out);
  });
});
