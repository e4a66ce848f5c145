// `mnemo query`: hybrid search of one save, printing each hit with why it ranked.
import type { Command } from 'commander';
import type { Output } from '../context.js';
import { parseInteger, withMemory } from '../context.js';
import { formatHit } from '../format-hit.js';
import { parseWhere, WHERE_FLAG_HELP } from '../parse-where.js';

interface QueryFlags {
  k: number;
  maxTurn?: number;
  currentTurn?: number;
  focus?: string;
  type?: string;
  excludeType?: string;
  includeLore?: boolean;
  where?: string[];
  json?: boolean;
}

/** Registers `mnemo query <saveId> <text...>`. */
export function registerQuery(program: Command, output: Output): void {
  program
    .command('query')
    .description('search a save by meaning and by words; shows why each hit ranked')
    .argument('<saveId>', 'the save to search')
    .argument('<text...>', 'the query')
    .option('-k, --k <k>', 'number of hits', parseInteger('k', 1), 5)
    .option('--max-turn <turnId>', 'only turns <= this', parseInteger('maxTurn', 0))
    .option('--current-turn <turnId>', 'the present turn: only turns <= this', parseInteger('currentTurn', 0))
    .option('--focus <terms>', 'comma-separated focus terms (place, characters on scene)')
    .option('--type <chunkType>', 'only this chunk type')
    .option('--exclude-type <chunkType>', 'never this chunk type')
    .option('--include-lore', "let the save's lore chunks rank too (left out by default; --type lore searches only them)")
    .option('--where <condition...>', `metadata conditions, all must hold: ${WHERE_FLAG_HELP}`)
    .option('--json', 'print JSON')
    .action(async (saveId: string, words: string[], flags: QueryFlags, command: Command) => {
      let chunks = 0;
      const hits = await withMemory(command, async (memory) => {
        chunks = await memory.count(saveId);
        return memory.query(saveId, words.join(' '), {
          k: flags.k,
          maxTurnId: flags.maxTurn,
          currentTurnId: flags.currentTurn,
          focusTerms: flags.focus?.split(',').map((term) => term.trim()).filter(Boolean),
          chunkType: flags.type,
          excludeChunkType: flags.excludeType,
          includeLore: flags.includeLore,
          where: parseWhere(flags.where),
        });
      });
      if (flags.json) output.out(JSON.stringify(hits, null, 2));
      else if (chunks === 0) output.out(`no hits: save ${JSON.stringify(saveId)} holds no chunks (mnemo stats lists the saves)`);
      else output.out(hits.length === 0 ? 'no hits' : hits.map((hit, index) => formatHit(hit, index + 1)).join('\n'));
      if (flags.json && chunks === 0) output.err(`save ${JSON.stringify(saveId)} holds no chunks (mnemo stats lists the saves)`);
    });
}
