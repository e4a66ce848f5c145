// A streamed save file gathered into one text for an MCP answer, refused past its bound before it is read whole.
import { LIMITS, limitExceeded } from '../../core/limits.js';

/**
 * Joins the pieces of a save file (as `exportSave` yields them) into one text of at most LIMITS.mcpSaveFileChars;
 * past the bound it stops the export (the rest is never read) and throws LIMIT_EXCEEDED.
 *
 * @example
 * ```ts
 * const file = await collectSaveFile(memory.exportSave('run-1', { vectors: false }), 'run-1');
 * ```
 */
export async function collectSaveFile(pieces: AsyncIterable<string>, saveId: string): Promise<{ text: string; lines: number }> {
  const parts: string[] = [];
  let length = 0;
  let lines = 0;
  for await (const piece of pieces) {
    length += piece.length;
    if (length > LIMITS.mcpSaveFileChars) {
      throw limitExceeded('saveId', 'mcpSaveFileChars', length, `The save file of ${JSON.stringify(saveId)} is longer (counted as far as it was read): export it with \`mnemo export\` or GET /v1/saves/{saveId}/export, which stream any size (or pass vectors: false).`, 'characters');
    }
    parts.push(piece);
    for (let index = piece.indexOf('\n'); index !== -1; index = piece.indexOf('\n', index + 1)) lines++;
  }
  return { text: parts.join(''), lines };
}
