// `mnemo living ...`: the living-memory queue and settings: status, run, record, retry, missions.
import { readFileSync } from 'node:fs';
import { SingleBar, Presets } from 'cli-progress';
import type { Command } from 'commander';
import { MnemoError } from '../../core/errors.js';
import { malformedMissionLines, missionsToText, parseMissionsText } from '../../living/missions.js';
import type { BeliefMissions } from '../../living/missions.js';
import type { LivingEvent } from '../../living/living-worker.js';
import type { Output } from '../context.js';
import { parseInteger, withMemory } from '../context.js';
import { addLlmOptions, llmFromFlags } from '../llm-options.js';
import type { LlmFlags } from '../llm-options.js';

/**
 * The missions of a --set or --file text, refused (nothing written) when a line is not "Name: mission" or when no
 * line is: replacing the missions with an empty set would wipe every one (that is --clear).
 */
function checkedMissions(text: string, field: string): BeliefMissions {
  const malformed = malformedMissionLines(text);
  if (malformed.length > 0) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected one "Name: mission" line per character, got ${malformed.length === 1 ? 'a line' : `${malformed.length} lines`} without a name, a colon and a mission: ${malformed.slice(0, 3).map((line) => JSON.stringify(line.trim())).join(', ')}. Nothing was changed. Write e.g. "Marta: remembers gossip".`, { details: { field } });
  }
  const missions = parseMissionsText(text);
  if (Object.keys(missions).length === 0) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected at least one "Name: mission" line, got none; nothing was changed. To remove every per-character mission, use --clear.`, { details: { field } });
  }
  return missions;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** Registers `mnemo living` and its subcommands. */
export function registerLiving(program: Command, output: Output): void {
  const living = program.command('living').description('living memory: facts, beliefs and mental models distilled in the background');

  living
    .command('status')
    .description('per save: facts, beliefs, models and queued jobs')
    .argument('[saveId]', 'one save (default: every save)')
    .option('--json', 'print JSON')
    .action(async (saveId: string | undefined, flags: { json?: boolean }, command: Command) => {
      const statuses = await withMemory(command, (memory) => memory.living.status(saveId));
      if (flags.json) {
        output.out(JSON.stringify(statuses, null, 2));
        return;
      }
      if (statuses.length === 0) output.out('no saves');
      for (const status of statuses) {
        const { pending, running, done, failed } = status.jobs;
        output.out(`${status.saveId}: ${plural(status.facts, 'fact')}, ${plural(status.beliefs, 'belief')}, ${plural(status.models, 'model')}; jobs ${pending} pending, ${running} running, ${done} done, ${failed} failed; latest turn ${status.latestTurnId ?? '-'}`);
      }
    });

  addLlmOptions(
    living
      .command('run')
      .description('run queued turns through extraction, consolidation and reflection, then exit')
      .option('--save <saveId>', 'only this save')
      .option('--max-facts <n>', 'most facts per turn (default 8)', parseInteger('maxFacts'))
      .option('--min-beliefs <n>', 'fewest beliefs a subject needs for a mental model (default 2)', parseInteger('minBeliefs'))
      .option('--json', 'print JSON'),
  ).action(async (flags: LlmFlags & { save?: string; maxFacts?: number; minBeliefs?: number; json?: boolean }, command: Command) => {
    const llm = llmFromFlags(flags);
    const counts = { committed: 0, failed: 0 };
    const failures: string[] = [];
    let bar: SingleBar | null = null;
    const onEvent = (event: LivingEvent) => {
      if (event.type === 'committed') counts.committed++;
      if (event.type === 'failed') {
        counts.failed++;
        failures.push(`turn ${event.turnId} of ${event.saveId}, ${event.stage}: ${event.error.code} ${event.error.message}`);
      }
      bar?.increment(event.type === 'committed' ? 1 : 0);
    };
    const jobs = await withMemory(command, async (memory) => {
      const pending = await memory.living.countJobs(flags.save);
      if (process.stderr.isTTY && !flags.json) {
        bar = new SingleBar({ format: 'living {bar} {value}/{total} stages', stream: process.stderr }, Presets.shades_classic);
        bar.start((pending.pending + pending.running) * 3, 0);
      }
      try {
        return await memory.living.runPending();
      } finally {
        (bar as SingleBar | null)?.stop();
      }
    }, { llm, living: { autoStart: false, saveId: flags.save, maxFacts: flags.maxFacts, minBeliefs: flags.minBeliefs, onEvent } });
    if (flags.json) output.out(JSON.stringify({ jobs, stagesCommitted: counts.committed, failures }, null, 2));
    else {
      output.out(`worked on ${plural(jobs, 'job')} with ${llm.provider}/${llm.modelId}: ${plural(counts.committed, 'stage')} committed, ${plural(counts.failed, 'failure')}`);
      for (const failure of failures) output.err(`  failed: ${failure}`);
    }
  });

  living
    .command('record')
    .description('queue a turn for distillation (its stored chunks are read when the job runs, unless text is given)')
    .argument('<saveId>', 'the save')
    .argument('<turnId>', 'the turn', parseInteger('turnId', 0))
    .argument('[text...]', 'the narrative to read instead of the stored chunks')
    .option('--known <names>', 'comma-separated names the extractor should reuse')
    .option('--when <hint>', 'when the scene happens, in the world\'s terms')
    .option('--json', 'print JSON')
    .action(async (saveId: string, turnId: number, words: string[], flags: { known?: string; when?: string; json?: boolean }, command: Command) => {
      const job = await withMemory(command, (memory) => memory.living.recordTurn({
        saveId,
        turnId,
        text: words.length > 0 ? words.join(' ') : undefined,
        knownEntities: flags.known?.split(',').map((name) => name.trim()).filter(Boolean),
        whenHint: flags.when,
      }));
      output.out(flags.json ? JSON.stringify(job) : `queued turn ${turnId} of ${saveId} (job ${job.jobId}, generation ${job.generation})`);
    });

  living
    .command('retry')
    .description('put failed jobs back in the queue')
    .argument('[saveId]', 'one save (default: every save)')
    .action(async (saveId: string | undefined, _flags: object, command: Command) => {
      const count = await withMemory(command, (memory) => memory.living.retryFailed(saveId));
      output.out(`requeued ${plural(count, 'failed job')}`);
    });

  living
    .command('missions')
    .description('show or set the world\'s mission and the per-character memory styles ("Name: mission" lines)')
    .option('--universe <mission>', 'set the world-wide default mission ("" clears it)')
    .option('--set <lines>', 'replace the per-character missions with these "Name: mission" lines')
    .option('--file <path>', 'replace the per-character missions with a file of "Name: mission" lines')
    .option('--clear', 'remove every per-character mission')
    .option('--json', 'print JSON')
    .action(async (flags: { universe?: string; set?: string; file?: string; clear?: boolean; json?: boolean }, command: Command) => {
      if ([flags.set, flags.file, flags.clear].filter((flag) => flag !== undefined).length > 1) throw new MnemoError('INVALID_INPUT', 'missions: expected one of --set, --file or --clear, got several. Pass one.');
      let text = flags.set;
      if (flags.file !== undefined) {
        try {
          text = readFileSync(flags.file, 'utf8');
        } catch (error) {
          throw new MnemoError('INVALID_INPUT', `--file: could not read ${flags.file} (${(error as Error).message}). Pass a text file of "Name: mission" lines.`, { details: { field: 'file' } });
        }
      }
      const replacement = flags.clear === true ? {} : text === undefined ? undefined : checkedMissions(text, flags.file === undefined ? '--set' : '--file');
      const { universe, missions } = await withMemory(command, async (memory) => {
        if (flags.universe !== undefined) await memory.living.setMission(flags.universe);
        if (replacement !== undefined) await memory.living.setMissions(replacement);
        return { universe: await memory.living.getMission(), missions: await memory.living.getMissions() };
      });
      if (flags.json) output.out(JSON.stringify({ universe, missions }, null, 2));
      else output.out(`universe: ${universe === '' ? '(none)' : universe}\n${Object.keys(missions).length === 0 ? '(no per-character missions)' : missionsToText(missions)}`);
    });
}
