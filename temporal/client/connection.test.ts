import { Client, Connection } from '@temporalio/client';
import { withAbortSignal } from './connection';

/** Whether the call context's AsyncLocalStorage (and with it Node 20's promise hooks) is on. */
const contextOn = (connection: Connection) => (connection.callContextStorage as unknown as { enabled: boolean }).enabled;

/** A call that stays open until released. */
function openCall() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { release, done };
}

describe('withAbortSignal', () => {
  // Never dialled: no call here reaches a server.
  const connection = Connection.lazy({ address: '127.0.0.1:1' });
  const client = new Client({ connection });
  afterAll(() => connection.close());

  it('gives the call its signal, and turns the call context off only when the last open call ends', async () => {
    const a = openCall();
    const b = openCall();
    const signal = AbortSignal.timeout(60_000);
    const first = withAbortSignal(client, AbortSignal.timeout(60_000), () => a.done);
    let seen: AbortSignal | undefined;
    const second = withAbortSignal(client, signal, async () => {
      seen = connection.callContextStorage.getStore()?.abortSignal;
      await b.done;
    });
    expect(seen).toBe(signal);
    expect(contextOn(connection)).toBe(true);

    a.release();
    await first;
    expect(contextOn(connection)).toBe(true);

    b.release();
    await second;
    expect(contextOn(connection)).toBe(false);
    expect(connection.callContextStorage.getStore()).toBeUndefined();
  });

  it('turns it off after a call that failed, and on again for the next one', async () => {
    await expect(withAbortSignal(client, AbortSignal.timeout(60_000), () => Promise.reject(new Error('refused')))).rejects.toThrow(
      'refused',
    );
    expect(contextOn(connection)).toBe(false);

    await expect(withAbortSignal(client, AbortSignal.timeout(60_000), async () => contextOn(connection))).resolves.toBe(true);
    expect(contextOn(connection)).toBe(false);
  });
});
