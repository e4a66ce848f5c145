// `mnemo lore export`: write the lore book as a lore repository (index.yaml and a YAML file per source).
import type { Command } from 'commander';
import type { Output } from '../context.js';
import { withMemory } from '../context.js';

/** Registers `mnemo lore export <dir> [--json]`. */
export function registerLoreExport(lore: Command, output: Output): void {
  lore
    .command('export')
    .description('write the lore book as a lore repository into a new or empty folder (lore import reads it back unchanged)')
    .argument('<dir>', 'the folder to write (created if absent; refused when not empty)')
    .option('--json', 'print JSON')
    .action(async (folder: string, flags: { json?: boolean }, command: Command) => {
      const report = await withMemory(command, (memory) => memory.lore.exportRepository(folder));
      output.out(flags.json ? JSON.stringify(report, null, 2) : `Exported ${report.entries} entr${report.entries === 1 ? 'y' : 'ies'} in ${report.files.length} file${report.files.length === 1 ? '' : 's'} to ${report.folder}`);
    });
}
