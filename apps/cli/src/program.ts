import { Command } from 'commander';
import { registerDeliveries, registerMail } from './commands/deliveries';
import { registerKeys } from './commands/keys';
import { registerMembers } from './commands/members';
import { registerReviews } from './commands/reviews';
import { registerRuns } from './commands/runs';
import { registerSecrets } from './commands/secrets';
import { registerWorkflows } from './commands/workflows';
import { registerWorkspace } from './commands/workspace';
import { openContext } from './context';
import type { CliContext } from './context';
import { formatError, print } from './output';
import type { Run } from './run';

export function buildProgram(open: () => CliContext = () => openContext()): Command {
  const program = new Command('svc')
    .description('svc application CLI')
    .option('--json', 'print one JSON object on stdout')
    .showHelpAfterError();
  program.exitOverride();
  const run: Run = async (action, human) => {
    const opts = program.opts<{ json?: boolean }>();
    let ctx: CliContext | undefined;
    try {
      ctx = open();
      print(await action(ctx), opts, human);
    } catch (err) {
      process.stderr.write(formatError(err, opts) + '\n');
      process.exitCode = 1;
    } finally {
      await ctx?.close();
    }
  };
  registerWorkspace(program, run);
  registerKeys(program, run);
  registerMembers(program, run);
  registerWorkflows(program, run);
  registerSecrets(program, run);
  registerRuns(program, run);
  registerReviews(program, run);
  registerDeliveries(program, run);
  registerMail(program, run);
  return program;
}
