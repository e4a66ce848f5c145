// `mnemo import`: a save file (from mnemo export) into a new save, checked whole before anything is written.
import type { Command } from 'commander';
import type { Output } from '../context.js';
import { withMemory } from '../context.js';

interface ImportFlags {
  as?: string;
  withoutVectors?: boolean;
  settings?: boolean;
  json?: boolean;
}

/** Registers `mnemo import <file> [--as NEWSAVE] [--without-vectors] [--settings] [--json]`. */
export function registerImport(program: Command, output: Output): void {
  program
    .command('import')
    .description('read a save file into a new save, every layer in one transaction (a malformed or truncated file writes nothing and names the line)')
    .argument('<file>', 'the save file (mnemo export)')
    .option('--as <saveId>', 'the save to create (default: the save the file was exported from); it must hold nothing')
    .option('--without-vectors', "leave the file's vectors out (e.g. made by another embedder; mnemo reindex makes new ones)")
    .option('--settings', "also apply the file's missions to the store (they are store-wide; default: keep the store's)")
    .option('--json', 'print JSON')
    .action(async (file: string, flags: ImportFlags, command: Command) => {
      const report = await withMemory(command, (memory) => memory.importSave({ path: file }, { as: flags.as, vectors: flags.withoutVectors !== true, settings: flags.settings === true }));
      const { facts, beliefs, models, modelVersions, jobs } = report.living;
      output.out(flags.json ? JSON.stringify(report) : `imported ${file} into ${report.saveId}: ${report.chunks} chunks (${report.vectors} with vectors), ${facts} facts, ${beliefs} beliefs, ${models} models (${modelVersions} versions), ${jobs} jobs${report.settings ? ', missions applied' : ''}`);
    });
}
