import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APP_PROCESSES } from '@svc/config';
import { findFreePort } from '@svc/devstack';
import { apiCall } from './helpers/http';
import { ROOT } from './helpers/processes';

/**
 * `npm start` (apps/stack) as a newcomer runs it, with LOG_LEVEL=warn: the worker and the
 * gateway log nothing at info level, so the stack must learn they are ready some other way (an
 * IPC message), then create the demo data and print the banner. A run through the demo key
 * succeeds, and Ctrl-C stops everything with exit code 0.
 */

jest.setTimeout(240_000);

it('starts with LOG_LEVEL=warn, serves the demo workflow, and stops cleanly on SIGINT', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-npm-start-'));
  const port = await findFreePort();
  // Its own embedded PostgreSQL and Temporal, as on a newcomer's machine (not the suite's).
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', DATA_DIR: dataDir, PORT: String(port) };
  delete env.DATABASE_URL;
  delete env.TEMPORAL_ADDRESS;
  delete env.WORKER_METRICS_ADDRESS; // npm start's own choice: 9464 or the next free port
  const child = spawn(process.execPath, [path.join(ROOT, 'apps/stack/dist/main.js')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    // The banner is printed once the worker and the gateway said they are ready.
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (out.includes('svc is running')) resolve();
      };
      child.stdout!.on('data', check);
      void exited.then((code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
    });
    expect(out).not.toMatch(/"level":30/); // nothing at info level: readiness came by IPC
    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8')) as { key: string; workflowId: string };
    const run = await apiCall(`http://127.0.0.1:${port}`, 'POST', `/api/v1/workflows/${demo.workflowId}/runs`, {
      key: demo.key,
      body: { input: { name: 'Ada' }, wait: true },
    });
    expect([run.status, run.body.status]).toEqual([201, 'succeeded']);
    // The banner's worker metrics URL serves the run just made.
    const metricsUrl = /Worker metrics +(http:\S+)\n/.exec(out)?.[1];
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(await (await fetch(metricsUrl!)).text()).toMatch(/^svc_runs_settled_total\{status="succeeded"\} 1$/m);
    // Each app with its node flags and malloc arenas (packages/config APP_PROCESSES).
    const apps = childProcesses(child.pid!);
    for (const name of ['worker', 'gateway'] as const) {
      const { entry, nodeFlags, env: defaults } = APP_PROCESSES[name];
      const app = apps.find((a) => a.argv.at(-1)!.endsWith(entry));
      expect({ name, argv: app?.argv }).toEqual({ name, argv: [process.execPath, ...nodeFlags, path.join(ROOT, entry)] });
      expect(app?.env).toEqual(expect.arrayContaining(Object.entries(defaults).map(([k, v]) => `${k}=${v}`)));
    }
  } finally {
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** The command lines of a process's direct children (Linux /proc). */
function childProcesses(pid: number): Array<{ argv: string[]; env: string[] }> {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  const entries = (c: string, file: string) => readFileSync(`/proc/${c}/${file}`, 'utf8').split('\0').filter(Boolean);
  return children.map((c) => ({ argv: entries(c, 'cmdline'), env: entries(c, 'environ') }));
}
