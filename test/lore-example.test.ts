// The example world of examples/lore, as the README shows it: who may know what, on the default embedded setup.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { loreScopeTags } from '../src/lore/scope-tags.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import { tempDir } from './helpers.js';

const EXAMPLE = join(import.meta.dirname, '..', 'examples', 'lore');
const dir = tempDir();

const characters = {
  marta: loreScopeTags({ zone: 'brackwater', district: 'brackwater_docks' }),
  oriel: loreScopeTags({ zone: 'brackwater', district: 'brackwater_docks', faction: 'lamplighters' }),
  teodor: loreScopeTags({ zone: 'saltspire', faction: 'lamplighters' }),
  nell: loreScopeTags([{ key: 'brackwater', category: 'zone' }, { key: 'brackwater_undercroft', category: 'district' }, { key: 'mudlarks', category: 'faction' }]),
  gorse: loreScopeTags({ zone: 'highfen', district: 'highfen_crossing', faction: 'peat_clans' }),
};

describe('the example world of Orsa', () => {
  let memory: Mnemo;
  beforeAll(async () => {
    memory = await openMemory({ path: join(dir, 'orsa.db'), embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger });
    expect((await memory.lore.importRepository(EXAMPLE)).created).toHaveLength(34);
  });
  afterAll(async () => {
    await memory.close();
  });
  const titles = async (query: string, tags: string[], k = 5) => (await memory.lore.search(query, { tags, k })).map((hit) => hit.title);

  it('the bartender and the archmage ask who founded Brackwater and get different entries', async () => {
    const marta = await titles('Who founded Brackwater?', characters.marta);
    const oriel = await titles('Who founded Brackwater?', characters.oriel);
    expect(marta).toContain('Founding of Brackwater');
    expect(marta).not.toContain('The Brackwater lantern house');
    expect(oriel).toContain('Founding of Brackwater');
    expect(oriel).toContain('The Brackwater lantern house');
  });

  it('the tidelines are Lamplighter knowledge: the archmage answers, the bartender cannot', async () => {
    expect((await titles('tidelines under the marsh', characters.oriel, 1))).toEqual(['The tidelines']);
    const marta = await memory.lore.search('tidelines under the marsh', { tags: characters.marta, k: 34 });
    expect(marta.some((hit) => hit.scopeTags.includes('lamplighters'))).toBe(false);
  });

  it('a Lamplighter of Saltspire knows the order\'s secrets but not the Brackwater chapter house', async () => {
    const teodor = await titles('Lamplighters chapter house tidelines', characters.teodor, 34);
    expect(teodor).toContain('The tidelines');
    expect(teodor).not.toContain('The Brackwater lantern house');
  });

  it('only a mudlark of the Undercroft knows the safe houses; the clan chief knows the Peat War from the moors', async () => {
    expect((await titles('safe houses snail shell', characters.nell, 1))).toEqual(['Mudlark safe houses']);
    expect(await titles('safe houses snail shell', characters.marta, 34)).not.toContain('Mudlark safe houses');
    expect(await titles('Peat War toll boats', characters.gorse, 3)).toContain('The Peat War');
    expect(await titles('Peat War toll boats', characters.marta, 34)).not.toContain('The Peat War');
  });
});
