import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { registerCompletion } from './completion/commands';
import { registerDeliveries, registerMail } from './commands/deliveries';
import { registerEndpoints } from './commands/endpoints';
import { registerKeys } from './commands/keys';
import { registerMembers } from './commands/members';
import { registerReviews } from './commands/reviews';
import { registerRuns } from './commands/runs';
import { registerSecrets } from './commands/secrets';
import { registerWorkflows } from './commands/workflows';
import { registerWorkspace } from './commands/workspace';
import { openContext } from './context';
import type { CliContext } from './context';
import { examples } from './help';
import { formatError, print } from './output';
import type { Run } from './run';
import { EXIT } from './usage';

/** The CLI package's version (`svc --version`). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The `svc` program. `argv` only decides how usage errors are shown (as JSON with `--json`),
 * since they happen before the options are parsed.
 */
export function buildProgram(open: () => CliContext = () => openContext(), argv: readonly string[] = process.argv): Command {
  const jsonErrors = argv.includes('--json');
  const program = new Command('svc')
    .description('Operate svc: workspaces, keys, workflows, runs, reviews and webhooks, on the same database and Temporal as the stack')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--json', 'print one JSON object on stdout (errors as JSON on stderr)')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: true })
    .configureOutput({
      outputError: (text, write) =>
        write(jsonErrors ? JSON.stringify({ error: { code: 'usage', message: text.replace(/^error: /, '').trim() } }) + '\n' : text),
    })
    .showHelpAfterError(jsonErrors ? false : '(add --help for usage and examples)');
  program.exitOverride();
  examples(program, 'svc --help', 'svc runs --help', 'svc completion bash > ~/.local/share/bash-completion/completions/svc');

  const run: Run = async (action, human, exitCodeOf) => {
    const opts = program.opts<{ json?: boolean }>();
    let ctx: CliContext | undefined;
    try {
      ctx = open();
      const value = await action(ctx);
      print(value, opts, human);
      process.exitCode = exitCodeOf ? exitCodeOf(value) : EXIT.ok;
    } catch (err) {
      process.stderr.write(formatError(err, opts) + '\n');
      process.exitCode = EXIT.failure;
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
  registerEndpoints(program, run);
  registerDeliveries(program, run);
  registerMail(program, run);
  registerCompletion(program);
  return program;
}
