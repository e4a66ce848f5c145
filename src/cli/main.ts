// The `mnemo` command line: global options, the commands, and errors mapped to exit codes.
import { Command, CommanderError, Option } from 'commander';
import { MnemoError, asBusyError, isMnemoError } from '../core/errors.js';
import type { ErrorCategory } from '../core/errors.js';
import { registerAdd } from './commands/add.js';
import { registerBeliefs } from './commands/beliefs.js';
import { registerDelete } from './commands/delete.js';
import { registerDemo } from './commands/demo.js';
import { registerEval } from './commands/eval.js';
import { registerForget } from './commands/forget.js';
import { registerLore } from './commands/lore.js';
import { registerFacts } from './commands/facts.js';
import { registerExport } from './commands/export.js';
import { registerFork } from './commands/fork.js';
import { registerImport } from './commands/import.js';
import { registerLiving } from './commands/living.js';
import { registerMcp } from './commands/mcp.js';
import { registerModels } from './commands/models.js';
import { registerQuery } from './commands/query.js';
import { registerReindex } from './commands/reindex.js';
import { registerRecall } from './commands/recall.js';
import { registerRemember } from './commands/remember.js';
import { registerRewind } from './commands/rewind.js';
import { registerServe } from './commands/serve.js';
import { registerStats } from './commands/stats.js';
import { CLI_EMBEDDERS } from './context.js';
import type { Output } from './context.js';

/** Exit codes by error category: 2 for the caller's mistakes, 3 for ours, 4 for a provider's (0 on success; nothing else). */
export const EXIT_CODES: Record<ErrorCategory, number> = { USER: 2, SYSTEM: 3, THIRD_PARTY: 4 };

const standardOutput: Output = { out: (text) => console.log(text), err: (text) => console.error(text) };

/** Builds the command tree. */
export function buildProgram(output: Output = standardOutput): Command {
  const program = new Command('mnemo')
    .description('Mnemo: a memory engine for LLM-driven characters, games and agents')
    .version('0.1.0')
    .addOption(new Option('--db <path>', 'the SQLite database file, :memory:, or a postgres:// URL').env('MNEMO_DB').default('mnemo.db'))
    .addOption(new Option('--embedder <name>', 'how vectors are made').choices([...CLI_EMBEDDERS]).env('MNEMO_EMBEDDER').default('auto'))
    .option('--verbose', 'say on stderr which embedder was picked, and why')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (text) => output.out(text.trimEnd()), writeErr: (text) => output.err(text.trimEnd()) });
  registerAdd(program, output);
  registerQuery(program, output);
  registerRewind(program, output);
  registerFork(program, output);
  registerExport(program, output);
  registerImport(program, output);
  registerDelete(program, output);
  registerStats(program, output);
  registerRemember(program, output);
  registerRecall(program, output);
  registerForget(program, output);
  registerLore(program, output);
  registerLiving(program, output);
  registerFacts(program, output);
  registerBeliefs(program, output);
  registerModels(program, output);
  registerDemo(program, output);
  registerReindex(program, output);
  registerEval(program, output);
  registerServe(program, output);
  registerMcp(program, output);
  const exitOverride = (command: Command): void => {
    command.exitOverride();
    command.commands.forEach(exitOverride);
  };
  program.commands.forEach(exitOverride);
  return program;
}

/**
 * Runs the CLI with `argv` (as process.argv) and returns the exit code.
 *
 * @example
 * ```ts
 * const code = await main(['node', 'mnemo', 'stats', '--db', 'game.db']);
 * ```
 */
export async function main(argv: readonly string[], output: Output = standardOutput): Promise<number> {
  const program = buildProgram(output);
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (thrown) {
    if (thrown instanceof CommanderError) return thrown.exitCode === 0 ? 0 : 2;
    const error = asMnemoErrorForCli(thrown);
    if (argv.includes('--json')) output.err(JSON.stringify({ error: error.toJSON() }));
    else output.err(`error ${error.code}: ${error.message}`);
    if (!isMnemoError(thrown) && process.env.MNEMO_DEBUG) output.err((thrown as Error).stack ?? String(thrown));
    return EXIT_CODES[error.category];
  }
}

/**
 * Any thrown value as a MnemoError for the exit code and message: a MnemoError as it is, SQLite's "database is
 * locked" as STORE_BUSY, anything else INTERNAL (exit 3), whose stack is printed only with MNEMO_DEBUG=1.
 */
function asMnemoErrorForCli(error: unknown): MnemoError {
  if (isMnemoError(error)) return error;
  return asBusyError(error) ?? new MnemoError('INTERNAL', `an unexpected error: ${error instanceof Error ? error.message : String(error)}. Run again with MNEMO_DEBUG=1 to print its stack, and report it.`, { cause: error });
}
