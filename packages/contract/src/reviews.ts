import { z } from 'zod';
import { StorableString } from './common';

export const DecideReviewBody = z
  .strictObject({
    decision: z
      .enum(['approve', 'reject', 'approved', 'rejected'])
      .meta({ description: '`approve`/`reject` (the resource spellings `approved`/`rejected` are accepted too).' }),
    comment: StorableString.max(4000).optional(),
    decided_by: StorableString.min(1).max(320).optional().meta({
      description:
        'A free-text label of who decided (e.g. an email); defaults to the API key id. The review records the authenticating key in `decided_via` whatever this says.',
    }),
  })
  .meta({ id: 'DecideReviewRequest' });
