// `mnemo lore wipe`: empty the lore book, after confirmation (an import restores it).
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { MnemoError } from '../../core/errors.js';
import type { Output } from '../context.js';
import { globalOptions, withMemory } from '../context.js';

async function confirmed(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await prompt.question(question)).trim().toLowerCase() === 'yes';
  } finally {
    prompt.close();
  }
}

/** Registers `mnemo lore wipe [--yes]`. */
export function registerLoreWipe(lore: Command, output: Output): void {
  lore
    .command('wipe')
    .description('delete every lore entry (asks first; --yes to skip the question); an import restores them')
    .option('--yes', 'confirm without being asked')
    .option('--json', 'print JSON')
    .action(async (flags: { yes?: boolean; json?: boolean }, command: Command) => {
      const { db } = globalOptions(command);
      await withMemory(command, async (memory) => {
        const count = await memory.lore.count();
        if (count > 0 && flags.yes !== true) {
          if (!process.stdin.isTTY) {
            throw new MnemoError('CONFIRMATION_REQUIRED', `lore wipe: this would delete all ${count} lore entries of ${db}. Nothing was deleted; run it again with --yes to confirm.`, { details: { count } });
          }
          if (!(await confirmed(`Delete all ${count} lore entries of ${db}? Type "yes" to confirm: `))) {
            output.err('lore wipe: not confirmed; nothing was deleted.');
            process.exitCode = 1;
            return;
          }
        }
        const removed = await memory.lore.wipe();
        output.out(flags.json ? JSON.stringify({ removed }) : `lore book wiped: ${removed} entr${removed === 1 ? 'y' : 'ies'} deleted (run lore import to restore)`);
      });
    });
}
