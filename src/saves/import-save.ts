// The owner of import: reads a save file, every line validated first (nothing written if one is wrong), writes every layer in the store's one transaction, then tells the index and the worker.
import type { z } from 'zod';
import { MnemoError, isMnemoError } from '../core/errors.js';
import type { BeliefRecord, LivingSaveLayer } from '../core/living-rules.js';
import type { LivingImportCounts } from '../core/living-types.js';
import { LORE_CHUNK_TYPE } from '../core/types.js';
import { requireSaveId } from '../core/validate.js';
import { describeIdentity } from '../embedders/embedder-identity.js';
import { setBeliefMissions, setUniverseMission } from '../living/missions.js';
import { prepareChunk } from '../narrative/prepare-chunk.js';
import type { EmbedderIdentity } from '../seams/embedding-store.js';
import type { NewChunk, Store } from '../seams/store.js';
import { readSaveFileLines, sourceName } from './read-lines.js';
import type { SaveOperation } from './save-operation.js';
import type { NumberedLine, SaveFileSource } from './read-lines.js';
import { base64ToVector, SAVE_FILE_FORMAT, SAVE_FILE_LINES, SAVE_FILE_VERSION } from './save-file.js';
import type { ChunkLine, HeaderLine, SaveFileCounts, SaveFileLineType, SettingsLine } from './save-file.js';

/** Options of an import. */
export interface ImportSaveOptions {
  /** The save to create (default: the save id the file was exported from). It must hold nothing. */
  as?: string;
  /** Write the file's vectors (default true). False: chunks come without vectors (found by words until `mnemo reindex`). */
  vectors?: boolean;
  /** Apply the file's missions to the store (they are store-wide: default false, the store keeps its own). */
  settings?: boolean;
  /** Refuse a file holding chunks of type `lore` with FORBIDDEN (the HTTP API, for a token that may not write lore). */
  refuseLore?: boolean;
  /** Chunks written per batch (default 1000). */
  batchSize?: number;
}

/** What an import wrote. */
export interface ImportSaveReport {
  saveId: string;
  /** The save the file was exported from. */
  fromSaveId: string;
  chunks: number;
  /** Chunks written with their vector. */
  vectors: number;
  living: LivingImportCounts;
  /** True when the file's missions were applied. */
  settings: boolean;
  /** The new save's version. */
  version: number;
}

const RANK: Record<SaveFileLineType, number> = { header: 0, settings: 1, chunk: 2, fact: 3, belief: 4, model: 5, modelVersion: 6, job: 7, end: 8 };

/** What the first pass learns from a valid file. */
interface Checked {
  header: HeaderLine;
  settings: SettingsLine | null;
  living: LivingSaveLayer;
  counts: SaveFileCounts;
}

function invalid(source: SaveFileSource, number: number, problem: string, fix = 'Export the save again with Mnemo, or correct that line.'): MnemoError {
  return new MnemoError('SAVE_FILE_INVALID', `${sourceName(source)} line ${number}: ${problem}. Nothing was written. ${fix}`, { details: { line: number } });
}

/** Parses one line as a record of the format, or throws SAVE_FILE_INVALID naming the line and the field. */
function parseLine(source: SaveFileSource, { number, text }: NumberedLine): { [K in SaveFileLineType]: { type: K; record: z.infer<(typeof SAVE_FILE_LINES)[K]> } }[SaveFileLineType] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(source, number, `not valid JSON (${(error as Error).message})`);
  }
  const type = (value as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !Object.hasOwn(SAVE_FILE_LINES, type)) {
    throw invalid(source, number, `expected a record with "type" one of ${Object.keys(SAVE_FILE_LINES).join(', ')}, got ${JSON.stringify(type ?? null)}`);
  }
  const parsed = SAVE_FILE_LINES[type as SaveFileLineType].safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(source, number, `${type}.${issue?.path.join('.') || '(record)'}: ${issue?.message ?? 'invalid'}`);
  }
  return { type, record: parsed.data } as never;
}

/** The chunk of a chunk line, written into `saveId` with a new id (and its vector when `withVector`); throws a MnemoError when invalid. */
function toNewChunk(record: ChunkLine, saveId: string, dimensions: number | null, withVector: boolean): NewChunk {
  const chunk = prepareChunk({ saveId, turnId: record.turnId, text: record.text, chunkType: record.chunkType, entryId: record.entryId, metadata: record.metadata as NewChunk['metadata'] }, record.createdAt);
  if (record.vector !== undefined) {
    const vector = base64ToVector(record.vector);
    if (dimensions === null) throw new MnemoError('SAVE_FILE_INVALID', 'chunk.vector: the header names no embedder, so no chunk may carry a vector');
    if (vector === null || vector.length !== dimensions) throw new MnemoError('SAVE_FILE_INVALID', `chunk.vector: expected ${dimensions} float32 values (the header's embedder), got ${vector === null ? 'bytes that are not float32 values' : vector.length}`);
    if (withVector) chunk.embedding = vector;
  }
  return chunk;
}

/** The first pass: every line checked, the living layer gathered (chunks are only counted). */
function checkFile(source: SaveFileSource, options: ImportSaveOptions, target: string | undefined): Checked {
  let header: HeaderLine | null = null;
  let settings: SettingsLine | null = null;
  let rank = -1;
  let last = 0;
  let ended = false;
  const counts: SaveFileCounts = { chunks: 0, facts: 0, beliefs: 0, models: 0, modelVersions: 0, jobs: 0 };
  const living: LivingSaveLayer = { facts: [], beliefs: [], models: [], versions: [], jobs: [] };
  const ids = { fact: new Set<number>(), belief: new Set<number>(), model: new Set<number>(), jobTurn: new Set<number>() };
  const unique = (set: Set<number>, id: number, what: string, line: number) => {
    if (set.has(id)) throw invalid(source, line, `${what} id ${id} appears twice`);
    set.add(id);
  };
  const known = (set: Set<number>, id: number, what: string, line: number) => {
    if (!set.has(id)) throw invalid(source, line, `refers to ${what} ${id}, which no earlier line of the file holds`);
  };
  for (const numbered of readSaveFileLines(source)) {
    const { number } = numbered;
    last = number;
    if (ended) throw invalid(source, number, 'a record after the end line');
    const parsed = parseLine(source, numbered);
    if (header === null && parsed.type !== 'header') throw invalid(source, number, `expected the header line first ({"type":"header","format":"${SAVE_FILE_FORMAT}",...}), got a ${parsed.type} record`, 'Is this a save file written by mnemo export?');
    if (RANK[parsed.type] < rank || (parsed.type === 'header' && header !== null) || (parsed.type === 'settings' && settings !== null)) {
      throw invalid(source, number, `a ${parsed.type} record out of order (records come as ${Object.keys(RANK).join(', ')})`);
    }
    rank = RANK[parsed.type];
    switch (parsed.type) {
      case 'header': {
        const record = parsed.record;
        if (record.version > SAVE_FILE_VERSION) throw invalid(source, number, `format version ${record.version}, newer than this Mnemo reads (${SAVE_FILE_VERSION})`, 'Upgrade Mnemo to import it.');
        if (record.version < 1) throw invalid(source, number, `format version ${record.version}, which does not exist`);
        requireSaveId(target ?? record.saveId, target === undefined ? 'header.saveId' : 'as');
        header = record;
        break;
      }
      case 'settings':
        settings = parsed.record;
        break;
      case 'chunk': {
        if (options.refuseLore === true && parsed.record.chunkType === LORE_CHUNK_TYPE) {
          throw new MnemoError('FORBIDDEN', `${sourceName(source)} line ${number}: chunks of type "lore" are a save's copy of the lore book, so only an admin may import them. Nothing was written. Export the save without its lore chunks, or import it with an admin token.`, { details: { line: number } });
        }
        try {
          toNewChunk(parsed.record, target ?? (header as HeaderLine).saveId, (header as HeaderLine).embedder?.dimensions ?? null, false);
        } catch (error) {
          if (isMnemoError(error)) throw invalid(source, number, error.message.replace(/\.$/u, ''));
          throw error;
        }
        counts.chunks++;
        break;
      }
      case 'fact': {
        const { type: _type, id, ...fact } = parsed.record;
        unique(ids.fact, id, 'fact', number);
        living.facts.push({ ...fact, factId: id });
        counts.facts++;
        break;
      }
      case 'belief': {
        const { type: _type, id, ...belief } = parsed.record;
        unique(ids.belief, id, 'belief', number);
        for (const factId of [...belief.sources.map((source) => source.factId), ...belief.history.flatMap((change) => change.factIds)]) known(ids.fact, factId, 'fact', number);
        living.beliefs.push({ ...belief, beliefId: id } satisfies BeliefRecord);
        counts.beliefs++;
        break;
      }
      case 'model': {
        const { type: _type, id, ...model } = parsed.record;
        unique(ids.model, id, 'model', number);
        for (const beliefId of model.sources) known(ids.belief, beliefId, 'belief', number);
        living.models.push({ ...model, modelId: id });
        counts.models++;
        break;
      }
      case 'modelVersion': {
        const { type: _type, ...version } = parsed.record;
        known(ids.model, version.modelId, 'model', number);
        for (const beliefId of version.sources) known(ids.belief, beliefId, 'belief', number);
        living.versions.push(version);
        counts.modelVersions++;
        break;
      }
      case 'job': {
        const { type: _type, ...job } = parsed.record;
        unique(ids.jobTurn, job.turnId, 'job turn', number);
        living.jobs.push({ ...job, jobId: counts.jobs + 1, saveId: '', claimedBy: null, claimToken: null, claimedAt: null });
        counts.jobs++;
        break;
      }
      case 'end': {
        const expected = parsed.record.counts;
        const differs = (Object.keys(counts) as (keyof SaveFileCounts)[]).filter((key) => counts[key] !== expected[key]);
        if (differs.length > 0) throw invalid(source, number, `the end line counts ${differs.map((key) => `${expected[key]} ${key}`).join(', ')}, but the file holds ${differs.map((key) => `${counts[key]}`).join(', ')}`);
        ended = true;
        break;
      }
    }
  }
  if (header === null) throw invalid(source, 1, 'the file is empty', 'Export the save with mnemo export.');
  if (!ended) throw invalid(source, last + 1, `no end line: the file is truncated after line ${last}`, 'Export the save again, or copy the whole file.');
  return { header, settings, living, counts };
}

/** The second pass: the chunks again, in batches, read lazily inside the store's transaction. */
function* chunkBatches(source: SaveFileSource, checked: Checked, saveId: string, withVectors: boolean, batchSize: number, seen: { chunks: number; vectors: number }): Generator<NewChunk[]> {
  let batch: NewChunk[] = [];
  const dimensions = checked.header.embedder?.dimensions ?? null;
  for (const numbered of readSaveFileLines(source)) {
    const parsed = parseLine(source, numbered);
    if (parsed.type !== 'chunk') {
      if (RANK[parsed.type] > RANK.chunk) break;
      continue;
    }
    const chunk = toNewChunk(parsed.record, saveId, dimensions, withVectors);
    seen.chunks++;
    if (chunk.embedding !== null) seen.vectors++;
    batch.push(chunk);
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
  if (seen.chunks !== checked.counts.chunks) {
    throw new MnemoError('SAVE_FILE_INVALID', `${sourceName(source)} changed while it was imported (${seen.chunks} chunks on the second read, ${checked.counts.chunks} on the first). Nothing was written; import it again.`);
  }
}

/** Claims the file's embedder for the store, or explains how to import without its vectors. */
async function claimEmbedder(store: Store, identity: EmbedderIdentity): Promise<void> {
  const claim = await store.embeddings.claimIdentity(identity);
  if (claim.ok) return;
  const recorded = claim.recorded === null ? 'an embedder it did not record' : describeIdentity(claim.recorded);
  throw new MnemoError('EMBEDDER_MISMATCH', `import: the file's vectors were made by ${describeIdentity(identity)}, but the store at ${store.location} holds vectors made by ${recorded}; vectors of two models cannot be compared. Nothing was written. Import without the vectors (\`mnemo import --without-vectors\`, library: { vectors: false }) and re-embed them with \`mnemo reindex\`.`, {
    details: { file: describeIdentity(identity), stored: claim.recorded === null ? null : describeIdentity(claim.recorded) },
  });
}

/**
 * Imports a save file (see `exportSave` and docs/export-import.md) into a new save: `options.as`, or the save id it
 * was exported from. The whole file is read and checked first (format, version, every line's fields, the order of
 * records, references between facts, beliefs and models, the end line's counts): a malformed or truncated file
 * fails with SAVE_FILE_INVALID naming the line, and nothing is written. Then every layer is written in one store
 * transaction, the chunks read from the file again a batch at a time, so memory stays bounded whatever the number
 * of chunks (the living layer is held whole). Chunks and living rows get new ids; insertion order is kept, so
 * queries rank exactly as they did. Then any index of the save held in memory is dropped and the worker wakes for
 * the imported jobs. A save that already holds data is CONFLICT; vectors of another embedder than the store's are
 * EMBEDDER_MISMATCH (import them with `vectors: false`).
 *
 * @example
 * ```ts
 * const report = await importSave({ store, indexes: narrative, worker: living }, { path: 'save.jsonl' }, { as: 'run-1-copy' });
 * console.log(report.chunks, report.living.beliefs);
 * ```
 */
export async function importSave(operation: SaveOperation & { store: Store }, source: SaveFileSource, options: ImportSaveOptions = {}): Promise<ImportSaveReport> {
  const { store } = operation;
  const target = options.as === undefined ? undefined : requireSaveId(options.as, 'as');
  const checked = checkFile(source, options, target);
  const saveId = target ?? checked.header.saveId;
  const withVectors = options.vectors !== false && checked.header.embedder !== null;
  // A quick refusal before anything is written; the store's transaction is the authority (a deleted save's
  // tombstone keeps its version, so the version cannot tell; the store also refuses a save holding living layers).
  if ((await store.countChunks(saveId)) > 0) {
    throw new MnemoError('CONFLICT', `import: save ${JSON.stringify(saveId)} already holds data. Import into a new save id (--as NEWSAVE), or delete that save first (mnemo delete SAVE --yes, memory.deleteSave, DELETE /v1/saves/{saveId}).`, { details: { saveId } });
  }
  if (withVectors) await claimEmbedder(store, checked.header.embedder as EmbedderIdentity);
  const seen = { chunks: 0, vectors: 0 };
  const result = await store.importSave(saveId, {
    chunks: chunkBatches(source, checked, saveId, withVectors, options.batchSize ?? 1000, seen),
    vectorDimensions: withVectors ? (checked.header.embedder as EmbedderIdentity).dimensions : null,
    living: checked.living,
  });
  operation.indexes.forget(saveId);
  operation.worker.afterImport(saveId);
  const applySettings = options.settings === true && checked.settings !== null;
  if (applySettings) {
    const settings = checked.settings as SettingsLine;
    await setUniverseMission(store, settings.universeMission);
    await setBeliefMissions(store, settings.beliefMissions);
  }
  return { saveId, fromSaveId: checked.header.saveId, chunks: result.imported.chunks, vectors: seen.vectors, living: result.imported.living, settings: applySettings, version: result.version };
}
