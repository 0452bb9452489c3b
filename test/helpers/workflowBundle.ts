import { bundleWorkflowCode } from '@temporalio/worker';

const quiet = { info() {}, debug() {}, trace() {}, warn() {}, error: console.error, log() {} };

/** Bundles workflow source as a worker runs it (the SDK's bundler compiles the TypeScript). */
export async function bundleWorkflows(workflowsPath: string): Promise<string> {
  return (await bundleWorkflowCode({ workflowsPath, logger: quiet })).code;
}
