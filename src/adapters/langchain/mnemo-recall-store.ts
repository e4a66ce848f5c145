// A LangChain key-value store (BaseStore) over Mnemo's remember / recall layer: one scope, JSON values, optional decay.
import { BaseStore } from '@langchain/core/stores';
import type { JsonValue } from '../../core/types.js';
import { parseDecay } from '../../recall/decay.js';
import type { KeyedMemoryBackend } from '../../recall/memory-backend.js';
import { requireScope } from '../../recall/validate-recall-input.js';

/** Where a MnemoRecallStore keeps its values. */
export interface MnemoRecallStoreInput {
  /** The recall layer: `memory.recall` (persistent), or any KeyedMemoryBackend. */
  backend: KeyedMemoryBackend;
  /** The scope (namespace) the store's keys live in. */
  scope: string;
  /** Values are forgotten this long after they are set: "30s", "15m", "1h", "7d" (default "none"). */
  decay?: string;
}

/**
 * LangChain's `BaseStore<string, JsonValue>` over remember / recall: `mset` remembers each pair in the scope (a
 * write each; the same key replaces its value), `mget` reads exact keys (undefined when absent or expired),
 * `mdelete` forgets keys, `yieldKeys(prefix)` lists them in the order they were first set. Values are JSON and
 * come back exactly; anything else is refused with INVALID_INPUT. Persistent values are also found by
 * `memory.recall.retrieve(query, k, scope)`, by meaning and words.
 *
 * @example
 * ```ts
 * import { MnemoRecallStore } from 'mnemo-engine/langchain';
 * const store = new MnemoRecallStore({ backend: memory.recall, scope: 'chat-42' });
 * await store.mset([['user_name', 'Kaël'], ['prefs', { tone: 'dry' }]]);
 * await store.mget(['user_name', 'missing']); // ['Kaël', undefined]
 * ```
 */
export class MnemoRecallStore extends BaseStore<string, JsonValue> {
  lc_namespace = ['mnemo', 'stores'];
  readonly scope: string;
  private readonly backend: KeyedMemoryBackend;
  private readonly decayMs: number | null;

  constructor(fields: MnemoRecallStoreInput) {
    super(fields);
    this.backend = fields.backend;
    this.scope = requireScope(fields.scope);
    this.decayMs = fields.decay === undefined ? null : parseDecay(fields.decay);
  }

  async mget(keys: string[]): Promise<(JsonValue | undefined)[]> {
    const values: (JsonValue | undefined)[] = [];
    for (const key of keys) values.push((await this.backend.get(key, this.scope))?.value);
    return values;
  }

  async mset(keyValuePairs: [string, JsonValue][]): Promise<void> {
    for (const [key, value] of keyValuePairs) await this.backend.store(key, value, { scope: this.scope }, { decayMs: this.decayMs });
  }

  async mdelete(keys: string[]): Promise<void> {
    await this.backend.forget(keys, this.scope);
  }

  async *yieldKeys(prefix?: string): AsyncGenerator<string> {
    for (const key of await this.backend.keys(this.scope)) if (prefix === undefined || key.startsWith(prefix)) yield key;
  }
}
