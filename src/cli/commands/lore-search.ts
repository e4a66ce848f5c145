// `mnemo lore search`: search the lore book as a character with given tags, showing why each entry ranked.
import type { Command } from 'commander';
import type { LoreHit } from '../../lore/lore-book.js';
import type { Output } from '../context.js';
import { parseInteger, withMemory } from '../context.js';
import { formatScore } from '../format-hit.js';
import { parseTags } from '../parse-tags.js';
import { parseWhere, WHERE_FLAG_HELP } from '../parse-where.js';

/** A lore hit for people: rank, scope, title, source and metadata, the content, then why it ranked. */
export function formatLoreHit(hit: LoreHit, rank: number): string {
  const scope = hit.scopeTags.length === 0 ? hit.scopeLevel : `${hit.scopeLevel}: ${hit.scopeTags.join(', ')}`;
  const metadata = Object.keys(hit.metadata).length === 0 ? '' : ` ${JSON.stringify(hit.metadata)}`;
  return [`${rank}. [${scope}] ${hit.title} (${hit.source})${metadata}`, `   ${hit.content.replace(/\s+/g, ' ').trim()}`, ...formatScore(hit.score, hit.explanation)].join('\n');
}

/** Registers `mnemo lore search <query...> --tags a,b [-k N] [--where CONDITION...]`. */
export function registerLoreSearch(lore: Command, output: Output): void {
  lore
    .command('search')
    .description('search the lore a character may know (continental, plus entries whose every tag it holds)')
    .argument('<query...>', 'the question')
    .option('--tags <tags>', "the character's lore tags, comma-separated (zone, district, faction); none = continental only", parseTags, [])
    .option('--all', 'ignore scope and search every entry (for authors)')
    .option('-k, --k <k>', 'number of hits', parseInteger('k'), 5)
    .option('--where <condition...>', `conditions on the entries' metadata, all must hold: ${WHERE_FLAG_HELP}`)
    .option('--json', 'print JSON')
    .action(async (words: string[], flags: { tags: string[]; all?: boolean; k: number; where?: string[]; json?: boolean }, command: Command) => {
      const hits = await withMemory(command, (memory) => memory.lore.search(words.join(' '), { tags: flags.tags, ignoreScope: flags.all === true, k: flags.k, where: parseWhere(flags.where) }));
      if (flags.json) output.out(JSON.stringify(hits, null, 2));
      else output.out(hits.length === 0 ? 'no lore this character knows matches' : hits.map((hit, index) => formatLoreHit(hit, index + 1)).join('\n'));
    });
}
