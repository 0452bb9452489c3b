import { spawn } from 'node:child_process';

export interface ToolResult {
  /** The exit code; null when the process was killed (e.g. at the deadline). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they came, interleaved. */
  output: string;
}

/** Runs an outside tool (a generator, a compiler, a fuzzer) to its end, or kills it at the deadline; never throws on failure. */
export function runTool(
  command: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const result: ToolResult = { code: null, stdout: '', stderr: '', output: '' };
    child.stdout.on('data', (d: Buffer) => {
      result.stdout += d.toString();
      result.output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      result.stderr += d.toString();
      result.output += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ ...result, code });
    });
  });
}
