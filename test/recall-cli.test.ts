// The remember / recall / forget commands end to end through main(): output, JSON, decay, confirmation, exit codes.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';

const dir = tempDir();

describe('mnemo remember / recall / forget', () => {
  it('remembers JSON values in scopes, recalls them by meaning or exactly, and they persist in the file', async () => {
    const db = join(dir, 'recall.db');
    expect(await runCli('--db', db, 'remember', 'contract_type', '"NDA"', '--scope', 'LegalKnowledge')).toMatchObject({ code: 0, out: 'remembered contract_type in LegalKnowledge' });
    expect((await runCli('--db', db, 'remember', 'contract_date', '"2024-01-15"', '--scope', 'LegalKnowledge')).code).toBe(0);
    expect((await runCli('--db', db, 'remember', 'parties', 'Acme Corp, Beta LLC', '--text', '--scope', 'LegalKnowledge', '--metadata', '{"source":"Extract"}')).code).toBe(0);
    expect((await runCli('--db', db, 'remember', 'contract_analysis_summary', '{"parties":["Acme Corp","Beta LLC"],"risk_score":0.35}', '--scope', 'LegalKnowledge')).code).toBe(0);
    expect((await runCli('--db', db, 'remember', 'research_summary', '"Quantum computing trends"', '--scope', 'ResearchKnowledge')).code).toBe(0);

    const text = await runCli('--db', db, 'recall', 'contract_type', '--scope', 'LegalKnowledge', '--k', '1');
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^1\. contract_type \[LegalKnowledge\] score 1\.000 · stored \d{4}-\d\d-\d\dT[\d:.]+Z\n {3}"NDA"$/);

    const exact = JSON.parse((await runCli('--db', db, 'recall', 'contract', '--exact', '--k', '2', '--json')).out) as { key: string; value: unknown; score: number }[];
    expect(exact.map(({ key, score }) => ({ key, score }))).toEqual([{ key: 'contract_analysis_summary', score: 0.7 }, { key: 'contract_date', score: 0.7 }]);

    const semantic = JSON.parse((await runCli('--db', db, 'recall', 'contract', 'risk', '--scope', 'LegalKnowledge', '--json')).out) as { key: string; value: unknown; metadata: unknown }[];
    expect(semantic[0]).toMatchObject({ key: 'contract_analysis_summary', value: { parties: ['Acme Corp', 'Beta LLC'], risk_score: 0.35 }, metadata: { scope: 'LegalKnowledge' } });
    const parties = JSON.parse((await runCli('--db', db, 'recall', 'parties', '--json', '--k', '1')).out) as { value: unknown; metadata: unknown }[];
    expect(parties).toMatchObject([{ value: 'Acme Corp, Beta LLC', metadata: { source: 'Extract', scope: 'LegalKnowledge' } }]);

    expect((await runCli('--db', db, 'recall', 'quantum', '--scope', 'LegalKnowledge')).out).not.toContain('research_summary');
    expect((await runCli('--db', db, 'recall', 'nothing-like-this-anywhere', '--exact')).out).toBe('nothing recalled');
  });

  it('forgets a scope only with --yes, saying first how many entries would go', async () => {
    const db = join(dir, 'forget.db');
    await runCli('--db', db, 'remember', 'research_summary', '"Quantum computing trends"', '--scope', 'ResearchKnowledge');
    await runCli('--db', db, 'remember', 'legal_precedent', '"Smith v. Jones"', '--scope', 'LegalKnowledge');
    await runCli('--db', db, 'remember', 'legal_note', '"Statute of limitations"', '--scope', 'LegalKnowledge');

    const refused = await runCli('--db', db, 'forget', '--scope', 'LegalKnowledge');
    expect(refused.code).toBe(2);
    expect(refused.err).toBe('error CONFIRMATION_REQUIRED: forget: this would remove 2 entries from scope LegalKnowledge. Nothing was removed; run it again with --yes to remove them.');
    expect(JSON.parse((await runCli('--db', db, 'recall', 'legal', '--exact', '--json')).out)).toHaveLength(2);

    expect(await runCli('--db', db, 'forget', '--scope', 'LegalKnowledge', '--yes')).toMatchObject({ code: 0, out: 'forgot 2 entries from scope LegalKnowledge' });
    expect((await runCli('--db', db, 'forget', '--scope', 'LegalKnowledge'))).toMatchObject({ code: 0, out: 'forgot 0 entries from scope LegalKnowledge' });
    expect((await runCli('--db', db, 'forget')).err).toContain('would remove 1 entry from every scope');
    expect(await runCli('--db', db, 'forget', '--yes', '--json')).toMatchObject({ code: 0, out: '{"scope":null,"removed":1}' });
  });

  it('expires an entry remembered with --decay', async () => {
    const db = join(dir, 'decay.db');
    const remembered = await runCli('--db', db, 'remember', 'session', '"abc"', '--scope', 'ShortTermCache', '--decay', '1h', '--json');
    const entry = JSON.parse(remembered.out) as { timestamp: number; expiresAt: number };
    expect(entry.expiresAt - entry.timestamp).toBeCloseTo(3600, 6);
    const shown = await runCli('--db', db, 'recall', 'session');
    expect(shown.out).toContain('· expires ');
  });

  it('exits 2 with a clear message on bad input, and writes nothing', async () => {
    const db = join(dir, 'bad.db');
    const notJson = await runCli('--db', db, 'remember', 'contract_type', 'NDA', '--scope', 'LegalKnowledge');
    expect(notJson.code).toBe(2);
    expect(notJson.err).toContain(`<json>: expected JSON such as '"NDA"' (a string, quoted)`);
    const badDecay = await runCli('--db', db, 'remember', 'k', '1', '--scope', 'S', '--decay', '1 hour');
    expect(badDecay.code).toBe(2);
    expect(badDecay.err).toContain('--decay: expected "none" or a duration: a whole number followed by s, m, h or d, such as "30s", "15m", "1h" or "7d"; got "1 hour"');
    expect((await runCli('--db', db, 'remember', 'k', '1')).code).toBe(2);
    expect((await runCli('--db', db, 'remember', '', '1', '--scope', 'S')).err).toContain('Memory key must not be empty');
    expect((await runCli('--db', db, 'remember', 'k', '1', '--scope', 'S', '--metadata', '[1]')).err).toContain('--metadata: expected a JSON object');
    expect((await runCli('--db', db, 'recall', 'x', '--k', '0')).code).toBe(2);
    expect(JSON.parse((await runCli('--db', db, 'recall', 'k', '--exact', '--json')).out)).toEqual([]);
  });
});
