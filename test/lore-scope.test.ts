// The pieces of lore access: a character's tags from categorised tags, the AND rule, and the index's label filter.
import { describe, expect, it } from 'vitest';
import { loreAccessible } from '../src/core/lore-access.js';
import { loreContentHash } from '../src/lore/content-hash.js';
import { loreScopeTags, requireCharacterTags } from '../src/lore/scope-tags.js';
import { CorpusIndex, combineFilters } from '../src/retrieval/corpus-index.js';

describe('lore scope', () => {
  it('derives a character\'s lore tags from zone, district and faction tags, ignoring other categories', () => {
    expect(loreScopeTags({ zone: 'brackwater', district: 'brackwater_docks', faction: ['lamplighters', 'lamplighters'] })).toEqual(['brackwater', 'brackwater_docks', 'lamplighters']);
    expect(loreScopeTags([
      { key: 'brackwater', category: 'zone' },
      { key: 'brackwater_undercroft', category: 'district' },
      { key: 'mudlarks', category: 'faction' },
      { key: 'grumpy', category: 'mood' },
      { key: 'uncategorised' },
    ])).toEqual(['brackwater', 'brackwater_undercroft', 'mudlarks']);
    expect(loreScopeTags({})).toEqual([]);
    expect(() => loreScopeTags({ zone: 'two words' })).toThrow(/zone: expected a tag \(a non-empty string without spaces\), got "two words"/);
    expect(() => requireCharacterTags('brackwater')).toThrow(/tags: expected the character's lore tags as an array of strings/);
  });

  it('grants continental lore to all and any other entry only when every tag is held', () => {
    const held = new Set(['brackwater', 'brackwater_docks']);
    expect(loreAccessible('continental', [], new Set())).toBe(true);
    expect(loreAccessible('regional', ['brackwater'], held)).toBe(true);
    expect(loreAccessible('faction', ['brackwater', 'lamplighters'], held)).toBe(false);
    expect(loreAccessible('faction', ['brackwater', 'lamplighters'], new Set([...held, 'lamplighters']))).toBe(true);
  });

  it('hashes what retrieval depends on: content, level and tags in any order, not the title', () => {
    const base = { content: 'The bell rings.', scopeLevel: 'local', scopeTags: ['docks', 'town'] };
    expect(loreContentHash(base)).toMatch(/^[0-9a-f]{64}$/);
    expect(loreContentHash({ ...base, scopeTags: ['town', 'docks'] })).toBe(loreContentHash(base));
    expect(loreContentHash({ ...base, content: 'The bell rings twice.' })).not.toBe(loreContentHash(base));
    expect(loreContentHash({ ...base, scopeLevel: 'regional' })).not.toBe(loreContentHash(base));
    expect(loreContentHash({ ...base, scopeTags: ['docks'] })).not.toBe(loreContentHash(base));
  });

  it('filters index slots by labels (every label held) before ranking, composed with other filters', () => {
    const index = new CorpusIndex(0);
    const row = (id: string, labels: string[], position = 0) => ({ id, position, kind: 'lore', text: 'tideline lore', embedding: null, labels });
    index.add([row('open', []), row('town', ['brackwater']), row('guild', ['lamplighters']), row('both', ['brackwater', 'lamplighters'], 5)]);
    const ids = (held: string[]) => index.lexical(['tideline'], 10, index.labelSubsetFilter(held)).map(({ slot }) => index.idOf(slot)).sort();
    expect(ids([])).toEqual(['open']);
    expect(ids(['brackwater'])).toEqual(['open', 'town']);
    expect(ids(['brackwater', 'lamplighters', 'unknown'])).toEqual(['both', 'guild', 'open', 'town']);
    const early = combineFilters(index.filterFor({ maxPosition: 1 }), index.labelSubsetFilter(['brackwater', 'lamplighters']));
    expect(index.lexical(['tideline'], 10, early).map(({ slot }) => index.idOf(slot)).sort()).toEqual(['guild', 'open', 'town']);
    expect(combineFilters(undefined, undefined)).toBeUndefined();
  });
});
