// The bounds on every input that can grow the cost of one call, and the one error that reports a bound crossed.
import { MnemoError } from './errors.js';

/**
 * Every bound, in one table (docs/limits.md lists them with the surfaces that enforce them). The library, the HTTP
 * API, the MCP tools and the CLI check the same numbers; a value over a bound is refused with LIMIT_EXCEEDED
 * (HTTP 400, exit 2) naming the limit, before anything is read or written.
 */
export const LIMITS = {
  /** Characters in one chunk's text, a turn's new text, or the text a living turn distils. */
  textChars: 100_000,
  /** Characters in a remembered key. */
  memoryKeyChars: 1000,
  /** Characters in a remembered value, as JSON (a string value: its own length). */
  memoryValueChars: 100_000,
  /** Characters in a query, a lore search, a recall query or a context message. */
  queryChars: 10_000,
  /** Focus terms in one query or lore search (a context request: one less, its character is one of them). */
  focusTerms: 32,
  /** Characters in one focus term (as in a name). */
  focusTermChars: 200,
  /** Hits one query returns. */
  k: 1000,
  /** Candidates each search arm keeps before fusion (0 asks for this largest cap). */
  capPerSource: 10_000,
  /** Documents, and terms, that pseudo-relevance feedback reads and adds (library option `feedback`). */
  feedback: 100,
  /** Fused candidates the reranker reads. */
  rerankTop: 1000,
  /** Nesting depth of a JSON value (a remembered value, metadata). */
  jsonDepth: 64,
  /** Characters in one lore entry's content. */
  loreContentChars: 20_000,
  /** Bytes in one lore repository file (index.yaml or a content file). */
  loreFileBytes: 10 * 1024 * 1024,
  /** Entries in one lore import. */
  loreEntries: 100_000,
  /** Tokens in one context (every section together). */
  contextBudget: 200_000,
  /** Candidates of one context section (beliefs, facts, memories, lore). */
  contextSectionItems: 200,
  /** Characters in a context template, and in each of its variables. */
  templateChars: 100_000,
  /** Variables of one context template. */
  templateVariables: 64,
  /** Lore tags a character holds in one request. */
  tags: 100,
  /** Subjects (and known entities) named in one request. */
  names: 100,
  /** Metadata keys one search filter (`where`) names. */
  whereClauses: 16,
  /** Characters in a metadata key a filter names. */
  whereKeyChars: 200,
  /** Values in one `{ in: [...] }` condition of a filter. */
  whereValues: 100,
  /** Characters in a string value a filter compares with. */
  whereValueChars: 1000,
  /** Chunk ids one delete of chunks names (library, HTTP, MCP, CLI; a delete by entryId names none). */
  deleteChunkIds: 10_000,
  /** Chunks written by one HTTP or MCP call (the library takes any number: its cost is what it writes). */
  chunksPerCall: 1000,
  /** Characters of a save file passed through MCP (export_save's answer, import_save's file); HTTP and the CLI stream any size. */
  mcpSaveFileChars: 1_000_000,
} as const;

/** The name of a bound in LIMITS. */
export type LimitName = keyof typeof LIMITS;

/**
 * The error for a value over a bound: LIMIT_EXCEEDED, naming the field, the limit, its maximum and what came.
 *
 * @example
 * ```ts
 * throw limitExceeded('focusTerms', 'focusTerms', 40, 'Pass the place and the characters on scene only.');
 * // "focusTerms: at most 32 focus terms (limit focusTerms), got 40. Pass the place ..."
 * ```
 */
export function limitExceeded(field: string, limit: LimitName, received: number, fix: string, unit = ''): MnemoError {
  const maximum = LIMITS[limit];
  return new MnemoError('LIMIT_EXCEEDED', `${field}: at most ${maximum.toLocaleString('en-US')}${unit === '' ? '' : ` ${unit}`} (limit ${limit}, see docs/limits.md), got ${received.toLocaleString('en-US')}. ${fix}`, {
    details: { field, limit, maximum, received },
  });
}

/**
 * Throws LIMIT_EXCEEDED when `text` is longer than the limit; returns it otherwise.
 *
 * @example
 * ```ts
 * requireShortText('query', 'queryChars', 'x'.repeat(20_000), 'Send the question, not the whole transcript.'); // throws
 * ```
 */
export function requireShortText(field: string, limit: LimitName, text: string, fix: string): string {
  if (text.length > LIMITS[limit]) throw limitExceeded(field, limit, text.length, fix, 'characters');
  return text;
}
