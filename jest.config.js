/** @type {import('jest').Config} */
const tsJest = [
  'ts-jest',
  // Type errors are caught by `tsc -b` (npm run build); tests only transpile.
  { diagnostics: false, tsconfig: '<rootDir>/tsconfig.test.json' },
];
const moduleNameMapper = {
  '^@svc/(config|db|domain|contract|signing|devstack)$': '<rootDir>/packages/$1/src',
  '^@svc/temporal$': '<rootDir>/temporal',
  '^@svc/(gateway|worker|cli|stack)$': '<rootDir>/apps/$1/src',
};
const common = { transform: { '^.+\\.ts$': tsJest }, moduleNameMapper, testEnvironment: 'node' };

module.exports = {
  // Integration tests drive real servers; unit tests finish far below this anyway.
  testTimeout: 120000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      roots: ['<rootDir>/packages', '<rootDir>/apps', '<rootDir>/temporal', '<rootDir>/scripts'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
    },
    {
      ...common,
      displayName: 'integration',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/test/faults/'],
      globalSetup: '<rootDir>/test/setup/globalSetup.cjs',
      globalTeardown: '<rootDir>/test/setup/globalTeardown.cjs',
    },
    {
      // Real processes killed and servers restarted: each file brings up a stack of its own.
      ...common,
      displayName: 'faults',
      roots: ['<rootDir>/test/faults'],
      testMatch: ['**/*.test.ts'],
    },
  ],
};
