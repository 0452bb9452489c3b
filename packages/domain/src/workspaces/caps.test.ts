import { CAP_CEILINGS, limitExceeded, WORKSPACE_CAPS, workspaceCaps } from './caps';

const ws = (plan: string, own: { endpoints?: number | null; secrets?: number | null; assignees?: number | null } = {}) => ({
  plan,
  maxWebhookEndpoints: own.endpoints ?? null,
  maxSecrets: own.secrets ?? null,
  maxReviewAssignees: own.assignees ?? null,
});

describe('workspaceCaps', () => {
  test.each(['free', 'basic', 'pro', 'business', 'elite', 'enterprise', 'unknown'])('gives the %s plan the documented figures', (plan) => {
    expect(workspaceCaps(ws(plan))).toEqual({ webhook_endpoints: 50, secrets: 100, review_assignees: 10 });
  });

  it("uses an enterprise workspace's own figures where set", () => {
    expect(workspaceCaps(ws('enterprise', { endpoints: 200, assignees: 3 }))).toEqual({
      webhook_endpoints: 200,
      secrets: 100,
      review_assignees: 3,
    });
  });

  it('ignores own figures on any other plan, and ones below 1 or not whole', () => {
    expect(workspaceCaps(ws('elite', { endpoints: 500, secrets: 500, assignees: 50 }))).toEqual(WORKSPACE_CAPS);
    expect(workspaceCaps(ws('enterprise', { endpoints: 0, secrets: 2.5, assignees: -1 }))).toEqual(WORKSPACE_CAPS);
  });

  it('keeps every figure within its ceiling', () => {
    for (const [cap, figure] of Object.entries(WORKSPACE_CAPS))
      expect(figure).toBeLessThanOrEqual(CAP_CEILINGS[cap as keyof typeof CAP_CEILINGS]);
  });
});

describe('limitExceeded', () => {
  it('is 422 limit_exceeded naming the cap and its figure', () => {
    const err = limitExceeded('secrets', 100);
    expect(err).toMatchObject({ status: 422, code: 'limit_exceeded', extensions: { limit: 'secrets', limit_value: 100 } });
    expect(err.message).toContain('100');
  });
});
