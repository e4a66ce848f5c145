// PostgreSQL rollback of beliefs (a rewind's batched UPDATE, sources and histories sent as two texts of the rows'
// JSON texts): every text comes back as the in-memory store keeps it, quotes, backslashes, emoji and a lone surrogate
// included; and the migration that drops the beliefs' created-turn index.
import { describe, expect, it } from 'vitest';
import type { LivingStore } from '../src/seams/living-store.js';
import { openInMemoryStore } from '../src/stores/memory/index.js';
import { postgresTargets } from './postgres-targets.js';

// U+0001 is the separator of the rollback's texts (src/stores/postgres/living-rows.ts): JSON.stringify escapes it.
const AWKWARD = ['She said "no" \\ then left.', 'Emoji 🐉 and ünïcödé, tab\there', 'A lone surrogate \ud800 here', 'Escapes \\u0000 \\n as text', '{"json": [1, "two"]}', 'Separator \u0001 and \u001f inside'];

/** Beliefs created at turn 2 from facts of turn 1, revised at turn 5 from facts of turn 4, then a rewind to turn 3. */
async function rolledBack(living: LivingStore, rewind: (saveId: string, turnId: number) => Promise<unknown>) {
  const early = await living.insertFacts('s', 1, AWKWARD.map((statement) => ({ statement, entities: ['Kaël 🐉'] })));
  const late = await living.insertFacts('s', 4, AWKWARD.map((statement) => ({ statement: `Later: ${statement}`, entities: ['Kaël 🐉'] })));
  const turns = new Map([...early.map((id): [number, number] => [id, 1]), ...late.map((id): [number, number] => [id, 4])]);
  await living.applyConsolidation('s', 2, early.map((id, index) => ({ kind: 'CREATE', statement: AWKWARD[index] as string, subject: `Subject ${AWKWARD[index]}`, beliefId: null, sourceFactIds: [id] })), turns);
  const created = await living.getBeliefs('s');
  await living.applyConsolidation('s', 5, created.map((belief, index) => ({ kind: 'UPDATE', statement: `Revised: ${AWKWARD[index]}`, subject: '', beliefId: belief.beliefId, sourceFactIds: [late[index] as number] })), turns);
  await rewind('s', 3);
  return (await living.getBeliefs('s', { includeDeleted: true })).map(({ beliefId: _id, ...belief }) => belief).sort((a, b) => a.statement.localeCompare(b.statement));
}

for (const target of postgresTargets()) {
  describe.skipIf(target.skip !== null)(`${target.name}: a rewind's rollback of beliefs${target.skip === null ? '' : ` (${target.skip})`}`, () => {
    it('restores statements, subjects, sources and histories with awkward text exactly as the in-memory store does', async () => {
      const memory = openInMemoryStore();
      const expected = await rolledBack(memory.living, (saveId, turnId) => memory.rewind(saveId, turnId));
      const store = await target.open();
      const actual = await rolledBack(store.living, (saveId, turnId) => store.rewind(saveId, turnId));
      expect(expected).toHaveLength(AWKWARD.length);
      expect(expected.every((belief) => belief.stale && !belief.statement.startsWith('Revised'))).toBe(true);
      // PostgreSQL text cannot hold a lone surrogate: the driver sends it as U+FFFD, on the old path and this one alike.
      const stored = (text: string) => text.replace(/[\ud800-\udbff](?![\udc00-\udfff])/g, '\ufffd');
      expect(actual).toEqual(expected.map((belief) => ({ ...belief, statement: stored(belief.statement), subject: stored(belief.subject) })));
      await store.close();
      await memory.close();
    }, 120_000);

    it('migrates a schema made with the beliefs\' created-turn index (living-004): the index goes, rollbacks are unchanged', async () => {
      const schema = target.newSchema();
      await (await target.open({ schema })).close();
      await target.query(`CREATE INDEX living_beliefs_save_created ON "${schema}".living_beliefs (save_id, created_turn_id)`);
      await target.query(`DELETE FROM "${schema}".schema_migrations WHERE id = 'living-004'`);
      const indexes = async () => (await target.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname', [schema, 'living_beliefs'])).map((row) => row.indexname);
      expect(await indexes()).toContain('living_beliefs_save_created');
      const store = await target.open({ schema });
      expect(await indexes()).toEqual(['living_beliefs_pkey', 'living_beliefs_save_subject', 'living_beliefs_save_updated']);
      const memory = openInMemoryStore();
      const expected = await rolledBack(memory.living, (saveId, turnId) => memory.rewind(saveId, turnId));
      const actual = await rolledBack(store.living, (saveId, turnId) => store.rewind(saveId, turnId));
      expect(actual.map((belief) => [belief.createdTurnId, belief.updatedTurnId, belief.history.length, belief.sources])).toEqual(expected.map((belief) => [belief.createdTurnId, belief.updatedTurnId, belief.history.length, belief.sources]));
      await store.close();
      await memory.close();
    }, 120_000);
  });
}
