// `mnemo lore`: the lore book's commands (import, export, status, wipe, search, list).
import type { Command } from 'commander';
import type { Output } from '../context.js';
import { registerLoreExport } from './lore-export.js';
import { registerLoreImport } from './lore-import.js';
import { registerLoreList } from './lore-list.js';
import { registerLoreSearch } from './lore-search.js';
import { registerLoreStatus } from './lore-status.js';
import { registerLoreWipe } from './lore-wipe.js';

/** Registers `mnemo lore <import|export|status|wipe|search|list>`. */
export function registerLore(program: Command, output: Output): void {
  const lore = program.command('lore').description('the lore book: world knowledge scoped by zone, district and faction tags');
  registerLoreImport(lore, output);
  registerLoreExport(lore, output);
  registerLoreStatus(lore, output);
  registerLoreWipe(lore, output);
  registerLoreSearch(lore, output);
  registerLoreList(lore, output);
  for (const command of lore.commands) command.exitOverride();
}
