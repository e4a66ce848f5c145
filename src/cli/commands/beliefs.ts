// `mnemo beliefs`: a save's beliefs with their trend, support and history.
import type { Command } from 'commander';
import type { BeliefView } from '../../living/living-memory.js';
import type { Output } from '../context.js';
import { parseInteger, withMemory } from '../context.js';

/** One belief for people: id, subject, trend, support, then its statement and flags. */
export function formatBelief(belief: BeliefView): string {
  const turns = belief.sources.map((source) => source.turnId);
  const span = turns.length === 0 ? 'no sources' : `turns ${Math.min(...turns)}-${Math.max(...turns)}`;
  const flags = [belief.stale ? 'stale: re-check' : '', belief.deletedTurnId !== null ? `deleted at turn ${belief.deletedTurnId}` : ''].filter(Boolean);
  return `#${belief.beliefId} [${belief.subject === '' ? 'the world' : belief.subject} · ${belief.trend} · ${belief.proofCount} fact${belief.proofCount === 1 ? '' : 's'}, ${span}] ${belief.statement}` +
    `${flags.length > 0 ? ` (${flags.join('; ')})` : ''}\n     created turn ${belief.createdTurnId}, updated turn ${belief.updatedTurnId}, ${belief.history.length} change${belief.history.length === 1 ? '' : 's'}`;
}

/** Registers `mnemo beliefs <saveId>`. */
export function registerBeliefs(program: Command, output: Output): void {
  program
    .command('beliefs')
    .description('list a save\'s beliefs, most recently updated first, with their trend')
    .argument('<saveId>', 'the save')
    .option('--subject <name>', 'only beliefs about this subject (case-insensitive; "" for the world)')
    .option('--max-turn <turnId>', 'only beliefs created at turns <= this', parseInteger('maxTurn', 0))
    .option('--now <turnId>', 'read trends at this turn (default: the save\'s latest)', parseInteger('now', 0))
    .option('--deleted', 'include beliefs a consolidation deleted')
    .option('--limit <n>', 'at most this many', parseInteger('limit', 1, 1000), 50)
    .option('--json', 'print JSON')
    .action(async (saveId: string, flags: { subject?: string; maxTurn?: number; now?: number; deleted?: boolean; limit: number; json?: boolean }, command: Command) => {
      const beliefs = await withMemory(command, (memory) => memory.living.beliefs(saveId, { subject: flags.subject, maxTurnId: flags.maxTurn, nowTurn: flags.now, includeDeleted: flags.deleted, limit: flags.limit }));
      if (flags.json) output.out(JSON.stringify(beliefs, null, 2));
      else output.out(beliefs.length === 0 ? 'no beliefs' : beliefs.map(formatBelief).join('\n'));
    });
}
