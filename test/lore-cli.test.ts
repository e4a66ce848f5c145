// The lore commands end to end through main(): import (and dry run), search as a character, list, wipe with confirmation.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers.js';

const dir = tempDir();
const EXAMPLE = join(import.meta.dirname, '..', 'examples', 'lore');

describe('mnemo lore', () => {
  const db = join(dir, 'lore-cli.db');

  it('dry-runs, imports, re-imports with nothing to do, searches as a character and lists', async () => {
    const dry = await runCli('--db', db, 'lore', 'import', EXAMPLE, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('Dry run: 34 entries in 11 files are valid; the import would give 34 created, 0 updated, 0 unchanged, 0 removed. Nothing was written or embedded.');
    expect(dry.out).toContain('  + factions/lamplighters.yaml: The tidelines (faction)');
    expect((await runCli('--db', db, 'lore', 'list')).out).toBe('the lore book holds no matching entries');

    const imported = await runCli('--db', db, 'lore', 'import', EXAMPLE);
    expect(imported.code).toBe(0);
    expect(imported.out).toContain('Imported 34 entries from 11 files: 34 created, 0 updated, 0 unchanged, 0 removed; 34 embedded; lore book now at version 1.');
    const again = JSON.parse((await runCli('--db', db, 'lore', 'import', EXAMPLE, '--json')).out) as { unchanged: number; embedded: number; written: boolean };
    expect(again).toMatchObject({ unchanged: 34, embedded: 0, written: false });

    const archmage = await runCli('--db', db, 'lore', 'search', 'tidelines', 'under', 'the', 'marsh', '--tags', 'brackwater,brackwater_docks,lamplighters', '-k', '3');
    expect(archmage.code).toBe(0);
    expect(archmage.out).toMatch(/^1\. \[faction: lamplighters\] The tidelines \(factions\/lamplighters\.yaml\)/);
    expect(archmage.out).toMatch(/words #\d+, bm25 \d+\.\d+/);
    const bartender = JSON.parse((await runCli('--db', db, 'lore', 'search', 'tidelines under the marsh', '--tags', 'brackwater,brackwater_docks', '-k', '34', '--json')).out) as { scopeTags: string[] }[];
    expect(bartender.length).toBeGreaterThan(0);
    expect(bartender.some((hit) => hit.scopeTags.includes('lamplighters'))).toBe(false);
    const nobody = JSON.parse((await runCli('--db', db, 'lore', 'search', 'moons', '-k', '34', '--json')).out) as { scopeLevel: string }[];
    expect(nobody.every((hit) => hit.scopeLevel === 'continental')).toBe(true);

    const listed = await runCli('--db', db, 'lore', 'list', '--tags', 'saltspire,lamplighters');
    expect(listed.out).toContain('factions/lamplighters.yaml: The tidelines [faction: lamplighters]');
    expect(listed.out).not.toContain('The Brackwater lantern house');
    expect(listed.out).toContain('9 entries');
    const json = JSON.parse((await runCli('--db', db, 'lore', 'list', '--json')).out) as { title: string; contentHash: string }[];
    expect(json).toHaveLength(34);
    expect(json[0]?.contentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('dry-runs against a database that does not exist without creating it', async () => {
    const path = join(dir, 'never-created.db');
    const dry = await runCli('--db', path, 'lore', 'import', EXAMPLE, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('the import would give 34 created, 0 updated, 0 unchanged, 0 removed');
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('refuses to wipe without confirmation, wipes with --yes, and an import restores the book', async () => {
    const path = join(dir, 'wipe.db');
    await runCli('--db', path, 'lore', 'import', EXAMPLE);
    const refused = await runCli('--db', path, 'lore', 'wipe');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('error CONFIRMATION_REQUIRED: lore wipe: this would delete all 34 lore entries of');
    expect(JSON.parse((await runCli('--db', path, 'lore', 'list', '--json')).out)).toHaveLength(34);
    const wiped = await runCli('--db', path, 'lore', 'wipe', '--yes');
    expect(wiped.out).toBe('lore book wiped: 34 entries deleted (run lore import to restore)');
    expect((await runCli('--db', path, 'lore', 'list')).out).toBe('the lore book holds no matching entries');
    expect((await runCli('--db', path, 'lore', 'import', EXAMPLE)).out).toContain('34 created');
  });

  it('imports, lists and filters lore on metadata: lore search --where, the same syntax as mnemo query --where', async () => {
    const root = join(dir, 'tagged');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'index.yaml'), 'files: [town.yaml]\n');
    const town = (quest: string) => `source: town.yaml
entries:
  - title: Salt road
    scope_level: regional
    scope_tags: [brackwater]
    content: The salt road runs from the pans to the Toll Bridge.
    metadata: { quest: ${quest}, order: 1 }
  - title: Salt ghosts
    scope_level: regional
    scope_tags: [brackwater]
    content: Salt salt salt, the ghosts of the salt pans whisper of salt.
    metadata: { quest: ghosts }
  - title: Salt secret
    scope_level: faction
    scope_tags: [mudlarks]
    content: The mudlarks hide salt in the drowned market.
    metadata: { quest: salt }
`;
    writeFileSync(join(root, 'town.yaml'), town('salt'));
    const path = join(dir, 'tagged.db');
    expect((await runCli('--db', path, 'lore', 'import', root)).code).toBe(0);
    expect((await runCli('--db', path, 'lore', 'list')).out).toContain('town.yaml: Salt road [regional: brackwater] {"quest":"salt","order":1}');
    const search = async (...where: string[]) => {
      const result = await runCli('--db', path, 'lore', 'search', 'salt', '--tags', 'brackwater', '-k', '5', '--json', '--where', ...where);
      expect(result.code).toBe(0);
      return (JSON.parse(result.out) as { title: string }[]).map((hit) => hit.title);
    };
    expect(await search('quest=salt')).toEqual(['Salt road']);
    expect(await search('quest=salt', 'quest=ghosts')).toEqual(['Salt ghosts', 'Salt road']);
    expect(await search('order:=1')).toEqual(['Salt road']);
    expect(await search('!order')).toEqual(['Salt ghosts']);
    const human = await runCli('--db', path, 'lore', 'search', 'salt', '--tags', 'brackwater', '--where', 'quest=salt');
    expect(human.out).toMatch(/^1\. \[regional: brackwater\] Salt road \(town\.yaml\) \{"quest":"salt","order":1\}/);
    const bad = await runCli('--db', path, 'lore', 'search', 'salt', '--tags', 'brackwater', '--where', 'quest:=[1]');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('error INVALID_INPUT: where.quest');
    writeFileSync(join(root, 'town.yaml'), town('tolls'));
    const edited = await runCli('--db', path, 'lore', 'import', root);
    expect(edited.out).toContain('1 updated');
    expect(edited.out).toContain('0 embedded');
    expect(await search('quest=tolls')).toEqual(['Salt road']);

    // Exported as a repository, the book comes back whole: metadata included, nothing to change.
    const out = join(dir, 'tagged-export');
    const exported = await runCli('--db', path, 'lore', 'export', out);
    expect(exported.out).toBe(`Exported 3 entries in 1 file to ${out}`);
    expect(readFileSync(join(out, 'town.yaml'), 'utf8')).toContain('metadata:');
    const copy = join(dir, 'tagged-copy.db');
    expect((await runCli('--db', copy, 'lore', 'import', out)).code).toBe(0);
    const strip = (entries: Record<string, unknown>[]) => entries.map(({ id: _id, createdAt: _created, updatedAt: _updated, ...rest }) => rest);
    const listing = async (db: string) => strip(JSON.parse((await runCli('--db', db, 'lore', 'list', '--json')).out) as Record<string, unknown>[]);
    expect(await listing(copy)).toEqual(await listing(path));
    expect(JSON.parse((await runCli('--db', path, 'lore', 'import', out, '--json')).out)).toMatchObject({ created: [], updated: [], removed: [], embedded: 0 });
    const again = await runCli('--db', path, 'lore', 'export', out);
    expect(again.code).toBe(2);
    expect(again.err).toContain('error CONFLICT: lore export:');
  });

  it('exits 2 listing every problem of an invalid repository, and writes nothing', async () => {
    const root = join(dir, 'broken');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'index.yaml'), 'files: [a.yaml, missing.yaml]\n');
    writeFileSync(join(root, 'a.yaml'), 'source: a.yaml\nentries:\n  - title: Vague\n    scope_level: city\n    scope_tags: [x]\n    content: Words.\n');
    const path = join(dir, 'broken.db');
    const result = await runCli('--db', path, 'lore', 'import', root);
    expect(result.code).toBe(2);
    expect(result.err).toContain('error LORE_INVALID: The lore is invalid (2 problems); nothing was written.');
    expect(result.err).toContain("a.yaml:4:18, entry 'Vague': scope_level must be one of continental, regional, local, faction, got \"city\"");
    expect(result.err).toContain('index.yaml:1:17: files[1] names missing.yaml, but there is no such file');
    expect((await runCli('--db', path, 'lore', 'list')).out).toBe('the lore book holds no matching entries');
  });
});
