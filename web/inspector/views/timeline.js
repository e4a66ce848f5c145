// Timeline: a save's turns in order (paged), each with its chunks and the facts it produced; rewind from here.
import { api, queryString, savePath } from '../api.js';
import { empty, errorBox, h, numberOrUndefined, replace } from '../dom.js';

const PAGE = 20;

export async function timelineView(container, { save, params, go, isCurrent }) {
  const from = numberOrUndefined(params.get('from'));
  const offset = Number(params.get('offset') ?? 0);
  const highlight = numberOrUndefined(params.get('turn'));
  const status = h('div', { id: 'timeline-status' });
  const fromInput = h('input', { type: 'number', min: 0, name: 'from', value: from ?? '', placeholder: 'first turn' });
  replace(
    container,
    h('h2', {}, `Timeline of ${save}`),
    h(
      'form',
      { class: 'inline', onsubmit: (event) => { event.preventDefault(); go('timeline', clean({ save, from: fromInput.value })); } },
      h('label', {}, 'From turn', fromInput),
      h('button', { type: 'submit' }, 'Go'),
    ),
    status,
  );
  const rewound = takeRewindMessage();
  if (rewound !== null) status.append(h('div', { class: 'notice', id: 'rewind-result' }, rewound));
  const page = await api(savePath(save, `/turns${queryString({ fromTurnId: from, offset, limit: PAGE })}`));
  if (!isCurrent()) return;
  if (page.turns.length === 0) {
    container.append(empty(from === undefined ? 'This save has no turns (no narrative chunks).' : `No turns from turn ${from} on.`));
    return;
  }
  const details = await Promise.all(page.turns.map((turn) => api(savePath(save, `/turns/${turn.turnId}`))));
  if (!isCurrent()) return;
  const list = h('div', { id: 'turns' });
  for (const turn of details) {
    list.append(
      h(
        'div',
        { class: `card turn${turn.turnId === highlight ? ' highlight' : ''}`, 'data-turn': turn.turnId, id: `turn-${turn.turnId}` },
        h('div', { class: 'id' }, `turn ${turn.turnId}`),
        h(
          'div',
          {},
          turn.chunks.length === 0 ? empty('no chunks this token may see') : turn.chunks.map((chunk) => h('div', { class: 'chunk', 'data-chunk': chunk.id }, h('span', { class: 'tag' }, chunk.chunkType), chunk.text)),
          turn.nextOffset === null ? null : h('div', { class: 'muted' }, `… more chunks in this turn (a page holds 100, or 1 MiB of text): GET /v1/saves/${save}/turns/${turn.turnId}?offset=${turn.nextOffset}`),
          turn.facts.map((fact) => h('div', { class: 'fact', 'data-fact': fact.factId }, fact.statement)),
        ),
        h('div', {}, h('button', { class: 'danger', 'data-rewind': turn.turnId, onclick: () => rewind(save, turn.turnId, status, go) }, 'Rewind to here')),
      ),
    );
  }
  container.append(
    list,
    h(
      'div',
      { class: 'pager' },
      offset > 0 ? h('button', { class: 'secondary', onclick: () => go('timeline', clean({ save, from, offset: Math.max(0, offset - PAGE) })) }, '← earlier') : null,
      h('span', { class: 'muted' }, `turns ${page.turns[0].turnId} – ${page.turns.at(-1).turnId}`),
      page.nextOffset === null ? null : h('button', { class: 'secondary', onclick: () => go('timeline', clean({ save, from, offset: page.nextOffset })) }, 'later →'),
    ),
  );
  if (highlight !== undefined) document.getElementById(`turn-${highlight}`)?.scrollIntoView({ block: 'center' });
}

async function rewind(save, turnId, status, go) {
  if (!window.confirm(`Rewind "${save}" to turn ${turnId}? Every chunk, fact, belief and model after turn ${turnId} is deleted. This cannot be undone.`)) return;
  try {
    const counts = await api(savePath(save, '/rewind'), { body: { turnId } });
    sessionStorage.setItem('mnemo.rewound', `Rewound to turn ${turnId}: removed ${counts.chunks} chunk(s), ${counts.living.facts} fact(s), ${counts.living.beliefsDeleted} belief(s) (${counts.living.beliefsUpdated} updated), ${counts.living.modelsDeleted} model(s), ${counts.living.jobsCancelled} queued job(s).`);
    const before = location.hash;
    go('timeline', { save, from: Math.max(0, turnId - PAGE + 1), turn: turnId });
    if (location.hash === before) window.dispatchEvent(new HashChangeEvent('hashchange'));
  } catch (error) {
    replace(status, errorBox(error));
  }
}

function clean(values) {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined && value !== null && value !== ''));
}

/** The message of the last rewind, shown once. */
export function takeRewindMessage() {
  const message = sessionStorage.getItem('mnemo.rewound');
  sessionStorage.removeItem('mnemo.rewound');
  return message;
}
