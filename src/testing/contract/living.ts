// The LivingStore contract, written once: every store adapter runs it through runLivingContract(name, factory).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConsolidationAction, FactInput } from '../../core/living-types.js';
import type { NewChunk, Store } from '../../seams/store.js';
import type { StoreFactory } from './store-factory.js';

const action = (kind: ConsolidationAction['kind'], fields: Partial<ConsolidationAction> = {}): ConsolidationAction =>
  ({ kind, statement: '', subject: '', beliefId: null, sourceFactIds: [], ...fields });

let chunkCounter = 0;
const chunk = (saveId: string, turnId: number, text: string): NewChunk => ({
  id: `00000000-0000-4000-8000-${String(++chunkCounter).padStart(12, '0')}`,
  saveId,
  turnId,
  chunkType: 'narrative',
  text,
  entryId: null,
  metadata: { saveId, turnId, chunkType: 'narrative' },
  createdAt: 0,
  embedding: new Float32Array([turnId, 1, 0]),
});

/**
 * Runs the behaviour every LivingStore must have (facts, beliefs, mental models, jobs, and the store's rewind and
 * fork across layers) against stores made by `factory`.
 *
 * @example
 * ```ts
 * runLivingContract('sqlite', { create: async () => openSqliteStore({ path: tempFile() }) });
 * ```
 */
export function runLivingContract(name: string, factory: StoreFactory): void {
  describe(`living store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.create();
    });
    afterEach(async () => {
      await store.close();
    });

    /** What a rewind of `saveId` to `turnId` (through the public Store.rewind) did to the beliefs and to the models. */
    async function rewindLiving(saveId: string, turnId: number) {
      const { living } = (await store.rewind(saveId, turnId)).removed;
      return { facts: living.facts, beliefs: { deleted: living.beliefsDeleted, updated: living.beliefsUpdated }, models: { deleted: living.modelsDeleted, updated: living.modelsUpdated } };
    }

    /** Facts of turns 1..n, two per turn, with the turn's number in them. */
    async function seedFacts(saveId: string, turns: number): Promise<Map<number, number>> {
      const factTurns = new Map<number, number>();
      for (let turn = 1; turn <= turns; turn++) {
        const ids = await store.living.insertFacts(saveId, turn, [
          { statement: `Kaël walks to milestone ${turn}.`, entities: ['Kaël'], who: 'Kaël' },
          { statement: `Rowan counts ${turn} coins.`, entities: ['Rowan'], factType: 'Experience' },
        ]);
        for (const id of ids) factTurns.set(id, turn);
      }
      return factTurns;
    }

    describe('facts', () => {
      it('inserts, skipping blank statements, and sets ids and turns on the objects', async () => {
        const facts: FactInput[] = [{ statement: '  The well floods at dusk. ', entities: ['Well', 'well', ' '] }, { statement: '   ' }, { statement: 'Rowan guards the bridge.', who: 'Rowan', why: 'duty' }];
        const ids = await store.living.insertFacts('s', 4, facts);
        expect(ids).toHaveLength(2);
        expect(facts[0]).toMatchObject({ factId: ids[0], turnId: 4 });
        expect(facts[1]?.factId).toBeUndefined();
        expect(facts[2]?.factId).toBe(ids[1]);
        const [second, first] = await store.living.getFacts('s');
        expect(first).toEqual({ factId: ids[0], turnId: 4, statement: 'The well floods at dusk.', factType: 'world', who: '', what: '', when: '', where: '', why: '', entities: ['Well'] });
        expect(second).toMatchObject({ factId: ids[1], who: 'Rowan', why: 'duty' });
        expect(await store.living.countFacts('s')).toBe(2);
        expect(await store.living.insertFacts('s', 5, [])).toEqual([]);
      });

      it('stores a fact type outside world, experience and opinion as world (case-insensitive otherwise)', async () => {
        await store.living.insertFacts('s', 1, [{ statement: 'A bogus one.', factType: 'bogus' }, { statement: 'An opinion.', factType: ' OPINION ' }, { statement: 'A lasting one.', factType: 'World' }]);
        expect((await store.living.getFacts('s')).map((fact) => [fact.statement, fact.factType])).toEqual([['A lasting one.', 'world'], ['An opinion.', 'opinion'], ['A bogus one.', 'world']]);
      });

      it('gets most recent first, within a turn bound, by entity (case-insensitive, exact) and up to a limit', async () => {
        await seedFacts('s', 4);
        await store.living.insertFacts('s', 2, [{ statement: 'KAËL laughs.', entities: ['KAËL'] }, { statement: 'Kaëlin waves.', entities: ['Kaëlin'] }]);
        await seedFacts('other', 1);
        const all = await store.living.getFacts('s');
        expect(all).toHaveLength(10);
        expect(all.map((fact) => fact.turnId)).toEqual([4, 4, 3, 3, 2, 2, 2, 2, 1, 1]);
        expect(all[0]?.statement).toBe('Rowan counts 4 coins.');
        expect(all[0]?.factType).toBe('experience');
        const bounded = await store.living.getFacts('s', { maxTurnId: 2 });
        expect(bounded.every((fact) => (fact.turnId as number) <= 2)).toBe(true);
        const kael = await store.living.getFacts('s', { entity: 'kaël', maxTurnId: 2 });
        expect(kael.map((fact) => fact.statement)).toEqual(['KAËL laughs.', 'Kaël walks to milestone 2.', 'Kaël walks to milestone 1.']);
        expect(await store.living.getFacts('s', { entity: 'Kaël', limit: 2 })).toHaveLength(2);
        expect(await store.living.getFacts('s', { turnId: 3 })).toHaveLength(2);
        expect(await store.living.getFacts('s', { entity: 'nobody' })).toEqual([]);
      });

      it('rolls back facts after a turn and returns the count', async () => {
        await seedFacts('s', 5);
        await seedFacts('other', 5);
        expect((await rewindLiving('s', 3)).facts).toBe(4);
        expect(await store.living.countFacts('s')).toBe(6);
        expect(await store.living.countFacts('other')).toBe(10);
        expect((await rewindLiving('s', 3)).facts).toBe(0);
      });

      it('replaces a turn\'s facts, detaching beliefs from the old ones', async () => {
        const turns = await seedFacts('s', 3);
        const [oldA, oldB] = (await store.living.getFacts('s', { turnId: 2 })).map((fact) => fact.factId as number);
        await store.living.applyConsolidation('s', 3, [action('CREATE', { statement: 'Kaël keeps walking.', subject: 'Kaël', sourceFactIds: [oldA as number, oldB as number, ...[...turns.keys()].slice(0, 1)] })], turns);
        const facts: FactInput[] = [{ statement: 'Kaël rests instead.' }];
        const ids = await store.living.replaceTurnFacts('s', 2, facts);
        expect(facts[0]?.factId).toBe(ids[0]);
        expect((await store.living.getFacts('s', { turnId: 2 })).map((fact) => fact.statement)).toEqual(['Kaël rests instead.']);
        expect(await store.living.countFacts('s')).toBe(5);
        const [belief] = await store.living.getBeliefs('s');
        expect(belief?.sources.map((source) => source.turnId)).toEqual([1]);
        expect(belief?.proofCount).toBe(1);
        expect(belief?.stale).toBe(true);
      });

      it('moves the facts version with every insert, replacement and rollback of a save\'s facts, and no other save\'s', async () => {
        const versions = [await store.living.factsVersion('s')];
        expect(versions[0]).toEqual({ count: 0, lastFactId: 0 });
        const [first] = await store.living.insertFacts('s', 1, [{ statement: 'One.' }, { statement: 'Two.' }]);
        versions.push(await store.living.factsVersion('s'));
        expect(versions[1]).toEqual({ count: 2, lastFactId: (first as number) + 1 });
        await store.living.insertFacts('other', 1, [{ statement: 'Elsewhere.' }]);
        expect(await store.living.factsVersion('s')).toEqual(versions[1]);
        await store.living.replaceTurnFacts('s', 1, [{ statement: 'Three.' }, { statement: 'Four.' }]);
        const replaced = await store.living.factsVersion('s');
        expect(replaced.count).toBe(2);
        expect(replaced.lastFactId).toBeGreaterThan(versions[1]?.lastFactId as number);
        await rewindLiving('s', 0);
        expect((await store.living.factsVersion('s')).count).toBe(0);
      });
    });

    describe('beliefs', () => {
      it('inserts a belief with proofCount derived from its sources, skipping blank statements', async () => {
        expect(await store.living.insertBelief('s', { statement: '  ' })).toBeNull();
        const id = await store.living.insertBelief('s', { statement: 'The world is round.', sources: [{ factId: 7, turnId: 2 }, { factId: 7, turnId: 2 }, { factId: 9, turnId: 3 }], createdTurnId: 3 });
        const [belief] = await store.living.getBeliefs('s');
        expect(belief).toMatchObject({ beliefId: id, statement: 'The world is round.', subject: '', proofCount: 2, createdTurnId: 3, updatedTurnId: 3, stale: false, deletedTurnId: null });
        expect(belief?.history).toEqual([{ action: 'CREATE', turnId: 3, statement: 'The world is round.', subject: '', factIds: [7, 9] }]);
        expect(await store.living.countBeliefs('s')).toBe(1);
      });

      it('applies CREATE, UPDATE and DELETE, skipping unknown ids and empty statements, and counts them', async () => {
        const turns = await seedFacts('s', 3);
        const [f1, f2, f3, f4, f5] = [...turns.keys()];
        const first = await store.living.applyConsolidation('s', 2, [
          action('CREATE', { statement: 'Rowan hoards coins.', subject: 'Rowan', sourceFactIds: [f2 as number, 999] }),
          action('CREATE', { statement: 'Kaël travels east.', subject: 'Kaël', sourceFactIds: [f1 as number, f3 as number] }),
          action('CREATE', { statement: '   ', subject: 'Kaël' }),
          action('UPDATE', { beliefId: 12345, statement: 'ghost' }),
          action('DELETE', { beliefId: 12345 }),
        ], turns);
        expect(first).toEqual({ created: 2, updated: 0, deleted: 0, skipped: 3 });
        const [travels, hoards] = await store.living.getBeliefs('s');
        expect(hoards).toMatchObject({ statement: 'Rowan hoards coins.', subject: 'Rowan', proofCount: 1, sources: [{ factId: f2, turnId: 1 }], createdTurnId: 2 });
        expect(travels?.sources).toEqual([{ factId: f1, turnId: 1 }, { factId: f3, turnId: 2 }]);
        const second = await store.living.applyConsolidation('s', 3, [
          action('UPDATE', { beliefId: hoards?.beliefId as number, statement: 'Rowan hoards and counts coins.', subject: 'ignored', sourceFactIds: [f2 as number, f4 as number] }),
          action('UPDATE', { beliefId: travels?.beliefId as number, statement: '' }),
          action('DELETE', { beliefId: travels?.beliefId as number }),
          action('UPDATE', { beliefId: travels?.beliefId as number, statement: 'too late' }),
          action('DELETE', { beliefId: travels?.beliefId as number }),
        ], turns);
        expect(second).toEqual({ created: 0, updated: 1, deleted: 1, skipped: 3 });
        const standing = await store.living.getBeliefs('s');
        expect(standing).toHaveLength(1);
        expect(standing[0]).toMatchObject({ statement: 'Rowan hoards and counts coins.', subject: 'Rowan', proofCount: 2, updatedTurnId: 3 });
        expect(standing[0]?.history.map((change) => [change.action, change.turnId, change.factIds])).toEqual([['CREATE', 2, [f2]], ['UPDATE', 3, [f4]]]);
        const all = await store.living.getBeliefs('s', { includeDeleted: true });
        expect(all.find((belief) => belief.beliefId === travels?.beliefId)).toMatchObject({ deletedTurnId: 3, statement: 'Kaël travels east.' });
        expect(await store.living.countBeliefs('s')).toBe(1);
        expect(f5).toBeDefined();
      });

      it('never stores a belief resting on no known fact: such a CREATE or UPDATE is skipped, not counted', async () => {
        const turns = await seedFacts('s', 2);
        const [f1] = [...turns.keys()];
        expect(await store.living.applyConsolidation('s', 2, [
          action('CREATE', { statement: 'Cites a fact the save never had.', sourceFactIds: [987_654] }),
          action('CREATE', { statement: 'Cites nothing.' }),
          action('CREATE', { statement: 'Rests on a known fact.', sourceFactIds: [987_654, f1 as number] }),
        ], turns)).toEqual({ created: 1, updated: 0, deleted: 0, skipped: 2 });
        const [known] = await store.living.getBeliefs('s', { includeDeleted: true });
        expect(known).toMatchObject({ statement: 'Rests on a known fact.', proofCount: 1, sources: [{ factId: f1, turnId: 1 }] });
        // A belief handed in without sources (an import) is not given an UPDATE that leaves it on none.
        const bare = await store.living.insertBelief('s', { statement: 'Imported bare.', createdTurnId: 1 }) as number;
        expect(await store.living.applyConsolidation('s', 2, [
          action('UPDATE', { beliefId: bare, statement: 'Still bare.', sourceFactIds: [987_654] }),
          action('UPDATE', { beliefId: known?.beliefId as number, statement: 'Rests on its old fact.', sourceFactIds: [987_654] }),
        ], turns)).toEqual({ created: 0, updated: 1, deleted: 0, skipped: 1 });
        const beliefs = await store.living.getBeliefs('s');
        expect(beliefs.find((belief) => belief.beliefId === bare)).toMatchObject({ statement: 'Imported bare.', history: [expect.objectContaining({ action: 'CREATE' })] });
        expect(beliefs.find((belief) => belief.beliefId === known?.beliefId)).toMatchObject({ statement: 'Rests on its old fact.', proofCount: 1 });
        expect(await store.living.applyConsolidation('s', 2, [action('UPDATE', { beliefId: bare, statement: 'Now rests on a fact.', sourceFactIds: [f1 as number] })], turns))
          .toEqual({ created: 0, updated: 1, deleted: 0, skipped: 0 });
        expect((await store.living.getBeliefs('s')).find((belief) => belief.beliefId === bare)).toMatchObject({ statement: 'Now rests on a fact.', proofCount: 1 });
      });

      it('filters beliefs by subject (case-insensitive, "" for the world), turn bound and limit, most recently updated first', async () => {
        const turns = await seedFacts('s', 4);
        const [first] = [...turns.keys()];
        const cites = { sourceFactIds: [first as number] };
        await store.living.applyConsolidation('s', 1, [action('CREATE', { statement: 'The roads are muddy.', ...cites }), action('CREATE', { statement: 'Kaël is tired.', subject: 'Kaël', ...cites })], turns);
        await store.living.applyConsolidation('s', 3, [action('CREATE', { statement: 'KAËL hums.', subject: 'KAËL', ...cites })], turns);
        const kael = await store.living.getBeliefs('s', { subject: 'kaël' });
        expect(kael.map((belief) => belief.statement)).toEqual(['KAËL hums.', 'Kaël is tired.']);
        expect((await store.living.getBeliefs('s', { subject: '' })).map((belief) => belief.statement)).toEqual(['The roads are muddy.']);
        expect(await store.living.getBeliefs('s', { maxTurnId: 2 })).toHaveLength(2);
        expect(await store.living.getBeliefs('s', { limit: 1 })).toHaveLength(1);
      });

      it('rolls beliefs back exactly: later ones dropped, later changes undone, sources trimmed, stale flagged', async () => {
        const turns = await seedFacts('s', 8);
        const ids = [...turns.keys()];
        const at = (turn: number) => ids.filter((id) => turns.get(id) === turn);
        await store.living.applyConsolidation('s', 2, [action('CREATE', { statement: 'Rowan trusts Kaël.', subject: 'Rowan', sourceFactIds: at(2) }), action('CREATE', { statement: 'Steady belief.', sourceFactIds: at(1) })], turns);
        const [trust] = await store.living.getBeliefs('s', { subject: 'Rowan' });
        const trustId = trust?.beliefId as number;
        await store.living.applyConsolidation('s', 5, [action('UPDATE', { beliefId: trustId, statement: 'Rowan doubts Kaël.', sourceFactIds: [...at(5), ...at(1)] })], turns);
        await store.living.applyConsolidation('s', 6, [action('CREATE', { statement: 'Kaël lies.', subject: 'Kaël', sourceFactIds: at(6) })], turns);
        await store.living.applyConsolidation('s', 7, [action('DELETE', { beliefId: trustId })], turns);
        expect((await rewindLiving('s', 6)).beliefs).toEqual({ deleted: 0, updated: 1 });
        const restored = (await store.living.getBeliefs('s', { subject: 'Rowan' }))[0];
        expect(restored).toMatchObject({ statement: 'Rowan doubts Kaël.', deletedTurnId: null, updatedTurnId: 5, stale: true, proofCount: 6 });
        expect((await rewindLiving('s', 4)).beliefs).toEqual({ deleted: 1, updated: 1 });
        const beliefs = await store.living.getBeliefs('s', { includeDeleted: true });
        expect(beliefs).toHaveLength(2);
        const rewound = beliefs.find((belief) => belief.beliefId === trustId);
        expect(rewound).toMatchObject({ statement: 'Rowan trusts Kaël.', updatedTurnId: 2, proofCount: 2, stale: true });
        expect(rewound?.sources.every((source) => source.turnId <= 4)).toBe(true);
        expect(rewound?.history.map((change) => change.action)).toEqual(['CREATE']);
        expect(beliefs.find((belief) => belief.statement === 'Steady belief.')?.stale).toBe(false);
        expect((await rewindLiving('s', 1)).beliefs).toEqual({ deleted: 2, updated: 0 });
      });
    });

    describe('mental models', () => {
      it('upserts one model per subject (case-insensitive), keeping the creation turn, skipping blank summaries', async () => {
        const id = await store.living.upsertModel('s', 'Rowan', 'A wary guard.', 3, [1]);
        expect(await store.living.upsertModel('s', 'ROWAN', 'A wary guard who now trusts Kaël.', 7, [1, 2])).toBe(id);
        expect(await store.living.upsertModel('s', 'Rowan', '   ', 8)).toBeNull();
        await store.living.upsertModel('s', '', 'A world at war.', 5);
        const models = await store.living.getModels('s');
        expect(models).toHaveLength(2);
        expect(models[0]).toEqual({ modelId: id, subject: 'Rowan', summary: 'A wary guard who now trusts Kaël.', sources: [1, 2], createdTurnId: 3, updatedTurnId: 7, stale: false });
        expect((await store.living.getModels('s', { subject: '' }))[0]?.summary).toBe('A world at war.');
        expect(await store.living.getModels('s', { maxTurnId: 4 })).toHaveLength(1);
        expect(await store.living.countModels('s')).toBe(2);
      });

      it('rolls models back: later ones dropped, the rest restored to their summary at that turn and flagged stale', async () => {
        await store.living.upsertModel('s', 'Rowan', 'v3', 3, [1]);
        await store.living.upsertModel('s', 'Rowan', 'v6', 6, [1, 2]);
        await store.living.upsertModel('s', 'Rowan', 'v9', 9, [1, 2, 3]);
        await store.living.upsertModel('s', 'Kaël', 'k2', 2);
        await store.living.upsertModel('s', 'Mira', 'm8', 8);
        expect((await rewindLiving('s', 7)).models).toEqual({ deleted: 1, updated: 1 });
        expect(await store.living.getModels('s')).toEqual([
          expect.objectContaining({ subject: 'Rowan', summary: 'v6', sources: [1, 2], createdTurnId: 3, updatedTurnId: 6, stale: true }),
          expect.objectContaining({ subject: 'Kaël', summary: 'k2', updatedTurnId: 2, stale: false }),
        ]);
        expect((await rewindLiving('s', 4)).models).toEqual({ deleted: 0, updated: 1 });
        expect((await store.living.getModels('s', { subject: 'rowan' }))[0]).toMatchObject({ summary: 'v3', updatedTurnId: 3 });
      });

      it('lists stale subjects oldest update first, capped', async () => {
        for (const [index, subject] of ['A', 'B', 'C', 'D'].entries()) {
          await store.living.upsertModel('s', subject, `${subject} early`, index + 1);
          await store.living.upsertModel('s', subject, `${subject} late`, 10 + index);
        }
        await store.living.upsertModel('s', 'E', 'fresh', 1);
        await rewindLiving('s', 9);
        expect(await store.living.staleSubjects('s')).toEqual(['A', 'B', 'C', 'D']);
        expect(await store.living.staleSubjects('s', { limit: 2 })).toEqual(['A', 'B']);
        expect(await store.living.staleSubjects('s', { maxTurnId: 2 })).toEqual(['A', 'B']);
        await store.living.upsertModel('s', 'A', 'refreshed', 9);
        expect(await store.living.staleSubjects('s')).toEqual(['B', 'C', 'D']);
      });
    });

    describe('rewind and fork across layers', () => {
      async function seedWorld(saveId: string) {
        const turns = await seedFacts(saveId, 6);
        for (let turn = 1; turn <= 6; turn++) await store.insertChunks([chunk(saveId, turn, `Turn ${turn} happens.`)]);
        const ids = [...turns.keys()];
        await store.living.applyConsolidation(saveId, 2, [action('CREATE', { statement: 'Kaël wanders.', subject: 'Kaël', sourceFactIds: ids.slice(0, 4) })], turns);
        const [wanders] = await store.living.getBeliefs(saveId);
        await store.living.applyConsolidation(saveId, 5, [
          action('UPDATE', { beliefId: wanders?.beliefId as number, statement: 'Kaël wanders far.', sourceFactIds: ids.slice(8, 10) }),
          action('CREATE', { statement: 'Rowan waits.', subject: 'Rowan', sourceFactIds: ids.slice(9, 10) }),
        ], turns);
        await store.living.upsertModel(saveId, 'Kaël', 'A wanderer.', 2, [wanders?.beliefId as number]);
        await store.living.upsertModel(saveId, 'Kaël', 'A far wanderer.', 5, [wanders?.beliefId as number]);
        await store.living.upsertModel(saveId, 'Rowan', 'A patient guard.', 5);
        for (const turn of [3, 4, 6]) await store.living.enqueueTurn(saveId, turn, { text: `turn ${turn}` }, 1000);
        return { wandersId: wanders?.beliefId as number };
      }

      it('rewinds chunks, facts, beliefs, models and queued jobs in one call', async () => {
        const { wandersId } = await seedWorld('s');
        await seedWorld('other');
        const result = await store.rewind('s', 3);
        expect(result.removed).toEqual({ chunks: 3, living: { facts: 6, beliefsDeleted: 1, beliefsUpdated: 1, modelsDeleted: 1, modelsUpdated: 1, jobsCancelled: 2 } });
        expect(await store.countChunks('s')).toBe(3);
        expect(Math.max(...(await store.living.getFacts('s')).map((fact) => fact.turnId as number))).toBe(3);
        const beliefs = await store.living.getBeliefs('s', { includeDeleted: true });
        expect(beliefs).toEqual([expect.objectContaining({ beliefId: wandersId, statement: 'Kaël wanders.', proofCount: 4, updatedTurnId: 2, stale: true })]);
        expect(await store.living.getModels('s')).toEqual([expect.objectContaining({ subject: 'Kaël', summary: 'A wanderer.', updatedTurnId: 2, stale: true })]);
        expect((await store.living.listJobs({ saveId: 's' })).map((job) => job.turnId)).toEqual([3]);
        expect(await store.living.countFacts('other')).toBe(12);
        expect(await store.countChunks('other')).toBe(6);
        const again = await store.rewind('never-written', 2);
        expect(again.removed).toEqual({ chunks: 0, living: { facts: 0, beliefsDeleted: 0, beliefsUpdated: 0, modelsDeleted: 0, modelsUpdated: 0, jobsCancelled: 0 } });
      });

      it('forks a save as of a turn: every layer copied with new ids and remapped sources, the old save untouched', async () => {
        await seedWorld('s');
        const before = { facts: await store.living.getFacts('s'), beliefs: await store.living.getBeliefs('s', { includeDeleted: true }), models: await store.living.getModels('s'), jobs: await store.living.listJobs({ saveId: 's' }), chunks: await store.listChunks('s') };
        const counts = await store.fork('s', 'branch', 4);
        expect(counts).toEqual({ chunks: 4, living: { facts: 8, beliefs: 1, models: 1, jobs: 2 } });
        expect({ facts: await store.living.getFacts('s'), beliefs: await store.living.getBeliefs('s', { includeDeleted: true }), models: await store.living.getModels('s'), jobs: await store.living.listJobs({ saveId: 's' }), chunks: await store.listChunks('s') }).toEqual(before);

        const facts = await store.living.getFacts('branch');
        expect(facts.map((fact) => fact.statement)).toEqual(before.facts.filter((fact) => (fact.turnId as number) <= 4).map((fact) => fact.statement));
        const oldIds = new Set(before.facts.map((fact) => fact.factId));
        expect(facts.every((fact) => !oldIds.has(fact.factId))).toBe(true);
        const [belief] = await store.living.getBeliefs('branch');
        expect(belief).toMatchObject({ statement: 'Kaël wanders.', proofCount: 4, updatedTurnId: 2 });
        const branchFactIds = new Set(facts.map((fact) => fact.factId));
        expect(belief?.sources.every((source) => branchFactIds.has(source.factId))).toBe(true);
        expect(belief?.history[0]?.factIds.every((id) => branchFactIds.has(id))).toBe(true);
        const [model] = await store.living.getModels('branch');
        expect(model).toMatchObject({ subject: 'Kaël', summary: 'A wanderer.', sources: [belief?.beliefId] });
        expect((await store.living.listJobs({ saveId: 'branch' })).map((job) => [job.turnId, job.status])).toEqual([[3, 'pending'], [4, 'pending']]);
        const chunks = await store.listChunks('branch');
        expect(chunks.map((copy) => copy.text)).toEqual(['Turn 1 happens.', 'Turn 2 happens.', 'Turn 3 happens.', 'Turn 4 happens.']);
        expect(chunks.every((copy) => copy.saveId === 'branch' && copy.metadata['saveId'] === 'branch' && !before.chunks.some((old) => old.id === copy.id))).toBe(true);
        const vectors: (number | undefined)[] = [];
        await store.scanChunks('branch', (row) => vectors.push(row.embedding?.[0]));
        expect(vectors).toEqual([1, 2, 3, 4]);

        await store.rewind('branch', 1);
        expect(await store.living.countFacts('s')).toBe(12);
        await expect(store.fork('s', 'branch', 2)).rejects.toMatchObject({ code: 'CONFLICT' });
        await expect(store.fork('nothing-here', 'x', 2)).rejects.toMatchObject({ code: 'NOT_FOUND' });
        await expect(store.fork('s', 's', 2)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      });

      it('forks between save ids holding quotes and backslashes', async () => {
        const [source, target] = ["O'Brien's \\ run", "it''s \\' a branch"];
        await seedWorld(source);
        expect(await store.fork(source, target, 4)).toEqual({ chunks: 4, living: { facts: 8, beliefs: 1, models: 1, jobs: 2 } });
        expect((await store.listChunks(target)).map((copy) => [copy.saveId, copy.metadata['saveId']])).toEqual(Array.from({ length: 4 }, () => [target, target]));
        expect((await store.living.getFacts(target)).length).toBe(8);
        expect(await store.living.countFacts(source)).toBe(12);
      });
    });

    describe('jobs', () => {
      const worker = (now: number, extra: Record<string, unknown> = {}) => ({ workerId: 'w1', now, leaseMs: 1000, ...extra });

      it('queues one job per save and turn; queuing again restarts it with a new generation', async () => {
        const first = await store.living.enqueueTurn('s', 3, { text: 'a' }, 10);
        expect(first).toMatchObject({ saveId: 's', turnId: 3, stage: 'extract', status: 'pending', generation: 1, attempts: 0, payload: { text: 'a' } });
        const claimed = await store.living.claimJob(worker(20));
        expect(claimed).toMatchObject({ jobId: first.jobId, status: 'running', claimedBy: 'w1' });
        const again = await store.living.enqueueTurn('s', 3, { text: 'b', knownEntities: ['Kaël'] }, 30);
        expect(again).toMatchObject({ jobId: first.jobId, generation: 2, status: 'pending', stage: 'extract', payload: { text: 'b', knownEntities: ['Kaël'] }, claimToken: null });
        const claim = { saveId: first.saveId, jobId: first.jobId, generation: 1, claimToken: claimed?.claimToken as string };
        expect(await store.living.completeStage(claim, { stage: 'extract', facts: [{ statement: 'stale work' }] }, 40)).toBe(false);
        expect(await store.living.countFacts('s')).toBe(0);
        expect(await store.living.countJobs()).toEqual({ pending: 1, running: 0, done: 0, failed: 0 });
      });

      it('claims per save in turn order, one at a time, the save whose head was queued first first', async () => {
        await store.living.enqueueTurn('a', 2, {}, 1);
        await store.living.enqueueTurn('b', 1, {}, 2);
        await store.living.enqueueTurn('a', 1, {}, 3);
        const first = await store.living.claimJob(worker(10));
        expect([first?.saveId, first?.turnId]).toEqual(['b', 1]);
        const second = await store.living.claimJob(worker(10));
        expect([second?.saveId, second?.turnId]).toEqual(['a', 1]);
        expect(await store.living.claimJob(worker(10))).toBeNull();
        expect(await store.living.claimJob(worker(10, { saveId: 'a' }))).toBeNull();
        const stolen = await store.living.claimJob(worker(2000, { workerId: 'w2' }));
        expect([stolen?.saveId, stolen?.turnId, stolen?.claimedBy]).toEqual(['b', 1, 'w2']);
        expect(await store.living.renewClaim({ saveId: first?.saveId as string, jobId: first?.jobId as number, generation: 1, claimToken: first?.claimToken as string }, 2000)).toBe(false);
        // A claim holds its job in its own save only: the same id and token named under another save hold nothing.
        expect(await store.living.renewClaim({ saveId: 'b', jobId: second?.jobId as number, generation: 1, claimToken: second?.claimToken as string }, 2000)).toBe(false);
        expect(await store.living.renewClaim({ saveId: 'a', jobId: second?.jobId as number, generation: 1, claimToken: second?.claimToken as string }, 2000)).toBe(true);
        const dead = await store.living.claimJob(worker(2001, { workerId: 'w3', deadWorkers: ['w1'] }));
        expect([dead?.saveId, dead?.turnId, dead?.claimedBy]).toEqual(['a', 1, 'w3']);
      });

      it('commits each stage with its work and advances to done', async () => {
        const turns = await seedFacts('s', 1);
        const job = await store.living.enqueueTurn('s', 2, { text: 'x' }, 1);
        const claimed = await store.living.claimJob(worker(5));
        const claim = { saveId: job.saveId, jobId: job.jobId, generation: claimed?.generation as number, claimToken: claimed?.claimToken as string };
        expect(await store.living.completeStage(claim, { stage: 'consolidate', actions: [], factTurnMap: new Map(), subjects: [] }, 6)).toBe(false);
        expect(await store.living.completeStage(claim, { stage: 'extract', facts: [{ statement: 'Kaël finds a map.', entities: ['Kaël'] }] }, 6)).toBe(true);
        const [fact] = await store.living.getFacts('s', { turnId: 2 });
        const map = new Map([...turns, [fact?.factId as number, 2]]);
        expect(await store.living.completeStage(claim, { stage: 'consolidate', actions: [action('CREATE', { statement: 'Kaël can navigate.', subject: 'Kaël', sourceFactIds: [fact?.factId as number] })], factTurnMap: map, subjects: ['Kaël'] }, 7)).toBe(true);
        expect((await store.living.listJobs())[0]).toMatchObject({ stage: 'reflect', status: 'running', subjects: ['Kaël'] });
        expect(await store.living.completeStage(claim, { stage: 'reflect', models: [{ subject: 'Kaël', summary: 'A navigator.', sources: [1] }] }, 8)).toBe(true);
        expect((await store.living.listJobs())[0]).toMatchObject({ stage: 'done', status: 'done', claimToken: null });
        expect(await store.living.getModels('s')).toEqual([expect.objectContaining({ subject: 'Kaël', summary: 'A navigator.', createdTurnId: 2 })]);
        expect(await store.living.completeStage(claim, { stage: 'reflect', models: [] }, 9)).toBe(false);
        expect(await store.living.claimJob(worker(10))).toBeNull();
      });

      it('records failures: back to pending when due again, failed at the end; failed jobs can be retried', async () => {
        await store.living.enqueueTurn('s', 1, {}, 1);
        await store.living.enqueueTurn('s', 2, {}, 1);
        let job = await store.living.claimJob(worker(10));
        expect(await store.living.failStage({ saveId: job?.saveId as string, jobId: job?.jobId as number, generation: 1, claimToken: job?.claimToken as string }, 'LLM down', 100, 10)).toBe(true);
        expect((await store.living.listJobs({ status: 'pending' }))[0]).toMatchObject({ turnId: 1, attempts: 1, notBefore: 100, lastError: 'LLM down' });
        expect(await store.living.claimJob(worker(50))).toBeNull();
        job = await store.living.claimJob(worker(100));
        expect(job?.turnId).toBe(1);
        await store.living.failStage({ saveId: job?.saveId as string, jobId: job?.jobId as number, generation: 1, claimToken: job?.claimToken as string }, 'still down', null, 100);
        expect(await store.living.countJobs('s')).toEqual({ pending: 1, running: 0, done: 0, failed: 1 });
        const next = await store.living.claimJob(worker(100));
        expect(next?.turnId).toBe(2);
        expect(await store.living.releaseClaim({ saveId: next?.saveId as string, jobId: next?.jobId as number, generation: 1, claimToken: next?.claimToken as string }, 101)).toBe(true);
        expect((await store.living.listJobs({ status: 'pending' }))[0]).toMatchObject({ turnId: 2, attempts: 0, claimedBy: null });
        expect(await store.living.retryFailed('s', 200)).toBe(1);
        expect((await store.living.claimJob(worker(200)))?.turnId).toBe(1);
      });
    });

    if (factory.reopen !== undefined) {
      const reopen = factory.reopen;
      it('keeps facts, beliefs, models and jobs across a reopen', async () => {
        const turns = await seedFacts('s', 2);
        await store.living.applyConsolidation('s', 2, [action('CREATE', { statement: 'Kept.', sourceFactIds: [...turns.keys()] })], turns);
        await store.living.upsertModel('s', 'Kaël', 'Kept too.', 2);
        await store.living.enqueueTurn('s', 3, { text: 'later' }, 1);
        store = await reopen(store);
        expect(await store.living.countFacts('s')).toBe(4);
        expect((await store.living.getBeliefs('s'))[0]).toMatchObject({ statement: 'Kept.', proofCount: 4 });
        expect(await store.living.countModels('s')).toBe(1);
        expect((await store.living.listJobs())[0]).toMatchObject({ turnId: 3, payload: { text: 'later' } });
      });
    }
  });
}
