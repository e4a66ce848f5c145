// Float32 vectors to and from pgvector's text form ('[0.1,0.2,...]').

/**
 * The pgvector literal of a vector, or null. Each float32 is written with enough digits to read back exactly.
 *
 * @example
 * ```ts
 * vectorToLiteral(new Float32Array([1, 0.5])); // '[1,0.5]'
 * ```
 */
export function vectorToLiteral(vector: Float32Array | null): string | null {
  if (vector === null) return null;
  let text = '[';
  for (let index = 0; index < vector.length; index++) text += (index === 0 ? '' : ',') + String(vector[index]);
  return `${text}]`;
}

/**
 * A vector read back from pgvector's text form, or null.
 *
 * @example
 * ```ts
 * literalToVector('[1,0.5]'); // Float32Array [1, 0.5]
 * ```
 */
export function literalToVector(literal: string | null | undefined): Float32Array | null {
  if (literal == null) return null;
  const body = literal.slice(1, -1);
  if (body.trim() === '') return null;
  const parts = body.split(',');
  const vector = new Float32Array(parts.length);
  for (let index = 0; index < parts.length; index++) vector[index] = Number(parts[index]);
  return vector;
}
