import type { Request } from 'express';
import { AppError, declaredLengthExceeds } from '@svc/domain';

export function payloadTooLarge(limit: number): AppError {
  // `Connection: close`: the rest of an oversized body is never read, so the connection
  // cannot carry another request.
  return new AppError('payload_too_large', `The request body is larger than ${limit} bytes`, { headers: { Connection: 'close' } });
}

/**
 * Reads the body exactly as sent (the signature covers these bytes), refusing with 413 as
 * early as possible: from `Content-Length` before reading anything, and, for a chunked
 * body, as soon as the bytes received pass the limit (reading stops there). A body of
 * exactly `limit` bytes is accepted. No decompression, no decoding.
 */
export function readBodyLimited(req: Request, limit: number): Promise<Buffer> {
  if (declaredLengthExceeds(req.headers['content-length'], limit)) return Promise.reject(payloadTooLarge(limit));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (err: AppError | null) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        settle(payloadTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => settle(null);
    const incomplete = () => new AppError('invalid_request', 'The request body was not received completely');
    const onError = () => settle(incomplete());
    const onClose = () => settle(req.readableEnded ? null : incomplete());
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
