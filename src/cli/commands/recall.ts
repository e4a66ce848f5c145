// `mnemo recall`: the best remembered entries for a query, in one scope or all, semantic or exact.
import type { Command } from 'commander';
import type { Output } from '../context.js';
import { parseInteger, withMemory } from '../context.js';
import { formatMemoryEntry } from '../format-memory-entry.js';

interface RecallFlags {
  scope?: string;
  k: number;
  exact?: boolean;
  json?: boolean;
}

/** Registers `mnemo recall <query...> [--scope S] [--k N] [--exact] [--json]`. */
export function registerRecall(program: Command, output: Output): void {
  program
    .command('recall')
    .description('find remembered values by meaning and words (or by substring with --exact)')
    .argument('<query...>', 'what to recall')
    .option('--scope <scope>', 'only this scope (default: every scope)')
    .option('-k, --k <k>', 'number of entries', parseInteger('k'), 5)
    .option('--exact', "the seed's substring scoring: 1.0 key equals, 0.7 key contains, 0.4 value contains")
    .option('--json', 'print JSON')
    .action(async (words: string[], flags: RecallFlags, command: Command) => {
      const entries = await withMemory(command, (memory) => memory.recall.persistent[flags.exact ? 'exact' : 'semantic'].retrieve(words.join(' '), flags.k, flags.scope));
      if (flags.json) output.out(JSON.stringify(entries, null, 2));
      else output.out(entries.length === 0 ? 'nothing recalled' : entries.map((entry, index) => formatMemoryEntry(entry, index + 1)).join('\n'));
    });
}
