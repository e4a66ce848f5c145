// Saves: every save this token may use, with its counts in each layer (paged); delete a save after typing its id.
import { api, queryString, savePath } from '../api.js';
import { empty, errorBox, h, replace } from '../dom.js';

const PAGE = 50;
const DELETED = 'mnemo.deleted';

export async function savesView(container, { params, go }) {
  const offset = Number(params.get('offset') ?? 0);
  const answer = await api(`/v1/saves${queryString({ offset, limit: PAGE })}`);
  const panel = h('div', { id: 'delete-panel' });
  const deleted = sessionStorage.getItem(DELETED);
  sessionStorage.removeItem(DELETED);
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
      h('td', {}, h('button', { class: 'danger', 'data-delete': save.saveId, onclick: () => askDelete(panel, save) }, 'Delete…')),
    ),
  );
  replace(
    container,
    h('h2', {}, 'Saves'),
    deleted === null ? null : h('div', { class: 'notice', id: 'delete-result' }, deleted),
    panel,
    answer.total === 0
      ? empty('No saves yet. Add chunks with POST /v1/saves/{saveId}/chunks (or `mnemo add`) and they show here.')
      : h(
          'table',
          { id: 'saves' },
          h('thead', {}, h('tr', {}, ['Save', 'Turns', 'Chunks', 'Facts', 'Beliefs', 'Models', 'Turn range', 'Living queue', 'Open', ''].map((title, index) => h('th', { class: index >= 1 && index <= 5 ? 'number' : '' }, title)))),
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

/**
 * The confirmation of a delete: the save's id must be typed before the button works; then DELETE /v1/saves/{saveId}
 * and the list is drawn again with what each layer lost, or the server's refusal is shown in the panel.
 */
function askDelete(panel, save) {
  const typed = h('input', { name: 'confirm-save', autocomplete: 'off', placeholder: save.saveId, 'aria-label': 'the save id, to confirm' });
  const confirm = h('button', { class: 'danger', type: 'submit', disabled: true }, 'Delete for good');
  const status = h('div', {});
  typed.addEventListener('input', () => { confirm.disabled = typed.value !== save.saveId; });
  replace(
    panel,
    h(
      'form',
      {
        class: 'card',
        id: 'delete-form',
        'data-save': save.saveId,
        onsubmit: async (event) => {
          event.preventDefault();
          if (typed.value !== save.saveId) return;
          confirm.disabled = true;
          try {
            const counts = await api(savePath(save.saveId), { method: 'DELETE' });
            sessionStorage.setItem(DELETED, `Deleted "${save.saveId}": removed ${counts.chunks} chunk(s), ${counts.living.facts} fact(s), ${counts.living.beliefs} belief(s), ${counts.living.models} model(s), ${counts.living.jobs} queued job(s).`);
            if (sessionStorage.getItem('mnemo.save') === save.saveId) sessionStorage.removeItem('mnemo.save');
            window.dispatchEvent(new HashChangeEvent('hashchange'));
          } catch (error) {
            replace(status, errorBox(error));
            confirm.disabled = typed.value !== save.saveId;
          }
        },
      },
      h('h3', {}, `Delete "${save.saveId}"?`),
      h('p', {}, `Every layer of this save is removed for good, in one transaction: ${save.chunks} chunk(s), ${save.facts} fact(s), ${save.beliefs} belief(s), ${save.models} model(s), its queued jobs and its search index. GET /v1/saves/{saveId}/export (or mnemo export) first to keep a copy.`),
      h('p', {}, h('label', {}, 'Type the save id to confirm: ', typed), ' ', confirm, ' ', h('button', { class: 'secondary', type: 'button', onclick: () => replace(panel) }, 'Cancel')),
      status,
    ),
  );
  typed.focus();
}

function jobs(counts) {
  const parts = Object.entries(counts).filter(([, count]) => count > 0).map(([status, count]) => `${count} ${status}`);
  return parts.length === 0 ? 'idle' : parts.join(', ');
}
