export { createWorkers, connectWorkerTemporal } from './createWorker';
export type { WorkerDeps, WorkerSet } from './createWorker';
