// optionalWeightAndHead: the one check of the `{ weight, head? }` settings that reply handoff, the length signal and the coverage pass share.
import { describe, expect, it } from 'vitest';
import { MnemoError } from '../src/core/errors.js';
import { optionalWeightAndHead } from '../src/retrieval/weight-and-head.js';

const rule = { field: 'someTechnique', defaultHead: 7, maxHead: 30 };

describe('optionalWeightAndHead', () => {
  it('fills the rule\'s head, keeps a given one, treats weight 0 and null as off and undefined as the defaults', () => {
    expect(optionalWeightAndHead({ weight: 0.25 }, null, rule)).toEqual({ weight: 0.25, head: 7 });
    expect(optionalWeightAndHead({ weight: 2, head: 30 }, null, rule)).toEqual({ weight: 2, head: 30 });
    expect(optionalWeightAndHead({ weight: 0, head: 3 }, null, rule)).toBeUndefined();
    expect(optionalWeightAndHead(null, { weight: 1, head: 4 }, rule)).toBeUndefined();
    expect(optionalWeightAndHead(undefined, { weight: 1, head: 4 }, rule)).toEqual({ weight: 1, head: 4 });
    expect(optionalWeightAndHead(undefined, null, rule)).toBeUndefined();
  });

  it('refuses bad settings with INVALID_INPUT naming the field, the expected shape, the rule\'s bound and what arrived', () => {
    for (const bad of [{ weight: -1 }, { weight: Number.NaN }, { weight: '1' }, { head: 3 }, { weight: 1, head: 0 }, { weight: 1, head: 31 }, { weight: 1, head: 2.5 }, 0.5, 'x']) {
      let error: unknown;
      try {
        optionalWeightAndHead(bad, null, rule);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(MnemoError);
      expect((error as MnemoError).code).toBe('INVALID_INPUT');
      expect((error as MnemoError).message).toContain('someTechnique: expected { weight: a number >= 0, head?: an integer from 1 to 30 } or null, got ');
      expect((error as MnemoError).message).toContain(JSON.stringify(bad));
      expect((error as MnemoError).details).toEqual({ field: 'someTechnique' });
    }
  });
});
