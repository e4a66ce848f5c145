// A real tokenizer for budgets: OpenAI's BPE encodings (o200k_base, cl100k_base) from gpt-tokenizer, loaded on first use.
import { MnemoError } from '../core/errors.js';
import type { TokenCounter } from '../seams/token-counter.js';

/** The encodings gptTokenCounter can load. */
export const GPT_ENCODINGS = ['o200k_base', 'cl100k_base'] as const;

export type GptEncoding = (typeof GPT_ENCODINGS)[number];

interface EncodeOptions {
  disallowedSpecial: Set<string>;
}

/** What Mnemo uses of an encoding: the whole text at once, or piece by piece (the tokenizer's pre-tokenized pieces). */
interface Encoding {
  encode(text: string, options: EncodeOptions): number[];
  encodeGenerator(text: string, options: EncodeOptions): Iterable<number[]>;
}

const loaded = new Map<GptEncoding, Promise<Encoding>>();

async function loadEncoding(encoding: GptEncoding): Promise<Encoding> {
  try {
    const module = (await (encoding === 'o200k_base' ? import('gpt-tokenizer/encoding/o200k_base') : import('gpt-tokenizer/encoding/cl100k_base'))) as Encoding;
    return { encode: module.encode, encodeGenerator: module.encodeGenerator };
  } catch (error) {
    loaded.delete(encoding);
    throw new MnemoError('DEPENDENCY_MISSING', `Counting ${encoding} tokens needs gpt-tokenizer, an optional peer dependency, which could not be loaded (${(error as Error).message}). Install it with \`npm i gpt-tokenizer@4\`, or count with estimateTokenCounter().`, { cause: error });
  }
}

/**
 * A token counter on a real BPE encoding: `o200k_base` (GPT-4o, GPT-4.1, GPT-5, o-series; the default) or
 * `cl100k_base` (GPT-4, GPT-3.5). Other models' tokenizers differ by some percent; leave headroom in budgets.
 * Special-token text such as `<|endoftext|>` in the input is counted as ordinary text, never refused.
 * The encoding tables (a few MB) are loaded once per process, on the first call. `gpt-tokenizer` is an optional
 * peer dependency: without it this throws DEPENDENCY_MISSING with the install command.
 *
 * @example
 * ```ts
 * const counter = await gptTokenCounter();
 * counter.count('Kaël hides the silver key under the third stone of the well.'); // 14
 * ```
 */
export async function gptTokenCounter(encoding: GptEncoding = 'o200k_base'): Promise<TokenCounter> {
  if (!(GPT_ENCODINGS as readonly string[]).includes(encoding)) {
    throw new MnemoError('INVALID_INPUT', `encoding: expected one of ${GPT_ENCODINGS.join(', ')}, got ${JSON.stringify(encoding)}.`, { details: { field: 'encoding' } });
  }
  let promise = loaded.get(encoding);
  if (promise === undefined) {
    promise = loadEncoding(encoding);
    loaded.set(encoding, promise);
  }
  const { encode, encodeGenerator } = await promise;
  const ordinaryText = { disallowedSpecial: new Set<string>() };
  return {
    name: encoding,
    count: (text) => (text === '' ? 0 : encode(text, ordinaryText).length),
    *pieces(text) {
      if (text === '') return;
      for (const tokens of encodeGenerator(text, ordinaryText)) yield tokens.length;
    },
  };
}
