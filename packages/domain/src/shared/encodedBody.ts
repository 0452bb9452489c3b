/**
 * Bytes kept as data: a response body that is neither text nor JSON PostgreSQL can store
 * (bytes invalid in its charset, or text holding U+0000), as base64 beside its content type.
 */
export interface EncodedBody {
  encoding: 'base64';
  content_type: string | null;
  data: string;
}

export function encodedBody(bytes: Buffer, contentType: string | undefined): EncodedBody {
  return { encoding: 'base64', content_type: contentType ?? null, data: bytes.toString('base64') };
}

/** Whether a value is an {@link EncodedBody}: exactly its three members. */
export function isEncodedBody(value: unknown): value is EncodedBody {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    Object.keys(v).length === 3 &&
    v.encoding === 'base64' &&
    typeof v.data === 'string' &&
    (typeof v.content_type === 'string' || v.content_type === null)
  );
}
