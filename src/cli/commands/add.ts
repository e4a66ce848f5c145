// `mnemo add`: store one chunk of text for a save and turn.
import type { Command } from 'commander';
import { MnemoError } from '../../core/errors.js';
import type { Metadata } from '../../core/types.js';
import type { Output } from '../context.js';
import { parseInteger, withMemory } from '../context.js';

/** Registers `mnemo add <saveId> <turnId> <text...>`. */
export function registerAdd(program: Command, output: Output): void {
  program
    .command('add')
    .description('store a chunk of text for a save and turn; prints its id')
    .argument('<saveId>', 'the save the text belongs to')
    .argument('<turnId>', 'the turn that produced it (integer >= 0)', parseInteger('turnId', 0))
    .argument('<text...>', 'the text')
    .option('--type <chunkType>', 'chunk type', 'narrative')
    .option('--entry-id <entryId>', 'the id of the record this chunk stands for')
    .option('--metadata <json>', 'extra metadata as a JSON object')
    .option('--json', 'print JSON')
    .action(async (saveId: string, turnId: number, words: string[], options: { type: string; entryId?: string; metadata?: string; json?: boolean }, command: Command) => {
      const metadata = options.metadata === undefined ? undefined : parseJsonObject(options.metadata);
      const id = await withMemory(command, (memory) => memory.add({ saveId, turnId, text: words.join(' '), chunkType: options.type, entryId: options.entryId, metadata }));
      output.out(options.json ? JSON.stringify({ id }) : id);
    });
}

function parseJsonObject(text: string): Metadata {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MnemoError('INVALID_INPUT', `--metadata: expected a JSON object such as '{"mood":"grim"}', got ${JSON.stringify(text)} (${(error as Error).message}).`, { details: { field: 'metadata' } });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new MnemoError('INVALID_INPUT', `--metadata: expected a JSON object such as '{"mood":"grim"}', got ${JSON.stringify(text)}.`, { details: { field: 'metadata' } });
  }
  return value as Metadata;
}
