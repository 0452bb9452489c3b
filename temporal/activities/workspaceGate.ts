/** How many calls of one workspace may run at once in this process, and how many may wait how long. */
export interface WorkspaceGateBounds {
  inFlight: number;
  waiting: number;
  waitMs: number;
}

interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout;
}

interface Line {
  inFlight: number;
  waiters: Waiter[];
}

/**
 * Outbound calls of one kind in flight in this process, counted per workspace. A workspace at its
 * bound waits a little, in order, for one of its own calls to end; past that, or with too many
 * already waiting, it is turned away (the caller comes back later), so one workspace's slow or
 * failing receivers never take every activity slot of the process.
 */
export class WorkspaceGate {
  private readonly lines = new Map<string, Line>();

  constructor(private readonly bounds: WorkspaceGateBounds) {}

  /** Runs `call` once the workspace has a place; undefined (nothing run) when none came in time. */
  async run<T>(workspaceId: string, call: () => Promise<T>): Promise<T | undefined> {
    if (!(await this.enter(workspaceId))) return undefined;
    try {
      return await call();
    } finally {
      this.leave(workspaceId);
    }
  }

  private enter(workspaceId: string): Promise<boolean> | boolean {
    let line = this.lines.get(workspaceId);
    if (!line) this.lines.set(workspaceId, (line = { inFlight: 0, waiters: [] }));
    if (line.inFlight < this.bounds.inFlight) {
      line.inFlight++;
      return true;
    }
    if (line.waiters.length >= this.bounds.waiting) return false;
    const waiting = line;
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        // The place is handed over by leave(): inFlight already counts it.
        admit: () => {
          clearTimeout(waiter.timer);
          resolve(true);
        },
        timer: setTimeout(() => {
          waiting.waiters.splice(waiting.waiters.indexOf(waiter), 1);
          this.forgetIfIdle(workspaceId, waiting);
          resolve(false);
        }, this.bounds.waitMs),
      };
      waiting.waiters.push(waiter);
    });
  }

  private leave(workspaceId: string): void {
    const line = this.lines.get(workspaceId);
    if (!line) return;
    const next = line.waiters.shift();
    if (next) next.admit();
    else line.inFlight--;
    this.forgetIfIdle(workspaceId, line);
  }

  private forgetIfIdle(workspaceId: string, line: Line): void {
    if (line.inFlight === 0 && line.waiters.length === 0) this.lines.delete(workspaceId);
  }
}
