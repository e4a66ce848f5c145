// The facts arm: a save's living-memory facts searched beside its chunks; a fact hit lifts its turn's chunks.
import type { Fact } from '../core/living-types.js';
import type { Chunk, FactMatch, Hit } from '../core/types.js';
import { CorpusIndex } from '../retrieval/corpus-index.js';
import type { Analyzer, SlotFilter } from '../retrieval/corpus-index.js';
import { hybridSearch } from '../retrieval/hybrid-search.js';
import type { SearchRequest } from '../retrieval/resolve-search-request.js';
import type { LivingStore } from '../seams/living-store.js';
import { MnemoError } from '../core/errors.js';
import { DEFAULT_FACT_WEIGHT } from '../retrieval/retrieval-defaults.js';

/**
 * The facts arm a query asks for, checked: its weight (a number >= 0), the default when left out, null when
 * turned off (null, or weight 0).
 *
 * @example
 * ```ts
 * resolveFactArm(undefined); // { weight: 1 }
 * resolveFactArm(null); // null
 * ```
 */
export function resolveFactArm(value: unknown): { weight: number } | null {
  if (value === undefined) return { weight: DEFAULT_FACT_WEIGHT };
  if (value === null) return null;
  const weight = typeof value === 'object' ? (value as { weight?: unknown }).weight : undefined;
  if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
    throw new MnemoError('INVALID_INPUT', `facts: expected { weight: a number >= 0 } or null, got ${JSON.stringify(value)}. Pass null to leave the save's facts out.`, { details: { field: 'facts' } });
  }
  return weight === 0 ? null : { weight };
}

/** One save's facts as a search index: slot documents are facts (id: the fact id, position: its turn). */
interface FactIndex {
  /** The facts' version the index was built at (`count:lastFactId`). */
  version: string;
  index: CorpusIndex;
  facts: Map<string, Fact>;
}

/**
 * The facts index of each save, built from the living store and rebuilt whenever the save's facts change (their
 * version: count and largest id, one cheap read per query). A rewind, a fork, a re-extraction, a write by
 * another process: each moves the version, so the index never answers with a fact the save no longer holds.
 *
 * @example
 * ```ts
 * const indexes = new FactIndexes(store.living, (texts) => embedder.embed(texts), analyzer);
 * const facts = await indexes.get('campaign-1'); // null when the save has no facts
 * ```
 */
export class FactIndexes {
  private readonly cached = new Map<string, FactIndex>();

  constructor(
    private readonly living: LivingStore,
    private readonly embed: ((texts: string[]) => Promise<(Float32Array | null)[]>) | null,
    private readonly analyzer: Analyzer,
  ) {}

  /** The save's facts index, or null when it has no facts. */
  async get(saveId: string): Promise<FactIndex | null> {
    const { count, lastFactId } = await this.living.factsVersion(saveId);
    if (count === 0) {
      this.cached.delete(saveId);
      return null;
    }
    const version = `${count}:${lastFactId}`;
    const cached = this.cached.get(saveId);
    if (cached?.version === version) return cached;
    const facts = (await this.living.getFacts(saveId)).reverse();
    const vectors = this.embed === null ? facts.map(() => null) : await this.embed(facts.map((fact) => fact.statement));
    const index = new CorpusIndex(0, { analyzer: this.analyzer });
    index.add(facts.map((fact, order) => ({ id: String(fact.factId), position: fact.turnId ?? Number.NaN, text: fact.statement, embedding: vectors[order] ?? null })));
    const built = { version, index, facts: new Map(facts.map((fact) => [String(fact.factId), fact])) };
    this.cached.set(saveId, built);
    return built;
  }

  /** Forgets every index (they rebuild on the next query). */
  clear(): void {
    this.cached.clear();
  }
}

/**
 * The best fact of each turn for a query: the facts index searched with the request's fusion and arms (no window
 * sum, no context signals, no feedback: facts are not a sequence), only facts of turns at or below `maxTurnId`,
 * each fused score times `weight`. Best first.
 *
 * @example
 * ```ts
 * const byTurn = await bestFactPerTurn(facts, request, queryVector, 1, 12); // Map { 7 => { factId: 31, ... } }
 * ```
 */
export async function bestFactPerTurn(
  facts: FactIndex,
  request: SearchRequest,
  queryVector: Float32Array | null,
  weight: number,
  maxTurnId: number | undefined,
): Promise<Map<number, FactMatch>> {
  const { index } = facts;
  const vector = queryVector !== null && index.vectorDimensions === queryVector.length ? queryVector : null;
  const ranked = await hybridSearch({
    index,
    queryText: request.queryText,
    queryVector: vector,
    accept: index.filterFor({ maxPosition: maxTurnId }),
    k: request.ranked,
    capPerSource: request.capPerSource,
    rrfK: request.rrfK,
    fusion: request.fusion,
    weights: request.weights,
    loadTexts: async () => new Map(),
  });
  const best = new Map<number, FactMatch>();
  ranked.forEach(({ id, explanation }, rank) => {
    const fact = facts.facts.get(id);
    if (fact === undefined || fact.turnId === null || best.has(fact.turnId)) return;
    best.set(fact.turnId, { factId: fact.factId as number, statement: fact.statement, rank: rank + 1, score: weight * explanation.fused });
  });
  return best;
}

/**
 * Scores each chunk by the best of its own score and its turn's best fact score, and returns the best `k`.
 * `hits` are the chunk search's, best first; `extra` the chunks of fact turns the chunk search did not return
 * (each scored by its turn's fact: its own score is below the last hit's). A hit whose fact won says so in
 * `explanation.fact`. Ties keep the chunk search's order, extras after it in fact order.
 *
 * @example
 * ```ts
 * liftByFacts(hits, extraChunks, byTurn, 5);
 * ```
 */
export function liftByFacts(hits: readonly Hit[], extra: readonly Chunk[], byTurn: ReadonlyMap<number, FactMatch>, k: number): Hit[] {
  const lifted = hits.map((hit) => {
    const fact = byTurn.get(hit.turnId);
    return fact === undefined || fact.score <= hit.score ? hit : { ...hit, score: fact.score, explanation: { ...hit.explanation, fact } };
  });
  const factOrder = [...byTurn.keys()];
  const extras = [...extra]
    .sort((a, b) => factOrder.indexOf(a.turnId) - factOrder.indexOf(b.turnId))
    .map((chunk): Hit => {
      const fact = byTurn.get(chunk.turnId) as FactMatch;
      return { ...chunk, score: fact.score, explanation: { lexical: null, semantic: null, fused: fact.score, boost: 0, rerank: null, focusMatches: [], fact } };
    });
  return [...lifted, ...extras]
    .map((hit, order) => ({ hit, order }))
    .sort((a, b) => b.hit.score - a.hit.score || a.order - b.order)
    .slice(0, k)
    .map(({ hit }) => hit);
}

/**
 * The chunks a fact can bring in: those at the turns of `byTurn` that `accept` permits and `skip` does not hold,
 * ordered as liftByFacts ranks them (their turn's fact first, then slot order), and read from the store only
 * until `k` are found: liftByFacts keeps at most `k` of them, so a turn of many chunks costs `k` reads, not one
 * per chunk.
 *
 * @example
 * ```ts
 * const extra = await chunksAtFactTurns(index, byTurn, accept, new Set(hitIds), 10, (ids) => store.getChunks(ids));
 * ```
 */
export async function chunksAtFactTurns(
  index: CorpusIndex,
  byTurn: ReadonlyMap<number, FactMatch>,
  accept: SlotFilter | undefined,
  skip: ReadonlySet<string>,
  k: number,
  read: (ids: string[]) => Promise<Chunk[]>,
): Promise<Chunk[]> {
  const factOrder = new Map([...byTurn.keys()].map((turn, order) => [turn, order]));
  const slots: number[] = [];
  index.forEachLive((slot) => {
    if (factOrder.has(index.positionOf(slot)) && (accept === undefined || accept(slot)) && !skip.has(index.idOf(slot))) slots.push(slot);
  });
  slots.sort((a, b) => (factOrder.get(index.positionOf(a)) as number) - (factOrder.get(index.positionOf(b)) as number) || a - b);
  const chunks: Chunk[] = [];
  // A chunk the store no longer holds (deleted by another process) is skipped and the next one read.
  for (let from = 0; from < slots.length && chunks.length < k; ) {
    const page = slots.slice(from, from + k - chunks.length);
    from += page.length;
    chunks.push(...(await read(page.map((slot) => index.idOf(slot)))));
  }
  return chunks;
}
