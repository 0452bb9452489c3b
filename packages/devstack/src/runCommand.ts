import { spawn } from 'node:child_process';
import { forEachLine, LineTail } from './log';

/** Runs a command to completion, keeping the last lines of its output to explain a failure. */
export function runCommand(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const tail = new LineTail(30);
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    forEachLine(child.stdout, (line) => tail.push(line));
    forEachLine(child.stderr, (line) => tail.push(line));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`\`${[command, ...args].join(' ')}\` ${signal ? `was killed by ${signal}` : `exited with code ${code}`}\n${tail}`),
        );
    });
  });
}
