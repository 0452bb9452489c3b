import { DECIDED_VIA_TYPES as DOMAIN_DECIDED_VIA, EVENT_TYPES, WORKSPACE_CAP_NAMES as DOMAIN_CAPS } from '@svc/domain';
import { WORKSPACE_CAP_NAMES } from './common';
import { DECIDED_VIA_TYPES } from './runs';
import { WEBHOOK_EVENT_TYPES } from './webhooks';

// The API's words for the domain's: the contract spells them for the wire, the domain for itself.
it('names every event kind, review decider and workspace cap as the domain does', () => {
  expect([...WEBHOOK_EVENT_TYPES]).toEqual([...EVENT_TYPES]);
  expect([...DECIDED_VIA_TYPES]).toEqual([...DOMAIN_DECIDED_VIA]);
  expect([...WORKSPACE_CAP_NAMES]).toEqual([...DOMAIN_CAPS]);
});
