// YAML with positions for lore validation: parse a file, find the node a validation path points at, and its line:column.
import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { LIMITS } from '../core/limits.js';
import type { LoreProblem } from './lore-problem.js';

/** A parsed YAML file with what is needed to turn node ranges into line:column. */
export interface ParsedFile {
  file: string;
  document: Document.Parsed;
  lines: LineCounter;
}

export type Position = { line: number; column: number } | { line: null; column: null };
const NOWHERE: Position = { line: null, column: null };

/** The 1-based line and column where a node starts (nulls when it has no range). */
export function positionAt(parsed: ParsedFile, node: unknown): Position {
  const range = (node as { range?: [number, number, number] | null } | null | undefined)?.range;
  if (range == null) return NOWHERE;
  const { line, col } = parsed.lines.linePos(range[0]);
  return { line, column: col };
}

/** The node at `path` under `root`, or the deepest ancestor that exists (a missing field points at its entry). */
export function nodeAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    const next = isMap(current) ? current.items.find((pair) => isScalar(pair.key) && pair.key.value === key)?.value
      : isSeq(current) && typeof key === 'number' ? current.items[key] : undefined;
    if (next == null) return current;
    current = next;
  }
  return current;
}

/** The key node of `key` in the mapping at `root` (for an unknown field), or the mapping itself. */
export function keyNodeAt(root: unknown, key: string): unknown {
  return (isMap(root) ? root.items.find((pair) => isScalar(pair.key) && pair.key.value === key)?.key : undefined) ?? root;
}

/**
 * Parses one YAML document with positions (a LineCounter), unique keys enforced; syntax errors become problems
 * at their line and column.
 *
 * @example
 * ```ts
 * const { parsed, problems } = parseYaml('town.yaml', 'source: town.yaml\nentries: []\n');
 * ```
 */
export function parseYaml(file: string, text: string): { parsed: ParsedFile; problems: LoreProblem[] } {
  const lines = new LineCounter();
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > LIMITS.loreFileBytes) {
    const parsed = { file, document: parseDocument(''), lines };
    return { parsed, problems: [{ file, entry: null, line: null, column: null, message: `is ${bytes.toLocaleString('en-US')} bytes, over the ${LIMITS.loreFileBytes.toLocaleString('en-US')} a lore file may hold (limit loreFileBytes, see docs/limits.md); split it into several files listed in index.yaml` }] };
  }
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const parsed = { file, document, lines };
  const problems = document.errors.map((error) => {
    const { line, col } = lines.linePos(error.pos[0]);
    return { file, entry: null, line, column: col, message: `YAML syntax error: ${error.message}` };
  });
  return { parsed, problems };
}

/** How deep a lore file's mappings and lists may nest: an entry is a mapping of scalars and one list of tags. */
const MAX_YAML_DEPTH = 16;

function depthProblem(parsed: ParsedFile): LoreProblem | null {
  let level: unknown[] = [parsed.document.contents];
  for (let depth = 0; level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const node of level) {
      if (!isMap(node) && !isSeq(node)) continue;
      if (depth >= MAX_YAML_DEPTH) return { file: parsed.file, entry: null, ...positionAt(parsed, node), message: `nests mappings and lists more than ${MAX_YAML_DEPTH} levels deep; a lore file holds a mapping with source and a list of flat entries` };
      for (const item of node.items) next.push(isMap(node) ? (item as { value?: unknown }).value : item);
    }
    level = next;
  }
  return null;
}

/**
 * The plain value of a parsed file, or the problem that stops it: nesting deeper than a lore file ever needs, or
 * aliases that expand past the YAML library's bound (an "alias bomb", e.g. a billion laughs).
 *
 * @example
 * ```ts
 * const { parsed } = parseYaml('town.yaml', 'source: town.yaml\nentries: []\n');
 * yamlValue(parsed); // { value: { source: 'town.yaml', entries: [] } }
 * ```
 */
export function yamlValue(parsed: ParsedFile): { value: unknown } | { problem: LoreProblem } {
  const deep = depthProblem(parsed);
  if (deep !== null) return { problem: deep };
  try {
    return { value: parsed.document.toJS({ maxAliasCount: 100 }) ?? null };
  } catch (error) {
    return { problem: { file: parsed.file, entry: null, line: null, column: null, message: `could not be read as plain data (${(error as Error).message}); use at most a few YAML aliases, or none` } };
  }
}
