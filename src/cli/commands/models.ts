// `mnemo models`: a save's mental models, one profile per subject.
import type { Command } from 'commander';
import type { Output } from '../context.js';
import { withMemory } from '../context.js';

/** Registers `mnemo models <saveId>`. */
export function registerModels(program: Command, output: Output): void {
  program
    .command('models')
    .description('list a save\'s mental models (one profile per subject), most recently updated first')
    .argument('<saveId>', 'the save')
    .option('--subject <name>', 'only this subject\'s model (case-insensitive; "" for the world)')
    .option('--json', 'print JSON')
    .action(async (saveId: string, flags: { subject?: string; json?: boolean }, command: Command) => {
      const models = await withMemory(command, (memory) => memory.living.models(saveId, { subject: flags.subject }));
      if (flags.json) {
        output.out(JSON.stringify(models, null, 2));
        return;
      }
      if (models.length === 0) output.out('no models');
      for (const model of models) {
        output.out(`${model.subject === '' ? 'the world' : model.subject} (turns ${model.createdTurnId}-${model.updatedTurnId}, from ${model.sources.length} belief${model.sources.length === 1 ? '' : 's'}${model.stale ? '; stale, refreshed on the next pass' : ''})\n  ${model.summary}`);
      }
    });
}
