// What every CLI command shares: the global options, opening Mnemo from them, and writing output.
import type { Command } from 'commander';
import { MnemoError } from '../core/errors.js';
import { hashingEmbedder } from '../embedders/hashing/index.js';
import { openMemory } from '../open-memory.js';
import type { Mnemo, OpenMemoryOptions } from '../open-memory.js';
import type { Embedder } from '../seams/embedder.js';
import { isPostgresUrl } from '../stores/postgres/identifiers.js';

/** The options every command accepts. */
export interface GlobalOptions {
  db: string;
  embedder: string;
}

/** Where a command writes: standard output and standard error, replaceable in tests. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** The embedders the CLI can name. */
export const CLI_EMBEDDERS = ['hashing', 'none'] as const;

/** The embedder a CLI name stands for. */
export function embedderByName(name: string): Embedder | null {
  switch (name) {
    case 'hashing':
      return hashingEmbedder({ dimensions: 64 });
    case 'none':
      return null;
    default:
      throw new MnemoError('INVALID_INPUT', `--embedder: expected one of ${CLI_EMBEDDERS.join(', ')}, got ${JSON.stringify(name)}.`, { details: { field: 'embedder' } });
  }
}

/** The global options, read from the root command. */
export function globalOptions(command: Command): GlobalOptions {
  let root = command;
  while (root.parent) root = root.parent;
  return root.opts<GlobalOptions>();
}

/** Opens Mnemo on `db` (a postgres:// URL, `:memory:`, or a SQLite file), plus `extra` (e.g. an LLM). */
export function openDatabase(db: string, embedder: Embedder | null, extra: Omit<OpenMemoryOptions, 'path' | 'url' | 'store' | 'embedder'> = {}): Promise<Mnemo> {
  return openMemory(isPostgresUrl(db) ? { ...extra, url: db, embedder } : { ...extra, path: db, embedder });
}

/** Opens Mnemo as the global options say (plus `extra`, e.g. an LLM). */
export async function openFromOptions(command: Command, extra: Omit<OpenMemoryOptions, 'path' | 'url' | 'store' | 'embedder'> = {}): Promise<Mnemo> {
  const options = globalOptions(command);
  return openDatabase(options.db, embedderByName(options.embedder), extra);
}

/** Parses an integer option, with a clear error. */
export function parseInteger(name: string) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim())) {
      throw new MnemoError('INVALID_INPUT', `${name}: expected an integer, got ${JSON.stringify(value)}.`, { details: { field: name } });
    }
    return Number(value);
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
