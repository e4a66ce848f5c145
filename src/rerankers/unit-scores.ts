// Turns a reranker's raw scores into [0, 1]: logits through a sigmoid, calibrated scores passed through.

/**
 * The logistic function, 1 / (1 + e^-x).
 *
 * @example
 * ```ts
 * sigmoid(0); // 0.5
 * sigmoid(2); // 0.8807970779778823
 * ```
 */
export function sigmoid(value: number): number {
  return 1 / (1 + Math.exp(-value));
}

/** What raw scores are: logits (always squashed), probabilities (kept), or unknown (`auto`: the seed's rule). */
export type ScoreKind = 'logits' | 'probabilities' | 'auto';

/**
 * Scores in [0, 1]. With `kind` auto: when every score already lies in [0, 1] they are taken as calibrated and passed through;
 * otherwise they are logits and each goes through a sigmoid (the seed's rule, after Hindsight). Returns null
 * when a score is not a finite number. A model known to give logits should say so (`logits`), so that a batch
 * whose logits all happen to fall in [0, 1] is still squashed.
 *
 * @example
 * ```ts
 * toUnitScores([0.2, 0.9]);  // [0.2, 0.9]
 * toUnitScores([-2, 3.1]);   // [0.119..., 0.956...]
 * ```
 */
export function toUnitScores(scores: readonly number[], kind: ScoreKind = 'auto'): number[] | null {
  if (!scores.every((score) => typeof score === 'number' && Number.isFinite(score))) return null;
  const calibrated = kind === 'probabilities' || (kind === 'auto' && scores.every((score) => score >= 0 && score <= 1));
  return calibrated ? [...scores] : scores.map(sigmoid);
}
