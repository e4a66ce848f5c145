// The LoreStore contract, written once: every adapter runs it through runLoreContract(name, factory).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../core/clock.js';
import { silentLogger } from '../../core/logger.js';
import { hashingEmbedder } from '../../embedders/hashing/index.js';
import { loreContentHash } from '../../lore/content-hash.js';
import type { LoreEntryInput } from '../../lore/lore-schema.js';
import { Mnemo } from '../../open-memory.js';
import type { Embedder } from '../../seams/embedder.js';
import type { NewLoreEntry } from '../../seams/lore-store.js';
import type { Store } from '../../seams/store.js';
import { countingEmbedder } from '../counting-embedder.js';
import type { CountingEmbedder } from '../counting-embedder.js';
import { ORSA_CHARACTERS, ORSA_LORE } from '../lore-fixture.js';
import type { StoreFactory } from './store-factory.js';

function newEntry(source: string, title: string, scopeLevel: NewLoreEntry['scopeLevel'], scopeTags: string[], content = `${title}: words about ${title}.`): NewLoreEntry {
  return {
    id: `${source}#${title}`, source, title, content, scopeLevel, scopeTags: [...scopeTags].sort(), metadata: {},
    contentHash: loreContentHash({ content, scopeLevel, scopeTags }), embeddingModel: null, embedding: null, createdAt: 1, updatedAt: 1,
  };
}

const titles = (items: readonly { title: string }[]) => items.map((item) => item.title);

/**
 * Runs the behaviour every LoreStore adapter must have: the store's own operations, then the lore book over it
 * (access rules applied before ranking, import idempotency, atomicity, a save's lore).
 *
 * @example
 * ```ts
 * runLoreContract('sqlite', { create: async () => openSqliteStore({ path: tempFile() }) });
 * ```
 */
export function runLoreContract(name: string, factory: StoreFactory): void {
  describe(`lore contract: ${name}`, () => {
    let store: Store;
    let embedder: CountingEmbedder;
    let memory: Mnemo;
    const clock = manualClock(1_700_000_000_000);
    const open = (target: Store, with_: Embedder | null = embedder) => new Mnemo({ store: target, embedder: with_, reranker: null, logger: silentLogger, clock: clock.now });

    beforeEach(async () => {
      store = await factory.create();
      embedder = countingEmbedder(hashingEmbedder({ dimensions: 64 }));
      memory = open(store);
    });
    afterEach(async () => {
      await memory.close();
    });

    describe('the store', () => {
      it('creates entries in one change set and lists them by source and title, tags sorted', async () => {
        const result = await store.lore.apply({ expectedVersion: 0, create: [newEntry('b.yaml', 'Zeta', 'regional', ['z', 'a']), newEntry('a.yaml', 'Beta', 'continental', []), newEntry('a.yaml', 'Alpha', 'faction', ['guild'])], update: [], remove: [] });
        expect(result).toEqual({ previousVersion: 0, version: 1, created: 3, updated: 0, removed: 0 });
        const listed = await store.lore.list();
        expect(listed.map((entry) => [entry.source, entry.title])).toEqual([['a.yaml', 'Alpha'], ['a.yaml', 'Beta'], ['b.yaml', 'Zeta']]);
        expect(listed[2]).toMatchObject({ id: 'b.yaml#Zeta', scopeLevel: 'regional', scopeTags: ['a', 'z'], createdAt: 1, updatedAt: 1, embeddingModel: null });
        expect(await store.lore.count()).toBe(3);
        expect(titles(await store.lore.get(['b.yaml#Zeta', 'missing', 'a.yaml#Alpha']))).toEqual(['Zeta', 'Alpha']);
        expect(titles(await store.lore.list({ source: 'a.yaml' }))).toEqual(['Alpha', 'Beta']);
      });

      it('filters by access in its own query: continental for all, otherwise every tag held (AND, not OR)', async () => {
        await store.lore.apply({
          expectedVersion: 0,
          create: [
            newEntry('s', 'Everyone', 'continental', []),
            newEntry('s', 'Town', 'regional', ['brackwater']),
            newEntry('s', 'Guild', 'faction', ['lamplighters']),
            newEntry('s', 'Town guild', 'faction', ['brackwater', 'lamplighters']),
          ],
          update: [],
          remove: [],
        });
        expect(titles(await store.lore.list({ accessibleTo: [] }))).toEqual(['Everyone']);
        expect(titles(await store.lore.list({ accessibleTo: ['brackwater'] }))).toEqual(['Everyone', 'Town']);
        expect(titles(await store.lore.list({ accessibleTo: ['lamplighters', 'saltspire'] }))).toEqual(['Everyone', 'Guild']);
        expect(titles(await store.lore.list({ accessibleTo: ['lamplighters', 'brackwater'] }))).toEqual(['Everyone', 'Guild', 'Town', 'Town guild']);
      });

      it('updates in place (same id, createdAt kept), removes, and bumps the version once per change set', async () => {
        await store.lore.apply({ expectedVersion: 0, create: [newEntry('s', 'One', 'local', ['docks']), newEntry('s', 'Two', 'local', ['docks'])], update: [], remove: [] });
        const result = await store.lore.apply({
          expectedVersion: 1,
          create: [],
          update: [{ id: 's#One', content: 'New words.', scopeLevel: 'regional', scopeTags: ['town'], metadata: { district: 'docks' }, contentHash: 'h', vector: { embeddingModel: 'm', embedding: new Float32Array([1, 0]) }, updatedAt: 9 }],
          remove: ['s#Two'],
        });
        expect(result).toEqual({ previousVersion: 1, version: 2, created: 0, updated: 1, removed: 1 });
        expect(await store.lore.list()).toEqual([expect.objectContaining({ id: 's#One', content: 'New words.', scopeLevel: 'regional', scopeTags: ['town'], metadata: { district: 'docks' }, contentHash: 'h', embeddingModel: 'm', createdAt: 1, updatedAt: 9 })]);
        expect(await store.lore.apply({ expectedVersion: 2, create: [], update: [], remove: [] })).toMatchObject({ version: 2 });
        expect(await store.lore.version()).toBe(2);
      });

      it('keeps metadata as written (keys in order, nested values), and an update without a vector keeps the stored one', async () => {
        const metadata = { quest: 'salt', order: 2, secret: false, nested: { where: ['docks', 'pier'] }, none: null };
        const vector = new Float32Array([0.6, 0.8]);
        await store.lore.apply({ expectedVersion: 0, create: [{ ...newEntry('s', 'One', 'local', ['a']), metadata, embeddingModel: 'm', embedding: vector }], update: [], remove: [] });
        const [stored] = await store.lore.list();
        expect(stored?.metadata).toEqual(metadata);
        expect(Object.keys(stored?.metadata ?? {})).toEqual(['quest', 'order', 'secret', 'nested', 'none']);
        expect((await store.lore.get(['s#One']))[0]?.metadata).toEqual(metadata);
        await store.lore.apply({ expectedVersion: 1, create: [], update: [{ id: 's#One', content: stored!.content, scopeLevel: 'local', scopeTags: ['a'], metadata: { quest: 'tide' }, contentHash: stored!.contentHash, updatedAt: 7 }], remove: [] });
        const rows: { metadata: object; embedding: Float32Array | null }[] = [];
        await store.lore.scan((row) => rows.push(row));
        expect(rows[0]?.metadata).toEqual({ quest: 'tide' });
        expect(Array.from(rows[0]?.embedding ?? [])).toEqual(Array.from(vector));
        expect((await store.lore.list())[0]).toMatchObject({ metadata: { quest: 'tide' }, embeddingModel: 'm', updatedAt: 7 });
      });

      it('applies a change set whole or not at all: a clash on (source, title) at its end leaves the book as it was', async () => {
        await store.lore.apply({ expectedVersion: 0, create: [newEntry('s', 'Keep', 'local', ['a']), newEntry('s', 'Doomed', 'local', ['a'])], update: [], remove: [] });
        const before = await store.lore.list();
        const clash = { ...newEntry('s', 'Keep', 'local', ['a']), id: 'another-id' };
        await expect(store.lore.apply({
          expectedVersion: 1,
          create: [newEntry('s', 'Fresh', 'local', ['a']), clash],
          update: [{ id: 's#Keep', content: 'changed', scopeLevel: 'local', scopeTags: ['a'], metadata: { changed: true }, contentHash: 'x', vector: { embeddingModel: null, embedding: null }, updatedAt: 5 }],
          remove: ['s#Doomed'],
        })).rejects.toMatchObject({ code: 'CONFLICT' });
        expect(await store.lore.list()).toEqual(before);
        expect(await store.lore.version()).toBe(1);
      });

      it('refuses a change set planned against another version, writing nothing', async () => {
        await store.lore.apply({ expectedVersion: 0, create: [newEntry('s', 'One', 'local', ['a'])], update: [], remove: [] });
        await expect(store.lore.apply({ expectedVersion: 0, create: [newEntry('s', 'Two', 'local', ['a'])], update: [], remove: [] })).rejects.toMatchObject({ code: 'CONFLICT' });
        expect(await store.lore.count()).toBe(1);
      });

      it('wipes everything in one write, and scans in insertion order with vectors', async () => {
        const vector = new Float32Array([0.6, 0.8]);
        await store.lore.apply({ expectedVersion: 0, create: [newEntry('s', 'Second', 'local', ['a']), { ...newEntry('s', 'First', 'continental', []), embedding: vector }], update: [], remove: [] });
        const rows: { id: string; embedding: Float32Array | null; scopeTags: string[] }[] = [];
        expect(await store.lore.scan((row) => rows.push(row))).toBe(1);
        expect(rows.map((row) => row.id)).toEqual(['s#Second', 's#First']);
        expect(Array.from(rows[1]?.embedding ?? [])).toEqual([Float32Array.from([0.6])[0], Float32Array.from([0.8])[0]]);
        expect(await store.lore.wipe()).toEqual({ previousVersion: 1, version: 2, created: 0, updated: 0, removed: 2 });
        expect(await store.lore.count()).toBe(0);
        expect(await store.lore.wipe()).toMatchObject({ version: 2, removed: 0 });
      });
      it('records where the lore came from in the change set, keeps it when a change set names none, and a wipe clears it', async () => {
        expect(await store.lore.origin()).toBeNull();
        const origin = { reader: 'git' as const, location: 'https://git.example/lore.git', ref: 'main', commit: 'a'.repeat(40), importedAt: 1_700_000_000_123 };
        await store.lore.apply({ expectedVersion: 0, create: [newEntry('s', 'One', 'local', ['a'])], update: [], remove: [], origin });
        expect(await store.lore.origin()).toEqual(origin);
        await store.lore.apply({ expectedVersion: 1, create: [newEntry('s', 'Two', 'local', ['a'])], update: [], remove: [] });
        expect(await store.lore.origin()).toEqual(origin);
        const moved = { ...origin, commit: 'b'.repeat(40), importedAt: 1_700_000_000_456 };
        expect(await store.lore.apply({ expectedVersion: 2, create: [], update: [], remove: [], origin: moved })).toMatchObject({ version: 2 });
        expect(await store.lore.origin()).toEqual(moved);
        await expect(store.lore.apply({ expectedVersion: 1, create: [], update: [], remove: [], origin })).rejects.toMatchObject({ code: 'CONFLICT' });
        expect(await store.lore.origin()).toEqual(moved);
        const folder = { reader: 'folder' as const, location: '/srv/lore', ref: null, commit: null, importedAt: 5 };
        await store.lore.apply({ expectedVersion: 2, create: [], update: [], remove: ['s#One'], origin: folder });
        expect(await store.lore.origin()).toEqual(folder);
        await store.lore.wipe();
        expect(await store.lore.origin()).toBeNull();
      });
    });

    describe('the lore book over it', () => {
      beforeEach(async () => {
        await memory.lore.importEntries(ORSA_LORE);
        embedder.reset();
      });

      it('gives the bartender and the archmage different entries for the same question', async () => {
        const question = 'Who founded Brackwater?';
        const bartender = titles(await memory.lore.search(question, { tags: ORSA_CHARACTERS.bartender, k: 5 }));
        const archmage = titles(await memory.lore.search(question, { tags: ORSA_CHARACTERS.archmage, k: 5 }));
        expect(bartender).toContain('Founding of Brackwater');
        expect(archmage).toContain('Founding of Brackwater');
        expect(archmage).toContain('The Brackwater lantern house');
        expect(bartender).not.toContain('The Brackwater lantern house');
      });

      it('answers a faction-only question only for the faction: the tidelines reach the Lamplighters, not the bar', async () => {
        const question = 'What are the tidelines?';
        const archmage = await memory.lore.search(question, { tags: ORSA_CHARACTERS.archmage, k: 3 });
        expect(archmage[0]?.title).toBe('The tidelines');
        const bartender = await memory.lore.search(question, { tags: ORSA_CHARACTERS.bartender, k: 20 });
        expect(bartender.length).toBeGreaterThan(0);
        expect(bartender.some((hit) => hit.scopeTags.includes('lamplighters'))).toBe(false);
      });

      it('hides a multi-tag entry from a character holding only one of its tags', async () => {
        const everything = { k: 50 };
        const holders = {
          bartender: await memory.lore.search('Lamplighters chapter house Toll Bridge', { ...everything, tags: ORSA_CHARACTERS.bartender }),
          saltspire: await memory.lore.search('Lamplighters chapter house Toll Bridge', { ...everything, tags: ORSA_CHARACTERS.saltspireLamplighter }),
          archmage: await memory.lore.search('Lamplighters chapter house Toll Bridge', { ...everything, tags: ORSA_CHARACTERS.archmage }),
        };
        expect(titles(holders.bartender)).not.toContain('The Brackwater lantern house');
        expect(titles(holders.saltspire)).not.toContain('The Brackwater lantern house');
        expect(titles(holders.saltspire)).toContain('The tidelines');
        expect(holders.archmage[0]?.title).toBe('The Brackwater lantern house');
        expect(titles(await memory.lore.list({ tags: ORSA_CHARACTERS.saltspireLamplighter }))).not.toContain('The Brackwater lantern house');
      });

      it('pages a listing in the store\'s query, in (source, title) order, filters first', async () => {
        const whole = titles(await memory.lore.list({ tags: ORSA_CHARACTERS.bartender }));
        expect(whole.length).toBeGreaterThan(3);
        const pages = [];
        for (let offset = 0; offset < whole.length + 2; offset += 2) pages.push(...titles(await memory.lore.list({ tags: ORSA_CHARACTERS.bartender, offset, limit: 2 })));
        expect(pages).toEqual(whole);
        expect(await memory.lore.list({ offset: 1_000_000 })).toEqual([]);
        expect(titles(await memory.lore.list({ offset: 1 }))).toEqual(titles(await memory.lore.list()).slice(1));
        await expect(memory.lore.list({ limit: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      });

      it('filters before ranking: when the k best matches are all hidden, the permitted ones still fill k', async () => {
        const secrets = Array.from({ length: 20 }, (_, index): LoreEntryInput => ({ source: 'secrets.yaml', title: `Secret ${index}`, scopeLevel: 'faction', scopeTags: ['inner_circle'], content: 'obsidian obsidian obsidian tower of obsidian obsidian' }));
        const common = Array.from({ length: 6 }, (_, index): LoreEntryInput => ({ source: 'common.yaml', title: `Rumour ${index}`, scopeLevel: 'regional', scopeTags: ['brackwater'], content: `a single obsidian shard among many other ordinary harbour words, number ${index}` }));
        await memory.lore.importEntries([...ORSA_LORE, ...secrets, ...common]);
        const hits = await memory.lore.search('obsidian', { tags: ORSA_CHARACTERS.bartender, k: 5, capPerSource: 5 });
        expect(hits).toHaveLength(5);
        expect(hits.every((hit) => hit.title.startsWith('Rumour'))).toBe(true);
        const insider = await memory.lore.search('obsidian', { tags: ['inner_circle'], k: 5, capPerSource: 5 });
        expect(insider.every((hit) => hit.title.startsWith('Secret'))).toBe(true);
        const zscore = await memory.lore.search('obsidian', { tags: ORSA_CHARACTERS.bartender, k: 5, capPerSource: 5, fusion: 'zscore' });
        expect(zscore.map((hit) => hit.title).sort()).toEqual(hits.map((hit) => hit.title).sort());
        await expect(memory.lore.search('obsidian', { tags: [], fusion: 'borda' as 'rrf' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      });

      it('filters on metadata (where) before ranking in both arms: filtered-out best matches never take the permitted ones\' slots', async () => {
        const decoys = Array.from({ length: 20 }, (_, index): LoreEntryInput => ({ source: 'decoys.yaml', title: `Decoy ${index}`, scopeLevel: 'regional', scopeTags: ['brackwater'], content: 'obsidian obsidian obsidian tower of obsidian obsidian', metadata: { quest: 'decoy' } }));
        const wanted = Array.from({ length: 6 }, (_, index): LoreEntryInput => ({ source: 'common.yaml', title: `Rumour ${index}`, scopeLevel: 'regional', scopeTags: ['brackwater'], content: `a single obsidian shard among many other ordinary harbour words, number ${index}`, metadata: { quest: 'salt', order: index } }));
        const secrets = Array.from({ length: 4 }, (_, index): LoreEntryInput => ({ source: 'secrets.yaml', title: `Secret ${index}`, scopeLevel: 'faction', scopeTags: ['inner_circle'], content: 'obsidian obsidian obsidian tower of obsidian', metadata: { quest: 'salt' } }));
        await memory.lore.importEntries([...ORSA_LORE, ...decoys, ...wanted, ...secrets]);
        const search = (where: object, options: { k?: number; fusion?: 'rrf' | 'zscore'; tags?: readonly string[] } = {}) =>
          memory.lore.search('obsidian', { tags: ORSA_CHARACTERS.bartender, k: 5, capPerSource: options.k === undefined ? 5 : 0, ...options, where: where as never });
        // Unfiltered, the decoys are the best matches and fill k.
        expect(titles(await search({})).every((title) => title.startsWith('Decoy'))).toBe(true);
        // The same order on every store (this contract runs on each): rankings are identical.
        expect(titles(await search({ quest: 'salt' }))).toEqual(['Rumour 1', 'Rumour 3', 'Rumour 0', 'Rumour 2', 'Rumour 4']);
        expect(titles(await search({ quest: 'salt' }, { fusion: 'zscore' })).sort()).toEqual(['Rumour 0', 'Rumour 1', 'Rumour 2', 'Rumour 3', 'Rumour 4']);
        // Tags still apply: the faction's secrets hold the key too, and stay hidden from the bar.
        expect(titles(await search({ quest: 'salt' }, { k: 50 })).sort()).toEqual(wanted.map((entry) => entry.title));
        expect(titles(await search({ quest: 'salt' }, { tags: ['inner_circle'], k: 50 })).sort()).toEqual(secrets.map((entry) => entry.title));
        expect(titles(await search({ quest: { in: ['salt', 'decoy'] } }, { k: 50 }))).toHaveLength(26);
        expect(titles(await search({ quest: 'salt', order: { in: [1, 4] } }, { k: 50 })).sort()).toEqual(['Rumour 1', 'Rumour 4']);
        expect(await search({ order: '1' }, { k: 50 })).toEqual([]);
        const unkeyed = await search({ quest: { exists: false } }, { k: 50 });
        expect(unkeyed.length).toBeGreaterThan(0);
        expect(unkeyed.every((hit) => !('quest' in hit.metadata) && hit.source !== 'decoys.yaml')).toBe(true);
        expect(titles(await memory.lore.search('obsidian', { ignoreScope: true, k: 50, where: { quest: 'salt' } })).sort()).toEqual([...secrets, ...wanted].map((entry) => entry.title).sort());
        await expect(search({ quest: ['salt'] })).rejects.toMatchObject({ code: 'INVALID_INPUT', details: { field: 'where.quest' } });
        await expect(search(Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`key${index}`, 1])))).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
        await expect(memory.lore.search('obsidian', { tags: [], where: 'quest' as never })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      });

      it('maps every hit back to its entry, with the explanation', async () => {
        const [hit] = await memory.lore.search('salt barge toll', { tags: ORSA_CHARACTERS.bartender, k: 1 });
        const entry = await memory.lore.get(hit?.entryId ?? '');
        expect(hit).toMatchObject({ title: 'The Salt Toll', source: 'brackwater/regional.yaml', scopeLevel: 'regional', scopeTags: ['brackwater'], content: entry?.content });
        expect(hit?.explanation.lexical?.rank).toBe(1);
        expect(hit?.explanation.fused).toBeGreaterThan(0);
      });

      it('asks for the character tags explicitly, or ignoreScope for an author', async () => {
        await expect(memory.lore.search('tidelines', {})).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        expect(titles(await memory.lore.search('tidelines', { ignoreScope: true, k: 2 }))).toContain('The tidelines');
        expect(titles(await memory.lore.search('drowning', { tags: [], k: 10 })).every((title) => ['The Long Drowning', 'The Lantern Compact'].includes(title))).toBe(true);
      });

      it('is idempotent: a second import makes no embedding call and no write', async () => {
        const before = await store.lore.list();
        const version = await store.lore.version();
        clock.advance(60_000);
        const report = await memory.lore.importEntries(ORSA_LORE);
        expect(report).toMatchObject({ created: [], updated: [], removed: [], unchanged: ORSA_LORE.length, embedded: 0, written: false, version });
        expect(embedder.calls).toBe(0);
        expect(await store.lore.version()).toBe(version);
        expect(await store.lore.list()).toEqual(before);
      });

      it('re-embeds only the edited entries, says which field changed, and ignores tag order', async () => {
        const before = new Map((await store.lore.list()).map((entry) => [entry.title, entry]));
        clock.advance(1000);
        const edited = ORSA_LORE.map((entry): LoreEntryInput => {
          if (entry.title === 'The Salt Toll') return { ...entry, content: 'Every salt barge now pays one sack in ten at the Toll Bridge.' };
          if (entry.title === 'The Peat War') return { ...entry, scopeTags: ['highfen', 'brackwater'] };
          if (entry.title === 'The Brackwater lantern house') return { ...entry, scopeTags: ['brackwater', 'lamplighters'] };
          return entry;
        });
        const report = await memory.lore.importEntries(edited);
        expect(report.updated.map((change) => [change.title, change.changes])).toEqual([['The Salt Toll', ['content']], ['The Peat War', ['scope_tags']]]);
        expect(report).toMatchObject({ created: [], removed: [], unchanged: ORSA_LORE.length - 2, embedded: 2, written: true });
        expect(embedder.texts).toBe(2);
        const after = new Map((await store.lore.list()).map((entry) => [entry.title, entry]));
        expect(after.get('The Salt Toll')).toMatchObject({ id: before.get('The Salt Toll')?.id, createdAt: before.get('The Salt Toll')?.createdAt, updatedAt: clock.now() });
        expect(after.get('The Sunken Bell')).toEqual(before.get('The Sunken Bell'));
        const [hit] = await memory.lore.search('one sack in ten', { tags: ['brackwater'], k: 1 });
        expect(hit?.content).toContain('one sack in ten');
      });

      it("updates metadata alone without re-embedding, and a save's lore chunks carry it for a where query", async () => {
        const tagged = ORSA_LORE.map((entry): LoreEntryInput => {
          if (entry.title === 'The Salt Toll') return { ...entry, metadata: { quest: 'salt', district: 'toll-bridge' } };
          if (entry.title === 'The Sunken Bell') return { ...entry, metadata: { quest: 'bell' } };
          return entry;
        });
        const report = await memory.lore.importEntries(tagged);
        expect(report.updated.map((change) => [change.title, change.changes])).toEqual([['The Salt Toll', ['metadata']], ['The Sunken Bell', ['metadata']]]);
        expect(report).toMatchObject({ embedded: 0, written: true });
        expect(embedder.calls).toBe(0);
        const entries = await memory.lore.list();
        expect(entries.find((entry) => entry.title === 'The Salt Toll')?.metadata).toEqual({ quest: 'salt', district: 'toll-bridge' });
        expect(entries.find((entry) => entry.title === 'The Long Drowning')?.metadata).toEqual({});
        expect((await memory.lore.search('salt barge toll', { tags: ORSA_CHARACTERS.bartender, k: 1 }))[0]?.metadata).toEqual({ quest: 'salt', district: 'toll-bridge' });
        // Keys in another order are the same metadata: nothing to write.
        const reordered = tagged.map((entry) => (entry.title === 'The Salt Toll' ? { ...entry, metadata: { district: 'toll-bridge', quest: 'salt' } } : entry));
        expect(await memory.lore.importEntries(reordered)).toMatchObject({ updated: [], written: false });
        await expect(memory.lore.importEntries([{ ...ORSA_LORE[0]!, metadata: ['not', 'a', 'mapping'] as never }])).rejects.toMatchObject({ code: 'LORE_INVALID' });
        expect(await memory.lore.syncToSave('run')).toBe(ORSA_LORE.length);
        const hits = await memory.query('run', 'salt bell toll barge', { k: 10, chunkType: 'lore', where: { quest: { exists: true } } });
        expect(hits.map((hit) => hit.metadata['title']).sort()).toEqual(['The Salt Toll', 'The Sunken Bell']);
        expect(hits.find((hit) => hit.metadata['title'] === 'The Salt Toll')?.metadata).toMatchObject({ quest: 'salt', district: 'toll-bridge', source: 'brackwater/regional.yaml', scopeLevel: 'regional' });
        expect((await memory.query('run', 'salt bell toll barge', { k: 10, chunkType: 'lore', where: { quest: 'bell' } })).map((hit) => hit.metadata['title'])).toEqual(['The Sunken Bell']);
        // A save file carries its lore chunks with that metadata: the copy filters the same.
        let file = '';
        for await (const line of memory.exportSave('run')) file += line;
        await memory.importSave({ text: file }, { as: 'run-copy' });
        expect((await memory.query('run-copy', 'salt bell toll barge', { k: 10, chunkType: 'lore', where: { quest: 'bell' } })).map((hit) => hit.metadata['title'])).toEqual(['The Sunken Bell']);
        // The entry's own keys never override what the chunk says of its entry.
        await memory.lore.importEntries(tagged.map((entry) => (entry.title === 'The Sunken Bell' ? { ...entry, metadata: { title: 'forged', quest: 'bell' } } : entry)));
        await memory.lore.syncToSave('run');
        expect((await memory.query('run', 'bell', { k: 10, chunkType: 'lore', where: { quest: 'bell' } }))[0]?.metadata['title']).toBe('The Sunken Bell');
      });

      it('removes entries the repository no longer has, and they stop surfacing', async () => {
        const report = await memory.lore.importEntries(ORSA_LORE.filter((entry) => entry.title !== 'The tidelines'));
        expect(report.removed).toEqual([{ source: 'factions/lamplighters.yaml', title: 'The tidelines', scopeLevel: 'faction' }]);
        expect(embedder.calls).toBe(0);
        expect(titles(await memory.lore.search('tidelines', { tags: ORSA_CHARACTERS.archmage, k: 20 }))).not.toContain('The tidelines');
        expect(await memory.lore.count()).toBe(ORSA_LORE.length - 1);
      });

      it('reports a dry run without writing or embedding anything', async () => {
        const version = await store.lore.version();
        const changed = [...ORSA_LORE.slice(1), { ...ORSA_LORE[2] as LoreEntryInput, title: 'A new entry' }];
        const report = await memory.lore.importEntries(changed, { dryRun: true });
        expect(report).toMatchObject({ dryRun: true, created: [{ title: 'A new entry' }], removed: [{ title: 'The Long Drowning' }], embedded: 0, written: false, version });
        expect(embedder.calls).toBe(0);
        expect(await store.lore.version()).toBe(version);
        expect(titles(await store.lore.list())).toContain('The Long Drowning');
      });

      it('refuses an invalid entry or an empty run, writing nothing', async () => {
        const version = await store.lore.version();
        const broken = [...ORSA_LORE.slice(1), { source: 'x.yaml', title: 'Bad', content: 'words', scopeLevel: 'city', scopeTags: ['x'] } as unknown as LoreEntryInput];
        await expect(memory.lore.importEntries(broken)).rejects.toMatchObject({ code: 'LORE_INVALID' });
        await expect(memory.lore.importEntries([])).rejects.toMatchObject({ code: 'LORE_EMPTY' });
        expect(await store.lore.version()).toBe(version);
        expect(await store.lore.count()).toBe(ORSA_LORE.length);
        expect(embedder.calls).toBe(0);
      });

      it('records entries given in code as the origin, with the time of the import that wrote them', async () => {
        expect(await memory.lore.status()).toEqual({ entries: ORSA_LORE.length, version: 1, origin: { reader: 'entries', location: null, ref: null, commit: null, importedAt: clock.now() } });
        clock.advance(5000);
        const again = await memory.lore.importEntries(ORSA_LORE);
        expect(again).toMatchObject({ written: false, origin: { reader: 'entries' }, previous: { reader: 'entries', importedAt: clock.now() - 5000 } });
        expect((await memory.lore.status()).origin?.importedAt).toBe(clock.now() - 5000);
      });

      it('wipes the book, and an import restores it', async () => {
        expect(await memory.lore.wipe()).toBe(ORSA_LORE.length);
        expect(await memory.lore.search('tidelines', { ignoreScope: true })).toEqual([]);
        const report = await memory.lore.importEntries(ORSA_LORE);
        expect(report.created).toHaveLength(ORSA_LORE.length);
        expect(titles(await memory.lore.search('tidelines', { tags: ['lamplighters'], k: 1 }))).toEqual(['The tidelines']);
      });

      it('re-embeds every entry when the embedder changes, and only then', async () => {
        const other = countingEmbedder(hashingEmbedder({ dimensions: 32 }));
        const switched = open(store, other);
        const report = await switched.lore.importEntries(ORSA_LORE);
        expect(report.updated.every((change) => change.changes.join() === 'embedder')).toBe(true);
        expect(other.texts).toBe(ORSA_LORE.length);
        expect((await switched.lore.importEntries(ORSA_LORE)).written).toBe(false);
        expect(titles(await switched.lore.search('tidelines', { tags: ['lamplighters'], k: 1 }))).toEqual(['The tidelines']);
      });

      it("embeds a save's lore at turn 0: it survives any rewind, maps to its entry and never takes the narrative's k", async () => {
        for (let turn = 1; turn <= 6; turn++) await memory.add({ saveId: 'run', turnId: turn, text: `Turn ${turn}: the Salt Toll keeper counts barges at the Toll Bridge.` });
        expect(await memory.lore.syncToSave('run')).toBe(ORSA_LORE.length);
        expect(await memory.lore.syncToSave('run')).toBe(ORSA_LORE.length);
        expect(await memory.count('run', { chunkType: 'lore' })).toBe(ORSA_LORE.length);
        const narrative = await memory.query('run', 'Salt Toll barge Toll Bridge', { k: 5, excludeChunkType: 'lore' });
        expect(narrative).toHaveLength(5);
        expect(narrative.every((hit) => hit.chunkType === 'narrative')).toBe(true);
        // A plain query leaves the save's lore out too (faction lore included): lore reaches a character only through its tags.
        const plain = await memory.query('run', 'The Salt Toll of the Lamplighters faction', { k: 50 });
        expect(plain.map((hit) => hit.chunkType)).toEqual(Array.from({ length: 6 }, () => 'narrative'));
        expect((await memory.query('run', 'Salt Toll', { k: 50, excludeChunkType: 'dialogue' })).every((hit) => hit.chunkType === 'narrative')).toBe(true);
        const asked = await memory.query('run', 'The Salt Toll of the Lamplighters faction', { k: 50, includeLore: true });
        expect(asked.filter((hit) => hit.chunkType === 'lore').length).toBeGreaterThan(0);
        expect((await memory.query('run', 'Salt Toll', { k: 50, chunkType: 'lore' })).every((hit) => hit.chunkType === 'lore')).toBe(true);
        await expect(memory.query('run', 'Salt Toll', { includeLore: 'yes' as never })).rejects.toMatchObject({ code: 'INVALID_INPUT', details: { field: 'includeLore' } });
        expect(await memory.rewind('run', 0)).toBe(6);
        const [hit] = await memory.lore.searchSave('run', 'salt barge toll', { k: 1 });
        expect(hit).toMatchObject({ turnId: 0, chunkType: 'lore', entry: { title: 'The Salt Toll' } });
        expect(hit?.entryId).toBe(hit?.entry?.id);
        expect(await memory.lore.syncToSave('run', [{ entryId: 'custom-1', text: 'The save-only legend of the ferryman.' }])).toBe(1);
        expect((await memory.lore.searchSave('run', 'ferryman'))[0]).toMatchObject({ entryId: 'custom-1', entry: null });
        expect(await memory.count('run', { chunkType: 'lore' })).toBe(1);
        expect(await memory.lore.syncToSave('run', [])).toBe(0);
        expect(await memory.count('run', { chunkType: 'lore' })).toBe(0);
        await expect(memory.lore.syncToSave('run', [{ entryId: '', text: 'x' }])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      });

      if (factory.reopen !== undefined) {
        const reopen = factory.reopen;
        it('keeps the book, its hashes and vectors across a reopen', async () => {
          const before = await store.lore.list();
          const again = open(await reopen(store));
          memory = again;
          embedder.reset();
          expect(await again.store.lore.list()).toEqual(before);
          expect(await again.store.lore.origin()).toMatchObject({ reader: 'entries', location: null, commit: null });
          expect((await again.lore.importEntries(ORSA_LORE)).written).toBe(false);
          expect(embedder.calls).toBe(0);
          const [hit] = await again.lore.search('tidelines', { tags: ['lamplighters'], k: 1 });
          expect(hit?.explanation.semantic).not.toBeNull();
        });
      }
    });
  });
}
