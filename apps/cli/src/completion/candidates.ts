import type { Command, Option } from 'commander';

export interface Candidate {
  name: string;
  description?: string;
}

/** What to offer for the word at the cursor: these candidates, or the shell's own file names. */
export type Completion = { kind: 'candidates'; items: Candidate[] } | { kind: 'files' };

/** Options that take a path, completed with the shell's file names. */
const PATH_OPTIONS = new Set(['--file']);

function visibleCommands(cmd: Command): Command[] {
  return cmd.createHelp().visibleCommands(cmd);
}

/** The options valid at `cmd`: its own and those of the commands above it (e.g. `--json`), each once. */
function optionsAt(cmd: Command): Option[] {
  const byFlag = new Map<string, Option>();
  for (let c: Command | null = cmd; c; c = c.parent) {
    for (const o of c.createHelp().visibleOptions(c)) if (!byFlag.has(o.flags)) byFlag.set(o.flags, o);
  }
  return [...byFlag.values()];
}

function findOption(cmd: Command, flag: string): Option | undefined {
  return optionsAt(cmd).find((o) => o.long === flag || o.short === flag);
}

/**
 * Completes the word at the end of `typed` (the command line up to the cursor, program name
 * first) from the program's own commands, options and choices, as Commander parses them.
 */
export function completeLine(program: Command, typed: string): Completion {
  const words = typed.trimStart().split(/\s+/);
  const current = words.pop() ?? '';
  let cmd = program;
  let positionals = 0;
  let valueFor: Option | undefined;
  let operandsOnly = false;
  for (const word of words.slice(1)) {
    if (valueFor) {
      valueFor = undefined;
    } else if (!operandsOnly && word === '--') {
      operandsOnly = true;
    } else if (!operandsOnly && word.startsWith('-')) {
      const option = word.includes('=') ? undefined : findOption(cmd, word);
      if (option?.required) valueFor = option;
    } else {
      const sub = visibleCommands(cmd).find((c) => c.name() === word || c.aliases().includes(word));
      if (sub && positionals === 0) cmd = sub;
      else positionals++;
    }
  }

  const matching = (items: Candidate[]): Completion => ({ kind: 'candidates', items: items.filter((i) => i.name.startsWith(current)) });
  if (valueFor) {
    if (valueFor.argChoices) return matching(valueFor.argChoices.map((name) => ({ name })));
    return valueFor.long && PATH_OPTIONS.has(valueFor.long) ? { kind: 'files' } : matching([]);
  }
  if (current.startsWith('-') && !operandsOnly) {
    return matching(optionsAt(cmd).flatMap((o) => (o.long ? [{ name: o.long, description: o.description }] : [])));
  }
  const subcommands = positionals === 0 ? visibleCommands(cmd) : [];
  if (subcommands.length > 0) return matching(subcommands.map((c) => ({ name: c.name(), description: c.summary() || c.description() })));
  const choices = cmd.registeredArguments[positionals]?.argChoices;
  return matching((choices ?? []).map((name) => ({ name })));
}
