// Export and import of a save: the round trip keeps every layer (property test over random histories, on SQLite,
// in-memory and PostgreSQL, across stores), and a malformed or truncated file writes nothing and names its line.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import type { ConsolidationAction } from '../src/core/living-types.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { setUniverseMission } from '../src/living/missions.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import type { Store } from '../src/seams/store.js';
import { openInMemoryStore } from '../src/stores/memory/index.js';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { runCli, tempDir } from './helpers.js';
import { postgresTargets } from './postgres-targets.js';

const dir = tempDir();
const embedder = hashingEmbedder({ dimensions: 32 });
const WORDS = ['lantern', 'salt', 'bridge', 'Marta', 'Kaël', 'debt', 'storm', 'bell', 'cellar', 'toll', 'ferry', 'gull'];
const QUERIES = ['salt under the cellar', 'Marta owes a debt', 'storm bell', 'ferry toll bridge'];
let files = 0;

const open = (store: Store) => openMemory({ store, embedder, logger: silentLogger });
const sqlite = () => openSqliteStore({ path: join(dir, `store-${++files}.db`) });

/** Writes a save file of `memory`'s save to disk and returns its path. */
async function exportToFile(memory: Mnemo, saveId: string, options: { vectors?: boolean } = {}): Promise<string> {
  const path = join(dir, `save-${++files}.jsonl`);
  let text = '';
  for await (const line of memory.exportSave(saveId, options)) text += line;
  writeFileSync(path, text);
  return path;
}

/**
 * A save's state with ids replaced by what they stand for, so two stores can be compared. Hits keep their scores
 * when both stores are of one kind; across SQLite and PostgreSQL (whose cosine is computed by pgvector) the
 * rankings are compared: the hits and each arm's ranks.
 */
async function canonicalState(memory: Mnemo, saveId: string, exact = true) {
  const store = memory.store;
  const facts = (await store.living.getFacts(saveId)).reverse();
  const factName = new Map(facts.map((fact) => [fact.factId, fact.statement]));
  const beliefs = (await store.living.getBeliefs(saveId, { includeDeleted: true })).sort((a, b) => (a.beliefId as number) - (b.beliefId as number));
  const beliefName = new Map(beliefs.map((belief, index) => [belief.beliefId, `belief ${index}`]));
  const queries = [];
  for (const query of QUERIES) {
    for (const options of [{ k: 5 }, { k: 3, maxTurnId: 4, fusion: 'rrf' as const }, { k: 4, includeLore: true }]) {
      const hits = (await memory.query(saveId, query, options)).map((hit) => ({
        turnId: hit.turnId, text: hit.text, chunkType: hit.chunkType, metadata: hit.metadata,
        ...(exact ? { score: hit.score, explanation: hit.explanation.fact === undefined ? hit.explanation : { ...hit.explanation, fact: { ...hit.explanation.fact, factId: factName.get(hit.explanation.fact.factId) } } } : { lexical: hit.explanation.lexical?.rank ?? null, semantic: hit.explanation.semantic?.rank ?? null }),
      }));
      // Fact ids are renumbered by an import: a fact that lifted a hit (the facts arm) is named by its statement.
      // Across stores the fused order of hits whose fused scores tie (two candidates with opposite ranks in the two
      // arms z-score to exactly 0 each) follows float noise of the cosine; the hits and each arm's ranks must agree.
      queries.push(exact ? hits : hits.sort((a, b) => a.text.localeCompare(b.text)));
    }
  }
  return {
    chunks: (await store.listChunks(saveId)).map(({ turnId, chunkType, text, entryId, metadata, createdAt }) => ({ turnId, chunkType, text, entryId, metadata, createdAt })),
    facts: facts.map(({ factId: _id, ...fact }) => fact),
    beliefs: beliefs.map((belief) => ({
      ...belief,
      beliefId: beliefName.get(belief.beliefId),
      sources: belief.sources.map((source) => ({ ...source, factId: factName.get(source.factId) })),
      history: belief.history.map((change) => ({ ...change, factIds: change.factIds.map((id) => factName.get(id)) })),
    })),
    models: (await store.living.getModels(saveId)).map((model) => ({ ...model, modelId: null, sources: model.sources.map((id) => beliefName.get(id)) })),
    jobs: (await store.living.listJobs({ saveId })).map(({ jobId: _id, saveId: _save, ...job }) => job),
    queries,
  };
}

const step = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('turn' as const), words: fc.array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 6 }), speaker: fc.option(fc.constantFrom('Marta', 'Rowan')), dialogue: fc.boolean(), facts: fc.nat(2) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('consolidate' as const), kinds: fc.array(fc.constantFrom('CREATE', 'CREATE', 'UPDATE', 'DELETE'), { minLength: 1, maxLength: 3 }), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('model' as const), subject: fc.constantFrom('Marta', 'Kaël', '') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewind' as const), back: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('queue' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('lore' as const) }) },
);
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

/** Plays a history into save `s` and returns its last turn. */
async function play(memory: Mnemo, steps: readonly Step[]): Promise<number> {
  let turn = 0;
  let serial = 0;
  for (const op of steps) {
    if (op.kind === 'turn') {
      turn++;
      await memory.add({ saveId: 's', turnId: turn, text: `${op.words.join(' ')} (${++serial})`, chunkType: op.dialogue ? 'dialogue' : 'narrative', metadata: op.speaker === null ? {} : { speaker: op.speaker, mood: { calm: op.facts } } });
      if (op.facts > 0) await memory.store.living.insertFacts('s', turn, Array.from({ length: op.facts }, (_, index) => ({ statement: `fact ${++serial} of turn ${turn} ${index}`, entities: ['Marta'], who: 'Marta' })));
    } else if (op.kind === 'consolidate') {
      const facts = await memory.store.living.getFacts('s');
      const beliefs = await memory.store.living.getBeliefs('s');
      const factTurnMap = new Map(facts.map((fact) => [fact.factId as number, fact.turnId as number]));
      const actions: ConsolidationAction[] = op.kinds.map((kind, index) => ({
        kind,
        statement: kind === 'DELETE' ? '' : `belief ${++serial}`,
        subject: index % 2 === 0 ? 'Marta' : '',
        beliefId: kind === 'CREATE' || beliefs.length === 0 ? null : (beliefs[(op.pick + index) % beliefs.length]?.beliefId ?? null),
        sourceFactIds: facts.slice(0, 2).map((fact) => fact.factId as number),
      }));
      await memory.store.living.applyConsolidation('s', turn, actions, factTurnMap);
    } else if (op.kind === 'model') {
      const beliefs = await memory.store.living.getBeliefs('s');
      await memory.store.living.upsertModel('s', op.subject, `profile ${++serial} of ${op.subject || 'the world'} at ${turn}`, turn, beliefs.slice(0, 2).map((belief) => belief.beliefId as number));
    } else if (op.kind === 'rewind') {
      turn = Math.max(0, turn - op.back);
      await memory.rewind('s', turn);
    } else if (op.kind === 'queue') {
      await memory.store.living.enqueueTurn('s', turn, { text: `turn ${turn}`, knownEntities: ['Marta'] }, 1000 + turn);
    } else {
      await memory.lore.syncToSave('s', [{ entryId: 'entry-1', text: 'The salt toll of the lamplighters at the ferry bridge.', metadata: { scopeLevel: 'faction' } }]);
    }
  }
  return turn;
}

/** Exports `source`'s save `s`, imports it into `target`, and checks both now and after the same rewind and fork. */
async function roundTrip(source: Mnemo, target: Mnemo, turn: number, exact = true): Promise<void> {
  const canonical = (memory: Mnemo, saveId: string) => canonicalState(memory, saveId, exact);
  const before = await canonical(source, 's');
  const path = await exportToFile(source, 's');
  const report = await target.importSave({ path });
  expect(report).toMatchObject({ saveId: 's', chunks: before.chunks.length, living: { facts: before.facts.length, beliefs: before.beliefs.length, models: before.models.length, jobs: before.jobs.length } });
  expect(await canonical(target, 's')).toEqual(before);
  const middle = Math.floor(turn / 2);
  for (const memory of [source, target]) await memory.fork('s', 'branch', middle).catch((error: { code?: string }) => expect(error.code).toBe('NOT_FOUND'));
  expect(await canonical(target, 'branch')).toEqual(await canonical(source, 'branch'));
  expect(await target.rewindWithCounts('s', middle)).toEqual(await source.rewindWithCounts('s', middle));
  expect(await canonical(target, 's')).toEqual(await canonical(source, 's'));
}

describe('export and import of a save', () => {
  it('keeps every layer, every query and how rewind and fork behave: SQLite to SQLite and to the in-memory store (fast-check, fixed seed)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), fc.boolean(), async (steps, toMemory) => {
        const source = await open(sqlite());
        const target = await open(toMemory ? openInMemoryStore() : sqlite());
        try {
          const turn = await play(source, steps);
          if ((await source.listSaves()).length === 0 && (await source.store.living.countFacts('s')) === 0) return;
          await roundTrip(source, target, turn);
        } finally {
          await source.close();
          await target.close();
        }
      }),
      { seed: 18, numRuns: 25 },
    );
  }, 240_000);

  for (const target of postgresTargets()) {
    describe.skipIf(target.skip !== null)(`into PostgreSQL (${target.name})`, () => {
      it('keeps every layer from SQLite to PostgreSQL and back (fast-check, fixed seed)', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 20 }), async (steps) => {
            const source = await open(sqlite());
            const postgres = await open(await target.open());
            const back = await open(sqlite());
            try {
              const turn = await play(source, steps);
              if ((await source.listSaves()).length === 0) return;
              await roundTrip(source, postgres, turn, false);
              await back.importSave({ path: await exportToFile(postgres, 's') });
              // `back` indexes the save afresh, `source` kept its index through the rewind: rankings, not float noise.
              expect(await canonicalState(back, 's', false)).toEqual(await canonicalState(source, 's', false));
            } finally {
              await source.close();
              await postgres.close();
              await back.close();
            }
          }),
          { seed: 18, numRuns: 6 },
        );
      }, 300_000);
    });
  }

  describe('checks the whole file before writing anything', () => {
    async function fixture(): Promise<{ memory: Mnemo; lines: string[] }> {
      const memory = await open(openInMemoryStore());
      await memory.addMany([1, 2, 3].map((turnId) => ({ saveId: 'run', turnId, text: `turn ${turnId}: Marta counts the salt`, metadata: { speaker: 'Marta' } })));
      const [fact] = await memory.store.living.insertFacts('run', 2, [{ statement: 'Marta counts the salt.' }]);
      await memory.store.living.applyConsolidation('run', 2, [{ kind: 'CREATE', statement: 'Marta keeps count.', subject: 'Marta', beliefId: null, sourceFactIds: [fact as number] }], new Map([[fact as number, 2]]));
      await setUniverseMission(memory.store, 'Track debts.');
      let text = '';
      for await (const piece of memory.exportSave('run')) text += piece;
      return { memory, lines: text.split('\n').filter((line) => line !== '') };
    }

    const broken: [string, (lines: string[]) => string[], number, RegExp][] = [
      ['a line that is not JSON', (lines) => lines.map((line, index) => (index === 2 ? '{"type":"chunk",' : line)), 3, /line 3: not valid JSON/u],
      ['a field of the wrong type', (lines) => lines.map((line, index) => (index === 3 ? line.replace('"turnId":2', '"turnId":-2') : line)), 4, /line 4: chunk\.turnId/u],
      ['a truncated file', (lines) => lines.slice(0, 5), 6, /no end line: the file is truncated after line 5/u],
      ['a record out of order', (lines) => [lines[0] as string, lines[1] as string, lines[5] as string, ...lines.slice(2, 5), ...lines.slice(6)], 4, /line 4: a chunk record out of order/u],
      ['a belief citing an unknown fact', (lines) => lines.map((line) => (line.includes('"type":"belief"') ? line.replace(/"factId":\d+/u, '"factId":999') : line)), 7, /line 7: refers to fact 999/u],
      ['a vector of the wrong length', (lines) => lines.map((line, index) => (index === 2 ? line.replace(/"vector":"[^"]+"/u, '"vector":"AACAPw=="') : line)), 3, /line 3: chunk\.vector: expected 32 float32 values/u],
      ['a newer format version', (lines) => lines.map((line, index) => (index === 0 ? line.replace('"version":1', '"version":2') : line)), 1, /line 1: format version 2, newer than this Mnemo reads/u],
      ['end counts that differ', (lines) => lines.map((line) => (line.includes('"type":"end"') ? line.replace('"chunks":3', '"chunks":4') : line)), 8, /line 8: the end line counts 4 chunks/u],
    ];
    for (const [what, edit, line, message] of broken) {
      it(`refuses ${what}, naming line ${line}, and writes nothing`, async () => {
        const { memory, lines } = await fixture();
        const target = await open(sqlite());
        try {
          const text = edit(lines).join('\n');
          const error = await target.importSave({ text }, { as: 'copy' }).catch((caught: unknown) => caught);
          expect(error).toMatchObject({ code: 'SAVE_FILE_INVALID', details: { line } });
          expect((error as Error).message).toMatch(message);
          expect(await target.listSaves()).toEqual([]);
          expect(await target.store.living.countFacts('copy')).toBe(0);
        } finally {
          await memory.close();
          await target.close();
        }
      });
    }

    it('imports under another id, without vectors when asked, refuses a save holding data and vectors of another embedder', async () => {
      const { memory, lines } = await fixture();
      const text = lines.join('\n');
      expect(lines[0]).toContain('"embedder":{"provider":"hashing"');
      expect(await memory.importSave({ text }, { as: 'copy' })).toMatchObject({ saveId: 'copy', fromSaveId: 'run', chunks: 3, vectors: 3, living: { facts: 1, beliefs: 1 }, settings: false });
      await expect(memory.importSave({ text }, { as: 'copy' })).rejects.toMatchObject({ code: 'CONFLICT', details: { saveId: 'copy' } });
      const other = await openMemory({ store: openInMemoryStore(), embedder: hashingEmbedder({ dimensions: 16 }), logger: silentLogger });
      await other.add({ saveId: 'mine', turnId: 1, text: 'a vector of 16 dimensions' });
      await expect(other.importSave({ text })).rejects.toMatchObject({ code: 'EMBEDDER_MISMATCH' });
      expect(await other.listSaves()).toHaveLength(1);
      expect(await other.importSave({ text }, { vectors: false, settings: true })).toMatchObject({ saveId: 'run', chunks: 3, vectors: 0, settings: true });
      expect((await other.query('run', 'salt', { k: 3 }))[0]?.explanation.semantic).toBeNull();
      expect(await other.living.getMission()).toBe('Track debts.');
      await expect(memory.importSave({ path: join(dir, 'missing.jsonl') })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(memory.exportSave('nobody').next()).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await memory.close();
      await other.close();
    });
  });
});

describe('mnemo export and mnemo import', () => {
  const run = (...args: string[]) => runCli('--embedder', 'hashing', ...args);

  it('moves a save from one SQLite file to another under a new id, and names the line of a broken file (exit 2, nothing written)', async () => {
    const from = join(dir, `cli-from-${++files}.db`);
    const to = join(dir, `cli-to-${files}.db`);
    const file = join(dir, `cli-${files}.jsonl`);
    expect((await run('--db', from, 'add', 'camp', '1', 'The ferryman asks for a copper coin')).code).toBe(0);
    expect((await run('--db', from, 'add', 'camp', '2', 'The river is calm tonight', '--metadata', '{"speaker":"Marta"}')).code).toBe(0);
    const exported = await run('--db', from, 'export', 'camp', '--output', file);
    expect(exported).toMatchObject({ code: 0, err: expect.stringMatching(/^exported camp into .* \(\d+ bytes\)$/u) });
    const imported = await run('--db', to, 'import', file, '--as', 'camp-copy');
    expect(imported).toMatchObject({ code: 0, out: `imported ${file} into camp-copy: 2 chunks (2 with vectors), 0 facts, 0 beliefs, 0 models (0 versions), 0 jobs` });
    const before = JSON.parse((await run('--db', from, 'query', 'camp', 'copper', 'river', '--json')).out) as { text: string; score: number }[];
    const after = JSON.parse((await run('--db', to, 'query', 'camp-copy', 'copper', 'river', '--json')).out) as { text: string; score: number }[];
    expect(after.map(({ text, score }) => ({ text, score }))).toEqual(before.map(({ text, score }) => ({ text, score })));
    expect((await run('--db', to, 'import', file, '--as', 'camp-copy')).code).toBe(2);

    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, lines.slice(0, 3).join('\n'));
    const truncated = await run('--db', to, 'import', file, '--as', 'camp-truncated');
    expect(truncated.code).toBe(2);
    expect(truncated.err).toContain('line 4: no end line: the file is truncated after line 3');
    expect(JSON.parse((await run('--db', to, 'stats', '--json')).out).saves.map((save: { saveId: string }) => save.saveId)).toEqual(['camp-copy']);

    const unconfirmed = await run('--db', to, 'delete', 'camp-copy');
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.err).toContain('delete: this would remove save "camp-copy" (2 chunks');
    expect(await run('--db', to, 'delete', 'camp-copy', '--yes')).toMatchObject({ code: 0, out: 'deleted camp-copy: 2 chunks, 0 facts, 0 beliefs, 0 models, 0 jobs' });
    expect(JSON.parse((await run('--db', to, 'stats', '--json')).out).saves).toEqual([]);
  });
});
