import type { Command } from 'commander';
import { completeLine } from './completion/candidates';
import { buildProgram } from './program';

// No command runs here: the context factory would throw.
const program = buildProgram(() => {
  throw new Error('no command runs in this test');
});

function allCommands(cmd: Command, path: string[] = []): [string, Command][] {
  return cmd.commands.flatMap((c) => [[[...path, c.name()].join(' '), c] as [string, Command], ...allCommands(c, [...path, c.name()])]);
}

function helpOf(cmd: Command): string {
  let out = '';
  cmd.configureOutput({ writeOut: (s) => (out += s) });
  cmd.outputHelp();
  return out;
}

describe('svc commands', () => {
  const commands = allCommands(program).filter(([name]) => !name.endsWith('help'));

  it('has the commands the product documents', () => {
    const names = commands.map(([name]) => name);
    for (const expected of [
      'runs start',
      'runs watch',
      'workflows validate',
      'workflows diff',
      'endpoints list',
      'endpoints create',
      'endpoints rotate',
      'endpoints disable',
      'completion',
    ]) {
      expect(names).toContain(expected);
    }
  });

  it.each(commands)('%s has a description and an example', (name, cmd) => {
    expect(cmd.description().length).toBeGreaterThan(10);
    const help = helpOf(cmd);
    expect(help).toMatch(/\nExamples?:\n {2}\$ /);
    // A leaf command's examples run that command.
    if (cmd.commands.length === 0) expect(help).toContain(`svc ${name}`);
  });

  it('the root has a description and examples too', () => {
    expect(program.description()).not.toBe('');
    expect(helpOf(program)).toContain('$ svc runs --help');
  });
});

describe('completion candidates', () => {
  const names = (line: string) => {
    const c = completeLine(program, line);
    return c.kind === 'files' ? 'files' : c.items.map((i) => i.name);
  };

  it('completes commands, subcommands, options, choices and files', () => {
    expect(names('svc ')).toEqual(expect.arrayContaining(['runs', 'workflows', 'endpoints', 'completion']));
    expect(names('svc ')).not.toContain('completion-server');
    expect(names('svc ru')).toEqual(['runs']);
    expect(names('svc runs ')).toEqual(['cancel', 'help', 'list', 'show', 'start', 'watch']);
    expect(names('svc runs list --st')).toEqual(['--status']);
    expect(names('svc runs list --j')).toEqual(['--json']);
    expect(names('svc runs list --status f')).toEqual(['failed']);
    expect(names('svc --json runs list --workspace ws_1 --status ')).toContain('waiting_for_review');
    expect(names('svc completion ')).toEqual(['bash', 'zsh', 'fish']);
    expect(names('svc workflows validate -f ')).toBe('files');
    expect(names('svc endpoints create --events ')).toEqual([]);
    expect(names('svc runs show run_1 ')).toEqual([]);
    expect(names('svc nope ')).toEqual([]);
  });
});
