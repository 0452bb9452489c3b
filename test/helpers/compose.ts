import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { ROOT } from './processes';

/**
 * docker-compose.yml read as Docker Compose reads it (anchors and `<<` merges, `$$` escapes,
 * `${NAME}`, `${NAME:-default}` and `${NAME:?error}` from the given variables), so a test can
 * run its services' own commands with their own environment.
 */
export interface ComposeService {
  image?: string;
  ports?: unknown[];
  environment?: Record<string, string>;
  command?: string[];
  entrypoint?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
  restart?: string;
  configs?: { source: string; target: string }[];
  deploy?: { replicas?: number };
}

export interface ComposeFile {
  name: string;
  services: Record<string, ComposeService>;
  configs: Record<string, { content: string }>;
}

export function readComposeFile(): ComposeFile {
  return YAML.parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as ComposeFile;
}

/** Compose's variable interpolation of one value. */
export function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return value.replace(
    /\$\$|\$\{(\w+)(?:(:-|:\?)([^}]*))?\}|\$(\w+)/g,
    (whole, braced?: string, op?: string, arg?: string, bare?: string) => {
      if (whole === '$$') return '$';
      const name = (braced ?? bare)!;
      const v = vars[name];
      if (v) return v;
      if (op === ':-') return arg ?? '';
      if (op === ':?') throw new Error(`${name}: ${arg}`);
      return v ?? '';
    },
  );
}

/** A service's environment, interpolated. */
export function serviceEnv(service: ComposeService, vars: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), vars)]));
}

/**
 * Runs a one-shot job's script (`entrypoint: [/bin/sh, -ec]` + `command: [script]`) as its
 * container would, with its environment and `overrides` (the addresses here); rejects with its
 * output when it exits non-zero.
 */
export function runComposeJob(service: ComposeService, overrides: Record<string, string>): Promise<string> {
  const [shell, ...flags] = service.entrypoint ?? [];
  if (!shell || !service.command) throw new Error('not a shell job');
  const script = interpolate(service.command.join('\n'), {});
  const env = { ...process.env, ...serviceEnv(service, {}), ...overrides };
  return new Promise((resolve, reject) => {
    const child = spawn(shell, [...flags, script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`job exited with ${code}:\n${out}`))));
  });
}
