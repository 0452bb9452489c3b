import type { Command } from 'commander';

/** Adds examples (shell lines, without the `$ `) to a command's help. */
export function examples(cmd: Command, ...lines: string[]): Command {
  cmd.addHelpText('after', `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
  return cmd;
}
