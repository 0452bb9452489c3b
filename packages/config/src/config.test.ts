import { randomBytes } from 'node:crypto';
import { appLaunch } from './appLaunch';
import { APP_PROCESSES } from './appProcesses';
import { loadConfig } from './config';

describe('SVC_ENCRYPTION_KEY_PREVIOUS', () => {
  it('is none by default, and takes comma-separated hex or base64 keys', () => {
    expect(loadConfig({}).SVC_ENCRYPTION_KEY_PREVIOUS).toEqual([]);
    const a = randomBytes(32);
    const b = randomBytes(32);
    const keys = loadConfig({ SVC_ENCRYPTION_KEY_PREVIOUS: `${a.toString('hex')}, ${b.toString('base64')}` }).SVC_ENCRYPTION_KEY_PREVIOUS;
    expect(keys).toEqual([a, b]);
  });

  it('refuses a key that is not 32 bytes, naming the setting', () => {
    expect(() => loadConfig({ SVC_ENCRYPTION_KEY_PREVIOUS: `${randomBytes(32).toString('hex')},abcd` })).toThrow(
      /SVC_ENCRYPTION_KEY_PREVIOUS/,
    );
  });
});

describe('memory settings', () => {
  it('defaults to one gateway sandbox thread, two per worker, a bounded workflow cache, baseline-compiled wasm and a size-optimized worker', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      GATEWAY_SANDBOX_THREADS: 2,
      WORKER_SANDBOX_THREADS: 2,
      WORKER_MAX_CACHED_WORKFLOWS: 250,
      WORKER_NODE_FLAGS: ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up', '--max-semi-space-size=4', '--heap-growing-percent=30'],
      GATEWAY_NODE_FLAGS: ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up', '--max-semi-space-size=2', '--heap-growing-percent=30'],
    });
  });

  it('reads node flags space-separated, empty for none', () => {
    expect(loadConfig({ GATEWAY_NODE_FLAGS: ' --max-semi-space-size=4   --optimize-for-size ' }).GATEWAY_NODE_FLAGS).toEqual([
      '--max-semi-space-size=4',
      '--optimize-for-size',
    ]);
    expect(loadConfig({ WORKER_NODE_FLAGS: '' }).WORKER_NODE_FLAGS).toEqual([]);
  });

  it('refuses anything but long node flags, naming the variable', () => {
    expect(() => loadConfig({ WORKER_NODE_FLAGS: '-r ./preload.js' })).toThrow(/WORKER_NODE_FLAGS\.0: a node flag/);
    expect(() => loadConfig({ GATEWAY_SANDBOX_THREADS: '0' })).toThrow(/GATEWAY_SANDBOX_THREADS/);
  });
});

describe('WORKER_TASK_QUEUES', () => {
  it('serves both queues by default, and either one when named', () => {
    expect(loadConfig({}).WORKER_TASK_QUEUES).toEqual(['runs', 'deliveries']);
    expect(loadConfig({ WORKER_TASK_QUEUES: ' deliveries ' }).WORKER_TASK_QUEUES).toEqual(['deliveries']);
    expect(loadConfig({ WORKER_TASK_QUEUES: 'runs' }).WORKER_TASK_QUEUES).toEqual(['runs']);
  });

  it('refuses an unknown queue, or none, naming the variable', () => {
    expect(() => loadConfig({ WORKER_TASK_QUEUES: 'runs,webhooks' })).toThrow(/WORKER_TASK_QUEUES\.1/);
    expect(() => loadConfig({ WORKER_TASK_QUEUES: ' , ' })).toThrow(/WORKER_TASK_QUEUES: name runs, deliveries or both/);
  });
});

describe('webhook configuration', () => {
  test('the default retry schedule spans about 24 hours; tests can compress it', () => {
    const c = loadConfig({});
    const total = c.WEBHOOK_RETRY_SCHEDULE.reduce((a, b) => a + b, 0);
    expect(c.WEBHOOK_RETRY_SCHEDULE[0]).toBe(5_000);
    expect(Math.abs(total - 86_400_000)).toBeLessThan(60_000);
    expect(c.WEBHOOK_TIMEOUT_MS).toBe(15_000);
    expect(c.WEBHOOK_SECRET_OVERLAP_MS).toBe(86_400_000);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '200ms, 200ms,400ms' }).WEBHOOK_RETRY_SCHEDULE).toEqual([200, 200, 400]);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '200ms,soon' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0s' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });
});

describe('appLaunch', () => {
  it('starts each app with its node flags and process defaults', () => {
    for (const name of ['gateway', 'worker'] as const) {
      const launch = appLaunch(name, {});
      expect(launch).toEqual({
        entry: APP_PROCESSES[name].entry,
        nodeFlags: [...APP_PROCESSES[name].nodeFlags],
        env: APP_PROCESSES[name].env,
      });
    }
    expect(APP_PROCESSES.worker.env.MALLOC_ARENA_MAX).toBe('2');
  });

  it("keeps the environment's own flags and settings above the defaults", () => {
    const launch = appLaunch('gateway', { GATEWAY_NODE_FLAGS: '--optimize-for-size', MALLOC_ARENA_MAX: '4', LOG_LEVEL: 'warn' });
    expect(launch.nodeFlags).toEqual(['--optimize-for-size']);
    expect(launch.env).toEqual({ GATEWAY_NODE_FLAGS: '--optimize-for-size', MALLOC_ARENA_MAX: '4', LOG_LEVEL: 'warn' });
  });
});
