// Schema of the living layer: facts, beliefs, mental models with their versions, and the durable job queue.
import type { Migration } from './migration.js';

/** Migrations of the living layer, oldest first. */
export const LIVING_MIGRATIONS: readonly Migration[] = [
  {
    id: 'living-001',
    description: 'facts, beliefs, mental models and their versions, jobs',
    up(db) {
      db.exec(`
        CREATE TABLE living_facts (
          fact_id INTEGER PRIMARY KEY AUTOINCREMENT,
          save_id TEXT NOT NULL,
          turn_id INTEGER NOT NULL CHECK (turn_id >= 0),
          statement TEXT NOT NULL,
          fact_type TEXT NOT NULL,
          who TEXT NOT NULL,
          what TEXT NOT NULL,
          when_text TEXT NOT NULL,
          where_text TEXT NOT NULL,
          why TEXT NOT NULL,
          entities TEXT NOT NULL,
          entity_keys TEXT NOT NULL
        );
        CREATE INDEX living_facts_save_turn ON living_facts (save_id, turn_id);

        CREATE TABLE living_beliefs (
          belief_id INTEGER PRIMARY KEY AUTOINCREMENT,
          save_id TEXT NOT NULL,
          statement TEXT NOT NULL,
          subject TEXT NOT NULL,
          subject_key TEXT NOT NULL,
          proof_count INTEGER NOT NULL,
          sources TEXT NOT NULL,
          history TEXT NOT NULL,
          created_turn_id INTEGER NOT NULL,
          updated_turn_id INTEGER NOT NULL,
          deleted_turn_id INTEGER,
          stale INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX living_beliefs_save_created ON living_beliefs (save_id, created_turn_id);
        CREATE INDEX living_beliefs_save_updated ON living_beliefs (save_id, updated_turn_id);
        CREATE INDEX living_beliefs_save_subject ON living_beliefs (save_id, subject_key, updated_turn_id);

        CREATE TABLE living_models (
          model_id INTEGER PRIMARY KEY AUTOINCREMENT,
          save_id TEXT NOT NULL,
          subject TEXT NOT NULL,
          subject_key TEXT NOT NULL,
          summary TEXT NOT NULL,
          sources TEXT NOT NULL,
          created_turn_id INTEGER NOT NULL,
          updated_turn_id INTEGER NOT NULL,
          stale INTEGER NOT NULL DEFAULT 0,
          UNIQUE (save_id, subject_key)
        );
        CREATE TABLE living_model_versions (
          version_id INTEGER PRIMARY KEY AUTOINCREMENT,
          model_id INTEGER NOT NULL,
          save_id TEXT NOT NULL,
          turn_id INTEGER NOT NULL,
          summary TEXT NOT NULL,
          sources TEXT NOT NULL
        );
        CREATE INDEX living_model_versions_save_turn ON living_model_versions (save_id, turn_id);
        CREATE INDEX living_model_versions_model ON living_model_versions (model_id, turn_id);

        CREATE TABLE living_jobs (
          job_id INTEGER PRIMARY KEY AUTOINCREMENT,
          save_id TEXT NOT NULL,
          turn_id INTEGER NOT NULL CHECK (turn_id >= 0),
          stage TEXT NOT NULL,
          status TEXT NOT NULL,
          generation INTEGER NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          payload TEXT NOT NULL,
          subjects TEXT NOT NULL,
          claimed_by TEXT,
          claim_token TEXT,
          claimed_at INTEGER,
          not_before INTEGER NOT NULL DEFAULT 0,
          last_error TEXT,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          UNIQUE (save_id, turn_id)
        );
        CREATE INDEX living_jobs_status ON living_jobs (status, save_id, turn_id);
      `);
    },
  },
  {
    id: 'living-002',
    description: 'fact_rewinds: the facts a rewind hid, until the purge deletes them (src/stores/sqlite/rewound-rows.ts)',
    up(db) {
      db.exec(`
        CREATE TABLE fact_rewinds (
          save_id TEXT NOT NULL,
          turn_id INTEGER NOT NULL,
          fact_id INTEGER NOT NULL,
          PRIMARY KEY (save_id, turn_id, fact_id)
        ) WITHOUT ROWID;
      `);
    },
  },
];
