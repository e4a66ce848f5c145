// Beliefs: per subject, the mental model and then each belief with proof count, sources, history and evidence trend.
import { api, queryString, savePath } from '../api.js';
import { evidenceSparkline } from '../charts.js';
import { empty, h, replace } from '../dom.js';

const LIMIT = 200;

const subjectName = (subject) => (subject === '' ? 'the world' : subject);

export async function beliefsView(container, { save, params, go, isCurrent }) {
  const chosen = params.get('subject');
  const filter = chosen === null ? {} : { subject: chosen };
  const [overview, beliefs, models] = await Promise.all([
    api(savePath(save)).catch(() => null),
    api(savePath(save, `/beliefs${queryString({ ...filter, limit: LIMIT })}`)),
    api(savePath(save, `/models${queryString({ ...filter, limit: LIMIT })}`)),
  ]);
  if (!isCurrent()) return;
  const lastTurn = overview?.latestTurnId ?? overview?.maxTurnId ?? 0;
  const subjects = new Map();
  const group = (subject) => {
    if (!subjects.has(subject)) subjects.set(subject, { model: null, beliefs: [] });
    return subjects.get(subject);
  };
  for (const model of models.models) group(model.subject).model = model;
  for (const belief of beliefs.beliefs) group(belief.subject).beliefs.push(belief);
  const picker = h(
    'select',
    { name: 'subject', onchange: (event) => go('beliefs', event.target.value === '*' ? { save } : { save, subject: event.target.value }) },
    h('option', { value: '*' }, 'every subject'),
    [...new Set([...subjects.keys(), ...(chosen === null ? [] : [chosen])])].sort().map((subject) => h('option', { value: subject, selected: subject === chosen }, subjectName(subject))),
  );
  replace(container, h('h2', {}, `Beliefs in ${save}`), h('form', { class: 'inline' }, h('label', {}, 'Subject', picker)));
  if (subjects.size === 0) {
    container.append(empty(chosen === null ? 'No beliefs or mental models yet: living memory builds them from recorded turns (POST /v1/saves/{saveId}/living/turns with an LLM configured).' : `No beliefs or model about ${subjectName(chosen)}.`));
    return;
  }
  if (beliefs.beliefs.length === LIMIT) container.append(h('p', { class: 'notice' }, `Showing the ${LIMIT} most recently updated beliefs; pick a subject to see its own.`));
  const ordered = [...subjects.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [subject, { model, beliefs: list }] of ordered) {
    container.append(
      h(
        'div',
        { class: 'subject', 'data-subject': subject },
        h('h3', {}, `About ${subjectName(subject)}`),
        model === null
          ? h('p', { class: 'muted' }, 'No mental model of this subject yet.')
          : h('div', { class: 'card model', 'data-model': model.modelId }, h('strong', {}, 'Mental model '), h('span', { class: 'muted' }, `(turn ${model.createdTurnId} – ${model.updatedTurnId}${model.stale ? ', stale' : ''})`), h('p', {}, model.summary)),
        list.length === 0 ? empty('No beliefs about this subject.') : list.map((belief) => beliefCard(save, belief, lastTurn)),
      ),
    );
  }
}

function beliefCard(save, belief, lastTurn) {
  const turnLink = (turnId, label = `turn ${turnId}`) => h('a', { href: `#/timeline?save=${encodeURIComponent(save)}&from=${turnId}&turn=${turnId}` }, label);
  return h(
    'div',
    { class: 'card belief', 'data-belief': belief.beliefId },
    h(
      'div',
      {},
      h('div', {}, h('strong', {}, belief.statement), ' ', h('span', { class: `trend ${belief.trend}` }, belief.trend), belief.deletedTurnId === null ? null : h('span', { class: 'tag missing' }, `deleted at turn ${belief.deletedTurnId}`)),
      h('div', { class: 'muted' }, `${belief.proofCount} proof(s) · since turn ${belief.createdTurnId}, updated turn ${belief.updatedTurnId}`),
      h('div', { class: 'sources' }, 'sources: ', belief.sources.length === 0 ? 'none' : belief.sources.map((source, index) => [index > 0 ? ', ' : '', turnLink(source.turnId, `fact ${source.factId} (turn ${source.turnId})`)])),
      belief.history.length === 0
        ? null
        : h('details', {}, h('summary', {}, `history (${belief.history.length})`), h('ol', {}, belief.history.map((entry) => h('li', {}, turnLink(entry.turnId), ` ${entry.action}: ${entry.statement}`)))),
    ),
    h('div', {}, evidenceSparkline(belief.sources, belief.createdTurnId, Math.max(lastTurn, belief.updatedTurnId)), h('div', { class: 'muted' }, 'evidence over turns')),
  );
}
