// The shapes shared by every layer: chunks, queries, hits and their explanations.

/** A JSON value, as metadata may hold it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Free metadata keys attached to a chunk. */
export type Metadata = { [key: string]: JsonValue };

/** A metadata value a filter compares with: a string, a number or a boolean. */
export type MetadataScalar = string | number | boolean;

/**
 * What one metadata key must hold: a value (equality), `{ in: [...] }` (one of), or `{ exists: true | false }`
 * (the key present, with any value including null, or missing).
 */
export type MetadataCondition = MetadataScalar | { in: readonly MetadataScalar[] } | { exists: boolean };

/**
 * A metadata filter: every key's condition must hold (AND). Applied before ranking, in every arm.
 *
 * @example
 * ```ts
 * const where: MetadataWhere = { speaker: 'Marta', location: { in: ['docks', 'tavern'] }, secret: { exists: false } };
 * ```
 */
export type MetadataWhere = Readonly<Record<string, MetadataCondition>>;

/**
 * One resolved clause: `values` (the canonical JSON of each permitted value, see `canonicalMetadataValue`) for
 * equality and one-of, or `exists` for presence.
 */
export type MetadataClause = { key: string; values: readonly string[] } | { key: string; exists: boolean };

/** The chunk type used when none is given. */
export const DEFAULT_CHUNK_TYPE = 'narrative';

/** The chunk type of a save's lore chunks (`LoreBook.syncToSave`): left out of every chunk search unless asked for. */
export const LORE_CHUNK_TYPE = 'lore';

/** What a caller hands in to store one piece of text. */
export interface ChunkInput {
  /** The save (game, conversation, agent run) this text belongs to. */
  saveId: string;
  /** The turn that produced it: an integer >= 0. Rewinding to N deletes every chunk with turnId > N. */
  turnId: number;
  /** The text to remember; never empty. */
  text: string;
  /** What kind of text it is (default `narrative`); queries can keep or exclude a type. */
  chunkType?: string;
  /** The id of the record this chunk stands for (a lore entry, a message), returned with every hit. */
  entryId?: string | null;
  /** Extra keys. The core keys (saveId, turnId, chunkType, entryId) always win over these. */
  metadata?: Metadata;
}

/** A stored chunk. `metadata` holds the extra keys merged under the core keys. */
export interface Chunk {
  id: string;
  saveId: string;
  turnId: number;
  chunkType: string;
  text: string;
  entryId: string | null;
  metadata: Metadata;
  createdAt: number;
}

/** Filters applied before ranking. */
export interface ChunkFilter {
  /** Only chunks with turnId <= maxTurnId (a history window). */
  maxTurnId?: number;
  /** The present turn: only chunks with turnId <= currentTurnId. With maxTurnId too, the smaller bound holds. */
  currentTurnId?: number;
  /** Keep only this chunk type. */
  chunkType?: string;
  /** Drop this chunk type. */
  excludeChunkType?: string;
  /**
   * Let a save's lore chunks (type `lore`) rank among the others. Default false: a chunk search leaves them out
   * unless `chunkType: 'lore'` asks for them, so lore (the whole book, whatever a character may know) never takes
   * the narrative's k budget and reaches a character only through its tags (`lore.search`).
   */
  includeLore?: boolean;
  /**
   * Metadata conditions, every one of which must hold (AND): `{ speaker: 'Marta', location: { in: ['docks',
   * 'tavern'] }, quest: { exists: true } }`. Applied before ranking in every arm, like the filters above.
   */
  where?: MetadataWhere;
}

/** A chunk filter as every arm of a search applies it (see `resolveChunkFilter`): the lore rule already applied. */
export interface ChunkSearchFilter {
  /** Only chunks with turnId <= maxTurnId. */
  maxTurnId?: number;
  /** Only chunks of this type. */
  chunkType?: string;
  /** No chunks of these types. */
  excludeChunkTypes?: readonly string[];
  /** Metadata clauses, all of which must hold (see `resolveMetadataWhere`). */
  where?: readonly MetadataClause[];
}

/** Options of a hybrid query. */
export interface QueryOptions extends ChunkFilter {
  /** How many hits to return (1..1000, default 5). */
  k?: number;
  /** "Here and now" terms (location, characters on scene): a chunk mentioning one gets `focusBoost` added. */
  focusTerms?: readonly string[];
  /** Cap on each arm's ranked list before fusion (default max(50, 5k)); 0 disables the cap. */
  capPerSource?: number;
  /** The Reciprocal Rank Fusion constant (default 60). */
  rrfK?: number;
  /** How the arms are merged: `zscore` (default: standardised scores, weighted) or `rrf` (by rank, the seed's). */
  fusion?: 'rrf' | 'zscore';
  /**
   * Pseudo-relevance feedback for the lexical arm: add the best `terms` of the top `documents` at `weight`
   * (default 3 documents, 5 terms, weight 0.5; null turns it off).
   */
  feedback?: { documents: number; terms: number; weight: number } | null;
  /** Arm weights for `zscore` fusion (default 1 each). */
  weights?: { lexical?: number; semantic?: number };
  /**
   * Window sum, with `zscore` fusion: a third arm scoring each chunk by the sum of the lexical (BM25) scores of the
   * chunks from `reach` places before it to `reach` after it in the save's order (itself included), at `weight`.
   * A reply is found by the words of what it answers. Default for a save's chunks `{ reach: 2, weight: 1 }`;
   * null turns it off (lore and recall never use it). Only chunks the filters permit count, and only they score.
   */
  windowSum?: { reach: number; weight: number } | null;
  /**
   * Speaker signal, with `zscore` fusion: added (in standard deviations) to the chunks said by a speaker the query
   * names, every word of the name among the query's words. Reads each chunk's speaker from its metadata (the
   * `speaker` key by default, see `metadataRoles`). Default 1 for a save's chunks; 0 or null turns it off.
   */
  speakerBoost?: number | null;
  /**
   * Scene signal, with `zscore` fusion: the weight of the z-score of the BM25 of a chunk's whole scene (its scene's
   * chunks read as one text; the `scene` metadata key by default). A turn is found by what its scene is about.
   * Default 0.5 for a save's chunks; 0 or null turns it off.
   */
  sceneWeight?: number | null;
  /**
   * Time signal, with `zscore` fusion: added, times 1 within a day, 0.5 in the same month or 0.25 in the same year,
   * to chunks dated near a date the query names ("October 13, 2023", "May 2023", "2022", "2023-10-13"; English
   * month names). Reads each chunk's `time` metadata key by default (ISO 8601 or epoch milliseconds). 0 or null
   * turns it off.
   */
  timeBoost?: number | null;
  /**
   * Speaker profile signal, with `zscore` fusion: the weight of the z-score of the BM25 of everything a chunk's
   * speaker said in the save (their chunks read as one text), so a turn is also scored by what its speaker says
   * about the query's content elsewhere. Off by default (0 or null); measured in docs/retrieval-quality.md.
   */
  profileWeight?: number | null;
  /**
   * The length prior, with `zscore` fusion: each candidate gains this x (log(1 + its indexed length) - log(1 + the
   * save's mean length)), lengths in index terms after stop words: a turn that tells something over a short one that
   * shares a word. It depends on the chunk and the save alone (not on k or the cap). Default 1 for a save's chunks
   * (LoCoMo R@10 +0.4 on both protocols, docs/retrieval-quality.md), 0 for the lore book and recall, and 0 for a
   * search without the lexical arm (`weights.lexical` 0: ranked by its vectors alone unless this is given); 0 or
   * null off.
   */
  lengthPrior?: number | null;
  /**
   * Scene vector signal, with `zscore` fusion: the weight of the z-score of the cosine between the query's vector
   * and the centroid of the chunk's scene (the mean of the vectors of its chunks, filters applied), so a turn is also
   * scored by what its whole scene means, beside its own vector. Needs the index's own vectors (a store that searches
   * vectors itself gives no signal). Off by default (0 or null); measured in docs/retrieval-quality.md.
   */
  sceneVectorWeight?: number | null;
  /**
   * The speaker semantic part, with `zscore` fusion: when the query names a speaker, each candidate that speaker said
   * gains this x its semantic arm's part (the same score and statistics), so meaning counts more for the named
   * person's turns ("what would Ann like?"); the others gain nothing. Default 0.5 for a save's chunks (LoCoMo R@10
   * 75.3 -> 76.5 default protocol, 80.4 -> 81.0 paper, docs/retrieval-quality.md), 0 for the lore book and recall;
   * 0 or null off. A query naming no speaker, or text without speakers, ranks as without it.
   */
  speakerSemanticWeight?: number | null;
  /**
   * Addressed names, with a lexical arm: a word of the query naming a speaker it names is left out of its lexical
   * terms (the BM25 and window arms, the scene signal, the adaptive weights' coverage) when, among the chunks holding
   * it, the share said by a named speaker is below this: text whose chunks do not carry their speaker holds a
   * person's name mostly where others speak to them ("Thanks, Ann!"), which a question about Ann does not ask for;
   * the speaker signal finds her turns. A share (0.5 measured); off by default (0 or null); measured in
   * docs/retrieval-quality.md.
   */
  addressedNames?: number | null;
  /**
   * Scene speaker focus, with `zscore` fusion and the scene signal: when the query names a speaker, a chunk said by
   * another speaker keeps only 1 - this of the lift its scene gives it (the scene signal's positive part), so a
   * scene about the question's subject brings the named person's turns up rather than the replies of the people
   * they spoke to; a chunk said by a named speaker or by nobody (narration) keeps all of it. From 0 (off) to 1; 1
   * by default for a save's chunks, 0 for the lore book and recall; null off; measured in docs/retrieval-quality.md.
   */
  sceneSpeakerFocus?: number | null;
  /**
   * Soft word matching, with `zscore` fusion and the static embedder: the first `head` fused chunks (default 50, at
   * most 200) are rescored by how well their words align with the query's, word by word: the idf-weighted mean over
   * the query's content words of the best cosine between the word's static vector and any of the chunk's words'
   * (words naming a speaker the query names are left to the speaker signal). A chunk takes the best such alignment
   * among itself and the `reach` chunks on each side (default 2, at most 5), z-scored over the head and added at
   * `weight`. Default for a save's chunks `{ weight: 1, reach: 2, head: 50 }` (lore and recall: off). Another
   * embedder keeps no word vectors, so it is off there. Null turns it off.
   */
  softMatch?: { weight: number; reach?: number; head?: number } | null;
  /**
   * Query-adaptive arm weights, with `zscore` fusion: the semantic arm's and soft matching's weights are multiplied
   * by 1 + this x (1 - the query's lexical coverage), the coverage being the share of the query terms' idf carried
   * by terms the save holds. A question whose rarest words the save never uses leans on meaning. Default 1 for a
   * save's chunks (lore and recall: off); 0 or null turns it off. Measured in docs/retrieval-quality.md.
   */
  adaptiveWeights?: number | null;
  /**
   * Question scaffolding: words dropped from the query's terms (not from its vector), for words that shape a
   * question but are not what it asks about ("likely", "kind", "things"; `QUESTION_SCAFFOLDING` is a general
   * English list). Off by default; null turns it off.
   */
  scaffolding?: readonly string[] | null;
  /**
   * Scene diversity, with `zscore` fusion: the first `head` fused chunks (default 50, at most 200) re-picked so that
   * each further hit of the same scene (the `scene` metadata key) loses `step` per hit of its scene already above
   * it: evidence spread over several scenes reaches the top k. The head is a fixed number, so it adds no dependence on
   * k of its own (the per-arm cap, max(50, 5k), already has some: the top 10 is not always the prefix of the top 100).
   * Off by default; null turns it off.
   */
  sceneDiversity?: { step: number; head?: number } | null;
  /**
   * The coverage pass, with `zscore` fusion: the query's terms that none of the first `head` fused chunks holds
   * (default 10, at most 200; a term no chunk holds, or naming a speaker, is left out) are searched again on their
   * own and fused in as a further arm, weighted `weight` times the share of the query's idf they carry: a question
   * about two things whose first pass found one finds the other. Off by default; null turns it off.
   */
  coveragePass?: { weight: number; head?: number } | null;
  /**
   * How `zscore` fusion standardises the semantic arm over every chunk it scored: `'mean'` (mean and standard
   * deviation) or `'median'` (median and 1.4826 x the median absolute deviation, which the long tail of unrelated
   * chunks does not shift; with a store's own vector search, PostgreSQL, the mean still). Default `'mean'`; null
   * is `'mean'`.
   */
  semanticNormaliser?: 'mean' | 'median' | null;
  /**
   * Vector feedback, with `zscore` fusion and the embedded index's own vectors: the query vector moved toward the
   * centroid of the first `head` fused chunks' vectors (default 5, at most 100), normalise(q + mix x centroid)
   * (mix default 1), the semantic arm searched again with it and fused in as a further arm weighted `weight` times
   * the semantic arm's: evidence that shares no word with the question but sits near what the first pass found.
   * Off by default; null turns it off (a store's own vector search, PostgreSQL, ignores it).
   */
  vectorFeedback?: { weight: number; head?: number; mix?: number } | null;
  /**
   * Entity links, with `zscore` fusion: the proper nouns of the first `head` fused chunks' texts (default 5, at most
   * 50; words capitalised inside a sentence) that the query does not name, speakers' names left out, the `terms`
   * rarest (default 5, at most 50; none held by more than 5% of the chunks), searched with BM25 and fused in as a
   * further arm weighted `weight`: a second hop from what the first pass found to what else names the same people,
   * places or things. Off by default; null turns it off.
   */
  entityLinks?: { weight: number; head?: number; terms?: number } | null;
  /**
   * Reply handoff, with `zscore` fusion: the texts of the first `head` fused chunks are read (default 50, at most
   * 200), and each whose last sentence is a question loses `weight` while the chunk after it in the save (its reply,
   * in the same scene) rises to at least the question's score when it is a candidate: a question's words find it,
   * but the answer is what follows. Off by default; null turns it off.
   */
  replyHandoff?: { weight: number; head?: number } | null;
  /**
   * The soft tail, with `zscore` fusion and soft matching on: the first `keep` hits (default 10, at most 1000) stay
   * exactly as without it, and the rest are reordered by soft matching aligned over the first `head` fused chunks
   * (default 200, at most 200; never fewer than soft matching's own head) instead of its own head: evidence whose
   * words sit near the question's deep in the list reaches the top 25-50. `keep` is a fixed number, not k: whatever
   * k, the first `keep` hits are the search's without the tail, and a k within it does no tail work. On by default
   * for a save's chunks (keep 10, head 200), off for the lore book and recall; null turns it off.
   */
  softTail?: { keep?: number; head?: number } | null;
  /**
   * The length signal, with `zscore` fusion: each of the first `head` fused chunks (default 50, at most 200) gains
   * `weight` x the z-score, over that head, of the log of its indexed length (its terms after stop words): a turn
   * that tells something over a short reply that only shares a word. Off by default; null turns it off.
   */
  lengthSignal?: { weight: number; head?: number } | null;
  /**
   * The facts arm: when the save has living-memory facts, they are searched beside its chunks (the same fusion and
   * arms), and each chunk is scored by the best of its own score and its turn's best fact score times `weight`
   * (a fact's turn's chunks come back even when their own words miss). Default `{ weight: 1 }`; null turns it off.
   * Only facts of turns within the turn bound count.
   */
  facts?: { weight: number } | null;
  /** The additive boost for a focus-term mention (default 0.005 with RRF, about 20 ranks of one arm near the top; 0.5 standard deviations with zscore). */
  focusBoost?: number;
  /** Rerank the fused list with the configured reranker (default true when one is configured). */
  rerank?: boolean;
  /** How many fused candidates the reranker reads (default max(20, 2k)). */
  rerankTop?: number;
}

/** One arm's opinion of a hit. */
export interface ArmRank {
  /** 1-based rank within the arm. */
  rank: number;
  /** The arm's own score (BM25, or cosine similarity). */
  score: number;
}

/**
 * What each part of z-score fusion added to a hit's fused score, in standard deviations of that part (weighted):
 * the arms (`lexical`, `semantic`, `window`) and the context signals. Absent parts added nothing.
 */
export interface Contributions {
  lexical?: number;
  semantic?: number;
  /** The window-sum arm: the lexical scores of the chunks around it (see `QueryOptions.windowSum`). */
  window?: number;
  /** The scene signal: how well the chunk's whole scene matches the query (see `QueryOptions.sceneWeight`). */
  scene?: number;
  /** The speaker signal: the query names who said it (see `QueryOptions.speakerBoost`). */
  speaker?: number;
  /** The time signal: the chunk is dated near a date the query names (see `QueryOptions.timeBoost`). */
  time?: number;
  /** Soft word matching: how well the words around the chunk align with the query's (see `QueryOptions.softMatch`). */
  soft?: number;
  /**
   * The soft tail: what a chunk past the kept head lost so that it stays below it (negative; its `soft` part is then
   * the wider head's lift; see `QueryOptions.softTail`).
   */
  tail?: number;
  /** Scene diversity: what the chunk lost for the hits of its scene ranked above it (negative; see `QueryOptions.sceneDiversity`). */
  diversity?: number;
  /** The speaker profile signal: how well everything the chunk's speaker said matches the query (see `QueryOptions.profileWeight`). */
  profile?: number;
  /** The scene vector signal: the query's cosine with the centroid of the chunk's scene (see `QueryOptions.sceneVectorWeight`). */
  sceneVector?: number;
  /** The speaker semantic part: the semantic arm's part again, weighted, for a chunk said by a speaker the query names (see `QueryOptions.speakerSemanticWeight`). */
  speakerSemantic?: number;
  /** Vector feedback: the chunk's cosine with the query moved toward the first pass's head (see `QueryOptions.vectorFeedback`). */
  vectorFeedback?: number;
  /** Entity links: the chunk's BM25 for the proper nouns of the first pass's head (see `QueryOptions.entityLinks`). */
  entityLinks?: number;
  /** Reply handoff: the step a question took (negative) or the rise its reply took (see `QueryOptions.replyHandoff`). */
  handoff?: number;
  /**
   * What the chunk's length added: the length prior (on by default: longer or shorter than the save's mean, see
   * `QueryOptions.lengthPrior`) plus, when on, the length signal (than the fused head's, see `QueryOptions.lengthSignal`).
   */
  length?: number;
  /** The coverage pass: the chunk's BM25 for the query terms the first pass's head did not hold (see `QueryOptions.coveragePass`). */
  coverage?: number;
}

/** The fact that lifted a hit (the facts arm, see `QueryOptions.facts`): its turn's best fact for the query. */
export interface FactMatch {
  factId: number;
  statement: string;
  /** Its rank among the facts the query found (1 = best). */
  rank: number;
  /** Its fused score in the facts index, times the arm's weight: the hit's score when it beat the chunk's own. */
  score: number;
}

/** Why a hit ranked where it did. */
export interface Explanation {
  lexical: ArmRank | null;
  semantic: ArmRank | null;
  /** The window-sum arm's rank and score (its summed lexical score), or null; absent when the search ran none. */
  window?: ArmRank | null;
  /** With z-score fusion: what each arm and signal added to `fused`. */
  contributions?: Contributions;
  /** When living memory's facts lifted the hit: the fact of its turn whose score beat the chunk's own. */
  fact?: FactMatch;
  /** The fused score (Reciprocal Rank Fusion, or the weighted sum of z-scores). */
  fused: number;
  /** The focus-term boost added (0 when none). */
  boost: number;
  /** The reranker's score in [0, 1], or null when no reranking happened. */
  rerank: number | null;
  /** The focus terms this chunk mentions. */
  focusMatches: string[];
}

/** A query result: the chunk, its final score and its explanation. */
export interface Hit extends Chunk {
  /** The final score: the rerank score when reranked, else fused + boost. */
  score: number;
  explanation: Explanation;
}

/** A summary of one save. */
export interface SaveSummary {
  saveId: string;
  chunks: number;
  /** How many distinct turns hold chunks. */
  turns: number;
  minTurnId: number | null;
  maxTurnId: number | null;
  version: number;
}
