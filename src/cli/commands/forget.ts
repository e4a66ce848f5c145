// `mnemo forget`: remove every remembered entry of a scope, or all of them, only when confirmed with --yes.
import type { Command } from 'commander';
import { MnemoError } from '../../core/errors.js';
import type { Output } from '../context.js';
import { withMemory } from '../context.js';

const entries = (count: number) => `${count} entr${count === 1 ? 'y' : 'ies'}`;

/** Registers `mnemo forget [--scope S] [--yes]`. */
export function registerForget(program: Command, output: Output): void {
  program
    .command('forget')
    .description('remove the remembered entries of a scope (or of every scope); asks for --yes')
    .option('--scope <scope>', 'only this scope (default: every scope)')
    .option('--yes', 'really remove them')
    .option('--json', 'print JSON')
    .action(async (flags: { scope?: string; yes?: boolean; json?: boolean }, command: Command) => {
      const where = flags.scope === undefined ? 'every scope' : `scope ${flags.scope}`;
      const removed = await withMemory(command, async (memory) => {
        const count = await memory.recall.count(flags.scope);
        if (count > 0 && !flags.yes) {
          throw new MnemoError('CONFIRMATION_REQUIRED', `forget: this would remove ${entries(count)} from ${where}. Nothing was removed; run it again with --yes to remove them.`, {
            details: { scope: flags.scope ?? null, count },
          });
        }
        return memory.recall.clear(flags.scope);
      });
      output.out(flags.json ? JSON.stringify({ scope: flags.scope ?? null, removed }) : `forgot ${entries(removed)} from ${where}`);
    });
}
