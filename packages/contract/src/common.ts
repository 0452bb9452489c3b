import { z } from 'zod';

export const Problem = z
  .object({
    type: z.string().meta({ description: 'Stable URI identifying the problem type (one per code).' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().meta({ description: 'Stable snake_case error code.', example: 'validation_failed' }),
    request_id: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details.' });

export const PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: '1–100, default 20.' }),
  cursor: z.string().min(1).max(200).optional().meta({ description: 'Opaque cursor from `next_cursor`.' }),
});

export const Timestamp = z.string().meta({ format: 'date-time', description: 'RFC 3339 UTC.' });

export function pageOf<T extends z.ZodType>(item: T, id: string) {
  return z.object({ data: z.array(item), next_cursor: z.string().nullable() }).meta({ id });
}
