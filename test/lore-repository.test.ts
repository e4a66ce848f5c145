// Reading a lore repository: the manifest decides what is read, and every problem comes back with file, entry and line:column.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { isMnemoError } from '../src/core/errors.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { formatProblem } from '../src/lore/lore-problem.js';
import { StoredParseCache } from '../src/lore/parse-cache.js';
import { readLoreRepository } from '../src/lore/read-lore-repository.js';
import { writeLoreRepository } from '../src/lore/write-lore-repository.js';
import type { LoreEntry } from '../src/seams/lore-store.js';
import { Mnemo } from '../src/open-memory.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { countingEmbedder } from '../src/testing/counting-embedder.js';
import { tempDir } from './helpers.js';
import { sqliteConnectionOf } from '../src/stores/sqlite/sqlite-connection.js';

const dir = tempDir();
const EXAMPLE = join(import.meta.dirname, '..', 'examples', 'lore');
let counter = 0;

/** Writes a repository of the given files into a fresh folder and returns its path. */
function repository(files: Record<string, string>): string {
  const root = join(dir, `repo-${++counter}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  mkdirSync(root, { recursive: true });
  return root;
}

async function problemsOf(files: Record<string, string>): Promise<string[]> {
  return (await readLoreRepository(repository(files))).problems.map(formatProblem);
}

const GOOD = `source: town.yaml
entries:
  - title: Good
    scope_level: local
    scope_tags: [docks]
    content: Fine words.
`;

describe('reading a lore repository', () => {
  it('reads the example world: only the files index.yaml names, in its order, with sorted tags and positions', async () => {
    const reading = await readLoreRepository(EXAMPLE);
    expect(reading.problems).toEqual([]);
    expect(reading.files[0]).toBe('continental.yaml');
    expect(reading.files).toHaveLength(11);
    expect(reading.entries).toHaveLength(34);
    expect(reading.entries.map((entry) => entry.title)).not.toContain('The lighthouse at Vey');
    expect(new Set(reading.entries.map((entry) => entry.scopeLevel))).toEqual(new Set(['continental', 'regional', 'local', 'faction']));
    const lanternHouse = reading.entries.find((entry) => entry.title === 'The Brackwater lantern house');
    expect(lanternHouse).toMatchObject({ source: 'factions/lamplighters.yaml', scopeTags: ['brackwater', 'lamplighters'], file: 'factions/lamplighters.yaml', column: 5 });
    expect(reading.entries[0]).toMatchObject({ title: 'The Long Drowning', line: 3, column: 5 });
  });

  it('reports each entry problem with its file, title and line:column, all in one run', async () => {
    const problems = await problemsOf({
      'index.yaml': 'files: [town.yaml]\n',
      'town.yaml': `${GOOD}  - title: No content
    scope_level: local
    scope_tags: [docks]
  - title: Wrong tags
    scope_level: regional
    scope_tags: brackwater
    content: Words.
  - title: Bad level
    scope_level: city
    scope_tags: [docks]
    content: Words.
  - title: Good
    scope_level: local
    scope_tags: [docks]
    content: Other words.
  - title: 1984
    scope_level: local
    scope_tags: [docks, 7]
    content: Words.
    scope_tag: [typo]
`,
    });
    expect(problems).toEqual([
      "town.yaml:7:5, entry 'No content': content is required",
      'town.yaml:12:17, entry \'Wrong tags\': scope_tags must be a list of tags, such as ["brackwater"], got "brackwater"',
      "town.yaml:15:18, entry 'Bad level': scope_level must be one of continental, regional, local, faction, got \"city\"",
      "town.yaml:22:12, entry '#6': title must be a string (quote numbers and dates), got 1984",
      'town.yaml:24:25, entry \'#6\': scope_tags[1] must be a tag string such as "brackwater", got 7',
      'town.yaml:26:5, entry \'#6\': unknown field "scope_tag" (expected title, content, scope_level, scope_tags, metadata)',
      "town.yaml:18:5, entry 'Good': title is used twice in source 'town.yaml' (first at town.yaml:3:5); titles must be unique within a source",
    ]);
  });

  it('reads free metadata on an entry (a mapping, {} when absent) and reports a bad one at its line', async () => {
    const root = repository({
      'index.yaml': 'files: [town.yaml]\n',
      'town.yaml': `${GOOD}  - title: Tagged
    scope_level: local
    scope_tags: [docks]
    content: Words.
    metadata:
      quest: salt
      order: 2
      places: [docks, pier]
`,
    });
    const reading = await readLoreRepository(root);
    expect(reading.problems).toEqual([]);
    expect(reading.entries.map((entry) => entry.metadata)).toEqual([{}, { quest: 'salt', order: 2, places: ['docks', 'pier'] }]);
    expect(await problemsOf({ 'index.yaml': 'files: [town.yaml]\n', 'town.yaml': `${GOOD}    metadata: [quest]\n` })).toEqual([
      "town.yaml:7:15, entry 'Good': metadata must be a mapping of keys to values, such as { district: \"docks\" }, got an array of 1",
    ]);
  });

  it('checks the rule between level and tags', async () => {
    const problems = await problemsOf({
      'index.yaml': 'files: [world.yaml]\n',
      'world.yaml': `source: world.yaml
entries:
  - title: Tagged continental
    scope_level: continental
    scope_tags: [brackwater]
    content: Words.
  - title: Untagged faction
    scope_level: faction
    scope_tags: []
    content: Words.
`,
    });
    expect(problems).toEqual([
      'world.yaml:5:17, entry \'Tagged continental\': scope_tags must be empty for a continental entry (it reaches everyone), got ["brackwater"]; use regional, local or faction to restrict it',
      "world.yaml:9:17, entry 'Untagged faction': scope_tags a faction entry needs at least one tag (the zone, district or faction that knows it); only continental entries have none",
    ]);
  });

  it('reports a YAML syntax error with its line and column', async () => {
    const problems = await problemsOf({
      'index.yaml': 'files: [broken.yaml, town.yaml]\n',
      'broken.yaml': 'source: broken.yaml\nentries:\n  - title: Unclosed\n    scope_tags: [docks\n    content: words\n',
      'town.yaml': GOOD,
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^broken\.yaml:\d+:\d+: YAML syntax error: /);
    const [, line] = /^broken\.yaml:(\d+):/.exec(problems[0] as string) ?? [];
    expect(Number(line)).toBeGreaterThanOrEqual(4);
  });

  it('reports a duplicate key as a syntax error at the second key', async () => {
    const problems = await problemsOf({
      'index.yaml': 'files: [town.yaml]\n',
      'town.yaml': 'source: town.yaml\nentries:\n  - title: Twice\n    title: Again\n    scope_level: local\n    scope_tags: [docks]\n    content: Words.\n',
    });
    expect(problems).toEqual([expect.stringMatching(/^town\.yaml:4:5: YAML syntax error: Map keys must be unique/)]);
  });

  it('stops on a file the manifest names but which is absent, and never reads a file it does not name', async () => {
    const problems = await problemsOf({
      'index.yaml': 'files:\n  - town.yaml\n  - regions/missing.yaml\n',
      'town.yaml': GOOD,
      'unlisted.yaml': 'this: [is not even valid',
    });
    expect(problems).toEqual(['index.yaml:3:5: files[1] names regions/missing.yaml, but there is no such file; create it or remove it from index.yaml']);
  });

  it('checks the manifest itself: present, a list of files, paths inside the repository, none twice', async () => {
    expect(await problemsOf({ 'town.yaml': GOOD })).toEqual(['index.yaml: not found: a lore repository lists its content files in index.yaml at its root, e.g. "files: [continental.yaml]"']);
    expect(await problemsOf({ 'index.yaml': 'files: town.yaml\n' })).toEqual(['index.yaml:1:8: files must be a list of file paths, got "town.yaml"']);
    expect(await problemsOf({ 'index.yaml': 'files: [../outside.yaml, /etc/passwd.yaml, notes.txt, town.yaml, ./town.yaml]\n', 'town.yaml': GOOD })).toEqual([
      'index.yaml:1:9: files[0] must stay inside the repository, got "../outside.yaml"',
      'index.yaml:1:26: files[1] must be a path relative to the repository root, got "/etc/passwd.yaml"',
      'index.yaml:1:44: files[2] must name a .yaml file, got "notes.txt"',
      'index.yaml:1:66: files[4] lists town.yaml a second time (first as files[3])',
    ]);
    await expect(readLoreRepository(join(dir, 'no-such-folder'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reports file-level problems: a missing source, entries that are not a list', async () => {
    expect(await problemsOf({ 'index.yaml': 'files: [a.yaml]\n', 'a.yaml': 'entries: []\n' })).toEqual(['a.yaml:1:1: source is required']);
    expect(await problemsOf({ 'index.yaml': 'files: [a.yaml]\n', 'a.yaml': 'source: a.yaml\nentries: none\n' })).toEqual(['a.yaml:2:10: entries must be a list of entries, got "none"']);
    expect(await problemsOf({ 'index.yaml': 'files: [a.yaml]\n', 'a.yaml': '' })).toEqual(['a.yaml: the file must be a mapping with `source` and `entries`, got null']);
  });
});

describe('writing a lore repository', () => {
  it('writes a file per source (a source that is no path goes under sources/) that reads back as the same entries', async () => {
    const drafts: Omit<LoreEntry, 'id' | 'contentHash' | 'embeddingModel' | 'createdAt' | 'updatedAt'>[] = [
      { source: 'brackwater/regional.yaml', title: 'Toll', content: 'The toll is one sack in twenty.\nPaid at the bridge.', scopeLevel: 'regional', scopeTags: ['brackwater'], metadata: { quest: 'salt', order: 2, nested: { deep: [true, null] } } },
      { source: 'code', title: '1984', content: 'A year, quoted as a title.', scopeLevel: 'continental', scopeTags: [], metadata: {} },
      { source: 'Code', title: 'Yes', content: 'no', scopeLevel: 'faction', scopeTags: ['a', 'b'], metadata: { on: 'off' } },
      { source: 'index.yaml', title: 'Odd', content: 'A source named like the manifest.', scopeLevel: 'local', scopeTags: ['docks'], metadata: {} },
      { source: '../outside.yaml', title: 'Escape', content: 'Stays inside.', scopeLevel: 'local', scopeTags: ['docks'], metadata: {} },
    ];
    const entries: LoreEntry[] = drafts.map((entry, index) => ({ ...entry, id: `id-${index}`, contentHash: 'h', embeddingModel: null, createdAt: 1, updatedAt: 1 }));
    const folder = join(dir, `written-${++counter}`);
    const report = await writeLoreRepository(entries, folder);
    expect(report.files).toEqual(['brackwater/regional.yaml', 'sources/code.yaml', 'sources/Code-2.yaml', 'sources/index-yaml.yaml', 'sources/outside-yaml.yaml']);
    const reading = await readLoreRepository(folder);
    expect(reading.problems).toEqual([]);
    const fields = ({ source, title, content, scopeLevel, scopeTags, metadata }: Omit<LoreEntry, 'id'>) => ({ source, title, content, scopeLevel, scopeTags, metadata });
    expect(reading.entries.map((entry) => fields({ ...entry, contentHash: '', embeddingModel: null, createdAt: 0, updatedAt: 0 }))).toEqual(drafts.map((entry) => fields({ ...entry, contentHash: '', embeddingModel: null, createdAt: 0, updatedAt: 0 })));
    await expect(writeLoreRepository(entries, folder)).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});

describe('symbolic links in a lore repository', () => {
  const outside = () => {
    const folder = join(dir, `outside-${++counter}`);
    mkdirSync(join(folder, 'deep'), { recursive: true });
    writeFileSync(join(folder, 'secret.txt'), 'db_password=hunter2\n');
    writeFileSync(join(folder, 'town.yaml'), GOOD);
    writeFileSync(join(folder, 'deep', 'town.yaml'), GOOD);
    return folder;
  };

  it('refuses a listed file that is a symbolic link, without reading it or echoing its content', async () => {
    const away = outside();
    const root = repository({ 'index.yaml': 'files: [town.yaml, notes.yaml]\n' });
    symlinkSync(join(away, 'town.yaml'), join(root, 'town.yaml'));
    symlinkSync(join(away, 'secret.txt'), join(root, 'notes.yaml'));
    const reading = await readLoreRepository(root);
    expect(reading.entries).toEqual([]);
    expect(reading.problems.map(formatProblem)).toEqual([
      'index.yaml:1:9: files[0] town.yaml is a symbolic link; lore is read only from files inside the repository, so symbolic links are refused: put the file itself there',
      'index.yaml:1:20: files[1] notes.yaml is a symbolic link; lore is read only from files inside the repository, so symbolic links are refused: put the file itself there',
    ]);
    expect(JSON.stringify(reading.problems)).not.toContain('hunter2');
  });

  it('refuses a listed file under a folder that is a symbolic link, and a symbolic link as index.yaml', async () => {
    const away = outside();
    const root = repository({ 'index.yaml': 'files: [deep/town.yaml]\n' });
    symlinkSync(join(away, 'deep'), join(root, 'deep'));
    expect((await readLoreRepository(root)).problems.map(formatProblem)).toEqual([
      'index.yaml:1:9: files[0] deep/town.yaml is under deep, a symbolic link; lore is read only from files inside the repository, so symbolic links are refused: put the folder itself there',
    ]);
    const linkedManifest = repository({ 'town.yaml': GOOD });
    writeFileSync(join(away, 'index.yaml'), 'files: [town.yaml]\n');
    symlinkSync(join(away, 'index.yaml'), join(linkedManifest, 'index.yaml'));
    expect((await readLoreRepository(linkedManifest)).problems.map(formatProblem)).toEqual([
      'index.yaml: is a symbolic link; lore is read only from files inside the repository, so symbolic links are refused: put the file itself there',
    ]);
  });

  it('keeps the book when a repository of symbolic links is imported (the sync removes nothing)', async () => {
    const store = openSqliteStore({ path: join(dir, `symlinks-${++counter}.db`) });
    const memory = new Mnemo({ store, embedder: null, reranker: null, logger: silentLogger });
    await memory.lore.importRepository(EXAMPLE);
    const away = outside();
    const root = repository({ 'index.yaml': 'files: [town.yaml]\n' });
    symlinkSync(join(away, 'town.yaml'), join(root, 'town.yaml'));
    await expect(memory.lore.importRepository(root)).rejects.toMatchObject({ code: 'LORE_INVALID' });
    expect(await memory.lore.count()).toBe(34);
    await memory.close();
  });

  it('reads a repository whose root folder is reached through a symbolic link', async () => {
    const root = repository({ 'index.yaml': 'files: [town.yaml]\n', 'town.yaml': GOOD });
    const alias = join(dir, `alias-${++counter}`);
    symlinkSync(root, alias);
    expect((await readLoreRepository(alias)).entries.map((entry) => entry.title)).toEqual(['Good']);
  });
});

describe('importing a lore repository', () => {
  const open = (embedder = countingEmbedder(hashingEmbedder({ dimensions: 64 }))) => {
    const store = openSqliteStore({ path: join(dir, `import-${++counter}.db`) });
    return { memory: new Mnemo({ store, embedder, reranker: null, logger: silentLogger }), embedder, store };
  };

  it('imports the example world, then a second run makes zero embedding calls and zero database changes', async () => {
    const { memory, embedder, store } = open();
    const first = await memory.lore.importRepository(EXAMPLE);
    expect(first).toMatchObject({ entries: 34, unchanged: 0, embedded: 34, written: true, version: 1 });
    expect(first.created).toHaveLength(34);
    embedder.reset();
    const changes = () => (sqliteConnectionOf(store).database().prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    const before = changes();
    const second = await memory.lore.importRepository(EXAMPLE);
    expect(second).toMatchObject({ created: [], updated: [], removed: [], unchanged: 34, embedded: 0, written: false, version: 1 });
    expect(embedder.calls).toBe(0);
    expect(changes()).toBe(before);
    await memory.close();
  });

  it('refuses the whole run when any entry is invalid, listing every problem, and writes nothing', async () => {
    const { memory, embedder } = open();
    await memory.lore.importRepository(EXAMPLE);
    embedder.reset();
    const root = repository({
      'index.yaml': 'files: [town.yaml, other.yaml]\n',
      'town.yaml': `${GOOD}  - title: Broken\n    scope_level: local\n    scope_tags: docks\n    content: Words.\n`,
      'other.yaml': 'source: other.yaml\nentries:\n  - title: Missing level\n    scope_tags: [docks]\n    content: Words.\n',
    });
    const error = await memory.lore.importRepository(root).catch((caught: unknown) => caught);
    expect(isMnemoError(error, 'LORE_INVALID')).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('2 problems');
    expect(message).toContain("town.yaml:9:17, entry 'Broken': scope_tags must be a list of tags");
    expect(message).toContain("other.yaml:3:5, entry 'Missing level': scope_level is required");
    expect((error as { details: { problems: string[] } }).details.problems).toHaveLength(2);
    expect(await memory.lore.count()).toBe(34);
    expect(embedder.calls).toBe(0);
    await memory.close();
  });

  it('refuses a run that resolves no entries rather than deleting the book', async () => {
    const { memory } = open();
    await memory.lore.importRepository(EXAMPLE);
    const empty = repository({ 'index.yaml': 'files: [a.yaml]\n', 'a.yaml': 'source: a.yaml\nentries: []\n' });
    await expect(memory.lore.importRepository(empty)).rejects.toMatchObject({ code: 'LORE_EMPTY' });
    await expect(memory.lore.importRepository(repository({ 'index.yaml': 'files: []\n' }))).rejects.toMatchObject({ code: 'LORE_EMPTY' });
    expect(await memory.lore.count()).toBe(34);
    await memory.close();
  });

  it('dry-runs an edited repository: the same report, no write, no embedding call', async () => {
    const { memory, embedder } = open();
    const root = repository({ 'index.yaml': 'files: [town.yaml]\n', 'town.yaml': GOOD });
    await memory.lore.importRepository(root);
    embedder.reset();
    writeFileSync(join(root, 'town.yaml'), GOOD.replace('Fine words.', 'Finer words.').replace('[docks]', '[docks, harbour]'));
    const dry = await memory.lore.importRepository(root, { dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, updated: [{ title: 'Good', changes: ['content', 'scope_tags'] }], embedded: 0, written: false });
    expect(embedder.calls).toBe(0);
    expect((await memory.lore.list())[0]?.content).toBe('Fine words.');
    const real = await memory.lore.importRepository(root);
    expect(real).toMatchObject({ dryRun: false, updated: dry.updated, embedded: 1, written: true });
    expect((await memory.lore.list())[0]).toMatchObject({ content: 'Finer words.', scopeTags: ['docks', 'harbour'] });
    await memory.close();
  });

  it('keeps a parse cache: unchanged files are not parsed again, changed ones are, a damaged cache is ignored', async () => {
    const { memory, store } = open();
    const root = repository({ 'index.yaml': 'files: [town.yaml, world.yaml]\n', 'town.yaml': GOOD, 'world.yaml': GOOD.replace(/town\.yaml/g, 'world.yaml') });
    await memory.lore.importRepository(root, { dryRun: true });
    expect(await store.getMeta('lore.parse-cache')).toBeNull();
    await memory.lore.importRepository(root);
    const cache = await StoredParseCache.load(store);
    const fresh = await readLoreRepository(root);
    const cached = await readLoreRepository(root, { cache });
    expect(cached.entries).toEqual(fresh.entries);
    expect(cache.lookup('town.yaml', fresh.validFiles[0]?.sha256 ?? '')).toEqual([fresh.entries[0]]);
    writeFileSync(join(root, 'town.yaml'), GOOD.replace('Fine words.', 'Other words.'));
    expect(cache.lookup('town.yaml', (await readLoreRepository(root)).validFiles[0]?.sha256 ?? '')).toBeUndefined();
    expect((await memory.lore.importRepository(root)).updated).toEqual([{ source: 'town.yaml', title: 'Good', scopeLevel: 'local', changes: ['content'] }]);
    await store.setMeta('lore.parse-cache', '{"version":1,"files":{"town.yaml":{"sha256":"x","entries":[{"title":1}]}}');
    expect((await StoredParseCache.load(store)).lookup('town.yaml', 'x')).toBeUndefined();
    expect((await memory.lore.importRepository(root)).written).toBe(false);
    await memory.close();
  });

  it('reports progress while embedding', async () => {
    const { memory } = open(countingEmbedder({ ...hashingEmbedder({ dimensions: 16 }), maxBatchSize: 10 }));
    const progress: [number, number][] = [];
    await memory.lore.importRepository(EXAMPLE, { onProgress: (done, total) => progress.push([done, total]) });
    expect(progress).toEqual([[0, 34], [10, 34], [20, 34], [30, 34], [34, 34]]);
    await memory.close();
  });

  it('writes nothing when the embedder fails', async () => {
    const failing = { ...hashingEmbedder({ dimensions: 16 }), embed: async () => { throw new Error('model unavailable'); } };
    const { memory } = open(countingEmbedder(failing));
    await expect(memory.lore.importRepository(EXAMPLE)).rejects.toMatchObject({ code: 'PROVIDER_FAILURE' });
    expect(await memory.lore.count()).toBe(0);
    await memory.close();
  });
});
