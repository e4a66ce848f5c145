// `mnemo lore list`: the entries of the lore book, optionally only those a character may know.
import type { Command } from 'commander';
import type { Output } from '../context.js';
import { withMemory } from '../context.js';
import { parseTags } from '../parse-tags.js';

/** Registers `mnemo lore list [--tags a,b] [--source S] [--json]`. */
export function registerLoreList(lore: Command, output: Output): void {
  lore
    .command('list')
    .description('list the lore entries by source and title')
    .option('--tags <tags>', 'only the entries a character holding these tags may know', parseTags)
    .option('--source <source>', 'only the entries of this source')
    .option('--json', 'print JSON')
    .action(async (flags: { tags?: string[]; source?: string; json?: boolean }, command: Command) => {
      const entries = await withMemory(command, (memory) => memory.lore.list({ tags: flags.tags, source: flags.source }));
      if (flags.json) {
        output.out(JSON.stringify(entries, null, 2));
        return;
      }
      if (entries.length === 0) {
        output.out('the lore book holds no matching entries');
        return;
      }
      for (const entry of entries) {
        const metadata = Object.keys(entry.metadata).length === 0 ? '' : ` ${JSON.stringify(entry.metadata)}`;
        output.out(`${entry.source}: ${entry.title} [${entry.scopeLevel}${entry.scopeTags.length > 0 ? `: ${entry.scopeTags.join(', ')}` : ''}]${metadata}`);
      }
      output.out(`${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}`);
    });
}
