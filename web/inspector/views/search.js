// Search: a save's hybrid search with its filters, each hit drawn with why it ranked; lore hits for the character's tags.
import { api, savePath } from '../api.js';
import { empty, h, numberOrUndefined, replace, splitList } from '../dom.js';
import { explanationBars, explanationScale } from '../charts.js';

export async function searchView(container, { save, params, go, isCurrent }) {
  const field = (name, attributes = {}) => h('input', { name, value: params.get(name) ?? '', ...attributes });
  const inputs = {
    q: field('q', { class: 'wide', placeholder: 'what the player said, or a question', required: true }),
    k: field('k', { type: 'number', min: 1, max: 100, placeholder: '8', style: { width: '5rem' } }),
    upTo: field('upTo', { type: 'number', min: 0, placeholder: 'any', style: { width: '6rem' } }),
    focus: field('focus', { placeholder: 'Marta, Sunken Bell' }),
    type: field('type', { placeholder: 'narrative', style: { width: '8rem' } }),
    tags: field('tags', { placeholder: 'brackwater, brackwater_docks' }),
  };
  const form = h(
    'form',
    {
      class: 'inline',
      id: 'search-form',
      onsubmit: (event) => {
        event.preventDefault();
        go('search', Object.fromEntries([['save', save], ...Object.entries(inputs).map(([name, input]) => [name, input.value.trim()]).filter(([, value]) => value !== '')]));
      },
    },
    h('label', {}, 'Query', inputs.q),
    h('label', {}, 'Hits', inputs.k),
    h('label', {}, 'Up to turn', inputs.upTo),
    h('label', {}, 'Focus terms', inputs.focus),
    h('label', {}, 'Chunk type', inputs.type),
    h('label', {}, 'Character tags (lore)', inputs.tags),
    h('button', { type: 'submit' }, 'Search'),
  );
  const results = h('div', { id: 'results' });
  replace(container, h('h2', {}, `Search ${save}`), form, results);
  const query = params.get('q');
  if (query === null || query.trim() === '') {
    results.append(empty('Type a query: each hit shows its rank in the word (lexical) and meaning (semantic) arms, the fused score, the focus boost and the rerank score.'));
    return;
  }
  const k = numberOrUndefined(params.get('k')) ?? 8;
  const focusTerms = splitList(params.get('focus'));
  const body = { query, k, focusTerms, currentTurnId: numberOrUndefined(params.get('upTo')), chunkType: params.get('type') || undefined };
  const tagText = params.get('tags');
  const [narrative, lore] = await Promise.all([
    api(savePath(save, '/query'), { body }),
    tagText === null ? null : api('/v1/lore/search', { body: { query, k, focusTerms, tags: splitList(tagText) } }),
  ]);
  if (!isCurrent()) return;
  results.append(h('h3', {}, `Memories (${narrative.hits.length})`), hitList('memory-hits', narrative.hits, (hit) => [h('a', { href: `#/timeline?save=${encodeURIComponent(save)}&from=${hit.turnId}&turn=${hit.turnId}` }, `turn ${hit.turnId}`), ' ', h('span', { class: 'tag' }, hit.chunkType)], 'No memory matches: try other words, or widen the turn window.'));
  if (lore !== null) results.append(h('h3', {}, `Lore this character may know (${lore.hits.length})`), hitList('lore-hits', lore.hits, (hit) => [h('strong', {}, hit.title), ' ', h('span', { class: 'tag' }, hit.scopeLevel), hit.scopeTags.map((tag) => h('span', { class: 'tag' }, tag))], 'No lore entry these tags reach matches.'));
}

function hitList(id, hits, heading, emptyText) {
  if (hits.length === 0) return h('div', { id }, empty(emptyText));
  const scale = explanationScale(hits.map((hit) => hit.explanation));
  return h(
    'div',
    { class: 'hits', id },
    hits.map((hit, index) =>
      h(
        'div',
        { class: 'card hit', 'data-hit': index + 1 },
        h(
          'div',
          {},
          h('div', {}, h('strong', {}, `#${index + 1} `), heading(hit), h('span', { class: 'muted' }, ` score ${hit.score.toFixed(4)}`)),
          h('div', {}, hit.text ?? hit.content),
          hit.explanation.focusMatches.length === 0 ? null : h('div', { class: 'muted' }, 'focus: ', hit.explanation.focusMatches.join(', ')),
        ),
        explanationBars(hit.explanation, scale),
      ),
    ),
  );
}
