// Saves: every save this token may use, with its counts in each layer (paged).
import { api, queryString } from '../api.js';
import { empty, h, replace } from '../dom.js';

const PAGE = 50;

export async function savesView(container, { params, go }) {
  const offset = Number(params.get('offset') ?? 0);
  const answer = await api(`/v1/saves${queryString({ offset, limit: PAGE })}`);
  const rows = answer.saves.map((save) =>
    h(
      'tr',
      { 'data-save': save.saveId },
      h('td', {}, h('a', { href: `#/timeline?save=${encodeURIComponent(save.saveId)}` }, save.saveId)),
      h('td', { class: 'number' }, save.turns),
      h('td', { class: 'number' }, save.chunks),
      h('td', { class: 'number' }, save.facts),
      h('td', { class: 'number' }, save.beliefs),
      h('td', { class: 'number' }, save.models),
      h('td', {}, save.minTurnId === null ? '—' : `${save.minTurnId} – ${save.maxTurnId}`),
      h('td', { class: 'muted' }, jobs(save.jobs)),
      h('td', {}, ['search', 'beliefs', 'context'].map((view) => [h('a', { href: `#/${view}?save=${encodeURIComponent(save.saveId)}` }, view), ' '])),
    ),
  );
  replace(
    container,
    h('h2', {}, 'Saves'),
    answer.total === 0
      ? empty('No saves yet. Add chunks with POST /v1/saves/{saveId}/chunks (or `mnemo add`) and they show here.')
      : h(
          'table',
          { id: 'saves' },
          h('thead', {}, h('tr', {}, ['Save', 'Turns', 'Chunks', 'Facts', 'Beliefs', 'Models', 'Turn range', 'Living queue', 'Open'].map((title, index) => h('th', { class: index >= 1 && index <= 5 ? 'number' : '' }, title)))),
          h('tbody', {}, rows),
        ),
    h(
      'div',
      { class: 'pager' },
      offset > 0 ? h('button', { class: 'secondary', onclick: () => go('saves', { offset: Math.max(0, offset - PAGE) }) }, '← previous') : null,
      h('span', { class: 'muted' }, `${answer.total} save(s)`),
      answer.nextOffset === null ? null : h('button', { class: 'secondary', onclick: () => go('saves', { offset: answer.nextOffset }) }, 'next →'),
    ),
    h('p', { class: 'notice' }, 'Fork and rewind history: the store does not record which save was forked from which, or when a save was rewound, so none is shown. A rewind done here reports what each layer lost.'),
  );
}

function jobs(counts) {
  const parts = Object.entries(counts).filter(([, count]) => count > 0).map(([status, count]) => `${count} ${status}`);
  return parts.length === 0 ? 'idle' : parts.join(', ');
}
