// Renders a hit and its explanation for people: where it came from and why it ranked.
import type { Hit } from '../core/types.js';

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
  const { lexical, semantic, fused, boost, rerank, focusMatches } = hit.explanation;
  const arms = [
    lexical === null ? 'words: no match' : `words #${lexical.rank}, bm25 ${fixed(lexical.score, 2)}`,
    semantic === null ? 'meaning: not ranked' : `meaning #${semantic.rank}, cosine ${fixed(semantic.score, 3)}`,
  ].join('; ');
  const lines = [
    `${rank}. [turn ${hit.turnId} · ${hit.chunkType}] ${hit.text}`,
    `   score ${fixed(hit.score)} = fused ${fixed(fused)} (${arms}) + focus ${fixed(boost)}${focusMatches.length > 0 ? ` for ${focusMatches.join(', ')}` : ''}`,
  ];
  if (rerank !== null) lines.push(`   reranked: ${fixed(rerank, 3)}`);
  return lines.join('\n');
}
