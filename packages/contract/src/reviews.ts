import { z } from 'zod';

export const DecideReviewBody = z
  .strictObject({
    decision: z
      .enum(['approve', 'reject', 'approved', 'rejected'])
      .meta({ description: '`approve`/`reject` (the resource spellings `approved`/`rejected` are accepted too).' }),
    comment: z.string().max(4000).optional(),
    decided_by: z.string().min(1).max(320).optional().meta({ description: 'Who decided (e.g. an email); defaults to the API key id.' }),
  })
  .meta({ id: 'DecideReviewRequest' });
