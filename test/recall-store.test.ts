// The store-backed recall: its index kept in step with this process's writes and with other handles', the migration,
// and the JSON value checks it relies on.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { requireJsonValue, renderValue } from '../src/core/json-value.js';
import { manualClock } from '../src/core/clock.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { memoryEntry } from '../src/recall/memory-entry.js';
import { StoreMemoryBackend } from '../src/recall/store-memory-backend.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let counter = 0;
const keys = (entries: readonly { key: string }[]) => entries.map((entry) => entry.key);

function openPair() {
  const path = join(dir, `recall-store-${++counter}.db`);
  const clock = manualClock(1_704_067_200_000);
  const make = () => new StoreMemoryBackend({ store: openSqliteStore({ path }), embedder: hashingEmbedder({ dimensions: 256 }), clock: clock.now, logger: silentLogger });
  return { path, clock, make };
}

describe('store-backed recall', () => {
  it('keeps its per-scope and all-scopes indexes in step with its own writes, replacements and clears', async () => {
    const { make } = openPair();
    const backend = make();
    await backend.store('lighthouse', 'The keeper lights the lamp at dusk', { scope: 'Coast' });
    expect(keys(await backend.retrieve('keeper lamp', 5, 'Coast'))).toEqual(['lighthouse']);
    expect(keys(await backend.retrieve('keeper lamp', 5))).toEqual(['lighthouse']);
    await backend.store('harbour', 'Boats wait for the keeper', { scope: 'Coast' });
    await backend.store('mine', 'The keeper of the mine sleeps', { scope: 'Mountain' });
    expect(keys(await backend.retrieve('keeper', 5, 'Coast')).sort()).toEqual(['harbour', 'lighthouse']);
    expect(keys(await backend.retrieve('keeper', 5)).sort()).toEqual(['harbour', 'lighthouse', 'mine']);
    await backend.store('lighthouse', 'Abandoned since the storm', { scope: 'Coast' });
    expect(keys(await backend.retrieve('lamp dusk', 5, 'Coast'))).not.toContain('lighthouse');
    expect(keys(await backend.retrieve('abandoned storm', 5))).toEqual(['lighthouse']);
    expect(await backend.clear('Coast')).toBe(2);
    expect(keys(await backend.retrieve('keeper', 5))).toEqual(['mine']);
  });

  it('sees what another handle on the same file wrote, replaced, cleared and purged', async () => {
    const { make, clock } = openPair();
    const first = make();
    const second = make();
    await first.store('omen_1', 'a red moon', { scope: 'Omens' });
    expect(keys(await second.retrieve('moon', 5, 'Omens'))).toEqual(['omen_1']);
    await first.store('omen_2', 'a silent bell under the moon', { scope: 'Omens' }, { decayMs: 1000 });
    await first.store('omen_1', 'a black sun', { scope: 'Omens' });
    expect(keys(await second.retrieve('moon', 5, 'Omens'))).toEqual(['omen_2']);
    expect((await second.retrieve('omen_1', 1, 'Omens'))[0]?.value).toBe('a black sun');
    clock.advance(1001);
    expect(await first.purgeExpired()).toBe(1);
    expect(await second.retrieve('moon', 5)).toEqual([]);
    await first.clear();
    expect(await second.count()).toBe(0);
    expect(await second.retrieve('sun', 5, 'Omens')).toEqual([]);
  });

  it('records its migration and keeps one entry per (scope, key) in the file', async () => {
    const { path, make } = openPair();
    const backend = make();
    await backend.store('k', 1, { scope: 'A' });
    await backend.store('k', 2, { scope: 'A' });
    await backend.store('k', 3, { scope: 'B' });
    await backend.store('k', 4);
    const db = new Database(path, { readonly: true });
    expect((db.prepare("SELECT id FROM schema_migrations WHERE id LIKE 'recall-%'").all() as { id: string }[]).map((row) => row.id)).toEqual(['recall-001']);
    expect(db.prepare('SELECT scope, key, value FROM recall_entries ORDER BY seq').all()).toEqual([
      { scope: 'A', key: 'k', value: '2' },
      { scope: 'B', key: 'k', value: '3' },
      { scope: '', key: 'k', value: '4' },
    ]);
    db.close();
    expect(await backend.listScopes()).toEqual([{ scope: null, entries: 1 }, { scope: 'A', entries: 1 }, { scope: 'B', entries: 1 }]);
  });

  it('fails with STORE_CLOSED once its store is closed', async () => {
    const store = openSqliteStore({ path: join(dir, `closed-${++counter}.db`) });
    const backend = new StoreMemoryBackend({ store, logger: silentLogger });
    await backend.store('k', 'v');
    await store.close();
    await expect(backend.retrieve('k')).rejects.toMatchObject({ code: 'STORE_CLOSED' });
    await expect(backend.store('k', 'v')).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  });
});

describe('JSON values', () => {
  it('renders a string as it is and anything else as compact JSON', () => {
    expect([renderValue('NDA'), renderValue({ risk: 0.35, list: [1, 'a'] }), renderValue(42), renderValue(null), renderValue(false)]).toEqual(['NDA', '{"risk":0.35,"list":[1,"a"]}', '42', 'null', 'false']);
  });

  it('names the path of what does not round-trip, and accepts null-prototype objects', () => {
    expect(() => requireJsonValue({ a: { 'odd key': [0, () => 1] } })).toThrow('value.a["odd key"][1]: expected a JSON value (string, finite number, boolean, null, array or plain object), got a function.');
    expect(() => requireJsonValue({ at: new Date(0) })).toThrow('Store date.toISOString() instead.');
    expect(() => requireJsonValue({ n: 1n })).toThrow('Store it as a string');
    const shared = { x: 1 };
    expect(requireJsonValue({ a: shared, b: shared })).toEqual({ a: { x: 1 }, b: { x: 1 } });
    const bare = Object.assign(Object.create(null) as object, { a: 1 });
    expect(requireJsonValue(bare)).toEqual({ a: 1 });
  });
});

describe('MemoryEntry', () => {
  it('seed: MemoryEntry(key="contract_type", value="Non-Disclosure Agreement", metadata=..., timestamp=1704067200.0)', () => {
    const metadata = { source: 'Extract', confidence: 0.95 };
    const entry = memoryEntry({ key: 'contract_type', value: 'Non-Disclosure Agreement', metadata, timestamp: 1704067200.0 });
    expect(entry).toEqual({ key: 'contract_type', value: 'Non-Disclosure Agreement', metadata: { source: 'Extract', confidence: 0.95 }, score: 0, timestamp: 1704067200, expiresAt: null });
    expect(Object.isFrozen(entry) && Object.isFrozen(entry.metadata)).toBe(true);
    expect(Object.isFrozen(metadata)).toBe(false);
    expect(() => { (entry as { score: number }).score = 1; }).toThrow(TypeError);
    expect(memoryEntry({ key: 'k', value: null })).toEqual({ key: 'k', value: null, metadata: {}, score: 0, timestamp: 0, expiresAt: null });
    expect(() => memoryEntry({ key: '', value: 1 })).toThrow('Memory key must not be empty');
  });
});
