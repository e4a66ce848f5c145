// The time signal: the calendar dates a query names ("October 13, 2023", "May 2023", "2022", "2023-10-13"), and how close a chunk's day is to them.

/** A date a query names: a year, perhaps a month (1-12), perhaps a day of the month. */
export interface QueryDate {
  year: number;
  month?: number;
  day?: number;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH = MONTHS.join('|');
/** "13 October 2023", "October 13, 2023", "October 2023" (English month names). */
const WRITTEN = new RegExp(`\\b(?:(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?)?(${MONTH})(?:\\s+(\\d{1,2})(?:st|nd|rd|th)?)?,?\\s+(\\d{4})\\b`, 'g');
/** "2023-10-13", "2023-10". */
const ISO = /\b(\d{4})-(\d{2})(?:-(\d{2}))?\b/g;
/** A year alone: 1000 to 2999. */
const YEAR = /\b([12]\d{3})\b/g;

/**
 * The absolute dates a query names: written dates with English month names, ISO dates, and, when there is none of
 * those, four-digit years. Relative times ("last week") name no date. At most 8 dates are read.
 *
 * @example
 * ```ts
 * queryDates('What did Ann do on 13 October 2023?'); // [{ year: 2023, month: 10, day: 13 }]
 * queryDates('Where was she in 2022?'); // [{ year: 2022 }]
 * ```
 */
export function queryDates(text: string): QueryDate[] {
  const lower = text.toLowerCase();
  const found: QueryDate[] = [];
  for (const match of lower.matchAll(WRITTEN)) {
    const day = match[1] ?? match[3];
    found.push({ year: Number(match[4]), month: MONTHS.indexOf(match[2] as string) + 1, ...(day === undefined ? {} : { day: Number(day) }) });
  }
  for (const match of lower.matchAll(ISO)) {
    const month = Number(match[2]);
    if (month >= 1 && month <= 12) found.push({ year: Number(match[1]), month, ...(match[3] === undefined ? {} : { day: Number(match[3]) }) });
  }
  if (found.length === 0) for (const match of lower.matchAll(YEAR)) found.push({ year: Number(match[1]) });
  return found.slice(0, 8);
}

/**
 * How well a chunk's day (days since 1970-01-01) fits the dates a query names, from 0 to 1: 1 within a day of a
 * named day, 0.5 in a named month (or the month of a named day), 0.25 in a named year given alone; the best over
 * the dates.
 *
 * @example
 * ```ts
 * dateFit(Date.UTC(2023, 9, 14) / 86_400_000, [{ year: 2023, month: 10, day: 13 }]); // 1
 * ```
 */
export function dateFit(day: number, dates: readonly QueryDate[]): number {
  if (Number.isNaN(day) || dates.length === 0) return 0;
  const date = new Date(day * 86_400_000);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + 1;
  let best = 0;
  for (const named of dates) {
    if (named.day !== undefined && named.month !== undefined && Math.abs(Date.UTC(named.year, named.month - 1, named.day) / 86_400_000 - day) <= 1) return 1;
    if (named.year !== year) continue;
    if (named.month === undefined) best = Math.max(best, 0.25);
    else if (named.month === month) best = Math.max(best, 0.5);
  }
  return best;
}
