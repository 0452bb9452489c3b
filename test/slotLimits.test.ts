import { Client } from 'pg';
import { PLANS, planFiguresArg, slotLimits, workspaceLimits } from '@svc/domain';

/**
 * svc_plan_figure (migration 20261125090000_slot_functions) applies a workspace's figures in
 * PostgreSQL, from the figures the application passes it (planFiguresArg): the slot functions
 * its concurrency (slotLimits), the API key check its per-key rate. For every plan, with and
 * without a custom figure, both must agree with workspaceLimits.
 */
describe('svc_plan_figure', () => {
  let pg: Client;
  beforeAll(async () => {
    pg = new Client({ connectionString: process.env.DATABASE_URL! });
    await pg.connect();
  });
  afterAll(() => pg.end());

  const figure = async (plan: string, custom: number | null, figures: string) =>
    (await pg.query<{ n: number }>('SELECT svc_plan_figure($1, $2, $3::jsonb) AS n', [plan, custom, figures])).rows[0].n;
  const plans = [...Object.keys(PLANS), 'no-such-plan'];
  const customs = [null, 0, 1, 7, 500];

  it.each(plans)('gives %s the concurrency workspaceLimits gives (the slots)', async (plan) => {
    for (const concurrency of customs) {
      expect({ plan, concurrency, n: await figure(plan, concurrency, slotLimits) }).toEqual({
        plan,
        concurrency,
        n: workspaceLimits({ plan, rateLimitPerMin: null, concurrency }).concurrency,
      });
    }
  });

  it.each(plans)('gives %s the per-key rate workspaceLimits gives (the API key check)', async (plan) => {
    for (const rateLimitPerMin of customs) {
      expect({ plan, rateLimitPerMin, n: await figure(plan, rateLimitPerMin, planFiguresArg('ratePerMin')) }).toEqual({
        plan,
        rateLimitPerMin,
        n: workspaceLimits({ plan, rateLimitPerMin, concurrency: null }).keyPerMin,
      });
    }
  });
});
