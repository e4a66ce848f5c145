// `mnemo lore status`: how many entries the book holds, its version, and where its live lore came from.
import type { Command } from 'commander';
import type { LoreStatus } from '../../lore/lore-book.js';
import type { LoreOriginIdentity } from '../../seams/lore-store.js';
import type { Output } from '../context.js';
import { withMemory } from '../context.js';

/** An origin for people: `git <url> at <ref> (commit <sha>)`, `folder <path>`, or `entries given in code`. */
export function formatOrigin(origin: LoreOriginIdentity): string {
  if (origin.reader === 'git') return `git ${origin.location ?? '?'} at ${origin.ref ?? 'HEAD'} (commit ${origin.commit ?? '?'})`;
  if (origin.reader === 'folder') return `folder ${origin.location ?? '?'}`;
  return 'entries given in code (HTTP or library)';
}

/** The status for people: entries and version, then the live origin and when it was imported. */
export function formatLoreStatus(status: LoreStatus): string {
  const head = `lore book: ${status.entries} entr${status.entries === 1 ? 'y' : 'ies'}, version ${status.version}`;
  if (status.origin === null) return `${head}\nlive lore: none recorded (never imported, or wiped)`;
  return `${head}\nlive lore: ${formatOrigin(status.origin)}\nimported: ${new Date(status.origin.importedAt).toISOString()}`;
}

/** Registers `mnemo lore status [--json]`. */
export function registerLoreStatus(lore: Command, output: Output): void {
  lore
    .command('status')
    .description('show how many entries the book holds and where its live lore came from (reader, location, ref, commit, time)')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }, command: Command) => {
      const status = await withMemory(command, (memory) => memory.lore.status());
      output.out(flags.json ? JSON.stringify(status, null, 2) : formatLoreStatus(status));
    });
}
