// `mnemo lore import`: validate a lore repository (a folder or a git ref) and bring the book in line with it (or, with --dry-run, say what would change).
import { existsSync } from 'node:fs';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import type { LoreImportReport } from '../../lore/lore-book.js';
import type { LoreChangeSummary } from '../../lore/plan-lore-import.js';
import type { Mnemo } from '../../open-memory.js';
import { isPostgresUrl } from '../../stores/postgres/identifiers.js';
import { MnemoError } from '../../core/errors.js';
import type { LoreRepository } from '../../lore/sources/lore-source-of.js';
import type { Output } from '../context.js';
import { globalOptions, openWithEmbedder, parseInteger } from '../context.js';
import { formatOrigin } from './lore-status.js';

const SHOWN = 50;

function changeLines(mark: string, changes: readonly (LoreChangeSummary & { changes?: readonly string[] })[]): string[] {
  const lines = changes.slice(0, SHOWN).map((change) => `  ${mark} ${change.source}: ${change.title} (${change.changes?.join(', ') ?? change.scopeLevel})`);
  if (changes.length > SHOWN) lines.push(`  ${mark} ... and ${changes.length - SHOWN} more`);
  return lines;
}

/** The commit range a git import brings in (`live -> new`), or where a folder import read. */
function sourceLine(report: LoreImportReport): string {
  const { origin, previous } = report;
  if (origin.reader !== 'git') return `Source: ${formatOrigin(origin)}.`;
  const live = previous?.reader === 'git' && previous.location === origin.location ? (previous.commit ?? 'none') : 'none from this repository';
  return `Source: git ${origin.location ?? '?'} at ${origin.ref ?? 'HEAD'}; commits ${live} -> ${origin.commit ?? '?'}.`;
}

/** The report for people: one summary line, the source (with the commit range), then each change (+ created, ~ updated with what changed, - removed). */
export function formatImportReport(report: LoreImportReport): string {
  const counts = `${report.created.length} created, ${report.updated.length} updated, ${report.unchanged} unchanged, ${report.removed.length} removed`;
  const head = report.dryRun
    ? `Dry run: ${report.entries} entries in ${report.files.length} files are valid; the import would give ${counts}. Nothing was written or embedded.`
    : `Imported ${report.entries} entries from ${report.files.length} files: ${counts}; ${report.embedded} embedded; ${report.written ? `lore book now at version ${report.version}` : 'nothing to write, the book was already in line'}.`;
  return [head, sourceLine(report), ...changeLines('+', report.created), ...changeLines('~', report.updated), ...changeLines('-', report.removed)].join('\n');
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

interface ImportFlags {
  dryRun?: boolean;
  json?: boolean;
  git?: string;
  ref?: string;
  gitCache?: string;
  gitTimeout?: number;
}

/**
 * The repository the arguments name: a folder, or a git repository from --git (else MNEMO_LORE_GIT_URL) at
 * --ref (else MNEMO_LORE_GIT_REF, else the remote's HEAD). Read when called, not at import.
 */
export function repositoryFromFlags(directory: string | undefined, flags: ImportFlags, environment: NodeJS.ProcessEnv = process.env): LoreRepository {
  const url = flags.git ?? (directory === undefined ? environment.MNEMO_LORE_GIT_URL || undefined : undefined);
  if (directory !== undefined && flags.git !== undefined) {
    throw new MnemoError('INVALID_INPUT', 'lore import: expected a folder or --git <url>, got both. Pass one.', { details: { field: 'git' } });
  }
  if (url === undefined) {
    if (directory === undefined) throw new MnemoError('INVALID_INPUT', 'lore import: expected a repository folder, or --git <url> (or MNEMO_LORE_GIT_URL), got neither.', { details: { field: 'dir' } });
    if (flags.ref !== undefined) throw new MnemoError('INVALID_INPUT', '--ref: a ref is for a git repository (--git <url>); a folder is read as it stands.', { details: { field: 'ref' } });
    return directory;
  }
  const ref = flags.ref ?? (environment.MNEMO_LORE_GIT_REF || undefined);
  return { git: { url, ref, cacheDir: flags.gitCache, timeoutMs: flags.gitTimeout, environment } };
}

/** Registers `mnemo lore import [dir] [--git <url> [--ref <ref>]] [--dry-run]`. */
export function registerLoreImport(lore: Command, output: Output): void {
  lore
    .command('import')
    .description('validate a lore repository (a folder, or a git repository at a ref) and bring the book in line with it')
    .argument('[dir]', 'the repository folder, holding index.yaml')
    .option('--git <url>', 'read a git repository instead (a path, file://, https://, ssh:// or user@host:path; default MNEMO_LORE_GIT_URL); credentials from MNEMO_LORE_GIT_TOKEN')
    .option('--ref <ref>', 'the branch, tag or commit to import (default MNEMO_LORE_GIT_REF, else the remote\'s HEAD)')
    .option('--git-cache <dir>', 'folder of the bare git caches (default MNEMO_LORE_GIT_CACHE, else ~/.cache/mnemo/lore-git)')
    .option('--git-timeout <ms>', 'bound on each git command in ms (default MNEMO_LORE_GIT_TIMEOUT_MS, else 60000)', parseInteger('--git-timeout'))
    .option('--dry-run', 'validate and report what would change (and the commit range); write and embed nothing')
    .option('--json', 'print the report as JSON')
    .action(async (directory: string | undefined, flags: ImportFlags, command: Command) => {
      const repository = repositoryFromFlags(directory, flags);
      let bar: SingleBar | null = null;
      const memory = await openForImport(command, flags.dryRun === true);
      const report = await (async () => {
        try {
          return await memory.lore.importRepository(repository, {
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
