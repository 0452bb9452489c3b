import type { DbHandle } from '@svc/db';

/** Small workflow definitions shared by the integration tests. */
export const greet = {
  name: 'Greet',
  slug: 'greet',
  description: 'Says hello',
  input_schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  steps: [{ key: 'shape', type: 'transform', expression: "{ 'greeting': 'hello ' & input.name }" }],
  output: 'steps.shape.output',
};

/** A run that stays `running` for `ms` (durable timer), then succeeds. */
export function slow(ms: number, slug = 'slow') {
  return {
    name: 'Slow',
    slug,
    steps: [
      { key: 'pause', type: 'delay', duration: `${ms}ms` },
      { key: 'done', type: 'transform', expression: "'done'" },
    ],
  };
}

export async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline)
      throw new Error(
        `condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x))}`,
      );
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** How many of these runs are in each status, as the read model says. */
export async function statusCounts(db: DbHandle, runIds: string[]): Promise<Record<string, number>> {
  const rows = await db.prisma.run.findMany({ where: { id: { in: runIds } }, select: { status: true } });
  const counts: Record<string, number> = {};
  for (const r of rows) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}
