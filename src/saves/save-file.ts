// The save file format (JSON Lines, version 1): one record a line, each checked by its zod schema; docs/export-import.md documents it.
import { z } from 'zod';

/** The format's name, on the header line. */
export const SAVE_FILE_FORMAT = 'mnemo-save';

/** The format version this build writes and reads. */
export const SAVE_FILE_VERSION = 1;

/** The longest line an import reads (a chunk of 100,000 characters with metadata and a vector fits well within). */
export const MAX_SAVE_FILE_LINE = 4 * 1024 * 1024;

const whole = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const id = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const text = z.string();
const jsonObject = z.record(z.string(), z.unknown());

const identity = z.strictObject({ provider: z.string().min(1), modelId: z.string().min(1), dimensions: z.number().int().min(1).max(65_536) });

/** Line 1: what the file holds. */
export const headerLine = z.strictObject({
  type: z.literal('header'),
  format: z.literal(SAVE_FILE_FORMAT),
  version: z.number().int(),
  saveId: z.string().min(1).max(200),
  exportedAt: whole,
  /** The embedder that made the vectors (null: the file has none). */
  embedder: identity.nullable(),
});

/** The store's missions when exported (they bias consolidation); an import applies them only when asked. */
export const settingsLine = z.strictObject({
  type: z.literal('settings'),
  universeMission: z.string().max(100_000),
  beliefMissions: z.record(z.string(), z.string().max(100_000)),
});

/** One chunk, in insertion order. `vector`: little-endian float32, base64 (absent: none). */
export const chunkLine = z.strictObject({
  type: z.literal('chunk'),
  turnId: whole,
  chunkType: z.string().min(1).max(64),
  text: z.string().min(1).max(100_000),
  entryId: z.string().min(1).max(200).nullable(),
  metadata: jsonObject,
  createdAt: whole,
  vector: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/u, 'must be base64').optional(),
});

export const factLine = z.strictObject({
  type: z.literal('fact'),
  id,
  turnId: whole,
  statement: text.min(1),
  factType: text,
  who: text,
  what: text,
  when: text,
  where: text,
  why: text,
  entities: z.array(text),
});

const source = z.strictObject({ factId: id, turnId: whole, addedTurnId: whole });
const change = z.strictObject({ action: z.enum(['CREATE', 'UPDATE', 'DELETE']), turnId: whole, statement: text, subject: text, factIds: z.array(id) });

export const beliefLine = z.strictObject({
  type: z.literal('belief'),
  id,
  statement: text.min(1),
  subject: text,
  sources: z.array(source),
  history: z.array(change),
  createdTurnId: whole,
  updatedTurnId: whole,
  deletedTurnId: whole.nullable(),
  stale: z.boolean(),
});

export const modelLine = z.strictObject({
  type: z.literal('model'),
  id,
  subject: text,
  summary: text.min(1),
  sources: z.array(id),
  createdTurnId: whole,
  updatedTurnId: whole,
  stale: z.boolean(),
});

export const modelVersionLine = z.strictObject({
  type: z.literal('modelVersion'),
  modelId: id,
  turnId: whole,
  summary: text,
  sources: z.array(id),
});

export const jobLine = z.strictObject({
  type: z.literal('job'),
  turnId: whole,
  stage: z.enum(['extract', 'consolidate', 'reflect', 'done']),
  status: z.enum(['pending', 'running', 'done', 'failed']),
  generation: z.number().int().min(1),
  attempts: whole,
  payload: z.strictObject({ text: z.string().optional(), knownEntities: z.array(z.string()).optional(), whenHint: z.string().optional() }),
  subjects: z.array(text),
  notBefore: whole,
  lastError: text.nullable(),
  createdAt: whole,
  updatedAt: whole,
});

const counts = z.strictObject({ chunks: whole, facts: whole, beliefs: whole, models: whole, modelVersions: whole, jobs: whole });

/** The last line: how many records of each kind came before it (a truncated file has none, or other counts). */
export const endLine = z.strictObject({ type: z.literal('end'), counts });

/** The records of a save file, in the order they must appear (a kind may be absent; none may come back after a later one). */
export const SAVE_FILE_LINES = {
  header: headerLine,
  settings: settingsLine,
  chunk: chunkLine,
  fact: factLine,
  belief: beliefLine,
  model: modelLine,
  modelVersion: modelVersionLine,
  job: jobLine,
  end: endLine,
} as const;

export type SaveFileLineType = keyof typeof SAVE_FILE_LINES;
export type HeaderLine = z.infer<typeof headerLine>;
export type SettingsLine = z.infer<typeof settingsLine>;
export type ChunkLine = z.infer<typeof chunkLine>;
export type FactLine = z.infer<typeof factLine>;
export type BeliefLine = z.infer<typeof beliefLine>;
export type ModelLine = z.infer<typeof modelLine>;
export type ModelVersionLine = z.infer<typeof modelVersionLine>;
export type JobLine = z.infer<typeof jobLine>;
export type EndLine = z.infer<typeof endLine>;
/** How many records of each kind a save file holds. */
export type SaveFileCounts = EndLine['counts'];

/**
 * A vector as a save file holds it: its float32 values, little-endian, in base64.
 *
 * @example
 * ```ts
 * vectorToBase64(new Float32Array([1, 0])); // 'AACAPwAAAAA='
 * ```
 */
export function vectorToBase64(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let index = 0; index < vector.length; index++) bytes.writeFloatLE(vector[index] as number, index * 4);
  return bytes.toString('base64');
}

/**
 * The vector of a save file's base64 text, or null when its length is not a whole number of float32 values.
 *
 * @example
 * ```ts
 * base64ToVector('AACAPwAAAAA='); // Float32Array [1, 0]
 * ```
 */
export function base64ToVector(encoded: string): Float32Array | null {
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length === 0 || bytes.length % 4 !== 0) return null;
  const vector = new Float32Array(bytes.length / 4);
  for (let index = 0; index < vector.length; index++) vector[index] = bytes.readFloatLE(index * 4);
  return vector;
}
