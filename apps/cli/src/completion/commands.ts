import { Argument } from 'commander';
import type { Command } from 'commander';
import { examples } from '../help';
import { completeLine } from './candidates';

// Loaded only by these commands: every other command starts without it.
const loadTabtab = () => import('@pnpm/tabtab');

export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;

/**
 * `svc completion <shell>` prints a script that completes `svc` in that shell; the script asks
 * `svc completion-server` (hidden) for the candidates of the line being typed.
 */
export function registerCompletion(program: Command): void {
  const completion = program
    .command('completion')
    .description('Print a shell completion script for svc (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell').choices(COMPLETION_SHELLS))
    .action(async (shell: (typeof COMPLETION_SHELLS)[number]) => {
      const tabtab = await loadTabtab();
      const script = await tabtab.getCompletionScript({ name: program.name(), completer: program.name(), shell });
      process.stdout.write(program.opts<{ json?: boolean }>().json ? JSON.stringify({ shell, script }) + '\n' : script);
    });
  examples(
    completion,
    'svc completion bash > ~/.local/share/bash-completion/completions/svc',
    'svc completion zsh > "${fpath[1]}/_svc"',
    'svc completion fish > ~/.config/fish/completions/svc.fish',
  );

  const server = program
    .command('completion-server', { hidden: true })
    .description('Answer a completion script: the candidates for the line in COMP_LINE up to COMP_POINT')
    .argument('[words...]', 'the words of the line (the line itself is read from COMP_LINE)')
    .action(async () => {
      const tabtab = await loadTabtab();
      const env = tabtab.parseEnv(process.env);
      const shell = tabtab.getShellFromEnv(process.env);
      const completion = completeLine(program, env.partial);
      // bash's script falls back to its own file-name completion when given nothing.
      if (completion.kind === 'files') {
        if (shell !== 'bash') tabtab.logFiles();
      } else tabtab.log(completion.items, shell);
    });
  examples(server, 'COMP_LINE="svc ru" COMP_POINT=6 COMP_CWORD=1 SHELL=bash svc completion-server -- svc ru');
}
