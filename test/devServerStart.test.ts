import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { ensureTemporalCli, findFreePort, startTemporalDevServer } from '@svc/devstack';

/**
 * Starting the dev server (packages/devstack) when a start dies: a Go panic while starting is
 * tried again (the CLI's internal ports can be taken between its probe and its bind), anything
 * else is reported at once. The `temporal` here is a script in front of the real CLI, which
 * counts its starts and fails the ones it is told to.
 */

let dir: string;
let realCli: string;
beforeAll(async () => {
  realCli = await ensureTemporalCli();
});
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-devserver-start-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A `temporal` that fails its first `failing` starts with `failure` (a shell snippet), then execs the real CLI. */
function cliFailing(failing: number, failure: string): string {
  const cli = path.join(dir, 'temporal');
  const starts = path.join(dir, 'starts');
  writeFileSync(
    cli,
    `#!/bin/sh
echo start >> '${starts}'
if [ "$(wc -l < '${starts}')" -le ${failing} ]; then ${failure}; fi
exec '${realCli}' "$@"
`,
  );
  chmodSync(cli, 0o755);
  return cli;
}
const startsMade = () => readFileSync(path.join(dir, 'starts'), 'utf8').trim().split('\n').length;
const GO_PANIC = `echo 'panic: listen tcp 127.0.0.1:7243: bind: address already in use' >&2; echo 'goroutine 1 [running]:' >&2; exit 2`;

it('starts the server again after a start that died in a Go panic, and it answers', async () => {
  const logged: string[] = [];
  const server = await startTemporalDevServer({
    cliPath: cliFailing(1, GO_PANIC),
    port: await findFreePort(),
    headless: true,
    log: (m) => logged.push(m),
    onServerLog: () => undefined,
  });
  try {
    // Every start after the first follows a panic it logged: the injected one, and (rarely, with
    // other tests starting servers beside this one) a real one, the port race the retry is for.
    const panics = logged.filter((m) => m.includes('panicked while starting'));
    expect(startsMade()).toBe(1 + panics.length);
    expect(panics[0]).toContain('panicked while starting (panic: listen tcp 127.0.0.1:7243');
    const connection = await Connection.connect({ address: server.address });
    try {
      const info = await connection.workflowService.getSystemInfo({});
      expect(info.serverVersion).toMatch(/^\d+\.\d+/);
    } finally {
      await connection.close();
    }
  } finally {
    await server.stop();
  }
});

it('gives up after three starts that panicked, naming the panic', async () => {
  await expect(
    startTemporalDevServer({ cliPath: cliFailing(3, GO_PANIC), port: await findFreePort(), headless: true, onServerLog: () => undefined }),
  ).rejects.toThrow(/exited with code 2 during startup[\s\S]*panic: listen tcp 127\.0\.0\.1:7243: bind: address already in use/);
  expect(startsMade()).toBe(3);
});

it('reports any other failed start at once', async () => {
  await expect(
    startTemporalDevServer({
      cliPath: cliFailing(1, `echo 'level=ERROR msg="bad flag"' >&2; exit 1`),
      port: await findFreePort(),
      headless: true,
      onServerLog: () => undefined,
    }),
  ).rejects.toThrow(/exited with code 1 during startup[\s\S]*bad flag/);
  expect(startsMade()).toBe(1);
});
