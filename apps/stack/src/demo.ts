import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What the first start creates so that a newcomer can call the API at once. */
export interface DemoInfo {
  workspaceId: string;
  keyId: string;
  /** The demo API key in clear (shown once by the API; kept here, mode 0600, to print it again). */
  key: string;
  workflowId: string;
  workflowSlug: string;
  createdAt: string;
}

export const DEMO_FILE_NAME = 'demo.json';
export const DEMO_SCOPES = ['workflows:read', 'runs:read', 'runs:write', 'reviews:write', 'webhooks:read', 'webhooks:write'] as const;

export function readDemoFile(dataDir: string): DemoInfo | null {
  let raw: string;
  try {
    raw = readFileSync(path.join(dataDir, DEMO_FILE_NAME), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const d = JSON.parse(raw) as DemoInfo;
    const ok = ['workspaceId', 'keyId', 'key', 'workflowId'].every((k) => typeof (d as unknown as Record<string, unknown>)[k] === 'string');
    return ok ? d : null;
  } catch {
    return null;
  }
}

export function writeDemoFile(dataDir: string, info: DemoInfo): void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, DEMO_FILE_NAME);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** The one JSON object a `--json` CLI command prints (tolerating stray lines before it). */
export function parseCliJson(stdout: string): Record<string, unknown> {
  const text = stdout.trim();
  const candidates = [text, ...text.split('\n').reverse()];
  for (const c of candidates) {
    try {
      const v = JSON.parse(c.trim()) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      /* next */
    }
  }
  throw new Error(`expected a JSON object on stdout, got: ${text.slice(0, 500) || '(nothing)'}`);
}

export interface CliRunner {
  /** Runs `svc <args> --json` and returns the printed object. */
  (args: string[]): Promise<Record<string, unknown>>;
}

/** Runs the `svc` CLI (apps/cli/bin/svc.js) with the given environment. */
export function svcCliRunner(cliScript: string, env: NodeJS.ProcessEnv, cwd: string, timeoutMs = 120_000): CliRunner {
  return (args) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [cliScript, ...args, '--json'], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        const cmd = `svc ${args.join(' ')} --json`;
        if (code !== 0) {
          reject(new Error(`\`${cmd}\` ${signal ? `was killed by ${signal}` : `exited with code ${code}`}: ${err.trim() || out.trim()}`));
          return;
        }
        try {
          resolve(parseCliJson(out));
        } catch (e) {
          reject(new Error(`\`${cmd}\`: ${(e as Error).message}`));
        }
      });
    });
}

function str(o: Record<string, unknown>, key: string, what: string): string {
  const v = o[key];
  if (typeof v !== 'string' || !v) throw new Error(`${what}: the CLI answer has no "${key}"`);
  return v;
}

/** Creates the demo workspace (plan pro), an API key with every scope, and the demo workflow. */
export async function createDemo(run: CliRunner, definitionFile: string): Promise<DemoInfo> {
  const ws = await run(['workspace', 'create', '--name', 'Demo', '--plan', 'pro']);
  const workspaceId = str(ws, 'id', 'workspace create');
  const key = await run(['keys', 'create', '--workspace', workspaceId, '--name', 'demo', '--scopes', DEMO_SCOPES.join(',')]);
  const wf = await run(['workflows', 'apply', '--workspace', workspaceId, '-f', definitionFile]);
  return {
    workspaceId,
    keyId: str(key, 'id', 'keys create'),
    key: str(key, 'key', 'keys create'),
    workflowId: str(wf, 'id', 'workflows apply'),
    workflowSlug: typeof wf.slug === 'string' ? wf.slug : 'greet',
    createdAt: new Date().toISOString(),
  };
}

export const DEMO_ADMIN_EMAIL = 'admin@demo.example';

/** A fresh one-time console sign-in link for the demo admin (added on first use, e.g. to an older demo). */
export async function demoAdminSignInLink(run: CliRunner, workspaceId: string): Promise<string> {
  const link = () => run(['members', 'sign-in-link', '--email', DEMO_ADMIN_EMAIL]);
  try {
    return str(await link(), 'link', 'members sign-in-link');
  } catch {
    await run(['members', 'add', '--workspace', workspaceId, '--email', DEMO_ADMIN_EMAIL, '--role', 'admin']);
    return str(await link(), 'link', 'members sign-in-link');
  }
}
