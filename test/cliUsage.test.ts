import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '@svc/db';
import type { DbHandle } from '@svc/db';
import { writeStackFile } from '@svc/devstack';
import { ROOT } from './helpers/processes';

// The `svc` bin as a shell runs it: version, exit codes, completion scripts, and finding the
// stack from anywhere inside the repository.

const BIN = path.join(ROOT, 'apps/cli/bin/svc.js');
/** The variables that would point the CLI at a database or a stack without looking for one. */
const LOCATORS = ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'SVC_ENCRYPTION_KEY', 'DATA_DIR', 'BASE_URL'];

let db: DbHandle;
let dir: string;

beforeAll(() => {
  db = createDb(process.env.DATABASE_URL!);
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-usage-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await db.close();
});

function svc(args: string[], opts: { env?: Record<string, string | undefined>; cwd?: string } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, DATA_DIR: dir, ...opts.env } as NodeJS.ProcessEnv,
    cwd: opts.cwd,
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('svc --version and exit codes', () => {
  it('prints the package version', () => {
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'apps/cli/package.json'), 'utf8')) as { version: string }).version;
    expect(svc(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  // A database that refuses every connection: a command that reached it would fail with exit 1.
  const unreachable = { DATABASE_URL: 'postgresql://svc@127.0.0.1:1/svc' };

  it.each([
    [['nope'], "unknown command 'nope'"],
    [['runs', 'list', '--workspace', 'ws_1', '--bogus'], "unknown option '--bogus'"],
    [['runs', 'show'], "missing required argument 'runId'"],
    [['runs', 'list'], "required option '--workspace <id>' not specified"],
    [['runs', 'list', '--workspace', 'ws_1', '--limit', 'abc'], "argument 'abc' is invalid. Expected a whole number from 1 to 1000."],
    [['runs', 'list', '--workspace', 'ws_1', '--limit', '0'], 'Expected a whole number from 1 to 1000.'],
    [['runs', 'list', '--workspace', 'ws_1', '--status', 'done'], 'Allowed choices are queued, running'],
    [['deliveries', 'list', '--endpoint', 'we_1', '--limit', '1.5'], 'Expected a whole number from 1 to 100.'],
    [['workspace', 'set-plan', 'ws_1', 'enterprise', '--concurrency', '-3'], 'Expected a whole number ≥ 0.'],
    [['workflows', 'diff', 'wf_1', '--from', 'one', '--to', '2'], "argument 'one' is invalid"],
    [['runs', 'start', 'wf_1', '--input', '[1]'], 'Expected a JSON object.'],
    [['runs', 'start', 'wf_1', '--input', '@/nonexistent/input.json'], 'Cannot read /nonexistent/input.json: ENOENT.'],
    [['runs', 'start', 'wf_1', '--input', '{}', '--idempotency-key', ''], 'Expected 1–255 printable ASCII characters.'],
    [['endpoints', 'create', '--workspace', 'ws_1', '--url', 'https://x.test', '--events', 'run.done'], 'Expected a comma-separated list'],
    [['reviews', 'decide', 'rev_1'], 'give one of --approve or --reject'],
    [['reviews', 'decide', 'rev_1', '--approve', '--reject'], "option '--approve' cannot be used with option '--reject'"],
    [['completion', 'tcsh'], 'Allowed choices are bash, zsh, fish'],
  ])('usage error %j: exit 2 with a clear message, before any database', (args, message) => {
    const r = svc(args, { env: unreachable });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/ECONNREFUSED|database/i);
  });

  it('a usage error with --json is one JSON object on stderr', () => {
    const r = svc(['runs', 'list', '--workspace', 'ws_1', '--limit', 'abc', '--json'], { env: unreachable });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({ error: { code: 'usage', message: expect.stringContaining("argument 'abc' is invalid") } });
  });

  it('a command that fails exits 1; help exits 0', () => {
    expect(svc(['runs', 'show', 'run_nope'])).toMatchObject({ code: 1, stderr: 'error: Run run_nope not found (run_not_found)\n' });
    const help = svc(['runs', 'start', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('$ svc runs start wf_123 --input');
    // A group without its subcommand is a usage error: its help goes to stderr.
    expect(svc(['runs'])).toMatchObject({ code: 2, stdout: '' });
  });
});

describe('svc completion', () => {
  /** A directory whose `svc` is this repository's bin, as `npm link` or an install puts it on PATH. */
  function binDir(): string {
    const bin = path.join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(path.join(bin, 'svc'), 0o755);
    return bin;
  }

  /**
   * Sources the bash script in a real bash and calls its completion function as bash would for
   * the line typed so far (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT); the candidates offered.
   */
  function bashComplete(script: string, lines: string[]): string[][] {
    const file = path.join(dir, 'svc.bash');
    writeFileSync(file, script);
    const program = [
      `source ${JSON.stringify(file)}`,
      'complete -p svc >/dev/null || exit 9',
      ...lines.map((line) =>
        [
          `COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}`,
          'read -ra COMP_WORDS <<< "$COMP_LINE"',
          '[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")',
          'COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))',
          'COMPREPLY=()',
          '_svc_completion',
          'echo "${COMPREPLY[*]}"',
        ].join('\n'),
      ),
    ].join('\n');
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', program], {
      env: { ...process.env, PATH: `${binDir()}:${process.env.PATH}`, DATA_DIR: dir },
      encoding: 'utf8',
    });
    expect([r.status, r.stderr]).toEqual([0, '']);
    return r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => (l === '' ? [] : l.split(' ')));
  }

  it('bash: the script, sourced in bash, completes commands, subcommands, options and choices', () => {
    const r = svc(['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('complete -o default -F _svc_completion svc');
    const [top, runs, ru, options, statuses, shells] = bashComplete(r.stdout, [
      'svc ',
      'svc runs ',
      'svc ru',
      'svc runs list --w',
      'svc runs list --workspace ws_1 --status f',
      'svc completion ',
    ]);
    expect(top).toEqual(expect.arrayContaining(['completion', 'endpoints', 'runs', 'workflows', 'workspace']));
    expect(top).not.toContain('completion-server');
    expect(runs).toEqual(['cancel', 'help', 'list', 'show', 'start', 'watch']);
    expect(ru).toEqual(['runs']);
    expect(options).toEqual(['--workspace', '--workflow']);
    expect(statuses).toEqual(['failed']);
    expect(shells).toEqual(['bash', 'zsh', 'fish']);
  });

  /** What the zsh and fish scripts run on each Tab, with the environment they give it. */
  function completionServer(shell: 'zsh' | 'fish', line: string): string[] {
    const r = svc(['completion-server', '--', ...line.trim().split(' ')], {
      env: { SHELL: shell, COMP_LINE: line, COMP_POINT: String(line.length), COMP_CWORD: String(line.split(' ').length - 1) },
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
    return r.stdout.trimEnd().split('\n');
  }

  it.each([
    ['zsh', 'compdef _svc_completion svc', 'runs:Runs of workflows'],
    ['fish', 'complete -f -d \'svc\' -c svc -a "(_svc_completion)"', 'runs\tRuns of workflows'],
  ] as const)(
    '%s: the script asks `svc completion-server`, which answers with the candidates and their descriptions',
    (shell, registers, runs) => {
      const r = svc(['completion', shell]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(registers);
      expect(r.stdout).toContain('svc completion-server -- ');
      expect(completionServer(shell, 'svc ')).toContain(runs);
      expect(completionServer(shell, 'svc runs st')).toEqual([
        shell === 'zsh' ? 'start:Start a run (--wait\\: until it settles)' : 'start\tStart a run (--wait: until it settles)',
      ]);
    },
  );

  it('--json prints the script in one object', () => {
    const r = svc(['completion', 'fish', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ shell: 'fish', script: svc(['completion', 'fish']).stdout });
  });
});

describe('finding the stack', () => {
  it('reads .data/stack.json at the repository root from any directory inside it', async () => {
    // A checkout of the repository: its root package.json, and the stack `npm start` recorded.
    const repo = path.join(dir, 'checkout');
    const deep = path.join(repo, 'apps', 'worker', 'src');
    mkdirSync(deep, { recursive: true });
    writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ name: 'svc', private: true, workspaces: ['apps/worker'] }));
    writeFileSync(path.join(repo, 'apps', 'worker', 'package.json'), JSON.stringify({ name: '@svc/worker' }));
    writeStackFile(path.join(repo, '.data'), {
      databaseUrl: process.env.DATABASE_URL!,
      temporalAddress: process.env.TEMPORAL_ADDRESS!,
      temporalNamespace: process.env.TEMPORAL_NAMESPACE!,
      temporalUiUrl: null,
      apiUrl: 'http://api.example.test',
      encryptionKey: process.env.SVC_ENCRYPTION_KEY!,
      pid: process.pid,
      startedAt: new Date().toISOString(),
    });
    const bare = Object.fromEntries(LOCATORS.map((k) => [k, undefined]));

    const r = svc(['workspace', 'create', '--name', 'Found from deep inside', '--json'], { cwd: deep, env: bare });
    expect([r.code, r.stderr]).toEqual([0, '']);
    const ws = await db.prisma.workspace.findUniqueOrThrow({ where: { id: JSON.parse(r.stdout).id } });
    expect(ws.name).toBe('Found from deep inside');

    // DATA_DIR still wins, relative to the current directory.
    const elsewhere = svc(['workspace', 'create', '--name', 'X'], { cwd: deep, env: { ...bare, DATA_DIR: 'no-stack-here' } });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('No database');
  });
});
