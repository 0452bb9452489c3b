import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cachedTemporalCliPath, ensureTemporalCli, temporalCliBuildCommand } from './temporalCli';

describe('ensureTemporalCli (no build)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-tcli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const fakeBinary = (p: string): string => {
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, '#!/bin/sh\n');
    chmodSync(p, 0o755);
    return p;
  };

  it('uses TEMPORAL_CLI_PATH when it points at an executable', async () => {
    const bin = fakeBinary(path.join(dir, 'bin', 'temporal'));
    await expect(ensureTemporalCli(undefined, { TEMPORAL_CLI_PATH: bin, XDG_CACHE_HOME: dir })).resolves.toBe(bin);
  });

  it('fails clearly when TEMPORAL_CLI_PATH points nowhere', async () => {
    await expect(ensureTemporalCli(undefined, { TEMPORAL_CLI_PATH: path.join(dir, 'missing'), XDG_CACHE_HOME: dir })).rejects.toThrow(
      /TEMPORAL_CLI_PATH is set to .*missing.*no executable file/,
    );
  });

  it('uses a temporal on PATH that is recent enough, before the cache', async () => {
    const cliAnswering = (sub: string, version: string) => {
      const p = path.join(dir, sub, 'temporal');
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, `#!/bin/sh\necho "temporal version ${version} (Server 1.29.1, UI 2.39.0)"\n`);
      chmodSync(p, 0o755);
      return path.dirname(p);
    };
    const old = cliAnswering('old', '1.2.0');
    const recent = cliAnswering('recent', '1.6.0');
    const env = { XDG_CACHE_HOME: dir, PATH: [old, recent].join(path.delimiter) };
    fakeBinary(cachedTemporalCliPath(env));
    await expect(ensureTemporalCli(undefined, env)).resolves.toBe(path.join(recent, 'temporal'));
    await expect(ensureTemporalCli(undefined, { ...env, PATH: old })).resolves.toBe(cachedTemporalCliPath(env));
  });

  it('uses the cached build under XDG_CACHE_HOME', async () => {
    const env = { XDG_CACHE_HOME: dir };
    expect(cachedTemporalCliPath(env)).toBe(path.join(dir, 'svc', 'temporal-cli', 'v1.5.1', 'temporal'));
    const bin = fakeBinary(cachedTemporalCliPath(env));
    await expect(ensureTemporalCli(undefined, env)).resolves.toBe(bin);
  });

  it('explains how to get one when neither a binary nor Go is available', async () => {
    const env = { XDG_CACHE_HOME: dir, PATH: path.join(dir, 'empty-path'), HOME: dir };
    await expect(ensureTemporalCli(undefined, env)).rejects.toThrow(
      /install Go >= 1\.23[\s\S]*go install github\.com\/temporalio\/cli\/cmd\/temporal@v1\.5\.1[\s\S]*TEMPORAL_CLI_PATH/,
    );
  });

  it('prints the exact build command', () => {
    expect(temporalCliBuildCommand('/c')).toBe('GOBIN=/c go install github.com/temporalio/cli/cmd/temporal@v1.5.1');
  });
});
