// Lore: where the live lore came from, entries by scope level and tag; "as character": which entries a set of tags reaches, and why others are out of reach.
import { api, queryString } from '../api.js';
import { empty, h, replace, splitList } from '../dom.js';
import { reach, SCOPE_LEVELS } from '../lore-reach.js';

export async function loreView(container, { params, go, access, isCurrent }) {
  const asTags = params.get('as');
  const tags = asTags === null ? null : splitList(asTags);
  const input = h('input', { name: 'as', value: asTags ?? '', class: 'wide', placeholder: 'brackwater, brackwater_docks (empty = continental only)' });
  const form = h(
    'form',
    { class: 'inline', id: 'as-character', onsubmit: (event) => { event.preventDefault(); go('lore', { as: input.value }); } },
    h('label', {}, 'As a character with the tags', input),
    h('button', { type: 'submit' }, 'Show reach'),
    tags === null ? null : h('button', { type: 'button', class: 'secondary', onclick: () => go('lore') }, 'Whole book'),
  );
  replace(container, h('h2', {}, 'Lore'), form);
  // Every entry is needed to say what a character cannot reach: only an admin token may list them without tags.
  const listing = access?.admin ? await loreListing({}) : tags === null ? null : await loreListing({ tags: tags.join(',') });
  const status = access?.admin ? await api('/v1/lore/status') : null;
  if (!isCurrent()) return;
  if (status !== null) form.before(originLine(status.origin));
  if (listing === null) {
    container.append(h('p', { class: 'notice' }, 'This token is not an admin\'s, so the API lists only the lore a character may know: enter that character\'s tags above.'));
    return;
  }
  const entries = listing.entries;
  if (listing.more) container.append(h('p', { class: 'notice' }, `The book holds more than ${entries.length.toLocaleString('en-US')} entries: these are the first, by source and title (GET /v1/lore/entries pages through all of them).`));
  if (entries.length === 0) {
    container.append(empty(tags !== null && !access?.admin ? 'These tags reach no entry.' : 'The lore book is empty: import one with `mnemo lore import` or POST /v1/lore/import.'));
    return;
  }
  if (tags === null) return container.append(bookByScope(entries));
  container.append(reachTables(entries, tags, access?.admin === true));
}

/** Pages of a listing the inspector reads at most (1,000 entries each): a larger book shows its first entries, said so. */
const MAX_PAGES = 20;

/** The lore listing, page after page (the API pages it), up to MAX_PAGES; `more` when the book goes on. */
async function loreListing(query) {
  const entries = [];
  let offset = 0;
  for (let page = 0; page < MAX_PAGES && offset !== null; page++) {
    const answer = await api(`/v1/lore/entries${queryString({ ...query, limit: 1000, offset: offset === 0 ? undefined : offset })}`);
    entries.push(...answer.entries);
    offset = answer.nextOffset;
  }
  return { entries, more: offset !== null };
}

/** Where the live lore came from (admin tokens only): a git commit, a folder, or entries given in code. */
export function originLine(origin) {
  if (origin === null) return h('p', { id: 'lore-origin', class: 'muted' }, 'Live lore: none recorded (never imported, or wiped).');
  const when = ` · imported ${new Date(origin.importedAt).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
  if (origin.reader === 'git') {
    return h('p', { id: 'lore-origin', 'data-reader': 'git' }, 'Live lore: git ', h('code', {}, origin.location), ' at ', h('code', {}, origin.ref), ', commit ', h('code', { id: 'lore-commit', title: origin.commit }, origin.commit.slice(0, 12)), h('span', { class: 'muted' }, when));
  }
  if (origin.reader === 'folder') return h('p', { id: 'lore-origin', 'data-reader': 'folder' }, 'Live lore: folder ', h('code', {}, origin.location), h('span', { class: 'muted' }, `${when} (a folder has no commit)`));
  return h('p', { id: 'lore-origin', 'data-reader': 'entries' }, 'Live lore: entries given in code (HTTP or library), no commit', h('span', { class: 'muted' }, when));
}

function bookByScope(entries) {
  const allTags = [...new Set(entries.flatMap((entry) => entry.scopeTags))].sort();
  return h(
    'div',
    { id: 'lore-book' },
    h('p', { class: 'muted' }, `${entries.length} entries · tags: `, allTags.map((tag) => h('a', { class: 'tag', href: `#/lore?as=${encodeURIComponent(tag)}` }, tag))),
    SCOPE_LEVELS.map((level) => {
      const atLevel = entries.filter((entry) => entry.scopeLevel === level);
      if (atLevel.length === 0) return null;
      const byTag = new Map();
      for (const entry of atLevel) {
        const key = entry.scopeTags.length === 0 ? '(no tags)' : entry.scopeTags.join(' + ');
        if (!byTag.has(key)) byTag.set(key, []);
        byTag.get(key).push(entry);
      }
      return h(
        'div',
        { 'data-level': level },
        h('h3', {}, `${level} (${atLevel.length})`),
        [...byTag.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, list]) =>
          h('div', { class: 'card' }, h('div', {}, key.split(' + ').map((tag) => h('span', { class: 'tag' }, tag))), h('ul', {}, list.map((entry) => h('li', { 'data-entry': entry.title }, h('strong', {}, entry.title), h('span', { class: 'muted' }, ` — ${entry.content.slice(0, 140)}${entry.content.length > 140 ? '…' : ''}`))))),
        ),
      );
    }),
  );
}

function reachTables(entries, tags, complete) {
  const judged = entries.map((entry) => ({ entry, ...reach(entry, tags) }));
  const reachable = judged.filter((item) => item.reachable);
  const unreachable = judged.filter((item) => !item.reachable);
  const table = (items, id, withMissing) =>
    h(
      'table',
      { id, class: 'reach-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Entry'), h('th', {}, 'Scope'), h('th', {}, 'Tags'), withMissing ? h('th', {}, 'Missing tag(s)') : null)),
      h(
        'tbody',
        {},
        items.map(({ entry, missing }) =>
          h(
            'tr',
            { 'data-entry': entry.title },
            h('td', { class: withMissing ? 'unreachable' : '' }, entry.title),
            h('td', {}, entry.scopeLevel),
            h('td', {}, entry.scopeTags.map((tag) => h('span', { class: tags.includes(tag) ? 'tag' : 'tag missing' }, tag))),
            withMissing ? h('td', { class: 'missing-tags' }, missing.map((tag) => h('span', { class: 'tag missing' }, tag))) : null,
          ),
        ),
      ),
    );
  return h(
    'div',
    { id: 'lore-reach' },
    h('p', {}, `A character with ${tags.length === 0 ? 'no tags' : tags.map((tag) => `"${tag}"`).join(', ')} reaches ${reachable.length} of ${complete ? entries.length : 'the listed'} entries. Continental entries reach everyone; any other entry needs every one of its tags.`),
    h('div', { class: 'columns' }, h('div', {}, h('h3', {}, `Reachable (${reachable.length})`), reachable.length === 0 ? empty('None.') : table(reachable, 'reachable', false)), h('div', {}, h('h3', {}, `Out of reach (${unreachable.length})`), complete ? (unreachable.length === 0 ? empty('None: every entry is reachable.') : table(unreachable, 'unreachable', true)) : h('p', { class: 'notice' }, 'Only an admin token may list the entries a character cannot know.'))),
  );
}
