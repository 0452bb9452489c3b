import { IDEMPOTENCY_KEY_PATTERN } from '@svc/contract';
import { AppError } from '@svc/domain';

const VALID = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/**
 * `Idempotency-Key`: 1–255 printable ASCII characters, bare or in double quotes — exactly the
 * pattern the OpenAPI document publishes (packages/contract/src/common.ts).
 */
export function parseIdempotencyKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!VALID.test(raw)) {
    throw new AppError('invalid_request', 'Idempotency-Key must be 1–255 printable ASCII characters, bare or in double quotes', {
      errors: [{ path: 'header.Idempotency-Key', message: 'invalid' }],
    });
  }
  return raw.length >= 3 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
}
