// `mnemo reindex`: re-embed everything with the chosen embedder, with a progress bar; resumable after interruption.
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { MnemoError } from '../../core/errors.js';
import { describeIdentity } from '../../embedders/embedder-identity.js';
import type { Output } from '../context.js';
import { cliLogger, embedderByName, globalOptions, openWithEmbedder, parseInteger } from '../context.js';

/** Registers `mnemo reindex`. */
export function registerReindex(program: Command, output: Output): void {
  program
    .command('reindex')
    .description('re-embed every chunk, remembered entry and lore entry with --embedder (needed after changing embedder); safe to interrupt and run again')
    .option('--batch <n>', 'texts per batch, each staged in one transaction', parseInteger('--batch'), 256)
    .option('--json', 'print JSON')
    .action(async (flags: { batch: number; json?: boolean }, command: Command) => {
      const { db, embedder: name, verbose } = globalOptions(command);
      if (flags.batch < 1) throw new MnemoError('INVALID_INPUT', `--batch: expected an integer >= 1, got ${flags.batch}.`, { details: { field: 'batch' } });
      const embedder = await embedderByName(name, cliLogger(verbose === true));
      if (embedder === null) throw new MnemoError('INVALID_INPUT', `--embedder: reindex needs an embedder to re-embed with, got ${JSON.stringify(name)} (no vectors). Pass --embedder static, minilm, hashing or openai.`, { details: { field: 'embedder' } });
      const memory = await openWithEmbedder(db, 'none'); // without an embedder: the store may hold another one's vectors
      const bar = new cliProgress.SingleBar({ stream: process.stderr, format: 'reindex [{bar}] {value}/{total} texts | {eta_formatted} left', hideCursor: true }, cliProgress.Presets.shades_classic);
      let started = false;
      try {
        const result = await memory.reindex(embedder, {
          batchSize: flags.batch,
          onProgress: ({ done, total }) => {
            if (!started) bar.start(total, done);
            started = true;
            bar.setTotal(total);
            bar.update(done);
          },
        });
        bar.stop();
        const target = describeIdentity(result.target);
        output.out(flags.json
          ? JSON.stringify({ db, embedder: result.target, embedded: result.embedded, resumed: result.resumed, total: result.total })
          : `reindexed ${result.total} text${result.total === 1 ? '' : 's'} (chunks, remembered and lore entries) with ${target}${result.resumed > 0 ? ` (${result.resumed} staged by an earlier run, resumed)` : ''}`);
      } catch (error) {
        bar.stop();
        if (error instanceof MnemoError) output.err(`reindex stopped; what was done is kept: run the same command again to resume.`);
        throw error;
      } finally {
        await memory.close();
      }
    });
}
