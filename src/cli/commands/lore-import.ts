// `mnemo lore import`: validate a lore repository and bring the book in line with it (or, with --dry-run, say what would change).
import { existsSync } from 'node:fs';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import type { LoreImportReport } from '../../lore/lore-book.js';
import type { LoreChangeSummary } from '../../lore/plan-lore-import.js';
import type { Mnemo } from '../../open-memory.js';
import { isPostgresUrl } from '../../stores/postgres/identifiers.js';
import type { Output } from '../context.js';
import { globalOptions, openWithEmbedder } from '../context.js';

const SHOWN = 50;

function changeLines(mark: string, changes: readonly (LoreChangeSummary & { changes?: readonly string[] })[]): string[] {
  const lines = changes.slice(0, SHOWN).map((change) => `  ${mark} ${change.source}: ${change.title} (${change.changes?.join(', ') ?? change.scopeLevel})`);
  if (changes.length > SHOWN) lines.push(`  ${mark} ... and ${changes.length - SHOWN} more`);
  return lines;
}

/** The report for people: one summary line, then each change (+ created, ~ updated with what changed, - removed). */
export function formatImportReport(report: LoreImportReport): string {
  const counts = `${report.created.length} created, ${report.updated.length} updated, ${report.unchanged} unchanged, ${report.removed.length} removed`;
  const head = report.dryRun
    ? `Dry run: ${report.entries} entries in ${report.files.length} files are valid; the import would give ${counts}. Nothing was written or embedded.`
    : `Imported ${report.entries} entries from ${report.files.length} files: ${counts}; ${report.embedded} embedded; ${report.written ? `lore book now at version ${report.version}` : 'nothing to write, the book was already in line'}.`;
  return [head, ...changeLines('+', report.created), ...changeLines('~', report.updated), ...changeLines('-', report.removed)].join('\n');
}

/**
 * Opens Mnemo for an import. A dry run against a SQLite file that does not exist plans against an empty book in
 * memory, so it creates no file (a dry run writes nothing, not even a schema).
 */
async function openForImport(command: Command, dryRun: boolean): Promise<Mnemo> {
  const { db, embedder } = globalOptions(command);
  const absent = dryRun && db !== ':memory:' && !isPostgresUrl(db) && !existsSync(db);
  return openWithEmbedder(absent ? ':memory:' : db, embedder);
}

/** Registers `mnemo lore import <dir> [--dry-run]`. */
export function registerLoreImport(lore: Command, output: Output): void {
  lore
    .command('import')
    .description('validate a lore repository (index.yaml + content files) and bring the book in line with it')
    .argument('<dir>', 'the repository folder, holding index.yaml')
    .option('--dry-run', 'validate and report what would change; write and embed nothing')
    .option('--json', 'print the report as JSON')
    .action(async (directory: string, flags: { dryRun?: boolean; json?: boolean }, command: Command) => {
      let bar: SingleBar | null = null;
      const memory = await openForImport(command, flags.dryRun === true);
      const report = await (async () => {
        try {
          return await memory.lore.importRepository(directory, {
            dryRun: flags.dryRun === true,
            onProgress: (done, total) => {
              if (bar === null && total > 0) {
                bar = new SingleBar({ stream: process.stderr, format: 'embedding lore [{bar}] {value}/{total} entries', hideCursor: true, clearOnComplete: true });
                bar.start(total, done);
              }
              bar?.update(done);
            },
          });
        } finally {
          (bar as SingleBar | null)?.stop();
          await memory.close();
        }
      })();
      output.out(flags.json ? JSON.stringify(report, null, 2) : formatImportReport(report));
    });
}
