// An MCP export past its bound: LIMIT_EXCEEDED, and the export stops there instead of being read whole.
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../src/core/limits.js';
import { collectSaveFile } from '../src/server/mcp/collect-save-file.js';

describe('collectSaveFile', () => {
  it('joins the lines of a file within the bound and counts them', async () => {
    async function* pieces() {
      yield '{"type":"header"}\n';
      yield '{"type":"end"}\n';
    }
    expect(await collectSaveFile(pieces(), 'run-1')).toEqual({ text: '{"type":"header"}\n{"type":"end"}\n', lines: 2 });
  });

  it('refuses a longer file with LIMIT_EXCEEDED and stops the export at the first piece past the bound', async () => {
    const line = `${'x'.repeat(99_999)}\n`;
    let read = 0;
    let closed = false;
    async function* pieces() {
      try {
        for (;;) {
          read++;
          yield line;
        }
      } finally {
        closed = true;
      }
    }
    await expect(collectSaveFile(pieces(), 'run-1')).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', details: { field: 'saveId', limit: 'mcpSaveFileChars', maximum: LIMITS.mcpSaveFileChars } });
    expect(read).toBe(LIMITS.mcpSaveFileChars / line.length + 1);
    expect(closed).toBe(true);
  });
});
