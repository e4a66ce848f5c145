// `mnemo facts`: a save's facts, most recent first.
import type { Command } from 'commander';
import type { Output } from '../context.js';
import { parseInteger, withMemory } from '../context.js';

/** Registers `mnemo facts <saveId>`. */
export function registerFacts(program: Command, output: Output): void {
  program
    .command('facts')
    .description('list the facts living memory extracted from a save, most recent first')
    .argument('<saveId>', 'the save')
    .option('--entity <name>', 'only facts naming this entity (case-insensitive)')
    .option('--max-turn <turnId>', 'only turns <= this', parseInteger('maxTurn', 0))
    .option('--limit <n>', 'at most this many', parseInteger('limit', 1, 1000), 50)
    .option('--json', 'print JSON')
    .action(async (saveId: string, flags: { entity?: string; maxTurn?: number; limit: number; json?: boolean }, command: Command) => {
      const facts = await withMemory(command, (memory) => memory.living.facts(saveId, { entity: flags.entity, maxTurnId: flags.maxTurn, limit: flags.limit }));
      if (flags.json) {
        output.out(JSON.stringify(facts, null, 2));
        return;
      }
      if (facts.length === 0) output.out('no facts');
      for (const fact of facts) {
        const parts = [fact.who && `who: ${fact.who}`, fact.where && `where: ${fact.where}`, fact.when && `when: ${fact.when}`, fact.why && `why: ${fact.why}`].filter(Boolean);
        output.out(`#${fact.factId} [turn ${fact.turnId} · ${fact.factType}] ${fact.statement}${parts.length > 0 ? `\n     ${parts.join('; ')}` : ''}${fact.entities.length > 0 ? `\n     entities: ${fact.entities.join(', ')}` : ''}`);
      }
    });
}
