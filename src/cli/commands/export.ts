// `mnemo export`: a save's every layer as a save file (JSON Lines) on stdout or into a file, streamed.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { MnemoError } from '../../core/errors.js';
import type { Output } from '../context.js';
import { withMemory } from '../context.js';

interface ExportFlags {
  output?: string;
  withoutVectors?: boolean;
}

/** Writes every piece to `sink`, waiting for it to drain when its buffer is full (memory stays bounded). */
async function pipeLines(pieces: AsyncIterable<string>, sink: Writable): Promise<number> {
  let bytes = 0;
  for await (const piece of pieces) {
    bytes += Buffer.byteLength(piece);
    if (!sink.write(piece)) await once(sink, 'drain');
  }
  return bytes;
}

/** Registers `mnemo export <saveId> [--output FILE] [--without-vectors]`. */
export function registerExport(program: Command, output: Output): void {
  program
    .command('export')
    .description('write a save, every layer, as a save file (JSON Lines, docs/export-import.md) to stdout or --output')
    .argument('<saveId>', 'the save')
    .option('-o, --output <file>', 'write into this file (created or replaced) instead of stdout')
    .option('--without-vectors', "leave the chunks' vectors out (smaller; the importer re-embeds with mnemo reindex)")
    .action(async (saveId: string, flags: ExportFlags, command: Command) => {
      await withMemory(command, async (memory) => {
        const lines = memory.exportSave(saveId, { vectors: flags.withoutVectors !== true });
        if (flags.output === undefined) {
          await pipeLines(lines, process.stdout);
          return;
        }
        const file = createWriteStream(flags.output);
        const failed = once(file, 'error').then(([error]) => {
          throw new MnemoError('STORE_FAILURE', `Could not write ${flags.output}: ${(error as Error).message}. Check the path.`, { cause: error });
        });
        try {
          const bytes = await Promise.race([pipeLines(lines, file), failed]);
          file.end();
          await Promise.race([once(file, 'finish'), failed]);
          output.err(`exported ${saveId} into ${flags.output} (${bytes} bytes)`);
        } finally {
          file.destroy();
        }
      });
    });
}
