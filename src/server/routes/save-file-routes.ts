// Routes of save files: export a save as JSON Lines (streamed), import a save file into a new save.
import { z } from 'zod';
import { MnemoError } from '../../core/errors.js';
import { LORE_CHUNK_TYPE } from '../../core/types.js';
import { SAVE_FILE_LINES } from '../../saves/save-file.js';
import { defineRoute } from '../route.js';
import type { Route } from '../route.js';
import { saveParams } from '../schemas/requests.js';

const exportQuery = z.strictObject({
  vectors: z.enum(['true', 'false']).transform((value) => value === 'true').optional().describe("Write the chunks' vectors (default true)."),
});

/** The body of an import (the MCP tool import_save takes the same, its file bounded by LIMITS.mcpSaveFileChars). */
export const importBody = z.strictObject({
  file: z.string().min(1).describe('The save file (JSON Lines, as GET .../export wrote it; docs/export-import.md), within the server\'s body limit (--max-body).'),
  vectors: z.boolean().optional().describe("Write the file's vectors (default true; false for vectors of another embedder, then re-embed with mnemo reindex)."),
  settings: z.boolean().optional().describe("Also apply the file's missions to the store (store-wide: admin tokens only; default false)."),
});

const { header, settings, chunk, fact, belief, model, modelVersion, job, end } = SAVE_FILE_LINES;
const saveFileLine = z.discriminatedUnion('type', [header, settings, chunk, fact, belief, model, modelVersion, job, end]);

const counts = z.object({ facts: z.number(), beliefs: z.number(), models: z.number(), modelVersions: z.number(), jobs: z.number() });
const importReport = z.object({
  saveId: z.string(),
  fromSaveId: z.string(),
  chunks: z.number(),
  vectors: z.number(),
  living: counts,
  settings: z.boolean(),
  version: z.number(),
});

/** The save-file routes. */
export const saveFileRoutes: Route[] = [
  defineRoute({
    method: 'get',
    path: '/v1/saves/:saveId/export',
    operationId: 'exportSave',
    summary: 'A save, every layer, as a save file (JSON Lines, streamed): header, settings, chunks, facts, beliefs, models, versions, jobs, end',
    description: "Without an admin token the save's lore chunks are left out (they hold the whole lore book). A truncated answer has no end line, and an import refuses it.",
    tag: 'narrative',
    access: 'save',
    params: saveParams,
    query: exportQuery,
    response: saveFileLine,
    stream: true,
    async handle({ params, query, principal, memory }) {
      return memory.exportSave(params.saveId, { vectors: query.vectors !== false, excludeChunkTypes: principal.admin ? [] : [LORE_CHUNK_TYPE] });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/saves/:saveId/import',
    operationId: 'importSave',
    summary: 'Import a save file into this save (which must hold nothing), every layer in one transaction',
    description: 'The whole file is checked first: a malformed or truncated one is 400 SAVE_FILE_INVALID naming the line, and nothing is written. Lore chunks in the file need an admin token (403). Larger files: mnemo import.',
    tag: 'narrative',
    access: 'save',
    params: saveParams,
    body: importBody,
    response: importReport,
    status: 201,
    async handle({ params, body, principal, memory }) {
      if (body.settings === true && !principal.admin) {
        throw new MnemoError('FORBIDDEN', 'settings: the missions are store-wide, so only an admin token may apply a file\'s missions. Leave settings out.', { details: { field: 'settings' } });
      }
      return memory.importSave({ text: body.file }, { as: params.saveId, vectors: body.vectors, settings: body.settings, refuseLore: !principal.admin });
    },
  }),
];
