import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive } from './processes';
import { startAppProcess } from './appProcess';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-app-process-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A script of its own for one case. */
function script(name: string, body: string): string {
  const file = path.join(dir, `${name}.js`);
  writeFileSync(file, body);
  return file;
}

describe('startAppProcess', () => {
  it('resolves once the process sends its ready message, and stops it', async () => {
    const lines: string[] = [];
    const entry = script(
      'ready',
      `console.log('starting'); setTimeout(() => process.send({ svc: 'ready' }), 50); setInterval(() => {}, 1000);`,
    );
    const app = await startAppProcess({ name: 'ready-app', entry, onLine: (line) => lines.push(line) });
    expect(isProcessAlive(app.pid)).toBe(true);
    expect(lines).toContain('starting');
    expect(await app.stop(5_000)).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('rejects with the exit and the last lines when the process dies before it is ready', async () => {
    const entry = script('dies', `console.error('no database'); process.exit(3);`);
    await expect(startAppProcess({ name: 'dying-app', entry })).rejects.toThrow(
      /dying-app exited with code 3 before it was ready:\nno database/,
    );
  });

  it('rejects and stops a process that never says it is ready', async () => {
    let pid = 0;
    const entry = script('silent', `console.log(process.pid); setInterval(() => {}, 1000);`);
    const started = startAppProcess({ name: 'silent-app', entry, readyTimeoutMs: 1_000, onLine: (line) => (pid = Number(line)) });
    await expect(started).rejects.toThrow(/silent-app was not ready within 1 s/);
    expect(pid).toBeGreaterThan(0);
    expect(isProcessAlive(pid)).toBe(false);
  });
});
