#!/usr/bin/env node
// Bundles the console's definition editor (CodeMirror) at build time into
// apps/gateway/dist/client/editor.js, served from the console under its strict CSP.
'use strict';
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const client = path.join(root, 'apps/gateway/client');

esbuild
  .build({
    entryPoints: [path.join(client, 'editor.mjs')],
    outfile: path.join(root, 'apps/gateway/dist/client/editor.js'),
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [
      {
        // codemirror-json-schema's markdown helper pulls in a WebAssembly highlighter.
        name: 'markdown-shim',
        setup(build) {
          build.onResolve({ filter: /utils\/markdown(\.js)?$/ }, (args) =>
            args.importer.includes('codemirror-json-schema') ? { path: path.join(client, 'markdownShim.mjs') } : undefined,
          );
        },
      },
    ],
  })
  .catch(() => process.exit(1));
