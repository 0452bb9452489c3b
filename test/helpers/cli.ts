import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './processes';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json(): any;
}

/**
 * The real `svc` bin, asynchronously: the test process may also host the worker that must answer it.
 * `input` is written to its standard input (e.g. a secret's value).
 */
export function svcCli(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [path.join(ROOT, 'apps/cli/bin/svc.js'), ...args],
      { env: { ...process.env, ...env } },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr, json: () => JSON.parse(stdout) });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** The real `svc` bin, its output readable while it runs (e.g. `runs watch`). */
export function svcCliLive(args: string[], env: Record<string, string> = {}): { stdout(): string; done: Promise<CliResult> } {
  let stdout = '';
  let stderr = '';
  const child = spawn(process.execPath, [path.join(ROOT, 'apps/cli/bin/svc.js'), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<CliResult>((resolve) =>
    child.once('close', (code) => resolve({ code: code ?? 1, stdout, stderr, json: () => JSON.parse(stdout) })),
  );
  return { stdout: () => stdout, done };
}
