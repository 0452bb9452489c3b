export { createWorker, connectWorkerTemporal } from './createWorker';
export type { WorkerDeps } from './createWorker';
