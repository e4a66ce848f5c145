// Loads the compact word vectors: the table shipped in the package, or one converted once from a wink-embeddings file.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { MnemoError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { silentLogger } from '../../core/logger.js';
import { cacheDirCandidates, resolvePackageFile } from './cache-dir.js';
import { convertWinkVectors } from './convert-wink-vectors.js';
import { shippedWordVectorsPath, SHIPPED_WORD_VECTORS } from './shipped-word-vectors.js';
import { CorruptWordVectorFile, decodeWordVectorFile, encodeWordVectorFile, WORD_VECTOR_FORMAT } from './word-vector-file.js';
import type { WordVectorTable } from './word-vector-table.js';

/** The npm package the default vectors come from (converted at build time; not a dependency). */
export const VECTORS_PACKAGE = SHIPPED_WORD_VECTORS.package;
/** How many words the compact file keeps by default (the most frequent ones). */
export const DEFAULT_TOP_WORDS = SHIPPED_WORD_VECTORS.topWords;

/** Where the word vectors come from and where their compact form is cached. */
export interface WordVectorOptions {
  /** Where a converted table is cached (default: see cacheDirCandidates). The shipped table needs no cache. */
  cacheDir?: string;
  /** A wink-embeddings JSON file to convert (once, then cached) instead of reading the shipped table. */
  sourcePath?: string;
  /** How many of the most frequent words to keep (default 100,000, the shipped table; another count converts the installed vectors package). */
  topWords?: number;
  logger?: Logger;
}

/** A loaded table and where it came from. */
export interface LoadedWordVectors {
  table: WordVectorTable;
  /** The compact file read or written (the shipped one by default), or null when no cache folder was writable (kept in memory only). */
  file: string | null;
  /** True when this call converted a source (never for the shipped table). */
  built: boolean;
}

interface Source {
  path: string;
  id: string;
}

function findSource(options: WordVectorOptions): Source {
  if (options.sourcePath !== undefined) {
    const stat = statSync(options.sourcePath, { throwIfNoEntry: false });
    if (stat === undefined) throw new MnemoError('INVALID_INPUT', `sourcePath: expected a wink-embeddings JSON file, found nothing at ${options.sourcePath}.`);
    return { path: options.sourcePath, id: `file:${basename(options.sourcePath)}:${stat.size}:${Math.floor(stat.mtimeMs)}` };
  }
  const packageJson = resolvePackageFile(`${VECTORS_PACKAGE}/package.json`);
  if (packageJson === null) {
    throw new MnemoError('DEPENDENCY_MISSING', `A word table of other than ${DEFAULT_TOP_WORDS} words is converted from the npm package ${VECTORS_PACKAGE}, which is not installed. Install it with \`npm i -D ${VECTORS_PACKAGE}@${SHIPPED_WORD_VECTORS.version}\`, or use the shipped table (leave topWords unset).`, { details: { package: VECTORS_PACKAGE } });
  }
  const manifest = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string; main?: string };
  return { path: join(packageJson, '..', manifest.main ?? `${VECTORS_PACKAGE}.json`), id: `${VECTORS_PACKAGE}@${manifest.version}` };
}

function fileName(source: Source, topWords: number): string {
  const slug = source.id.replace(/[^a-zA-Z0-9.@-]+/g, '_');
  return `${slug}.top${topWords}.v${WORD_VECTOR_FORMAT}.wordvectors`;
}

function readCached(path: string, sourceId: string): LoadedWordVectors | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return null;
  }
  try {
    const { table, header } = decodeWordVectorFile(bytes);
    if (header.source !== sourceId) return null;
    return { table, file: path, built: false };
  } catch (error) {
    if (error instanceof CorruptWordVectorFile) return null;
    throw error;
  }
}

function writeAtomically(path: string, bytes: Buffer): boolean {
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
    return true;
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // the folder itself is unusable: nothing was written
    }
    return false;
  }
}

const loaded = new Map<string, Promise<LoadedWordVectors>>();

/**
 * Returns the compact word vectors. By default, the table shipped in the package (read and checked, about
 * 100 ms; no conversion). With `sourcePath` or another `topWords`: read from the first cache folder holding a valid file (magic, format,
 * size and sha256 checked), else converted from the source once (about 5 s) and written atomically to the
 * first writable folder. Loads are shared within the process.
 *
 * @example
 * ```ts
 * const { table } = await loadWordVectors();  // the shipped table: 100,000 words × 100 dimensions, about 10 MB
 * ```
 */
export function loadWordVectors(options: WordVectorOptions = {}): Promise<LoadedWordVectors> {
  if (options.sourcePath === undefined && (options.topWords ?? DEFAULT_TOP_WORDS) === DEFAULT_TOP_WORDS) return loadShipped();
  const source = findSource(options);
  const topWords = options.topWords ?? DEFAULT_TOP_WORDS;
  const directories = cacheDirCandidates(options.cacheDir);
  const key = JSON.stringify([source.id, topWords, directories]);
  let pending = loaded.get(key);
  if (pending === undefined) {
    pending = load(source, topWords, directories, options.logger ?? silentLogger);
    loaded.set(key, pending);
    pending.catch(() => loaded.delete(key));
  }
  return pending;
}

async function load(source: Source, topWords: number, directories: string[], logger: Logger): Promise<LoadedWordVectors> {
  const name = fileName(source, topWords);
  for (const directory of directories) {
    const cached = readCached(join(directory, name), source.id);
    if (cached !== null) return cached;
  }
  logger.info(`converting ${source.id} into compact word vectors (once; a few seconds)`);
  const data = await convertWinkVectors(source.path, { topWords, source: source.id });
  const bytes = encodeWordVectorFile(data);
  const { table } = decodeWordVectorFile(bytes);
  for (const directory of directories) {
    const path = join(directory, name);
    if (writeAtomically(path, bytes)) return { table, file: path, built: true };
  }
  logger.warn(`no writable cache folder for word vectors (tried ${directories.join(', ')}); set MNEMO_CACHE_DIR to skip the conversion next time`);
  return { table, file: null, built: true };
}

function loadShipped(): Promise<LoadedWordVectors> {
  const path = shippedWordVectorsPath();
  let pending = loaded.get(path);
  if (pending === undefined) {
    pending = readShipped(path);
    loaded.set(path, pending);
    pending.catch(() => loaded.delete(path));
  }
  return pending;
}

async function readShipped(path: string): Promise<LoadedWordVectors> {
  const broken = (problem: string, cause?: unknown) =>
    new MnemoError('DEPENDENCY_MISSING', `The static embedder's word table ${path} ${problem}. It ships inside the mnemo-engine package: reinstall it (in a clone of the repository, \`npm run build:vectors\` makes it), or pick another embedder.`, { cause, details: { file: path } });
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw broken('could not be read', error);
  }
  try {
    const { table, header } = decodeWordVectorFile(bytes);
    if (header.source !== SHIPPED_WORD_VECTORS.source) throw broken(`was made from ${header.source}, expected ${SHIPPED_WORD_VECTORS.source}`);
    return { table, file: path, built: false };
  } catch (error) {
    if (error instanceof CorruptWordVectorFile) throw broken(`is damaged (${error.message})`, error);
    throw error;
  }
}

/** Forgets the tables loaded in this process (tests use it to force a reload). */
export function forgetLoadedWordVectors(): void {
  loaded.clear();
}
