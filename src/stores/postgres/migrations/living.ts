// Schema of the living layer: facts, beliefs, mental models with their versions, and the durable job queue.
import type { PostgresMigration } from './migration.js';

/**
 * Migrations of the living layer, oldest first (the same tables as SQLite's `living-001`; JSON columns hold the
 * text Mnemo wrote, flags are 0/1 integers, times are milliseconds).
 */
export const LIVING_MIGRATIONS: readonly PostgresMigration[] = [
  {
    id: 'living-001',
    description: 'facts, beliefs, mental models and their versions, jobs',
    async up(client) {
      await client.query(`
        CREATE TABLE living_facts (
          fact_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          save_id TEXT NOT NULL,
          turn_id BIGINT NOT NULL CHECK (turn_id >= 0),
          statement TEXT NOT NULL,
          fact_type TEXT NOT NULL,
          who TEXT NOT NULL,
          what TEXT NOT NULL,
          when_text TEXT NOT NULL,
          where_text TEXT NOT NULL,
          why TEXT NOT NULL,
          entities TEXT NOT NULL,
          entity_keys TEXT NOT NULL
        )`);
      await client.query('CREATE INDEX living_facts_save_turn ON living_facts (save_id, turn_id)');
      await client.query(`
        CREATE TABLE living_beliefs (
          belief_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          save_id TEXT NOT NULL,
          statement TEXT NOT NULL,
          subject TEXT NOT NULL,
          subject_key TEXT NOT NULL,
          proof_count INTEGER NOT NULL,
          sources TEXT NOT NULL,
          history TEXT NOT NULL,
          created_turn_id BIGINT NOT NULL,
          updated_turn_id BIGINT NOT NULL,
          deleted_turn_id BIGINT,
          stale INTEGER NOT NULL DEFAULT 0
        )`);
      await client.query('CREATE INDEX living_beliefs_save_created ON living_beliefs (save_id, created_turn_id)');
      await client.query('CREATE INDEX living_beliefs_save_updated ON living_beliefs (save_id, updated_turn_id)');
      await client.query('CREATE INDEX living_beliefs_save_subject ON living_beliefs (save_id, subject_key, updated_turn_id)');
      await client.query(`
        CREATE TABLE living_models (
          model_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          save_id TEXT NOT NULL,
          subject TEXT NOT NULL,
          subject_key TEXT NOT NULL,
          summary TEXT NOT NULL,
          sources TEXT NOT NULL,
          created_turn_id BIGINT NOT NULL,
          updated_turn_id BIGINT NOT NULL,
          stale INTEGER NOT NULL DEFAULT 0,
          UNIQUE (save_id, subject_key)
        )`);
      await client.query(`
        CREATE TABLE living_model_versions (
          version_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          model_id BIGINT NOT NULL,
          save_id TEXT NOT NULL,
          turn_id BIGINT NOT NULL,
          summary TEXT NOT NULL,
          sources TEXT NOT NULL
        )`);
      await client.query('CREATE INDEX living_model_versions_save_turn ON living_model_versions (save_id, turn_id)');
      await client.query('CREATE INDEX living_model_versions_model ON living_model_versions (model_id, turn_id)');
      await client.query(`
        CREATE TABLE living_jobs (
          job_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          save_id TEXT NOT NULL,
          turn_id BIGINT NOT NULL CHECK (turn_id >= 0),
          stage TEXT NOT NULL,
          status TEXT NOT NULL,
          generation INTEGER NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          payload TEXT NOT NULL,
          subjects TEXT NOT NULL,
          claimed_by TEXT,
          claim_token TEXT,
          claimed_at BIGINT,
          not_before BIGINT NOT NULL DEFAULT 0,
          last_error TEXT,
          created_at BIGINT NOT NULL,
          updated_at BIGINT NOT NULL,
          UNIQUE (save_id, turn_id)
        )`);
      await client.query('CREATE INDEX living_jobs_status ON living_jobs (status, save_id, turn_id)');
    },
  },
  {
    id: 'living-002',
    description: 'primary keys start with save_id (a save\'s rows stay together; Citus distributes these tables by save)',
    async up(client) {
      const keys = [['living_facts', 'fact_id'], ['living_beliefs', 'belief_id'], ['living_models', 'model_id'], ['living_model_versions', 'version_id'], ['living_jobs', 'job_id']];
      for (const [table, id] of keys) await client.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey, ADD PRIMARY KEY (save_id, ${id})`);
    },
  },
  {
    id: 'living-003',
    description: 'fact_rewinds: the facts a rewind hid, until the purge deletes them (src/stores/postgres/rewound-rows.ts)',
    async up(client) {
      await client.query('CREATE TABLE fact_rewinds (save_id TEXT NOT NULL, turn_id BIGINT NOT NULL, fact_id BIGINT NOT NULL, PRIMARY KEY (save_id))');
    },
  },
  {
    id: 'living-004',
    description: 'beliefs without the (save_id, created_turn_id) index: a rewind\'s rollback UPDATE writes every index again (never HOT, as updated_turn_id is indexed), and "created after" reads (save_id, updated_turn_id) instead',
    async up(client) {
      await client.query('DROP INDEX IF EXISTS living_beliefs_save_created');
    },
  },
];
