// Decay durations of memory declarations: "none", or a whole number of seconds, minutes, hours or days.
import { MnemoError } from '../core/errors.js';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^([1-9]\d{0,8})([smhd])$/;

/** The accepted forms, as error messages name them. */
export const DECAY_FORMS = '"none" or a duration: a whole number followed by s, m, h or d, such as "30s", "15m", "1h" or "7d"';

/** True when `text` is "none" or a duration parseDecay accepts. */
export function isDecay(text: unknown): text is string {
  return typeof text === 'string' && (text === 'none' || DURATION.test(text));
}

/**
 * Parses a decay: "none" gives null (never expires); "30s", "15m", "1h", "7d" give milliseconds. Anything else is
 * an INVALID_INPUT error naming the accepted forms.
 *
 * @example
 * ```ts
 * parseDecay('1h');   // 3_600_000
 * parseDecay('none'); // null
 * ```
 */
export function parseDecay(text: unknown, field = 'decay'): number | null {
  if (text === 'none') return null;
  const match = typeof text === 'string' ? DURATION.exec(text) : null;
  if (match === null) {
    throw new MnemoError('INVALID_INPUT', `${field}: expected ${DECAY_FORMS}; got ${JSON.stringify(text) ?? 'nothing'}.`, {
      details: { field, expected: DECAY_FORMS, received: String(text) },
    });
  }
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
