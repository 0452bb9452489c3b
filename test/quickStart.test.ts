import { readFileSync } from 'node:fs';
import path from 'node:path';
import { svcCli } from './helpers/cli';
import { ROOT } from './helpers/processes';

/**
 * The Docker quick start's first workspace and key, as README.md and docs/production.md print
 * them (`docker compose run --rm cli …` runs the same `svc` bin): each command runs as written,
 * the workspace id the first prints taking the place of `ws_…`.
 */

const CLI_LINE = /^docker compose run --rm cli (.+)$/gm;

function quickStartCommands(file: string): string[][] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(CLI_LINE)].map((m) => m[1].trim().split(/\s+/));
}

it('README.md and docs/production.md give the same first-workspace commands', () => {
  const readme = quickStartCommands('README.md');
  expect(readme.map((c) => c.slice(0, 2))).toEqual([
    ['workspace', 'create'],
    ['keys', 'create'],
  ]);
  expect(quickStartCommands('docs/production.md')).toEqual(readme);
});

it('creates the first workspace, then its API key, as written', async () => {
  const [createWorkspace, createKey] = quickStartCommands('README.md');
  const created = await svcCli(createWorkspace);
  expect([created.code, created.stderr]).toEqual([0, '']);
  const workspaceId = /\b(ws_\w+)\b/.exec(created.stdout)?.[1];
  expect(workspaceId).toBeDefined();

  const key = await svcCli(createKey.map((arg) => (arg === 'ws_…' ? workspaceId! : arg)));
  expect([key.code, key.stderr]).toEqual([0, '']);
  expect(key.stdout).toMatch(/\bsvc_[\w-]{20,}/);
});
