// `mnemo fork`: a new save holding exactly the state of another as of a turn.
import type { Command } from 'commander';
import type { Output } from '../context.js';
import { parseInteger, withMemory } from '../context.js';

/** Registers `mnemo fork <saveId> <newSaveId> <atTurn>`. */
export function registerFork(program: Command, output: Output): void {
  program
    .command('fork')
    .description('copy a save as of a turn into a new save (chunks, facts, beliefs, models, queued jobs); the original is untouched')
    .argument('<saveId>', 'the save to copy')
    .argument('<newSaveId>', 'the new save (must not exist)')
    .argument('<atTurn>', 'the last turn to copy', parseInteger('atTurn', 0))
    .option('--json', 'print JSON')
    .action(async (saveId: string, newSaveId: string, atTurn: number, flags: { json?: boolean }, command: Command) => {
      const counts = await withMemory(command, (memory) => memory.fork(saveId, newSaveId, atTurn));
      const { facts, beliefs, models, jobs } = counts.living;
      output.out(flags.json ? JSON.stringify({ saveId, newSaveId, atTurn, ...counts }) : `forked ${saveId} at turn ${atTurn} into ${newSaveId}: ${counts.chunks} chunks, ${facts} facts, ${beliefs} beliefs, ${models} models, ${jobs} jobs`);
    });
}
