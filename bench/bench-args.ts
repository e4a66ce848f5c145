// Command-line options of a benchmark script: node's parseArgs, plus --help (the script's header comment and its
// options) and, for an option it does not know or a value of the wrong kind, a message naming what it expects.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';

/** What `readBenchArgs` made of a command line: the parsed options, or the text to print and the exit code. */
export type BenchArgsOutcome<T extends ParseArgsConfig> =
  | { kind: 'parsed'; parsed: ReturnType<typeof parseArgs<T>> }
  | { kind: 'help'; text: string }
  | { kind: 'error'; text: string };

/**
 * Parses `args` with `config` (node's `parseArgs`), `--help` / `-h` added: the help text is the script's leading
 * `//` comment lines followed by its options and their defaults; a wrong option or value gives an error text
 * saying what arrived, what the script expects and to run `--help`. Pure: nothing is printed, nothing exits.
 *
 * @example
 * ```ts
 * const outcome = readBenchArgs(['--size', '10'], '/repo/bench/peers/cold-open.ts', { options: { size: { type: 'string' } } });
 * if (outcome.kind === 'parsed') console.log(outcome.parsed.values.size); // '10'
 * ```
 */
export function readBenchArgs<T extends ParseArgsConfig>(args: readonly string[], scriptPath: string, config: T): BenchArgsOutcome<T> {
  const options = config.options ?? {};
  const withHelp = { ...config, args: [...args], options: { ...options, help: { type: 'boolean', short: 'h' } } } as const;
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs(withHelp) as unknown as ReturnType<typeof parseArgs<T>>;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { kind: 'error', text: `${reason}\nexpected: ${optionNames(options)}\nrun it with --help for what each option does\n` };
  }
  if ((parsed.values as { help?: boolean }).help === true) return { kind: 'help', text: `${headerOf(scriptPath)}\noptions:\n${optionLines(options)}` };
  return { kind: 'parsed', parsed };
}

/**
 * The options of the benchmark at `scriptUrl` (pass `import.meta.url`), read from `process.argv`: prints the help
 * and exits 0 on `--help`, prints the error and exits 2 on a wrong option (see `readBenchArgs`).
 *
 * @example
 * ```ts
 * const { values } = benchArgs(import.meta.url, { options: { size: { type: 'string', default: '100000' } } });
 * ```
 */
export function benchArgs<T extends ParseArgsConfig>(scriptUrl: string, config: T): ReturnType<typeof parseArgs<T>> {
  const outcome = readBenchArgs(config.args ?? process.argv.slice(2), fileURLToPath(scriptUrl), config);
  if (outcome.kind === 'parsed') return outcome.parsed;
  (outcome.kind === 'help' ? process.stdout : process.stderr).write(outcome.text);
  process.exit(outcome.kind === 'help' ? 0 : 2);
}

/** The leading `//` comment of a script, without the slashes. */
function headerOf(scriptPath: string): string {
  const lines: string[] = [];
  for (const line of readFileSync(scriptPath, 'utf8').split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, ''));
  }
  return `${lines.join('\n')}\n`;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** `--a, --b <value>, ...`: the options a script takes. */
function optionNames(options: Options): string {
  const names = Object.entries(options).map(([name, option]) => (option.type === 'boolean' ? `--${name}` : `--${name} <value>`));
  return names.length === 0 ? 'no options (and --help)' : `${names.join(', ')} (and --help)`;
}

/** One line per option: its name, the kind of value it takes and its default. */
function optionLines(options: Options): string {
  return Object.entries(options)
    .map(([name, option]) => {
      const value = option.type === 'boolean' ? '' : ' <value>';
      const fallback = option.default === undefined ? '' : ` (default ${JSON.stringify(option.default)})`;
      return `  --${name}${value}${option.multiple === true ? ' (repeatable)' : ''}${fallback}\n`;
    })
    .join('');
}
