// The settings shape several head rescorers share, `{ weight, head? }`, checked once: a weight and how many of the fused ranking's first candidates it reads.
import { MnemoError } from '../core/errors.js';

/** A weight and the head it applies to (see `optionalWeightAndHead`). */
export interface WeightAndHead {
  /** The technique's weight; 0 turns it off. */
  weight: number;
  /** How many of the fused ranking's first candidates it reads (a fixed number, so k does not change the order). */
  head: number;
}

/** How one technique names and bounds its `{ weight, head? }` settings. */
export interface WeightAndHeadRule {
  /** The option's name, as a caller passes it (it opens the error message and is its `details.field`). */
  field: string;
  /** The head when a caller gives only a weight. */
  defaultHead: number;
  /** The longest head allowed. */
  maxHead: number;
}

/**
 * Checks `{ weight, head? }` settings as a caller gives them (null: off; undefined: `defaults`), filling the head
 * left out with `rule.defaultHead`; a clear INVALID_INPUT naming `rule.field` for anything else. Weight 0 is off.
 *
 * @example
 * ```ts
 * optionalWeightAndHead({ weight: 0.5 }, null, { field: 'replyHandoff', defaultHead: 50, maxHead: 200 }); // { weight: 0.5, head: 50 }
 * ```
 */
export function optionalWeightAndHead(value: unknown, defaults: WeightAndHead | null, rule: WeightAndHeadRule): WeightAndHead | undefined {
  if (value === null) return undefined;
  if (value === undefined) return defaults ?? undefined;
  const given = value as Partial<WeightAndHead>;
  const head = given.head ?? rule.defaultHead;
  const weight = given.weight;
  if (typeof value !== 'object' || typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0 || typeof head !== 'number' || !Number.isSafeInteger(head) || head < 1 || head > rule.maxHead) {
    throw new MnemoError('INVALID_INPUT', `${rule.field}: expected { weight: a number >= 0, head?: an integer from 1 to ${rule.maxHead} } or null, got ${JSON.stringify(value)}. Pass null to turn it off.`, {
      details: { field: rule.field },
    });
  }
  return weight === 0 ? undefined : { weight, head };
}
