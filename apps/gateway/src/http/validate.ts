import type { z } from 'zod';
import { AppError } from '@svc/domain';

function toFieldErrors(error: z.ZodError, root: string) {
  return error.issues.map((i) => ({
    path: [root, ...i.path.map(String)].filter(Boolean).join('.'),
    message: i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}` : i.message,
  }));
}

/** A request body that does not match its schema: 422 with every problem and its path. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const r = schema.safeParse(body);
  if (!r.success) throw new AppError('validation_failed', 'The request body is not valid', { errors: toFieldErrors(r.error, '') });
  return r.data;
}

/** Bad query parameters: 400 invalid_request. */
export function parseQuery<T extends z.ZodType>(schema: T, query: unknown): z.infer<T> {
  const r = schema.safeParse(query);
  if (!r.success) throw new AppError('invalid_request', 'The query parameters are not valid', { errors: toFieldErrors(r.error, '') });
  return r.data;
}
