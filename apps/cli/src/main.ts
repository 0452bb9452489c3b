import { CommanderError } from 'commander';
import { buildProgram } from './program';

buildProgram()
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    // Commander already printed usage errors; only the exit code is left to set.
    if (err instanceof CommanderError) process.exitCode = err.exitCode;
    else {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  });
