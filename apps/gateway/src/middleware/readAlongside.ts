import type { Request, RequestHandler, Response } from 'express';
import type { AlongsideRead } from '@svc/domain';

/**
 * Marks a route whose one read runs inside the API key check's statement (authenticate), so
 * the request makes one database round trip: mounted before `authenticate` for that route.
 */
export function readAlongside(make: (req: Request) => AlongsideRead<unknown>): RequestHandler {
  return (req, res, next) => {
    res.locals.alongside = { read: make(req) };
    next();
  };
}

/** The read marked by readAlongside, for authenticate to run. */
export function alongsideOf(res: Response): AlongsideRead<unknown> | undefined {
  return (res.locals.alongside as { read: AlongsideRead<unknown> } | undefined)?.read;
}

/** Keeps the value authenticate read. */
export function keepAlongside(res: Response, value: unknown): void {
  (res.locals.alongside as { value?: unknown }).value = value;
}

/** The route's answer from the read made with the key check; undefined when none was made. */
export function alongsideAnswer<T>(res: Response): T | undefined {
  const a = res.locals.alongside as { read: AlongsideRead<T>; value?: unknown } | undefined;
  return a && 'value' in a ? a.read.read(a.value) : undefined;
}
