// Writes one save, every layer, as a save file (JSON Lines, docs/export-import.md), a page of chunks at a time.
import { MnemoError } from '../core/errors.js';
import { requireSaveId } from '../core/validate.js';
import { getBeliefMissions, getUniverseMission } from '../living/missions.js';
import type { Store } from '../seams/store.js';
import { SAVE_FILE_FORMAT, SAVE_FILE_VERSION, vectorToBase64 } from './save-file.js';
import type { BeliefLine, ChunkLine, FactLine, HeaderLine, JobLine, ModelLine, ModelVersionLine, SaveFileCounts, SettingsLine } from './save-file.js';

/** Options of an export. */
export interface ExportSaveOptions {
  /** Write the chunks' vectors, with the embedder's identity on the header (default true). */
  vectors?: boolean;
  /** Leave out chunks of these types (the HTTP API leaves out `lore` for a token that may not read it). */
  excludeChunkTypes?: readonly string[];
  /** Chunks read per page (default 1000): what the export holds in memory at once. */
  pageSize?: number;
  /** The time written on the header (default now). */
  now?: number;
}

const line = (record: object): string => `${JSON.stringify(record)}\n`;

/**
 * The save file of one save, line by line (each line ends with `\n`): a header, the store's missions, the chunks in
 * insertion order (with their vectors unless `vectors: false`), the facts, beliefs (with their history and
 * sources), mental models and their versions, the queued jobs, and an end line with the counts. Chunks are read a
 * page at a time, so memory stays bounded; the living layer is read whole. A save holding nothing is NOT_FOUND; a
 * save written while it is read fails with CONFLICT (export it again) rather than give a file of two moments.
 *
 * @example
 * ```ts
 * for await (const text of exportSave(store, 'run-1')) process.stdout.write(text);
 * ```
 */
export async function* exportSave(store: Store, saveId: string, options: ExportSaveOptions = {}): AsyncGenerator<string> {
  requireSaveId(saveId);
  const version = await store.saveVersion(saveId);
  const living = await store.living.readSave(saveId);
  if ((version === 0 || (await store.countChunks(saveId)) === 0) && living.facts.length + living.beliefs.length + living.models.length + living.jobs.length === 0) {
    throw new MnemoError('NOT_FOUND', `export: save ${JSON.stringify(saveId)} holds nothing. Check the save id (mnemo stats lists them).`, { details: { saveId } });
  }
  const embedder = options.vectors === false ? null : await store.embeddings.identity();
  const header: HeaderLine = { type: 'header', format: SAVE_FILE_FORMAT, version: SAVE_FILE_VERSION, saveId, exportedAt: options.now ?? Date.now(), embedder };
  yield line(header);
  const settings: SettingsLine = { type: 'settings', universeMission: await getUniverseMission(store), beliefMissions: await getBeliefMissions(store) };
  yield line(settings);

  const counts: SaveFileCounts = { chunks: 0, facts: 0, beliefs: 0, models: 0, modelVersions: 0, jobs: 0 };
  const excluded = new Set(options.excludeChunkTypes ?? []);
  const limit = options.pageSize ?? 1000;
  let after: number | null = 0;
  while (after !== null) {
    const page = await store.pageChunks(saveId, { after, limit, vectors: embedder !== null });
    let text = '';
    for (const chunk of page.chunks) {
      if (excluded.has(chunk.chunkType)) continue;
      const record: ChunkLine = { type: 'chunk', turnId: chunk.turnId, chunkType: chunk.chunkType, text: chunk.text, entryId: chunk.entryId, metadata: chunk.metadata, createdAt: chunk.createdAt };
      if (chunk.embedding !== null) record.vector = vectorToBase64(chunk.embedding);
      text += line(record);
      counts.chunks++;
    }
    if (text !== '') yield text;
    after = page.next;
  }

  for (const fact of living.facts) {
    const record: FactLine = { type: 'fact', id: fact.factId as number, turnId: fact.turnId as number, statement: fact.statement, factType: fact.factType, who: fact.who, what: fact.what, when: fact.when, where: fact.where, why: fact.why, entities: fact.entities };
    counts.facts++;
    yield line(record);
  }
  for (const belief of living.beliefs) {
    const record: BeliefLine = {
      type: 'belief', id: belief.beliefId as number, statement: belief.statement, subject: belief.subject, sources: belief.sources, history: belief.history,
      createdTurnId: belief.createdTurnId, updatedTurnId: belief.updatedTurnId, deletedTurnId: belief.deletedTurnId, stale: belief.stale,
    };
    counts.beliefs++;
    yield line(record);
  }
  for (const model of living.models) {
    const record: ModelLine = { type: 'model', id: model.modelId as number, subject: model.subject, summary: model.summary, sources: model.sources, createdTurnId: model.createdTurnId, updatedTurnId: model.updatedTurnId, stale: model.stale };
    counts.models++;
    yield line(record);
  }
  for (const version of living.versions) {
    const record: ModelVersionLine = { type: 'modelVersion', modelId: version.modelId, turnId: version.turnId, summary: version.summary, sources: version.sources };
    counts.modelVersions++;
    yield line(record);
  }
  for (const job of living.jobs) {
    const record: JobLine = {
      type: 'job', turnId: job.turnId, stage: job.stage, status: job.status, generation: job.generation, attempts: job.attempts, payload: job.payload,
      subjects: job.subjects, notBefore: job.notBefore, lastError: job.lastError, createdAt: job.createdAt, updatedAt: job.updatedAt,
    };
    counts.jobs++;
    yield line(record);
  }
  if ((await store.saveVersion(saveId)) !== version) {
    throw new MnemoError('CONFLICT', `export: save ${JSON.stringify(saveId)} was written while it was exported, so the file would mix two moments. Export it again (or pause the writer).`, { details: { saveId } });
  }
  yield line({ type: 'end', counts });
}
