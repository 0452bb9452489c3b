import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from './processes';
import { readIfExists } from './readIfExists';

export const STACK_FILE_NAME = 'stack.json';

/**
 * What `npm start` records in `DATA_DIR/stack.json` (mode 0600) so that the `svc` CLI and
 * other local tools find the running stack when DATABASE_URL / TEMPORAL_ADDRESS are unset.
 */
export interface StackInfo {
  /** PostgreSQL connection string (embedded or external). */
  databaseUrl: string;
  /** Temporal frontend, host:port. */
  temporalAddress: string;
  temporalNamespace: string;
  /** Temporal Web UI; null when Temporal is external (unknown UI). */
  temporalUiUrl: string | null;
  /** Gateway base URL (BASE_URL, e.g. http://localhost:8080); the API is under `/api/v1`. */
  apiUrl: string;
  /** SVC_ENCRYPTION_KEY in use (64 hex characters or base64). */
  encryptionKey: string;
  /** pid of the `npm start` supervisor. */
  pid: number;
  /** RFC 3339. */
  startedAt: string;
}

export function stackFilePath(dataDir: string): string {
  return path.join(path.resolve(dataDir), STACK_FILE_NAME);
}

/** Writes the stack file atomically with mode 0600, creating `dataDir` if needed. */
export function writeStackFile(dataDir: string, info: StackInfo): string {
  const file = stackFilePath(dataDir);
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return file;
}

/** The recorded stack, or null when there is no stack file. Throws on a malformed file. */
export function readStackFile(dataDir: string): StackInfo | null {
  const file = stackFilePath(dataDir);
  const raw = readIfExists(file);
  if (raw === null) return null;
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    throw new Error(`${file} is not valid JSON; delete it and start the stack again (npm start)`);
  }
  const problem = validate(data);
  if (problem) throw new Error(`${file} is malformed (${problem}); delete it and start the stack again (npm start)`);
  return data as StackInfo;
}

/** Removes the stack file (no error when absent). */
export function removeStackFile(dataDir: string): void {
  rmSync(stackFilePath(dataDir), { force: true });
}

/** Whether the supervisor that wrote `info` is still alive. */
export function isStackRunning(info: StackInfo): boolean {
  return isProcessAlive(info.pid);
}

function validate(d: unknown): string | null {
  if (typeof d !== 'object' || d === null || Array.isArray(d)) return 'not an object';
  const o = d as Record<string, unknown>;
  for (const k of ['databaseUrl', 'temporalAddress', 'temporalNamespace', 'apiUrl', 'encryptionKey', 'startedAt']) {
    if (typeof o[k] !== 'string' || o[k] === '') return `${k} must be a non-empty string`;
  }
  if (o.temporalUiUrl !== null && typeof o.temporalUiUrl !== 'string') return 'temporalUiUrl must be a string or null';
  if (typeof o.pid !== 'number' || !Number.isInteger(o.pid)) return 'pid must be an integer';
  return null;
}
