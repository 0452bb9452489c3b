import { Client } from 'pg';
import { PLANS, slotLimits, workspaceLimits } from '@svc/domain';

/**
 * The slot functions (migration 20261125090000_slot_functions) apply a workspace's concurrency
 * figure in PostgreSQL, from the figures the application passes them (slotLimits): for every
 * plan, with and without a custom figure, they must agree with workspaceLimits.
 */
describe('svc_slot_limit', () => {
  let pg: Client;
  beforeAll(async () => {
    pg = new Client({ connectionString: process.env.DATABASE_URL! });
    await pg.connect();
  });
  afterAll(() => pg.end());

  const plans = [...Object.keys(PLANS), 'no-such-plan'];
  const customs = [null, 0, 1, 7, 500];
  it.each(plans)('gives %s the figure workspaceLimits gives', async (plan) => {
    for (const concurrency of customs) {
      const { rows } = await pg.query<{ n: number }>('SELECT svc_slot_limit($1, $2, $3::jsonb) AS n', [plan, concurrency, slotLimits]);
      expect({ plan, concurrency, n: rows[0].n }).toEqual({
        plan,
        concurrency,
        n: workspaceLimits({ plan, rateLimitPerMin: null, concurrency }).concurrency,
      });
    }
  });
});
