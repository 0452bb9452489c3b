/**
 * Outbound calls of one kind in flight in this process, counted per workspace: a workspace at
 * its bound is turned away at once (the caller comes back later) rather than queued, so one
 * workspace's slow or failing receivers never take every activity slot of the process.
 */
export class WorkspaceGate {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly maxPerWorkspace: number) {}

  /** Runs `call` when the workspace is under its bound; undefined (nothing run) when it is not. */
  async run<T>(workspaceId: string, call: () => Promise<T>): Promise<T | undefined> {
    const now = this.inFlight.get(workspaceId) ?? 0;
    if (now >= this.maxPerWorkspace) return undefined;
    this.inFlight.set(workspaceId, now + 1);
    try {
      return await call();
    } finally {
      const left = (this.inFlight.get(workspaceId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(workspaceId, left);
      else this.inFlight.delete(workspaceId);
    }
  }
}
