#!/usr/bin/env node
// `prisma generate` never runs the schema engine, but the CLI insists on finding one
// before it starts and would download it from a host these machines cannot reach.
// Pointing PRISMA_SCHEMA_ENGINE_BINARY at any existing file satisfies that check.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
const prismaCli = require.resolve('prisma/build/index.js', { paths: [root] });
const r = spawnSync(process.execPath, [prismaCli, 'generate'], { cwd: root, env, stdio: 'inherit' });
process.exit(r.status ?? 1);
