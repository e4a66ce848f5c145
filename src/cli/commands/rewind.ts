// `mnemo rewind`: delete everything of a save after a turn.
import type { Command } from 'commander';
import type { Output } from '../context.js';
import { parseInteger, withMemory } from '../context.js';

/** Registers `mnemo rewind <saveId> <turnId>`. */
export function registerRewind(program: Command, output: Output): void {
  program
    .command('rewind')
    .description('delete every chunk of a save from turns after <turnId>; prints how many')
    .argument('<saveId>', 'the save')
    .argument('<turnId>', 'the turn to return to', parseInteger('turnId'))
    .option('--json', 'print JSON')
    .action(async (saveId: string, turnId: number, flags: { json?: boolean }, command: Command) => {
      const removed = await withMemory(command, (memory) => memory.rewind(saveId, turnId));
      output.out(flags.json ? JSON.stringify({ saveId, turnId, removed }) : `rewound ${saveId} to turn ${turnId}: ${removed} chunk${removed === 1 ? '' : 's'} removed`);
    });
}
