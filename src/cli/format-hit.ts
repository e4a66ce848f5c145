// Renders a hit and its explanation for people: where it came from and why it ranked.
import type { Explanation, Hit } from '../core/types.js';

const fixed = (value: number, digits = 4) => value.toFixed(digits);

/**
 * Two or three lines per hit: the text with its turn and type, then the score broken into its parts.
 *
 * @example
 * ```ts
 * formatHit(hit, 1);
 * // 1. [turn 15 · narrative] The lighthouse door is locked; ...
 * //    score 0.0328 = fused 0.0328 (words #1, bm25 3.91; meaning #1, cosine 0.702) + focus 0.0000
 * ```
 */
export function formatHit(hit: Hit, rank: number): string {
  return [`${rank}. [turn ${hit.turnId} · ${hit.chunkType}] ${hit.text}`, ...formatScore(hit.score, hit.explanation)].join('\n');
}

/**
 * The indented lines saying why a hit ranked: its score broken into arms, fusion and boost, then any rerank.
 *
 * @example
 * ```ts
 * formatScore(hit.score, hit.explanation);
 * // ['   score 0.0328 = fused 0.0328 (words #1, bm25 3.91; meaning #1, cosine 0.702) + focus 0.0000']
 * ```
 */
export function formatScore(score: number, explanation: Explanation): string[] {
  const { lexical, semantic, fused, boost, rerank, focusMatches } = explanation;
  const arms = [
    lexical === null ? 'words: no match' : `words #${lexical.rank}, bm25 ${fixed(lexical.score, 2)}`,
    semantic === null ? 'meaning: not ranked' : `meaning #${semantic.rank}, cosine ${fixed(semantic.score, 3)}`,
  ].join('; ');
  const lines = [`   score ${fixed(score)} = fused ${fixed(fused)} (${arms}) + focus ${fixed(boost)}${focusMatches.length > 0 ? ` for ${focusMatches.join(', ')}` : ''}`];
  if (rerank !== null) lines.push(`   reranked: ${fixed(rerank, 3)}`);
  return lines;
}
