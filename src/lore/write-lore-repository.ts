// Writes the lore book as a lore repository (index.yaml and one YAML file per source) that an import reads back unchanged.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { MnemoError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import type { LoreEntry } from '../seams/lore-store.js';
import { checkManifestPath, MANIFEST } from './read-lore-repository.js';

/** What an export wrote. */
export interface LoreExportReport {
  /** The folder written, resolved. */
  folder: string;
  /** The content files written, in index.yaml's order (relative paths). */
  files: string[];
  entries: number;
}

/** Bytes of entries' JSON per content file: YAML of them stays well under `loreFileBytes`. */
const FILE_BUDGET = Math.floor(LIMITS.loreFileBytes / 4);

/** The file a source is written to: the source itself when it is a path an import accepts, else one under sources/. */
function fileOf(source: string, taken: Set<string>): string {
  const checked = checkManifestPath(source);
  const base = 'path' in checked ? checked.path.replace(/\.ya?ml$/iu, '') : `sources/${source.replace(/[^\p{L}\p{N}_-]+/gu, '-').replace(/^-+|-+$/gu, '').slice(0, 100) || 'source'}`;
  // Compared without case, so the files stay distinct on a case-insensitive file system.
  for (let counter = 1; ; counter++) {
    const file = `${base}${counter === 1 ? '' : `-${counter}`}.yaml`;
    if (!taken.has(file.toLowerCase())) {
      taken.add(file.toLowerCase());
      return file;
    }
  }
}

/** An entry as a repository file holds it (snake_case; metadata only when it has keys). */
function authored(entry: LoreEntry): Record<string, unknown> {
  return {
    title: entry.title,
    scope_level: entry.scopeLevel,
    scope_tags: entry.scopeTags,
    ...(Object.keys(entry.metadata).length === 0 ? {} : { metadata: entry.metadata }),
    content: entry.content,
  };
}

/** Groups entries (in source, title order) into files: one per source, split when a source's entries are large. */
function contentFiles(entries: readonly LoreEntry[]): { file: string; source: string; entries: LoreEntry[] }[] {
  const taken = new Set<string>([MANIFEST]);
  const files: { file: string; source: string; entries: LoreEntry[]; bytes: number }[] = [];
  for (const entry of entries) {
    const bytes = Buffer.byteLength(JSON.stringify(authored(entry)));
    const last = files[files.length - 1];
    if (last !== undefined && last.source === entry.source && last.bytes + bytes <= FILE_BUDGET) {
      last.entries.push(entry);
      last.bytes += bytes;
    } else {
      files.push({ file: fileOf(entry.source, taken), source: entry.source, entries: [entry], bytes });
    }
  }
  return files;
}

/**
 * Writes `entries` as a lore repository into `folder` (created if absent; refused with CONFLICT when it holds
 * anything, so no repository is overwritten): `index.yaml` naming one content file per source (the source's own
 * path when it is one an import accepts, such as `brackwater/regional.yaml`, else a file under `sources/`; a large
 * source is split over several files), each with its `source` and its entries' title, scope, tags, metadata and
 * content. Importing the folder gives the same entries back, so an import of it changes nothing.
 *
 * @example
 * ```ts
 * await writeLoreRepository(await store.lore.list(), 'exported-lore');
 * ```
 */
export async function writeLoreRepository(entries: readonly LoreEntry[], folder: string): Promise<LoreExportReport> {
  const root = resolve(folder);
  const existing = await readdir(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw new MnemoError('INVALID_INPUT', `lore export: cannot read ${root} (${error.message}); name a new or empty folder.`, { cause: error, details: { folder: root } });
  });
  if (existing.length > 0) {
    throw new MnemoError('CONFLICT', `lore export: ${root} is not empty (${existing.length} item${existing.length === 1 ? '' : 's'}); nothing was written. Name a new or empty folder, so no repository is overwritten.`, { details: { folder: root } });
  }
  const files = contentFiles(entries);
  for (const { file, source, entries: held } of files) {
    const path = join(root, file);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, stringify({ source, entries: held.map(authored) }, { lineWidth: 0 }));
  }
  await mkdir(root, { recursive: true });
  await writeFile(join(root, MANIFEST), stringify({ files: files.map(({ file }) => file) }));
  return { folder: root, files: files.map(({ file }) => file), entries: entries.length };
}
