// A failure inside an import's transaction (injected, or the process killed there) leaves the previous book intact.
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import type { SqliteStore } from '../src/stores/sqlite/index.js';
import { tempDir } from './helpers.js';
import { sqliteConnectionOf } from '../src/stores/sqlite/sqlite-connection.js';

const dir = tempDir();
const EXAMPLE = join(import.meta.dirname, '..', 'examples', 'lore');

/** A copy of the example world with two edits, one removal and twenty new entries, 'New entry 12' among them. */
function editedRepository(name: string): string {
  const root = join(dir, name);
  cpSync(EXAMPLE, root, { recursive: true });
  const entries = Array.from({ length: 20 }, (_, index) => `  - title: New entry ${index}\n    scope_level: local\n    scope_tags: [brackwater_docks]\n    content: Fresh gossip number ${index} from the docks.\n`).join('');
  const edit = (file: string, from: string, to: string) => writeFileSync(join(root, file), readFileSync(join(root, file), 'utf8').replace(from, to));
  edit('brackwater/regional.yaml', 'sack in twenty', 'sack in ten');
  edit('continental.yaml', 'scope_tags: []\n    content: |\n      Orsa has two moons', 'scope_tags: []\n    content: |\n      Orsa has three moons');
  writeFileSync(join(root, 'brackwater', 'gossip.yaml'), `source: brackwater/gossip.yaml\nentries:\n${entries}`);
  writeFileSync(join(root, 'index.yaml'), `files:\n${['continental.yaml', 'brackwater/regional.yaml', 'brackwater/docks.yaml', 'brackwater/gossip.yaml', 'factions/lamplighters.yaml'].map((file) => `  - ${file}\n`).join('')}`);
  return root;
}

async function snapshot(memory: Mnemo) {
  return { version: await memory.store.lore.version(), entries: await memory.lore.list() };
}

const open = (path: string) => openMemory({ path, embedder: hashingEmbedder(), logger: silentLogger });

function importUntilKilled(path: string, repository: string, pauseAt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'lore-import-child.ts'), path, repository, pauseAt], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => { stderr += data.toString(); });
    child.stdout.on('data', (data: Buffer) => {
      stdout += data.toString();
      if (stdout.includes('inside the transaction')) child.kill('SIGKILL');
    });
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(stdout) : reject(new Error(`the child ended without being killed: ${stdout} ${stderr}`))));
  });
}

describe('lore import crash safety', () => {
  it('rolls back an import that fails inside its transaction, keeping the previous book', async () => {
    const memory = await open(join(dir, 'injected.db'));
    await memory.lore.importRepository(EXAMPLE);
    const before = await snapshot(memory);
    const database = sqliteConnectionOf(memory.store).database();
    database.exec("CREATE TEMP TRIGGER fail_import BEFORE INSERT ON main.lore_entries WHEN NEW.title = 'New entry 12' BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
    const repository = editedRepository('injected');
    await expect(memory.lore.importRepository(repository)).rejects.toMatchObject({ code: 'STORE_FAILURE', message: expect.stringContaining('injected failure') });
    expect(await snapshot(memory)).toEqual(before);
    expect((memory.store as SqliteStore).integrityCheck()).toBe('ok');
    database.exec('DROP TRIGGER fail_import');
    const report = await memory.lore.importRepository(repository);
    expect(report).toMatchObject({ written: true, version: before.version + 1 });
    expect(report.created).toHaveLength(20);
    expect(report.updated.map((change) => change.title)).toEqual(['The Glass Moon', 'The Salt Toll']);
    expect(await memory.lore.count()).toBe(20 + 6 + 5 + 4 + 4);
    await memory.close();
  });

  it('keeps the previous book whole when the importing process is killed mid-transaction', async () => {
    const path = join(dir, 'killed.db');
    const memory = await open(path);
    await memory.lore.importRepository(EXAMPLE);
    const before = await snapshot(memory);
    await memory.close();

    const output = await importUntilKilled(path, editedRepository('killed'), 'New entry 12');
    expect(output).toContain('inside the transaction');

    const reopened = await open(path);
    expect((reopened.store as SqliteStore).integrityCheck()).toBe('ok');
    expect(await snapshot(reopened)).toEqual(before);
    expect(await reopened.lore.search('tidelines', { tags: ['lamplighters'], k: 1 })).toMatchObject([{ title: 'The tidelines' }]);
    await reopened.close();
  });
});
