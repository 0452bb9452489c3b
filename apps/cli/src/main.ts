import { CommanderError } from 'commander';
import { buildProgram } from './program';
import { EXIT } from './usage';

buildProgram()
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    // Commander already printed help, the version or the usage error; only the exit code is left.
    if (err instanceof CommanderError) process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    else {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exitCode = EXIT.failure;
    }
  });
