// `mnemo stats`: the saves in a database with their counts, and the file's size (SQLite).
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { describeIdentity } from '../../embedders/embedder-identity.js';
import type { Output } from '../context.js';
import { globalOptions, withMemory } from '../context.js';

function fileSize(path: string): number | null {
  try {
    let total = statSync(path).size;
    for (const suffix of ['-wal', '-shm']) {
      try { total += statSync(path + suffix).size; } catch { /* absent */ }
    }
    return total;
  } catch {
    return null;
  }
}

/** Registers `mnemo stats`. */
export function registerStats(program: Command, output: Output): void {
  program
    .command('stats')
    .description('list the saves with their chunk counts and turn ranges, and the embedder of the vectors')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }, command: Command) => {
      const { db: path } = globalOptions(command);
      const { saves, provider, location, vectors } = await withMemory(command, async (memory) => ({
        saves: await memory.listSaves(),
        provider: memory.provider,
        location: memory.location,
        vectors: await memory.vectorIdentity(),
      }));
      const bytes = provider === 'sqlite' ? fileSize(path) : null;
      const db = provider === 'sqlite' ? path : location; // a URL is shown without its password
      if (flags.json) {
        output.out(JSON.stringify({ db, provider, bytes, vectors, saves }, null, 2));
        return;
      }
      output.out(`${db} (${provider}${bytes === null ? '' : `, ${(bytes / 1024 / 1024).toFixed(2)} MB`}): ${saves.length} save${saves.length === 1 ? '' : 's'}`);
      output.out(`  vectors: ${vectors === null ? 'none recorded' : describeIdentity(vectors)}`);
      for (const save of saves) {
        const range = save.minTurnId === null ? 'no turns' : `turns ${save.minTurnId}-${save.maxTurnId}`;
        output.out(`  ${save.saveId}: ${save.chunks} chunks, ${range}`);
      }
    });
}
