// The inspector's small charts: explanation bars of a search hit, evidence sparklines of a belief, budget bars.
import { h, svg } from './dom.js';

const format = (value, digits = 3) => (value === null || value === undefined ? '—' : Number(value).toFixed(digits));

/**
 * The bars of one hit's explanation: its rank in each arm (rank 1 fills the bar), fused score, focus boost and
 * rerank score (each relative to the largest in the result list, `scale`; fused scores below zero, as z-score
 * fusion gives, are drawn between the lowest and the highest).
 */
export function explanationBars(explanation, scale) {
  const rows = [];
  const arm = (name, label, value) => {
    const width = value === null ? 0 : 100 / value.rank;
    rows.push(row(name, label, width, value === null ? 'not found' : `rank ${value.rank} · ${format(value.score)}`));
  };
  arm('lexical', 'words', explanation.lexical);
  arm('semantic', 'meaning', explanation.semantic);
  rows.push(row('fused', 'fused', spread(explanation.fused, scale.fusedLow, scale.fused), format(explanation.fused, 4)));
  rows.push(row('boost', 'focus', share(explanation.boost, scale.boost), explanation.boost > 0 ? `+${format(explanation.boost, 4)}` : 'none'));
  rows.push(row('rerank', 'rerank', explanation.rerank === null ? 0 : share(explanation.rerank, scale.rerank), explanation.rerank === null ? 'not reranked' : format(explanation.rerank)));
  return h('div', { class: 'bars', role: 'img', 'aria-label': 'Why this hit ranked' }, rows);
}

function row(metric, label, percent, text) {
  return [
    h('span', {}, label),
    h('div', { class: 'bar-track' }, h('div', { class: 'bar', dataset: { metric }, style: { width: `${Math.max(0, Math.min(100, percent)).toFixed(1)}%` } })),
    h('span', { class: 'muted' }, text),
  ];
}

/** Where `value` sits between `low` and `high` (both included), as a share of a bar; a lone value fills it. */
function spread(value, low, high) {
  if (low >= 0) return share(value, high);
  return high > low ? 5 + (95 * (value - low)) / (high - low) : 100;
}

function share(value, largest) {
  return largest > 0 ? (100 * value) / largest : 0;
}

/** The largest fused, boost and rerank values of a list of explanations (the bars' full lengths). */
export function explanationScale(explanations) {
  const largest = (pick) => Math.max(0, ...explanations.map((explanation) => pick(explanation) ?? 0));
  const fusedLow = Math.min(0, ...explanations.map((explanation) => explanation.fused));
  return { fused: largest((e) => e.fused), fusedLow, boost: largest((e) => e.boost), rerank: largest((e) => e.rerank) };
}

/**
 * A sparkline of evidence over turns: the number of supporting facts gathered by each turn, from the belief's
 * first turn to `lastTurn`, as an inline SVG step line with a dot per source.
 */
export function evidenceSparkline(sources, firstTurn, lastTurn, width = 140, height = 32) {
  const turns = sources.map((source) => source.turnId).sort((a, b) => a - b);
  const start = Math.min(firstTurn, ...turns);
  const end = Math.max(lastTurn, start + 1, ...turns);
  const total = Math.max(1, turns.length);
  const x = (turn) => 2 + ((turn - start) / (end - start)) * (width - 4);
  const y = (count) => height - 2 - (count / total) * (height - 4);
  const points = [[x(start), y(0)]];
  let count = 0;
  const dots = [];
  for (const turn of turns) {
    points.push([x(turn), y(count)]);
    count += 1;
    points.push([x(turn), y(count)]);
    dots.push(svg('circle', { cx: x(turn).toFixed(1), cy: y(count).toFixed(1), r: 2 }, svg('title', {}, `turn ${turn}: ${count} source(s)`)));
  }
  points.push([x(end), y(count)]);
  return svg(
    'svg',
    { class: 'sparkline', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `Evidence: ${count} source(s) from turn ${start} to ${end}` },
    svg('polyline', { points: points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ') }),
    dots,
  );
}

const SECTION_COLOURS = { mental_model: '#8b5cf6', beliefs: '#0f9d58', facts: '#3b82f6', memories: '#f59e0b', lore_context: '#e11d48' };

/** A stacked bar of the token budget: each section's share of it, the rest left empty. */
export function budgetBar(sections, budget) {
  return h(
    'div',
    { class: 'budget', role: 'img', 'aria-label': 'Token budget used by section' },
    sections.map((section) => h('span', { title: `${section.name}: ${section.tokens} tokens`, style: { width: `${(100 * section.tokens) / Math.max(1, budget)}%`, background: SECTION_COLOURS[section.name] ?? '#999' } })),
  );
}

/** The colour of a context section (for its legend). */
export function sectionColour(name) {
  return SECTION_COLOURS[name] ?? '#999';
}
