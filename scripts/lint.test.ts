// `npm test` lints: the repository passes eslint.config.mjs and Prettier, and the ESLint config keeps I/O out of workflow code.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const root = path.resolve(__dirname, '..');

test('every TypeScript source and test passes ESLint', async () => {
  // The cache keys on each file's own text, so a file whose imports changed type may pass from the
  // cache locally; a fresh clone (CI) always lints everything.
  const eslint = new ESLint({ cwd: root, cache: true, cacheLocation: path.join(root, 'node_modules/.cache/eslint/') });
  const results = await eslint.lintFiles(['.']);
  const formatter = await eslint.loadFormatter('stylish');
  expect(await formatter.format(results)).toBe('');
  // Type-aware rules over the whole program: minutes on a small, busy machine.
}, 600_000);

test('every file Prettier covers is formatted (`npm run format` fixes it)', () => {
  // The CLI, as `npm run format:check` runs it: it skips what .gitignore and .prettierignore name.
  const r = spawnSync(process.execPath, [require.resolve('prettier/bin/prettier.cjs'), '--list-different', '.'], {
    cwd: root,
    encoding: 'utf8',
  });
  expect({ status: r.status, unformatted: r.stdout.split('\n').filter(Boolean), error: r.stderr }).toEqual({
    status: 0,
    unformatted: [],
    error: '',
  });
});

describe('workflow code', () => {
  // A file that does not exist: the probe is linted without types, with the repository's own rules for its path.
  const probe = 'temporal/workflows/__lint_probe__.ts';
  const eslint = new ESLint({ cwd: root, overrideConfig: { files: [probe], ...tseslint.configs.disableTypeChecked } });
  const problems = async (code: string) => {
    const [result] = await eslint.lintText(code, { filePath: path.join(root, probe) });
    return result.messages.map((m) => m.ruleId ?? m.message);
  };

  test.each([
    "import { readFileSync } from 'node:fs';",
    "import * as fs from 'fs/promises';",
    "import { prisma } from '@svc/db';",
    "import { parseDefinition } from '@svc/domain';",
    "import { Client } from '@temporalio/client';",
    "import { request } from 'undici';",
    "import { createRunActivities } from '../activities';",
    "import { launchRun } from '../client/runLauncher';",
  ])('bans the value import %s', async (line) => {
    expect(await problems(line)).toEqual(['@typescript-eslint/no-restricted-imports']);
  });

  test.each([
    'setInterval(() => {}, 10);',
    "void fetch('http://x');",
    'process.exit(1);',
    'crypto.randomUUID();',
    "Buffer.from('x');",
    'new WeakRef({});',
  ])('bans the global in %s', async (line) => {
    expect(await problems(line)).toEqual(['no-restricted-globals']);
  });

  test('allows types from anywhere, the workflow SDK, its own modules and the sandboxed globals', async () => {
    const code = [
      "import type { StepDefinition } from '@svc/domain';",
      "import { type RunStatus } from '@svc/domain';",
      "import type { RunActivities } from '../activities';",
      "import { proxyActivities, sleep } from '@temporalio/workflow';",
      "import { TERMINAL_STATUSES } from '../shared/runTypes';",
      "import { bookkeeping } from './run/activities';",
      'export const probe = (s: StepDefinition, r: RunStatus) => [s, r, proxyActivities<RunActivities>, sleep, TERMINAL_STATUSES, bookkeeping];',
      'export const at = () => [Date.now(), Math.random(), setTimeout(() => {}, 1)];',
    ].join('\n');
    expect(await problems(code)).toEqual([]);
  });
});
