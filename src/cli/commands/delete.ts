// `mnemo delete`: remove a save, every layer at once, after --yes.
import type { Command } from 'commander';
import { MnemoError } from '../../core/errors.js';
import type { Output } from '../context.js';
import { withMemory } from '../context.js';

/** Registers `mnemo delete <saveId> --yes [--json]`. */
export function registerDelete(program: Command, output: Output): void {
  program
    .command('delete')
    .description('remove a save, every layer in one transaction (chunks, vectors, synced lore chunks, facts, beliefs, models, jobs, its index); needs --yes')
    .argument('<saveId>', 'the save')
    .option('--yes', 'confirm: without it nothing is deleted')
    .option('--json', 'print JSON')
    .action(async (saveId: string, flags: { yes?: boolean; json?: boolean }, command: Command) => {
      const counts = await withMemory(command, async (memory) => {
        if (flags.yes !== true) {
          const chunks = await memory.count(saveId);
          throw new MnemoError('CONFIRMATION_REQUIRED', `delete: this would remove save ${JSON.stringify(saveId)} (${chunks} chunks and its facts, beliefs and models). Nothing was deleted; run it again with --yes (mnemo export keeps a copy first).`, { details: { saveId, chunks } });
        }
        return memory.deleteSave(saveId);
      });
      const { facts, beliefs, models, jobs } = counts.living;
      output.out(flags.json ? JSON.stringify({ saveId, ...counts }) : `deleted ${saveId}: ${counts.chunks} chunks, ${facts} facts, ${beliefs} beliefs, ${models} models, ${jobs} jobs`);
    });
}
