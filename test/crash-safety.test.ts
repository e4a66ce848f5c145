// A writer killed with SIGKILL mid-ingest leaves a database that opens, checks clean and holds whole turns only.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../src/stores/sqlite/index.js';
import { tempDir } from './helpers.js';

const dir = tempDir();

function ingestUntilKilled(path: string, afterTurns: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'ingest-child.ts'), path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let acknowledged = -1;
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => { stderr += data.toString(); });
    child.stdout.on('data', (data: Buffer) => {
      for (const line of data.toString().split('\n')) if (line.trim() !== '') acknowledged = Number(line);
      if (acknowledged >= afterTurns) child.kill('SIGKILL');
    });
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(acknowledged) : reject(new Error(`child ended without being killed: ${stderr}`))));
  });
}

describe('crash safety', () => {
  it('keeps every acknowledged turn, whole, after SIGKILL', async () => {
    for (const [round, afterTurns] of [40, 113].entries()) {
      const path = join(dir, `crash-${round}.db`);
      const acknowledged = await ingestUntilKilled(path, afterTurns);
      const store = openSqliteStore({ path });
      expect(store.integrityCheck()).toBe('ok');
      await store.close();
      const db = new Database(path, { readonly: true });
      const perTurn = db.prepare('SELECT turn_id AS turn, COUNT(*) AS n FROM chunks GROUP BY turn_id ORDER BY turn_id').all() as { turn: number; n: number }[];
      db.close();
      expect(perTurn.length).toBeGreaterThanOrEqual(acknowledged + 1);
      expect(perTurn.every((row) => row.n === 5)).toBe(true);
      expect(perTurn.map((row) => row.turn)).toEqual(perTurn.map((_, index) => index));
    }
  });
});
