/** The message a gateway or worker sends its supervisor (`npm start`) once it serves. */
export const READY_MESSAGE = { svc: 'ready' } as const;

/**
 * Tells the supervising process, when there is one (started with an IPC channel), that this
 * process is ready. Readiness must not depend on the log level, so it is a message, not a log
 * line. The channel is closed afterwards so it never keeps the process alive.
 */
export function signalReady(): void {
  if (!process.send) return;
  process.send(READY_MESSAGE, () => process.disconnect?.());
}

export function isReadyMessage(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { svc?: unknown }).svc === READY_MESSAGE.svc;
}
