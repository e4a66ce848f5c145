// What every CLI command shares: the global options, opening Mnemo from them, and writing output.
import type { Command } from 'commander';
import { MnemoError } from '../core/errors.js';
import { consoleLogger } from '../core/logger.js';
import type { Logger } from '../core/logger.js';
import { discoverDimensions, openAiCompatibleEmbedder } from '../embedders/openai-compatible/index.js';
import { resolveEmbedder } from '../embedders/resolve-embedder.js';
import type { EmbedderName } from '../embedders/resolve-embedder.js';
import { openMemory } from '../open-memory.js';
import type { Mnemo, OpenMemoryOptions } from '../open-memory.js';
import type { Embedder } from '../seams/embedder.js';
import { isPostgresUrl } from '../stores/postgres/identifiers.js';

/** The options every command accepts. */
export interface GlobalOptions {
  db: string;
  embedder: string;
  verbose?: boolean;
}

/** Where a command writes: standard output and standard error, replaceable in tests. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** The embedders the CLI can name. */
export const CLI_EMBEDDERS = ['auto', 'static', 'minilm', 'hashing', 'none', 'openai'] as const;

/** Known vector lengths of OpenAI's embedding models (others are asked of the server). */
const OPENAI_DIMENSIONS: Record<string, number> = { 'text-embedding-3-small': 1536, 'text-embedding-3-large': 3072, 'text-embedding-ada-002': 1536 };

/**
 * The OpenAI-compatible embedder configured from the environment (read now, not at import):
 * MNEMO_OPENAI_BASE_URL (default https://api.openai.com/v1), MNEMO_OPENAI_API_KEY or OPENAI_API_KEY,
 * MNEMO_OPENAI_MODEL (default text-embedding-3-small), MNEMO_OPENAI_DIMENSIONS (default: known, else asked).
 */
export async function openAiFromEnvironment(environment: NodeJS.ProcessEnv = process.env): Promise<Embedder> {
  const baseUrl = environment.MNEMO_OPENAI_BASE_URL || 'https://api.openai.com/v1';
  const apiKey = environment.MNEMO_OPENAI_API_KEY || environment.OPENAI_API_KEY || undefined;
  const model = environment.MNEMO_OPENAI_MODEL || 'text-embedding-3-small';
  const given = environment.MNEMO_OPENAI_DIMENSIONS;
  if (given !== undefined && given !== '' && !/^\d+$/.test(given)) {
    throw new MnemoError('INVALID_INPUT', `MNEMO_OPENAI_DIMENSIONS: expected a positive integer, got ${JSON.stringify(given)}.`, { details: { field: 'MNEMO_OPENAI_DIMENSIONS' } });
  }
  const dimensions = given ? Number(given) : (OPENAI_DIMENSIONS[model] ?? (await discoverDimensions({ baseUrl, apiKey, model })));
  return openAiCompatibleEmbedder({ baseUrl, apiKey, model, dimensions, provider: 'openai-compatible' });
}

/**
 * The embedder a CLI name stands for (`auto` here picks by what is installed; opening a store with `auto`
 * through openWithEmbedder also prefers the embedder that made its vectors).
 *
 * @example
 * ```ts
 * const embedder = await embedderByName('static', cliLogger(true));
 * ```
 */
export async function embedderByName(name: string, logger: Logger): Promise<Embedder | null> {
  switch (name) {
    case 'openai':
      return openAiFromEnvironment();
    case 'auto':
    case 'static':
    case 'minilm':
    case 'hashing':
    case 'none':
      return resolveEmbedder(name, { logger });
    default:
      throw new MnemoError('INVALID_INPUT', `--embedder: expected one of ${CLI_EMBEDDERS.join(', ')}, got ${JSON.stringify(name)}.`, { details: { field: 'embedder' } });
  }
}

/**
 * The CLI's logger: warnings always go to standard error; information (such as which embedder `auto` picked)
 * only with --verbose.
 *
 * @example
 * ```ts
 * cliLogger(false).info('embedder: static/...'); // prints nothing
 * ```
 */
export function cliLogger(verbose: boolean): Logger {
  return verbose ? consoleLogger : { info: () => {}, warn: consoleLogger.warn };
}

/** The global options, read from the root command. */
export function globalOptions(command: Command): GlobalOptions {
  let root = command;
  while (root.parent) root = root.parent;
  return root.opts<GlobalOptions>();
}

/** Where `--db` points, as openMemory takes it: a postgres:// URL, or a SQLite file (or `:memory:`). */
export function databaseTarget(db: string): { url: string } | { path: string } {
  return isPostgresUrl(db) ? { url: db } : { path: db };
}

/**
 * Opens Mnemo on `db` (a SQLite file, `:memory:`, or a postgres:// URL) with the embedder named by --embedder
 * (checked against the store's vectors), plus `extra`.
 */
export async function openWithEmbedder(db: string, name: string, extra: Omit<OpenMemoryOptions, 'path' | 'url' | 'store' | 'embedder'> = {}): Promise<Mnemo> {
  const embedder = name === 'openai' ? await openAiFromEnvironment() : (name as EmbedderName);
  return openMemory({ logger: cliLogger(false), ...extra, ...databaseTarget(db), embedder });
}

/** Opens Mnemo as the global options say (plus `extra`, e.g. an LLM). */
export async function openFromOptions(command: Command, extra: Omit<OpenMemoryOptions, 'path' | 'url' | 'store' | 'embedder'> = {}): Promise<Mnemo> {
  const options = globalOptions(command);
  return openWithEmbedder(options.db, options.embedder, { logger: cliLogger(options.verbose === true), ...extra });
}

/**
 * Parses an integer option, with a clear error; `minimum` and `maximum` bound it (the same bounds as the HTTP API).
 *
 * @example
 * ```ts
 * program.option('--limit <n>', 'at most this many', parseInteger('limit', 1, 1000), 50);
 * ```
 */
export function parseInteger(name: string, minimum = Number.MIN_SAFE_INTEGER, maximum = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const number = Number(value.trim());
    if (!/^-?\d+$/.test(value.trim())) {
      throw new MnemoError('INVALID_INPUT', `${name}: expected an integer, got ${JSON.stringify(value)}.`, { details: { field: name } });
    }
    if (!Number.isSafeInteger(number) || number < minimum || number > maximum) {
      const range = minimum === Number.MIN_SAFE_INTEGER ? 'an integer' : maximum === Number.MAX_SAFE_INTEGER ? `an integer >= ${minimum}` : `an integer from ${minimum} to ${maximum}`;
      throw new MnemoError('INVALID_INPUT', `${name}: expected ${range}, got ${value.trim()}.`, { details: { field: name } });
    }
    return number;
  };
}

/** Parses a number option, with a clear error. */
export function parseNumber(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number)) {
      throw new MnemoError('INVALID_INPUT', `${name}: expected a number, got ${JSON.stringify(value)}.`, { details: { field: name } });
    }
    return number;
  };
}

/** Opens Mnemo, runs `work`, and always closes it. */
export async function withMemory<T>(command: Command, work: (memory: Mnemo) => Promise<T>, extra?: Omit<OpenMemoryOptions, 'path' | 'store' | 'embedder'>): Promise<T> {
  const memory = await openFromOptions(command, extra);
  try {
    return await work(memory);
  } finally {
    await memory.close();
  }
}
