import { startTracing } from '@svc/config';

/** Traces when the OTEL_* variables ask for them; imported first by main.ts, so its instrumentations see every module load. */
export const tracing = startTracing('svc-worker');
