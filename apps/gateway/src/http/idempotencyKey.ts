import { AppError } from '@svc/domain';

/** `Idempotency-Key`: 1–255 printable ASCII characters, bare or in double quotes. */
export function parseIdempotencyKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const key = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  if (key.length < 1 || key.length > 255 || !/^[\x20-\x7e]+$/.test(key)) {
    throw new AppError('invalid_request', 'Idempotency-Key must be 1–255 printable ASCII characters', {
      errors: [{ path: 'header.Idempotency-Key', message: 'invalid' }],
    });
  }
  return key;
}
