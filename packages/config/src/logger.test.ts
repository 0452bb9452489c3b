import { Writable } from 'node:stream';
import { createLogger, defaultLogFormat } from './logger';

/** A destination that keeps what the logger wrote. */
function sink() {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

describe('defaultLogFormat', () => {
  it('is pretty for a person at a terminal, JSON otherwise, and LOG_FORMAT decides when set', () => {
    expect(defaultLogFormat({}, true)).toBe('pretty');
    expect(defaultLogFormat({}, false)).toBe('json');
    expect(defaultLogFormat({ LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(defaultLogFormat({ LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
  });
});

describe('createLogger', () => {
  it('writes JSON lines with the mixin fields, credentials censored', () => {
    const out = sink();
    const logger = createLogger({ name: 'gateway', format: 'json', destination: out.stream, mixin: () => ({ trace_id: 'abc' }) });
    logger.info({ headers: { authorization: 'Bearer svc_secret' } }, 'hello');
    const line = JSON.parse(out.text().trim());
    expect(line).toMatchObject({ name: 'gateway', msg: 'hello', trace_id: 'abc', headers: { authorization: '[REDACTED]' } });
  });

  it('writes readable lines in the pretty format, credentials censored there too', () => {
    const out = sink();
    const logger = createLogger({ name: 'worker', format: 'pretty', destination: out.stream });
    logger.warn({ runId: 'run_1', password: 'hunter2' }, 'run failed');
    const text = out.text();
    expect(text).toMatch(/WARN.*\(worker\): run failed/);
    expect(text).toContain('runId: "run_1"');
    expect(text).not.toContain('hunter2');
    expect(() => JSON.parse(text)).toThrow();
  });
});
