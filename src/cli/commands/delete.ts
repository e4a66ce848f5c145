// `mnemo delete`: remove a save, every layer at once, or some of its chunks (--chunk, --entry-id), after --yes.
import type { Command } from 'commander';
import { MnemoError } from '../../core/errors.js';
import type { Output } from '../context.js';
import { withMemory } from '../context.js';

interface DeleteFlags {
  yes?: boolean;
  json?: boolean;
  chunk?: string[];
  entryId?: string;
}

/** Registers `mnemo delete <saveId> [--chunk ID ... | --entry-id ENTRY] --yes [--json]`. */
export function registerDelete(program: Command, output: Output): void {
  program
    .command('delete')
    .description('remove a save, every layer in one transaction (chunks, vectors, synced lore chunks, facts, beliefs, models, jobs, its index), or only some of its chunks (--chunk, --entry-id); needs --yes')
    .argument('<saveId>', 'the save')
    .option('--chunk <id...>', 'delete only these chunks (ids from query --json or a listing); facts, beliefs and models stay')
    .option('--entry-id <entryId>', 'delete only the chunks added with this entryId; facts, beliefs and models stay')
    .option('--yes', 'confirm: without it nothing is deleted')
    .option('--json', 'print JSON')
    .action(async (saveId: string, flags: DeleteFlags, command: Command) => {
      if (flags.chunk !== undefined || flags.entryId !== undefined) return deleteChunks(saveId, flags, command, output);
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

/** `mnemo delete SAVE --chunk ID ... | --entry-id ENTRY --yes`: the library checks the selection (exactly one of the two). */
async function deleteChunks(saveId: string, flags: DeleteFlags, command: Command, output: Output): Promise<void> {
  const what = flags.entryId !== undefined ? `the chunks of entry ${JSON.stringify(flags.entryId)}` : `${flags.chunk?.length ?? 0} chunk id(s)`;
  const counts = await withMemory(command, async (memory) => {
    if (flags.yes !== true) throw new MnemoError('CONFIRMATION_REQUIRED', `delete: this would remove ${what} of save ${JSON.stringify(saveId)}. Nothing was deleted; run it again with --yes.`, { details: { saveId } });
    return memory.deleteChunks({ saveId, ids: flags.chunk, entryId: flags.entryId } as { saveId: string; ids: string[] });
  });
  output.out(flags.json ? JSON.stringify({ saveId, ...counts }) : `deleted ${counts.chunks} chunks of ${saveId}`);
}
