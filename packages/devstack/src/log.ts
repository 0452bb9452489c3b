/** A sink for human-readable progress lines. */
export type Log = (message: string) => void;

export const silentLog: Log = () => undefined;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps the last `size` lines written to it; used to explain why a server died. */
export class LineTail {
  private readonly lines: string[] = [];
  constructor(private readonly size = 60) {}
  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.size) this.lines.shift();
  }
  toString(): string {
    return this.lines.join('\n');
  }
}

/** Calls `onLine` for every complete line of a stream (a trailing partial line is flushed at end). */
export function forEachLine(stream: NodeJS.ReadableStream | null | undefined, onLine: (line: string) => void): void {
  if (!stream) return;
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buf += chunk;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i).replace(/\r$/, '');
      buf = buf.slice(i + 1);
      onLine(line);
    }
  });
  stream.on('end', () => {
    if (buf) onLine(buf);
    buf = '';
  });
}
