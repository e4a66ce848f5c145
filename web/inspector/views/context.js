// Context: the prompt context the builder gives a character for a message, section by section, with the budget used.
import { api, savePath } from '../api.js';
import { budgetBar, sectionColour } from '../charts.js';
import { empty, h, numberOrUndefined, replace, splitList } from '../dom.js';

export async function contextView(container, { save, params, go, isCurrent }) {
  const field = (name, attributes = {}) => h('input', { name, value: params.get(name) ?? '', ...attributes });
  const inputs = {
    character: field('character', { placeholder: 'Marta', required: true }),
    message: field('message', { class: 'wide', placeholder: 'what the player says', required: true }),
    tags: field('tags', { placeholder: 'brackwater, brackwater_docks' }),
    subjects: field('subjects', { placeholder: 'Kaël (the world is always in)' }),
    focus: field('focus', { placeholder: 'Sunken Bell' }),
    turn: field('turn', { type: 'number', min: 0, placeholder: 'latest', style: { width: '6rem' } }),
    budget: field('budget', { type: 'number', min: 1, placeholder: '1200', style: { width: '6rem' } }),
  };
  const form = h(
    'form',
    {
      class: 'inline',
      id: 'context-form',
      onsubmit: (event) => {
        event.preventDefault();
        go('context', Object.fromEntries([['save', save], ...Object.entries(inputs).map(([name, input]) => [name, input.value.trim()]).filter(([, value]) => value !== '')]));
      },
    },
    h('label', {}, 'Character', inputs.character),
    h('label', {}, 'Message', inputs.message),
    h('label', {}, 'Lore tags', inputs.tags),
    h('label', {}, 'Other subjects', inputs.subjects),
    h('label', {}, 'Focus terms', inputs.focus),
    h('label', {}, 'At turn', inputs.turn),
    h('label', {}, 'Budget', inputs.budget),
    h('button', { type: 'submit' }, 'Build'),
  );
  const output = h('div', { id: 'context' });
  replace(container, h('h2', {}, `Context in ${save}`), form, output);
  const character = params.get('character');
  const message = params.get('message');
  if (character === null || message === null) {
    output.append(empty('Name a character and a message: the page shows the context the builder would put in that character\'s prompt, section by section, with the tokens each used.'));
    return;
  }
  const subjects = splitList(params.get('subjects'));
  const body = {
    character,
    message,
    tags: splitList(params.get('tags')),
    focusTerms: splitList(params.get('focus')),
    currentTurnId: numberOrUndefined(params.get('turn')),
    budget: numberOrUndefined(params.get('budget')),
    ...(subjects.length === 0 ? {} : { subjects: ['', ...subjects] }),
  };
  const result = await api(savePath(save, '/context'), { body });
  if (!isCurrent()) return;
  output.append(
    h('p', { id: 'budget-used' }, h('strong', {}, `${result.tokens.used} of ${result.tokens.budget} tokens used`), h('span', { class: 'muted' }, ` · whole prompt ${result.tokens.prompt} tokens · tokenizer ${result.tokenizer}`)),
    budgetBar(result.sections, result.tokens.budget),
    ...result.sections.map((section) =>
      h(
        'div',
        { class: 'card', 'data-section': section.name },
        h('h3', {}, h('span', { class: 'tag', style: { background: sectionColour(section.name), color: '#fff' } }, section.name), ` ${section.tokens} / ${section.cap} tokens · ${section.lines.length} line(s)${section.omitted.length === 0 ? '' : `, ${section.omitted.length} left out for the budget`}`),
        section.lines.length === 0 ? empty('Nothing for this section.') : h('ul', { class: 'section-lines' }, section.lines.map((line) => h('li', {}, line.text, ' ', h('span', { class: 'source' }, `(${describeSource(line.source)}, ${line.tokens} tokens)`)))),
        section.omitted.length === 0 ? null : h('details', {}, h('summary', {}, 'left out'), h('ul', { class: 'section-lines' }, section.omitted.map((line) => h('li', { class: 'muted' }, line.text)))),
      ),
    ),
    h('details', {}, h('summary', {}, 'the whole prompt'), h('pre', {}, result.prompt)),
  );
}

function describeSource(source) {
  switch (source.kind) {
    case 'mental_model': return `model of ${source.subject || 'the world'}`;
    case 'belief': return `belief ${source.beliefId}, ${source.trend}, ${source.proofCount} proof(s)`;
    case 'fact': return `fact ${source.factId}, turn ${source.turnId}`;
    case 'chunk': return `turn ${source.turnId} ${source.chunkType}`;
    case 'lore': return `lore "${source.title}" (${source.scopeLevel})`;
    default: return source.kind;
  }
}
