// Reads a lore repository (index.yaml naming YAML content files) into entries, collecting every problem with its position.
import { createHash } from 'node:crypto';
import { isAbsolute, posix } from 'node:path';
import { isSeq } from 'yaml';
import type { z } from 'zod';
import type { LoreOriginIdentity } from '../seams/lore-store.js';
import { canonicalTags, manifestSchema, repositoryEntrySchema, repositoryFileSchema, scopeTagsProblem } from './lore-schema.js';
import type { LoreEntryDraft } from './lore-schema.js';
import { fieldName } from './lore-problem.js';
import type { LoreProblem } from './lore-problem.js';
import { keyNodeAt, nodeAt, parseYaml, positionAt, yamlValue } from './parse-yaml.js';
import type { ParsedFile } from './parse-yaml.js';
import { folderLoreSource } from './sources/folder-lore-source.js';
import type { LoreSnapshot } from './sources/lore-source.js';

/** The manifest's name, at the repository root. */
export const MANIFEST = 'index.yaml';

/** An entry read from a file, with where it was written. */
export interface LocatedLoreEntry extends LoreEntryDraft {
  file: string | null;
  line: number | null;
  column: number | null;
}

/** Everything read from a repository: the entries when valid, and every problem found. */
export interface LoreRepositoryReading {
  /** Where the files were read: reader, location (the folder, resolved, or the git URL), ref and commit. */
  origin: LoreOriginIdentity;
  /** The content files read, in manifest order (relative paths). */
  files: string[];
  entries: LocatedLoreEntry[];
  problems: LoreProblem[];
  /** The files that validated on their own, with the sha256 of their bytes: what a parse cache may keep. */
  validFiles: ValidLoreFile[];
}

/** A content file that validated on its own: its path, the sha256 of its bytes and its entries. */
export interface ValidLoreFile {
  file: string;
  sha256: string;
  entries: LocatedLoreEntry[];
}

/**
 * Remembers the entries of files already validated, by the sha256 of their bytes, so an unchanged file is not
 * parsed again (YAML parsing is most of an unchanged re-import's time). Validation is a pure function of the
 * bytes, so a hit is exactly what parsing would give.
 */
export interface LoreParseCache {
  lookup(file: string, sha256: string): LocatedLoreEntry[] | undefined;
}

/** Turns zod issues into positioned problems; an unknown key becomes one problem per key, at that key. */
function issuesToProblems(issues: readonly z.core.$ZodIssue[], parsed: ParsedFile, root: unknown, entry: string | null, expectedKeys: readonly string[]): LoreProblem[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        file: parsed.file, entry, ...positionAt(parsed, keyNodeAt(nodeAt(root, issue.path), key)),
        message: `unknown field ${JSON.stringify(key)} (expected ${expectedKeys.join(', ')})`,
      }));
    }
    const name = fieldName(issue.path);
    return [{ file: parsed.file, entry, ...positionAt(parsed, nodeAt(root, issue.path)), message: name === '' ? `the file ${issue.message}` : `${name} ${issue.message}` }];
  });
}

function entryName(raw: unknown, index: number): string {
  const title = (raw as { title?: unknown } | null)?.title;
  return typeof title === 'string' && title.trim() !== '' ? title.trim() : `#${index + 1}`;
}

const ENTRY_KEYS = ['title', 'content', 'scope_level', 'scope_tags', 'metadata'];

/** Validates one content file's entries; returns the good ones (with positions) and every problem. */
function readEntries(parsed: ParsedFile): { entries: LocatedLoreEntry[]; problems: LoreProblem[] } {
  const root = parsed.document.contents;
  const plain = yamlValue(parsed);
  if ('problem' in plain) return { entries: [], problems: [plain.problem] };
  const file = repositoryFileSchema.safeParse(plain.value);
  if (!file.success) return { entries: [], problems: issuesToProblems(file.error.issues, parsed, root, null, ['source', 'entries']) };
  const entries: LocatedLoreEntry[] = [];
  const problems: LoreProblem[] = [];
  const items = nodeAt(root, ['entries']);
  file.data.entries.forEach((raw, index) => {
    const node = isSeq(items) ? items.items[index] : undefined;
    const name = entryName(raw, index);
    const result = repositoryEntrySchema.safeParse(raw);
    const found = result.success ? [] : issuesToProblems(result.error.issues, parsed, node, name, ENTRY_KEYS);
    const raws = raw as { scope_level?: unknown; scope_tags?: unknown } | null;
    const rule = scopeTagsProblem(raws?.scope_level, raws?.scope_tags);
    if (rule !== null) found.push({ file: parsed.file, entry: name, ...positionAt(parsed, nodeAt(node, ['scope_tags'])), message: `scope_tags ${rule}` });
    problems.push(...found);
    if (result.success && found.length === 0) {
      const { title, content, scope_level: scopeLevel, scope_tags: scopeTags, metadata } = result.data;
      entries.push({ source: file.data.source, title, content, scopeLevel, scopeTags: canonicalTags(scopeTags), metadata, file: parsed.file, ...positionAt(parsed, node) });
    }
  });
  return { entries, problems };
}

/** Checks a manifest path: relative, inside the repository, a .yaml file. Returns the normalised path or a problem. */
export function checkManifestPath(path: string): { path: string } | { message: string } {
  const slashed = path.replaceAll('\\', '/');
  if (isAbsolute(path) || slashed.startsWith('/')) return { message: `must be a path relative to the repository root, got ${JSON.stringify(path)}` };
  const normalised = posix.normalize(slashed);
  if (normalised === '..' || normalised.startsWith('../')) return { message: `must stay inside the repository, got ${JSON.stringify(path)}` };
  if (!/\.ya?ml$/i.test(normalised)) return { message: `must name a .yaml file, got ${JSON.stringify(path)}` };
  if (normalised === MANIFEST) return { message: `names ${MANIFEST}, which is the manifest itself; list the content files only` };
  return { path: normalised };
}

/** Reports every (source, title) used twice, pointing at both places. */
export function duplicateProblems(entries: readonly LocatedLoreEntry[]): LoreProblem[] {
  const seen = new Map<string, LocatedLoreEntry>();
  const problems: LoreProblem[] = [];
  for (const entry of entries) {
    const key = JSON.stringify([entry.source, entry.title]);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, entry);
      continue;
    }
    const where = first.file === null ? '' : ` (first at ${first.file}${first.line === null ? '' : `:${first.line}:${first.column}`})`;
    problems.push({ file: entry.file, entry: entry.title, line: entry.line, column: entry.column, message: `title is used twice in source '${entry.source}'${where}; titles must be unique within a source` });
  }
  return problems;
}

/**
 * Reads a lore repository: `index.yaml` at its root lists the content files (`files: [...]`), each a mapping with a
 * `source` and a list of `entries` (title, content, scope_level, scope_tags, and optional metadata). A file the manifest does not name
 * is never read; a file it names but which is absent is a problem. Nothing throws for bad content: every problem
 * is collected with its file, entry and line:column, so one run shows them all. With a `cache`, files whose
 * bytes it has already seen validated are not parsed again. The same rules hold whatever the reader: a folder
 * path reads that folder; a snapshot (a git commit) is read through its `read`.
 *
 * @example
 * ```ts
 * const { entries, problems } = await readLoreRepository('examples/lore');
 * if (problems.length > 0) console.error(problems.map(formatProblem).join('\n'));
 * ```
 */
export async function readLoreRepository(repository: string | LoreSnapshot, options: { cache?: LoreParseCache } = {}): Promise<LoreRepositoryReading> {
  const snapshot = typeof repository === 'string' ? await folderLoreSource(repository).snapshot() : repository;
  const reading: LoreRepositoryReading = { origin: snapshot.origin, files: [], entries: [], problems: [], validFiles: [] };
  const manifestText = await snapshot.read(MANIFEST);
  if (!('text' in manifestText)) {
    const message = 'missing' in manifestText ? `not found: a lore repository lists its content files in ${MANIFEST} at its root, e.g. "files: [continental.yaml]"` : manifestText.message;
    reading.problems.push({ file: MANIFEST, entry: null, line: null, column: null, message });
    return reading;
  }
  const { parsed: manifest, problems: syntax } = parseYaml(MANIFEST, manifestText.text);
  const plainManifest = syntax.length > 0 ? { value: null } : yamlValue(manifest);
  if ('problem' in plainManifest) {
    reading.problems.push(plainManifest.problem);
    return reading;
  }
  const listing = manifestSchema.safeParse(plainManifest.value);
  if (syntax.length > 0 || !listing.success) {
    reading.problems.push(...syntax, ...(syntax.length > 0 || listing.success ? [] : issuesToProblems(listing.error.issues, manifest, manifest.document.contents, null, ['files'])));
    return reading;
  }

  const listed = new Map<string, number>();
  for (const [index, path] of listing.data.files.entries()) {
    const at = positionAt(manifest, nodeAt(manifest.document.contents, ['files', index]));
    const checked = checkManifestPath(path);
    if ('message' in checked) {
      reading.problems.push({ file: MANIFEST, entry: null, ...at, message: `files[${index}] ${checked.message}` });
      continue;
    }
    if (listed.has(checked.path)) {
      reading.problems.push({ file: MANIFEST, entry: null, ...at, message: `files[${index}] lists ${checked.path} a second time (first as files[${listed.get(checked.path)}])` });
      continue;
    }
    listed.set(checked.path, index);
    const content = await snapshot.read(checked.path);
    if (!('text' in content)) {
      const message = 'missing' in content ? `names ${checked.path}, but there is no such file; create it or remove it from ${MANIFEST}` : `${checked.path} ${content.message}`;
      reading.problems.push({ file: MANIFEST, entry: null, ...at, message: `files[${index}] ${message}` });
      continue;
    }
    reading.files.push(checked.path);
    const sha256 = createHash('sha256').update(content.text).digest('hex');
    const cached = options.cache?.lookup(checked.path, sha256);
    if (cached !== undefined) {
      reading.entries.push(...cached);
      reading.validFiles.push({ file: checked.path, sha256, entries: cached });
      continue;
    }
    const { parsed, problems } = parseYaml(checked.path, content.text);
    if (problems.length > 0) {
      reading.problems.push(...problems);
      continue;
    }
    const found = readEntries(parsed);
    reading.entries.push(...found.entries);
    reading.problems.push(...found.problems);
    if (found.problems.length === 0) reading.validFiles.push({ file: checked.path, sha256, entries: found.entries });
  }
  reading.problems.push(...duplicateProblems(reading.entries));
  return reading;
}
