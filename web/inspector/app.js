// The inspector's shell: asks for a token once per session (unless the server needs none), then routes #/view?params.
import { api, ApiError, setToken } from './api.js';
import { errorBox, h, replace } from './dom.js';
import { beliefsView } from './views/beliefs.js';
import { contextView } from './views/context.js';
import { loreView } from './views/lore.js';
import { savesView } from './views/saves.js';
import { searchView } from './views/search.js';
import { timelineView } from './views/timeline.js';

const VIEWS = {
  saves: { label: 'Saves', render: savesView },
  timeline: { label: 'Timeline', render: timelineView, needsSave: true },
  search: { label: 'Search', render: searchView, needsSave: true },
  beliefs: { label: 'Beliefs', render: beliefsView, needsSave: true },
  lore: { label: 'Lore', render: loreView },
  context: { label: 'Context', render: contextView, needsSave: true },
};

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
let access = null;
let rendering = 0;

/** The current route: `#/timeline?save=run-1&from=3` is { view: 'timeline', params }. */
function currentRoute() {
  const [path, query = ''] = location.hash.replace(/^#\/?/u, '').split('?');
  const view = VIEWS[path] === undefined ? 'saves' : path;
  return { view, params: new URLSearchParams(query) };
}

/** Goes to a view, keeping the chosen save. */
export function go(view, params = {}) {
  const query = new URLSearchParams(params).toString();
  location.hash = `#/${view}${query === '' ? '' : `?${query}`}`;
}

function renderNav(view, save) {
  replace(
    nav,
    Object.entries(VIEWS).map(([name, spec]) => {
      const href = spec.needsSave && save !== null ? `#/${name}?save=${encodeURIComponent(save)}` : `#/${name}`;
      return h('a', { href, class: name === view ? 'active' : spec.needsSave && save === null ? 'disabled' : '', 'data-view': name }, spec.label);
    }),
  );
}

async function render() {
  const ticket = ++rendering;
  const { view, params } = currentRoute();
  const save = params.get('save') ?? sessionStorage.getItem('mnemo.save');
  if (params.get('save') !== null) sessionStorage.setItem('mnemo.save', params.get('save'));
  renderNav(view, save);
  const spec = VIEWS[view];
  const container = h('section', { 'data-view': view });
  replace(main, container);
  if (spec.needsSave && save === null) {
    replace(container, h('h2', {}, spec.label), h('p', { class: 'empty' }, 'Pick a save first: open ', h('a', { href: '#/saves' }, 'Saves'), ' and choose one.'));
    return;
  }
  try {
    await spec.render(container, { save, params, access, go, isCurrent: () => ticket === rendering });
  } catch (error) {
    if (ticket !== rendering) return;
    if (error instanceof ApiError && error.status === 401) return askToken(error.message);
    container.append(errorBox(error));
  }
  if (ticket === rendering) main.dataset.ready = view;
}

function askToken(reason) {
  replace(nav);
  who.textContent = '';
  const input = h('input', { type: 'password', name: 'token', class: 'wide', autocomplete: 'off', placeholder: 'the token given to mnemo serve', required: true });
  const form = h(
    'form',
    {
      class: 'card',
      id: 'token-form',
      onsubmit: async (event) => {
        event.preventDefault();
        setToken(input.value.trim());
        await start();
      },
    },
    h('h2', {}, 'Sign in'),
    h('p', {}, 'This server needs a bearer token. It is kept for this browser tab only (sessionStorage) and sent to the API as ', h('code', {}, 'Authorization: Bearer …'), '.'),
    reason === null ? null : h('div', { class: 'error' }, reason),
    h('p', {}, input, ' ', h('button', { type: 'submit' }, 'Open')),
  );
  replace(main, form);
  input.focus();
}

async function start() {
  try {
    access = await api('/v1/access');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return askToken(error.code === 'UNAUTHENTICATED' && sessionStorage.getItem('mnemo.token') !== null ? error.message : null);
    replace(main, errorBox(error));
    return;
  }
  replace(who, `token: ${access.name}${access.admin ? ' (admin)' : ''} · `, h('a', { href: '#', onclick: (event) => { event.preventDefault(); setToken(null); access = null; askToken(null); } }, 'forget token'));
  await render();
}

window.addEventListener('hashchange', () => {
  if (access !== null) void render();
});
void start();
