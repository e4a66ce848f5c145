// `mnemo rewind`: delete everything of a save after a turn, every layer at once.
import type { Command } from 'commander';
import type { Output } from '../context.js';
import { parseInteger, withMemory } from '../context.js';

/** Registers `mnemo rewind <saveId> <turnId>`. */
export function registerRewind(program: Command, output: Output): void {
  program
    .command('rewind')
    .description('delete everything of a save from turns after <turnId>, every layer in one transaction; prints what went')
    .argument('<saveId>', 'the save')
    .argument('<turnId>', 'the turn to return to', parseInteger('turnId', 0))
    .option('--json', 'print JSON')
    .action(async (saveId: string, turnId: number, flags: { json?: boolean }, command: Command) => {
      const counts = await withMemory(command, (memory) => memory.rewindWithCounts(saveId, turnId));
      const removed = counts.chunks;
      if (flags.json) {
        output.out(JSON.stringify({ saveId, turnId, removed, living: counts.living }));
        return;
      }
      output.out(`rewound ${saveId} to turn ${turnId}: ${removed} chunk${removed === 1 ? '' : 's'} removed`);
      const { facts, beliefsDeleted, beliefsUpdated, modelsDeleted, modelsUpdated, jobsCancelled } = counts.living;
      if (facts + beliefsDeleted + beliefsUpdated + modelsDeleted + modelsUpdated + jobsCancelled > 0) {
        output.out(`  living: ${facts} facts removed, beliefs ${beliefsDeleted} removed and ${beliefsUpdated} rolled back, models ${modelsDeleted} removed and ${modelsUpdated} rolled back, ${jobsCancelled} queued jobs cancelled`);
      }
    });
}
