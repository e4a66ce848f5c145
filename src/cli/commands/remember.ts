// `mnemo remember`: store a JSON value under a key in a scope of the engine's store, optionally decaying.
import type { Command } from 'commander';
import { MnemoError } from '../../core/errors.js';
import type { JsonValue, Metadata } from '../../core/types.js';
import { parseDecay } from '../../recall/decay.js';
import type { Output } from '../context.js';
import { withMemory } from '../context.js';
import { parseJsonArgument } from '../parse-json-argument.js';

interface RememberFlags {
  scope: string;
  decay?: string;
  metadata?: string;
  text?: boolean;
  json?: boolean;
}

/** Registers `mnemo remember <key> <json> --scope S [--decay 1h]`. */
export function registerRemember(program: Command, output: Output): void {
  program
    .command('remember')
    .description('store a JSON value under <key> in a scope (replacing the same key there); prints what was stored')
    .argument('<key>', 'the key, e.g. contract_type')
    .argument('<json>', 'the value as JSON, e.g. \'"NDA"\' or \'{"risk":0.35}\' (see --text)')
    .requiredOption('--scope <scope>', 'the scope (a memory declaration\'s name), e.g. LegalKnowledge')
    .option('--decay <duration>', 'forget it after 30s, 15m, 1h, 7d ... (default: never)')
    .option('--metadata <json>', 'extra metadata as a JSON object')
    .option('--text', 'store <json> as a plain string instead of parsing it')
    .option('--json', 'print the stored entry as JSON')
    .action(async (key: string, valueText: string, flags: RememberFlags, command: Command) => {
      const decayMs = flags.decay === undefined ? null : parseDecay(flags.decay, '--decay');
      const value = (flags.text ? valueText : parseJsonArgument('<json>', valueText)) as JsonValue;
      const extra = flags.metadata === undefined ? {} : parseJsonArgument('--metadata', flags.metadata);
      if (extra === null || typeof extra !== 'object' || Array.isArray(extra)) {
        throw new MnemoError('INVALID_INPUT', `--metadata: expected a JSON object such as '{"source":"Extract"}', got ${JSON.stringify(flags.metadata)}.`, { details: { field: 'metadata' } });
      }
      const metadata = { ...(extra as Metadata), scope: flags.scope };
      const entry = await withMemory(command, (memory) => memory.recall.store(key, value, metadata, { decayMs }));
      if (flags.json) {
        output.out(JSON.stringify(entry, null, 2));
        return;
      }
      const expiry = entry.expiresAt === null ? '' : `; forgotten after ${flags.decay} (${new Date(entry.expiresAt * 1000).toISOString()})`;
      output.out(`remembered ${entry.key} in ${flags.scope}${expiry}`);
    });
}
