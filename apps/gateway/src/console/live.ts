import type { Request, Response } from 'express';
import type { Config } from '@svc/config';
import { connectionConfig, NotificationListener } from '@svc/db';
import type { Db, NotificationWatch } from '@svc/db';

/** The channel the database's console triggers notify (migration console_builder). */
export const CONSOLE_CHANNEL = 'svc_console';
/** How long a workspace's lease on notices lasts; renewed at half of it while pages listen. */
const LEASE_MS = 60_000;
/** How long the listening connection outlives its last page (a page being replaced by the next one). */
const LINGER_MS = 30_000;

/** What one live page listens for: the runs list, one run (and its review), or one endpoint's deliveries. */
export type LiveTopic = { kind: 'runs' } | { kind: 'run'; id: string } | { kind: 'endpoint'; id: string };

interface LiveClient {
  topic: LiveTopic;
  send(event: string): void;
}

interface WorkspaceRoom {
  clients: Set<LiveClient>;
  watch: NotificationWatch;
}

export interface LiveHubOptions {
  databaseUrl: string;
  prisma: Db;
  maxPerWorkspace: number;
  maxPerProcess: number;
  heartbeatMs: number;
  onError?: (err: Error) => void;
}

/** The events a database notice (`run <id>`, `review <run id>`, `delivery <endpoint id>`) means for a page. */
function eventsFor(topic: LiveTopic, body: string): string[] {
  const [what, id] = body.split(' ');
  if (topic.kind === 'runs') return what === 'run' ? ['runs'] : [];
  if (topic.kind === 'run') return id !== topic.id ? [] : what === 'run' ? ['run'] : what === 'review' ? ['review', 'run'] : [];
  return what === 'delivery' && id === topic.id ? ['deliveries'] : [];
}

/**
 * Live console pages over server-sent events. One listening connection per process (opened
 * with the first page, closed a while after the last), fanned out in memory to the pages of
 * each workspace; the database notifies only while some page of the workspace holds a lease,
 * so nothing is sent or done while nothing changes but a heartbeat comment. Pages beyond the
 * figures per workspace or per process are refused with 503 and keep working by reloads.
 */
export function createLiveHub(opts: LiveHubOptions) {
  const rooms = new Map<string, WorkspaceRoom>();
  let total = 0;
  let listener: NotificationListener | undefined;
  let starting: Promise<NotificationListener> | undefined;
  let linger: NodeJS.Timeout | undefined;

  const renew = (workspaceIds: string[]) =>
    workspaceIds.length === 0
      ? Promise.resolve()
      : opts.prisma.$executeRaw`
          INSERT INTO console_watchers (workspace_id, until)
          SELECT unnest(${workspaceIds}::text[]), now() + make_interval(secs => ${LEASE_MS / 1000})
          ON CONFLICT (workspace_id) DO UPDATE SET until = EXCLUDED.until`.then(() => undefined);

  const renewal = setInterval(() => {
    renew([...rooms.keys()]).catch((err: Error) => opts.onError?.(err));
  }, LEASE_MS / 2);
  renewal.unref();

  async function listening(): Promise<NotificationListener> {
    clearTimeout(linger);
    if (listener) return listener;
    starting ??= (async () => {
      const l = new NotificationListener(connectionConfig(opts.databaseUrl), CONSOLE_CHANNEL, { onError: opts.onError });
      try {
        await l.start();
      } catch (err) {
        await l.close();
        throw err;
      }
      listener = l;
      return l;
    })().finally(() => (starting = undefined));
    return starting;
  }

  function join(l: NotificationListener, workspaceId: string, client: LiveClient): void {
    let room = rooms.get(workspaceId);
    if (!room) {
      const watch = l.watch(`ws:${workspaceId}`);
      const created: WorkspaceRoom = { clients: new Set(), watch };
      room = created;
      rooms.set(workspaceId, created);
      void (async () => {
        // Ends with the room: a closed watch's pending `next` never resolves.
        for (;;) {
          const body = (await watch.next()) ?? '';
          for (const c of created.clients) for (const event of eventsFor(c.topic, body)) c.send(event);
        }
      })();
    }
    room.clients.add(client);
  }

  function leave(workspaceId: string, client: LiveClient): void {
    const room = rooms.get(workspaceId);
    if (!room?.clients.delete(client)) return;
    total--;
    if (room.clients.size === 0) {
      room.watch.close();
      rooms.delete(workspaceId);
    }
    idleWhenEmpty();
  }

  function idleWhenEmpty(): void {
    if (total > 0) return;
    clearTimeout(linger);
    linger = setTimeout(() => {
      const l = listener;
      listener = undefined;
      void l?.close();
    }, LINGER_MS);
    linger.unref();
  }

  return {
    /** Serves one page's stream; `first` names the events to send at once (what changed since the page was rendered). */
    async serve(req: Request, res: Response, workspaceId: string, topic: LiveTopic, first: () => Promise<string[]>): Promise<void> {
      const here = rooms.get(workspaceId)?.clients.size ?? 0;
      if (total >= opts.maxPerProcess || here >= opts.maxPerWorkspace) {
        res.status(503).setHeader('Retry-After', '30').type('text').send('Too many live console pages are open; reload to see changes.');
        return;
      }
      total++;
      let closed = false;
      let joined = false;
      const client: LiveClient = {
        topic,
        send: (event) => {
          if (!closed) res.write(`event: ${event}\ndata: ${event}\n\n`);
        },
      };
      let heartbeat: NodeJS.Timeout | undefined;
      const done = () => {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        if (joined) return leave(workspaceId, client);
        total--;
        idleWhenEmpty();
      };
      // The response closes when the client goes away (the request's own 'close' may not come before).
      res.on('close', done);
      try {
        await renew([workspaceId]);
        const l = await listening();
        if (closed) return;
        join(l, workspaceId, client);
        joined = true;
      } catch (err) {
        opts.onError?.(err as Error);
        done();
        if (!res.headersSent) res.status(503).type('text').send('Live updates are unavailable; reload to see changes.');
        return;
      }
      res.status(200).setHeader('Content-Type', 'text/event-stream');
      res.setHeader('X-Accel-Buffering', 'no');
      res.flushHeaders();
      res.write(': live\n\n');
      heartbeat = setInterval(() => res.write(': heartbeat\n\n'), opts.heartbeatMs);
      // Without that first look, the page still hears of the next change.
      for (const event of await first().catch(() => [])) client.send(event);
    },
    /** Open streams, in all and of one workspace (for tests and metrics). */
    count(workspaceId?: string): number {
      return workspaceId ? (rooms.get(workspaceId)?.clients.size ?? 0) : total;
    },
    async close(): Promise<void> {
      clearInterval(renewal);
      clearTimeout(linger);
      await listener?.close();
      listener = undefined;
    },
  };
}

export type LiveHub = ReturnType<typeof createLiveHub>;

/** The hub of a gateway process, from its configuration. */
export function liveHubFor(config: Config, prisma: Db, onError?: (err: Error) => void): LiveHub {
  return createLiveHub({
    databaseUrl: config.DATABASE_URL!,
    prisma,
    maxPerWorkspace: config.CONSOLE_LIVE_MAX_PER_WORKSPACE,
    maxPerProcess: config.CONSOLE_LIVE_MAX_PER_PROCESS,
    heartbeatMs: config.CONSOLE_LIVE_HEARTBEAT_MS,
    onError,
  });
}
