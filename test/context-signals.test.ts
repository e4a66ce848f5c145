// The speaker, scene and time signals: the metadata convention, each component, and the signals through a real save (SQLite file, reopened).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pickMetadata } from '../src/core/pick-metadata.js';
import { silentLogger } from '../src/core/logger.js';
import { contextFieldsOf, DEFAULT_METADATA_ROLES, resolveMetadataRoles, roleKeys } from '../src/narrative/metadata-roles.js';
import { openMemory } from '../src/open-memory.js';
import { CorpusIndex } from '../src/retrieval/corpus-index.js';
import { dayNumber, DocumentContext } from '../src/retrieval/document-context.js';
import { dateFit, queryDates } from '../src/retrieval/query-dates.js';
import { sceneScores } from '../src/retrieval/scene-scores.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let files = 0;
const dbPath = () => join(dir, `signals-${++files}.db`);
const day = (year: number, month: number, date: number) => Date.UTC(year, month - 1, date) / 86_400_000;

describe('pickMetadata', () => {
  it('reads only the keys asked for, from JSON text or an object', () => {
    expect(pickMetadata('{"speaker":"Rowan","mood":"calm"}', ['speaker', 'scene'])).toEqual({ speaker: 'Rowan' });
    expect(pickMetadata({ scene: 3, mood: 'calm' }, ['speaker', 'scene'])).toEqual({ scene: 3 });
    expect(pickMetadata('{"mood":"calm"}', ['speaker'])).toEqual({});
    expect(pickMetadata(null, ['speaker'])).toEqual({});
    expect(pickMetadata('{"speaker":"Rowan"}', [])).toBeUndefined();
  });
});

describe('metadata roles', () => {
  it('fills gaps from the convention and checks each key', () => {
    expect(resolveMetadataRoles()).toEqual(DEFAULT_METADATA_ROLES);
    expect(resolveMetadataRoles({ scene: 'chapter', time: null })).toEqual({ speaker: 'speaker', scene: 'chapter', time: null });
    expect(roleKeys(resolveMetadataRoles({ time: null }))).toEqual(['speaker', 'scene']);
    expect(() => resolveMetadataRoles({ speaker: '' })).toThrow(/metadataRoles.speaker: expected a metadata key/);
    expect(() => resolveMetadataRoles({ scene: 7 as never })).toThrow(/metadataRoles.scene/);
  });
  it('reads a chunk\'s context by role and leaves out what it cannot read', () => {
    expect(contextFieldsOf({ speaker: 'Rowan', scene: 3, time: '2023-05-08T13:56' }, DEFAULT_METADATA_ROLES)).toEqual({ speaker: 'Rowan', scene: '3', day: day(2023, 5, 8) });
    expect(contextFieldsOf({ speaker: 4, scene: {}, time: 'the third day of Frostmoon' }, DEFAULT_METADATA_ROLES)).toEqual({});
    expect(contextFieldsOf({ who: 'Ann' }, resolveMetadataRoles({ speaker: 'who' }))).toEqual({ speaker: 'Ann' });
  });
});

describe('dayNumber', () => {
  it('reads ISO dates as written and epoch milliseconds, nothing else', () => {
    expect(dayNumber('1970-01-02T23:59')).toBe(1);
    expect(dayNumber('2023-05-08')).toBe(day(2023, 5, 8));
    expect(dayNumber(86_400_000 * 3 + 5)).toBe(3);
    expect(dayNumber('2023-13-01')).toBeUndefined();
    expect(dayNumber('yesterday')).toBeUndefined();
    expect(dayNumber(null)).toBeUndefined();
  });
});

describe('queryDates and dateFit', () => {
  it('reads written, ISO and year-only dates', () => {
    expect(queryDates('What did Ann do on 13 October 2023?')).toEqual([{ year: 2023, month: 10, day: 13 }]);
    expect(queryDates('What happened on October 13, 2023?')).toEqual([{ year: 2023, month: 10, day: 13 }]);
    expect(queryDates('Where was she in May 2023?')).toEqual([{ year: 2023, month: 5 }]);
    expect(queryDates('What changed on 2023-10-13?')).toEqual([{ year: 2023, month: 10, day: 13 }]);
    expect(queryDates('Where was she in 2022?')).toEqual([{ year: 2022 }]);
    expect(queryDates('What did she do last week?')).toEqual([]);
  });
  it('scores 1 within a day, 0.5 in the month, 0.25 in a year named alone, 0 otherwise', () => {
    const named = [{ year: 2023, month: 10, day: 13 }];
    expect(dateFit(day(2023, 10, 14), named)).toBe(1);
    expect(dateFit(day(2023, 10, 20), named)).toBe(0.5);
    expect(dateFit(day(2023, 11, 13), named)).toBe(0);
    expect(dateFit(day(2022, 3, 1), [{ year: 2022 }])).toBe(0.25);
    expect(dateFit(Number.NaN, named)).toBe(0);
  });
});

describe('DocumentContext', () => {
  it('finds the speakers a query names (every word of the name) and keeps scene sizes through removals', () => {
    const context = new DocumentContext();
    context.set(0, { speaker: 'Ann Lee', scene: 'mill' }, 4);
    context.set(1, { speaker: 'Rowan', scene: 'mill' }, 6);
    context.set(2, { speaker: 'Ann', scene: 'road' }, 2);
    expect([...context.speakersNamedIn(new Set(['ann', 'lee', 'went']))].sort()).toEqual([context.speakerOf(0), context.speakerOf(2)].sort());
    expect([...context.speakersNamedIn(new Set(['lee']))]).toEqual([]);
    expect(context.liveScenes).toBe(2);
    expect(context.averageSceneLength).toBe(6);
    context.remove(2, 2);
    expect(context.liveScenes).toBe(1);
    expect(context.lengthOf(context.sceneOf(0))).toBe(10);
  });
});

describe('sceneScores', () => {
  const build = () => {
    const index = new CorpusIndex(0);
    index.add([
      { id: 'a', position: 0, text: 'The lantern went out at the mill.', embedding: null, scene: '1' },
      { id: 'b', position: 1, text: 'Then we walked home.', embedding: null, scene: '1' },
      { id: 'c', position: 2, text: 'Bread at the market.', embedding: null, scene: '2' },
      { id: 'd', position: 3, text: 'No scene here.', embedding: null },
    ]);
    return index;
  };
  it('gives every chunk of a matching scene its scene\'s score, even one without the word', () => {
    const index = build();
    const scenes = sceneScores(index.bm25, index.context, index.analyze('lantern'));
    const slot = (id: string) => index.slotOf(id) as number;
    expect(scenes?.scoreOf(slot('b'))).toBeGreaterThan(0);
    expect(scenes?.scoreOf(slot('b'))).toBe(scenes?.scoreOf(slot('a')));
    expect(scenes?.scoreOf(slot('c'))).toBe(0);
    expect(scenes?.inGroup(slot('d'))).toBe(false);
  });
  it('leaves out what the filter refuses', () => {
    const index = build();
    const refused = index.slotOf('a') as number;
    const scenes = sceneScores(index.bm25, index.context, index.analyze('lantern'), (slot) => slot !== refused);
    expect(scenes?.scoreOf(index.slotOf('b') as number)).toBe(0);
  });
  it('is null for a corpus without scenes', () => {
    const index = new CorpusIndex(0);
    index.add([{ id: 'a', position: 0, text: 'lantern', embedding: null }]);
    expect(sceneScores(index.bm25, index.context, ['lantern'])).toBeNull();
  });
});

describe('the signals in a save', () => {
  // Two speakers say the same words; the question names one of them.
  const TURNS = [
    { speaker: 'Ann', scene: 1, time: '2023-05-08', text: 'I baked bread with rosemary today.' },
    { speaker: 'Rowan', scene: 1, time: '2023-05-08', text: 'I baked bread with rosemary today.' },
    { speaker: 'Ann', scene: 2, time: '2023-10-13', text: 'The harbour was loud.' },
    { speaker: 'Rowan', scene: 2, time: '2023-10-13', text: 'The gulls took my lunch at the harbour.' },
  ];
  async function seeded(path: string, options: Parameters<typeof openMemory>[0] = {}) {
    const memory = await openMemory({ path, logger: silentLogger, embedder: null, ...options });
    await memory.addMany(TURNS.map(({ text, ...metadata }, turn) => ({ saveId: 's', turnId: turn, text, metadata })));
    return memory;
  }

  it('the speaker signal lifts the turns of the speaker the question names, and explains it', async () => {
    const path = dbPath();
    const memory = await seeded(path);
    const hits = await memory.query('s', 'What did Rowan bake?', { k: 2 });
    expect(hits.map((hit) => hit.turnId)).toEqual([1, 0]);
    expect(hits[0]?.explanation.contributions?.speaker).toBe(1);
    expect(hits[1]?.explanation.contributions?.speaker).toBeUndefined();
    // The scene speaker focus (a narrative default) also takes Ann's scene lift when Rowan is named: off here, so the speaker signal alone decides.
    const off = await memory.query('s', 'What did Rowan bake?', { k: 2, speakerBoost: 0, sceneSpeakerFocus: 0 });
    expect(off.map((hit) => hit.turnId)).toEqual([0, 1]);
    await memory.close();
    // A reopened save rebuilds its index from the stored metadata and ranks the same.
    const reopened = await openMemory({ path, logger: silentLogger, embedder: null });
    expect((await reopened.query('s', 'What did Rowan bake?', { k: 2 })).map((hit) => hit.turnId)).toEqual([1, 0]);
    await reopened.close();
  });

  it('a save reopened from its persisted index (after a removal) ranks and explains as a rebuild does', async () => {
    const path = dbPath();
    const memory = await seeded(path);
    await memory.addMany([{ saveId: 's', turnId: 4, text: 'Rowan baked more bread at the harbour.', metadata: { speaker: 'Rowan', scene: 3, time: '2023-10-14' } }]);
    await memory.rewind('s', 3);
    await memory.close();
    const ask = async (options: Parameters<typeof openMemory>[0]) => {
      const reopened = await openMemory({ path, logger: silentLogger, embedder: null, ...options });
      const hits = await reopened.query('s', 'What did Rowan bake at the harbour on October 13, 2023?', { k: 4 });
      await reopened.close();
      return hits.map((hit) => [hit.turnId, hit.score, hit.explanation.contributions]);
    };
    const persisted = await ask({});
    expect(persisted.length).toBeGreaterThan(0);
    expect(persisted).toEqual(await ask({ indexDirectory: false }));
  });

  it('the time signal lifts the turns dated near a date the question names', async () => {
    const memory = await seeded(dbPath());
    const hits = await memory.query('s', 'Who baked bread on 8 May 2023 or at the harbour?', { k: 4, windowSum: null, sceneWeight: 0 });
    const timed = hits.filter((hit) => hit.explanation.contributions?.time !== undefined).map((hit) => hit.turnId);
    expect(timed.sort()).toEqual([0, 1]);
    expect(hits[0]?.explanation.contributions?.time).toBe(1);
    await memory.close();
  });

  it('the scene signal scores a turn by its whole scene', async () => {
    const memory = await seeded(dbPath());
    const hits = await memory.query('s', 'gulls', { k: 4, windowSum: null, sceneWeight: 1 });
    const ann = hits.find((hit) => hit.turnId === 2);
    expect(ann?.explanation.contributions?.scene).toBeGreaterThan(0);
    await memory.close();
  });

  it('reads the roles from the keys the caller names', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: null, metadataRoles: { speaker: 'who' } });
    await memory.addMany([
      { saveId: 's', turnId: 0, text: 'I saw the comet.', metadata: { who: 'Ann' } },
      { saveId: 's', turnId: 1, text: 'I saw the comet.', metadata: { who: 'Rowan', speaker: 'Ann' } },
    ]);
    expect((await memory.query('s', 'What did Rowan say of the comet?', { k: 1 }))[0]?.turnId).toBe(1);
    await memory.close();
  });

  it('refuses bad signal weights with a coded error', async () => {
    const memory = await seeded(':memory:');
    await expect(memory.query('s', 'bread', { speakerBoost: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.query('s', 'bread', { timeBoost: Number.NaN })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
    await expect(openMemory({ path: ':memory:', logger: silentLogger, metadataRoles: { time: '' } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
