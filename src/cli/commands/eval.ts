// `mnemo eval`: measure retrieval quality on a dataset in the LoCoMo two-file format.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SingleBar } from 'cli-progress';
import { Option } from 'commander';
import type { Command } from 'commander';
import { MnemoError } from '../../core/errors.js';
import { DOCUMENT_MODES, formatMetrics, readDataset, readFacts, runEvaluation } from '../../eval/index.js';
import type { DocumentMode } from '../../eval/index.js';
import { silentLogger } from '../../core/logger.js';
import { countProbabilities, loadStaticEmbedder, readWordCounts } from '../../embedders/static/index.js';
import { openMemory } from '../../open-memory.js';
import type { Embedder } from '../../seams/embedder.js';
import { ANALYZER_LANGUAGES } from '../../retrieval/analyzer.js';
import type { AnalyzerLanguage } from '../../retrieval/analyzer.js';
import type { Output } from '../context.js';
import { databaseTarget, embedderByName, globalOptions, parseInteger, parseNumber } from '../context.js';
import { FUSION_MODES } from '../../retrieval/hybrid-search.js';
import { QUESTION_SCAFFOLDING } from '../../retrieval/question-scaffolding.js';
import type { FusionMode } from '../../retrieval/hybrid-search.js';

interface EvalFlags {
  turns: string;
  qa: string;
  doc: DocumentMode;
  k: string;
  includeAdversarial?: boolean;
  out?: string;
  json?: string;
  cap?: number;
  rrfK?: number;
  progress: boolean;
  language?: AnalyzerLanguage | 'none';
  stem: boolean;
  stopWords: boolean;
  fusion?: FusionMode;
  lexicalWeight?: number;
  semanticWeight?: number;
  neighbourWeight?: number;
  feedback?: string;
  windowSum?: string;
  speakerBoost?: number;
  sceneWeight?: number;
  timeBoost?: number;
  profileWeight?: number;
  lengthPrior?: number;
  sceneVectorWeight?: number;
  speakerSemanticWeight?: number;
  addressedNames?: number;
  sceneSpeakerFocus?: number;
  softMatch?: string;
  softTail?: string;
  adaptiveWeights?: number;
  scaffolding?: string;
  sceneDiversity?: string;
  coveragePass?: string;
  semanticNormaliser?: string;
  vectorFeedback?: string;
  entityLinks?: string;
  replyHandoff?: string;
  lengthSignal?: string;
  conversations?: string;
  facts?: string;
  factWeight?: number;
  topDirections?: number;
  wordCounts?: string;
  commonComponent?: string;
  sifSmoothing?: number;
}

/**
 * The embedder of an evaluation: the named one, or the static embedder with the static options given
 * (--top-directions, --word-counts, --common-component, --sif-smoothing).
 */
async function evalEmbedder(name: string, flags: EvalFlags): Promise<Embedder | null> {
  const { topDirections, wordCounts, commonComponent, sifSmoothing } = flags;
  if (topDirections === undefined && wordCounts === undefined && commonComponent === undefined && sifSmoothing === undefined) return embedderByName(name, silentLogger);
  if (name !== 'static') throw new MnemoError('INVALID_INPUT', `--top-directions, --word-counts, --common-component and --sif-smoothing: only the static embedder has a word table, but the embedder is ${JSON.stringify(name)}. Add --embedder static.`, { details: { field: 'embedder' } });
  if (commonComponent !== undefined && commonComponent !== 'on' && commonComponent !== 'off') throw new MnemoError('INVALID_INPUT', `--common-component: expected on or off, got ${JSON.stringify(commonComponent)}.`, { details: { field: 'commonComponent' } });
  if (sifSmoothing !== undefined && !(sifSmoothing > 0)) throw new MnemoError('INVALID_INPUT', `--sif-smoothing: expected SIF's a, a number above 0 such as 0.001, got ${sifSmoothing}.`, { details: { field: 'smoothing' } });
  const list = wordCounts === undefined ? undefined : readWordCounts(wordCounts);
  return loadStaticEmbedder({
    ...(topDirections === undefined ? {} : { topDirections }),
    ...(list === undefined ? {} : { wordProbabilities: countProbabilities(list.id, list.counts) }),
    ...(commonComponent === undefined ? {} : { removeCommonComponent: commonComponent === 'on' }),
    ...(sifSmoothing === undefined ? {} : { smoothing: sifSmoothing }),
  });
}

function parseKs(text: string): number[] {
  const ks = text.split(',').map((part) => Number(part.trim()));
  if (ks.length === 0 || ks.some((k) => !Number.isInteger(k) || k < 1 || k > 1000)) {
    throw new MnemoError('INVALID_INPUT', `--k: expected comma-separated integers from 1 to 1000 such as 5,10,20, got ${JSON.stringify(text)}.`);
  }
  return ks;
}

function parseFeedback(text: string | undefined): { documents: number; terms: number; weight: number } | undefined {
  if (text === undefined) return undefined;
  const [documents, terms, weight] = text.split(',').map(Number);
  if (![documents, terms, weight].every((value) => value !== undefined && Number.isFinite(value) && value >= 0)) {
    throw new MnemoError('INVALID_INPUT', `--feedback: expected documents,terms,weight such as 5,10,0.3, got ${JSON.stringify(text)}.`);
  }
  return { documents: documents as number, terms: terms as number, weight: weight as number };
}

function parseWindowSum(text: string | undefined): { reach: number; weight: number } | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'off') return null;
  const [reach, weight, extra] = text.split(',').map(Number);
  if (extra !== undefined || reach === undefined || weight === undefined || !Number.isInteger(reach) || reach < 0 || !Number.isFinite(weight) || weight < 0) {
    throw new MnemoError('INVALID_INPUT', `--window-sum: expected reach,weight such as 2,1 (or off), got ${JSON.stringify(text)}.`);
  }
  return { reach, weight };
}

/**
 * A `weight[,setting[,setting]]` flag (`--soft-match`, `--vector-feedback`, `--entity-links`): the weight (finite),
 * then the `settings` given, each an integer unless `integer` is false (then any finite number); null for off,
 * undefined when absent.
 */
function parseWeightAnd(text: string | undefined, flag: string, shape: string, settings: readonly { name: string; integer: boolean }[]): Record<string, number> | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'off') return null;
  const [weight, ...rest] = text.split(',').map(Number);
  const valid = (value: number, integer: boolean) => (integer ? Number.isInteger(value) : Number.isFinite(value));
  if (rest.length > settings.length || weight === undefined || !Number.isFinite(weight) || rest.some((value, index) => !valid(value, (settings[index] as { integer: boolean }).integer))) {
    throw new MnemoError('INVALID_INPUT', `${flag}: expected ${shape} (or off), got ${JSON.stringify(text)}.`);
  }
  return Object.fromEntries([['weight', weight], ...rest.map((value, index) => [(settings[index] as { name: string }).name, value])]);
}

/** `--soft-tail head[,keep]`: the aligned head and the kept head (`on` for the defaults), null for off, undefined when absent. */
function parseSoftTail(text: string | undefined): { head?: number; keep?: number } | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'off') return null;
  if (text === 'on') return {};
  const [head, keep, extra] = text.split(',').map(Number);
  if (extra !== undefined || head === undefined || !Number.isInteger(head) || (keep !== undefined && !Number.isInteger(keep))) {
    throw new MnemoError('INVALID_INPUT', `--soft-tail: expected head[,keep] such as 200,10 (or on, or off), got ${JSON.stringify(text)}.`);
  }
  return { head, ...(keep === undefined ? {} : { keep }) };
}

function parseSoftMatch(text: string | undefined): { weight: number; reach?: number; head?: number } | null | undefined {
  return parseWeightAnd(text, '--soft-match', 'weight[,reach[,head]] such as 1,2,50', [{ name: 'reach', integer: true }, { name: 'head', integer: true }]) as { weight: number; reach?: number; head?: number } | null | undefined;
}

/** A `value[,head]` flag (`--coverage-pass`, `--scene-diversity`): the number and the head, null for off, undefined when absent. */
function parseValueAndHead(text: string | undefined, flag: string, shape: string): { value: number; head?: number } | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'off') return null;
  const [value, head, extra] = text.split(',').map(Number);
  if (extra !== undefined || value === undefined || !Number.isFinite(value) || (head !== undefined && !Number.isInteger(head))) {
    throw new MnemoError('INVALID_INPUT', `${flag}: expected ${shape} (or off), got ${JSON.stringify(text)}.`);
  }
  return { value, ...(head === undefined ? {} : { head }) };
}

function parseCoveragePass(text: string | undefined): { weight: number; head?: number } | null | undefined {
  const parsed = parseValueAndHead(text, '--coverage-pass', 'weight[,head] such as 1,10');
  return parsed == null ? parsed : { weight: parsed.value, ...(parsed.head === undefined ? {} : { head: parsed.head }) };
}

function parseVectorFeedback(text: string | undefined): { weight: number; head?: number; mix?: number } | null | undefined {
  return parseWeightAnd(text, '--vector-feedback', 'weight[,head[,mix]] such as 0.5,5,1', [{ name: 'head', integer: true }, { name: 'mix', integer: false }]) as { weight: number; head?: number; mix?: number } | null | undefined;
}

function parseEntityLinks(text: string | undefined): { weight: number; head?: number; terms?: number } | null | undefined {
  return parseWeightAnd(text, '--entity-links', 'weight[,head[,terms]] such as 0.3,5,5', [{ name: 'head', integer: true }, { name: 'terms', integer: true }]) as { weight: number; head?: number; terms?: number } | null | undefined;
}

function parseReplyHandoff(text: string | undefined): { weight: number; head?: number } | null | undefined {
  const parsed = parseValueAndHead(text, '--reply-handoff', 'weight[,head] such as 0.5,50');
  return parsed == null ? parsed : { weight: parsed.value, ...(parsed.head === undefined ? {} : { head: parsed.head }) };
}

function parseLengthSignal(text: string | undefined): { weight: number; head?: number } | null | undefined {
  const parsed = parseValueAndHead(text, '--length-signal', 'weight[,head] such as 0.2,50');
  return parsed == null ? parsed : { weight: parsed.value, ...(parsed.head === undefined ? {} : { head: parsed.head }) };
}

function parseSceneDiversity(text: string | undefined): { step: number; head?: number } | null | undefined {
  const parsed = parseValueAndHead(text, '--scene-diversity', 'step[,head] such as 0.25,50');
  return parsed == null ? parsed : { step: parsed.value, ...(parsed.head === undefined ? {} : { head: parsed.head }) };
}

function parseScaffolding(text: string | undefined): readonly string[] | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'off') return null;
  if (text === 'on') return QUESTION_SCAFFOLDING;
  return text.split(',').map((word) => word.trim()).filter((word) => word !== '');
}

/** Registers `mnemo eval`. */
export function registerEval(program: Command, output: Output): void {
  program
    .command('eval')
    .description('evaluate retrieval: one save per conversation, recall@k and hit@k per category (LoCoMo format)')
    .requiredOption('--turns <file>', 'turns JSON lines {conv, id, turn, text, speaker?, date?, session?}')
    .requiredOption('--qa <file>', 'questions JSON lines {conv, qid, question, category, evidence[]}')
    .addOption(new Option('--doc <mode>', 'what is indexed per turn').choices([...DOCUMENT_MODES]).default('text'))
    .option('--k <list>', 'cut-offs', '5,10,20')
    .option('--include-adversarial', 'also score category 5 (the paper protocol)')
    .option('--facts <file>', 'facts JSON lines {conv, statement, evidence[]} stored in living memory first (the facts arm; evaluation only)')
    .option('--fact-weight <w>', 'facts arm weight (0 off)', parseNumber('factWeight'))
    .option('--conversations <ids>', 'only these conversations, comma-separated (e.g. one half of the dataset)')
    .option('--out <file>', 'write the ranking in the scorer run format {qid, ranked}')
    .option('--json <file>', 'write the metrics as JSON')
    .option('--cap <n>', 'per-arm cap before fusion (capPerSource)', parseInteger('cap'))
    .option('--rrf-k <n>', 'Reciprocal Rank Fusion constant', parseInteger('rrfK'))
    .addOption(new Option('--language <language>', 'analyzer language (stems and stop words), or none').choices(['none', ...Object.keys(ANALYZER_LANGUAGES)]))
    .option('--no-stem', 'keep words unstemmed')
    .option('--no-stop-words', 'keep stop words')
    .addOption(new Option('--fusion <mode>', 'how the arms are merged').choices([...FUSION_MODES]))
    .option('--lexical-weight <w>', 'lexical arm weight (zscore fusion)', parseNumber('lexicalWeight'))
    .option('--semantic-weight <w>', 'semantic arm weight (zscore fusion)', parseNumber('semanticWeight'))
    .option('--neighbour-weight <w>', 'neighbour context for the semantic arm', parseNumber('neighbourWeight'))
    .option('--feedback <documents,terms,weight>', 'pseudo-relevance feedback, e.g. 5,10,0.3')
    .option('--window-sum <reach,weight>', 'window-sum arm: BM25 of the chunks within reach summed, e.g. 2,1; off turns it off')
    .option('--speaker-boost <w>', 'speaker signal: added to the turns of a speaker the question names (0 off)', parseNumber('speakerBoost'))
    .option('--scene-weight <w>', 'scene signal: weight of the BM25 of the turn\'s whole session (0 off)', parseNumber('sceneWeight'))
    .option('--time-boost <w>', 'time signal: added to turns dated near a date the question names (0 off)', parseNumber('timeBoost'))
    .option('--soft-match <weight[,reach[,head]]>', 'soft word matching (static embedder): the fused top head (50, at most 200) rescored by word alignment, best of +-reach (2, at most 5); off turns it off')
    .option('--soft-tail <head[,keep]>', 'soft tail (with soft matching): the first keep hits (10) as without it, the rest reordered by soft matching over the fused top head (200, at most 200); on (200,10) by default, off turns it off')
    .option('--length-prior <w>', 'length prior: w x (log(1 + the turn\'s indexed length) - log(1 + the save\'s mean length)) added to every candidate (default 1, 0 off)', parseNumber('lengthPrior'))
    .option('--profile-weight <w>', 'speaker profile signal: weight of the BM25 of everything the turn\'s speaker said (0 off)', parseNumber('profileWeight'))
    .option('--speaker-semantic-weight <w>', 'speaker semantic part: each turn of a speaker the question names gains w x its semantic arm\'s part (default 0.5, 0 off)', parseNumber('speakerSemanticWeight'))
    .option('--addressed-names <share>', 'addressed names: a question word naming a speaker it names is left out of its lexical terms when under this share of the turns holding it are that speaker\'s (0 off)', parseNumber('addressedNames'))
    .option('--scene-speaker-focus <f>', 'scene speaker focus: when the question names a speaker, another speaker\'s turn keeps 1 - f of its scene signal\'s lift (1 by default, 0 off; at most 1)', parseNumber('sceneSpeakerFocus'))
    .option('--scene-vector-weight <w>', 'scene vector signal: weight of the query\'s cosine with the centroid of the turn\'s session (0 off)', parseNumber('sceneVectorWeight'))
    .option('--adaptive-weights <w>', 'query-adaptive weights: semantic arm and soft matching x (1 + w x (1 - lexical coverage)) (0 off)', parseNumber('adaptiveWeights'))
    .option('--scaffolding <words>', 'question scaffolding dropped from the query terms: on (the built-in English list), off, or comma-separated words')
    .option('--scene-diversity <step[,head]>', 'scene diversity: the fused top head (50, at most 200) re-picked, each further hit of a scene lowered by step; off turns it off')
    .option('--semantic-normaliser <mean|median>', 'how z-score fusion standardises the semantic arm: mean and standard deviation (default) or median and median absolute deviation')
    .option('--vector-feedback <weight[,head[,mix]]>', 'vector feedback: the query vector moved toward the centroid of the fused top head (5, at most 100) by mix (1), searched again and fused in at weight x the semantic weight; off turns it off')
    .option('--reply-handoff <weight[,head]>', 'reply handoff: each of the fused top head (50, at most 200) whose last sentence is a question loses weight, the chunk after it rises to its score; off turns it off')
    .option('--length-signal <weight[,head]>', 'length signal: each of the fused top head (50, at most 200) gains weight x the z-score over the head of the log of its indexed length; off turns it off')
    .option('--entity-links <weight[,head[,terms]]>', 'entity links: the proper nouns of the fused top head (5, at most 50) the query does not name, the terms (5) rarest, searched with BM25 and fused in at weight; off turns it off')
    .option('--coverage-pass <weight[,head]>', 'coverage pass: the query terms none of the fused top head (10, at most 200) holds searched again and fused in at weight x their idf share; off turns it off')
    .option('--top-directions <n>', 'static embedder: all-but-the-top, the word table\'s mean and top n principal directions removed from sentence vectors (0 off)', parseInteger('topDirections'))
    .option('--word-counts <file>', 'static embedder: SIF word weights from fixed counts, a JSON array of {word, count} or "word count" lines (default: GloVe\'s frequency rank)')
    .option('--common-component <on|off>', 'static embedder: remove the common component estimated from p(w) (default: on with --word-counts, off otherwise)')
    .option('--sif-smoothing <a>', 'static embedder: SIF\'s a in a / (a + p(w)) (default 0.001)', parseNumber('smoothing'))
    .option('--no-progress', 'no progress bar')
    .action(async (flags: EvalFlags, command: Command) => {
      const ks = parseKs(flags.k);
      const dataset = readDataset(flags.turns, flags.qa);
      const options = globalOptions(command);
      let root = command;
      while (root.parent) root = root.parent;
      const explicit = root.getOptionValueSource('db') !== 'default';
      const dir = explicit ? null : mkdtempSync(join(tmpdir(), 'mnemo-eval-'));
      const memory = await openMemory({ ...databaseTarget(dir === null ? options.db : join(dir, 'eval.db')), embedder: await evalEmbedder(options.embedder, flags), logger: silentLogger, analyzer: { language: flags.language, stem: flags.stem, stopWords: flags.stopWords }, neighbourWeight: flags.neighbourWeight });
      const bar = flags.progress && process.stderr.isTTY ? new SingleBar({ format: ' {phase} [{bar}] {value}/{total}', stream: process.stderr }) : null;
      let phase = '';
      try {
        const result = await runEvaluation(memory, dataset, {
          doc: flags.doc,
          ks,
          includeAdversarial: flags.includeAdversarial ?? false,
          facts: flags.facts === undefined ? undefined : readFacts(flags.facts),
          conversations: flags.conversations?.split(',').map((conv) => conv.trim()).filter((conv) => conv !== ''),
          query: { capPerSource: flags.cap, rrfK: flags.rrfK, fusion: flags.fusion, feedback: parseFeedback(flags.feedback), windowSum: parseWindowSum(flags.windowSum), speakerBoost: flags.speakerBoost, sceneWeight: flags.sceneWeight, timeBoost: flags.timeBoost, profileWeight: flags.profileWeight, lengthPrior: flags.lengthPrior, sceneVectorWeight: flags.sceneVectorWeight, speakerSemanticWeight: flags.speakerSemanticWeight, addressedNames: flags.addressedNames, sceneSpeakerFocus: flags.sceneSpeakerFocus, softMatch: parseSoftMatch(flags.softMatch), softTail: parseSoftTail(flags.softTail), adaptiveWeights: flags.adaptiveWeights, scaffolding: parseScaffolding(flags.scaffolding), sceneDiversity: parseSceneDiversity(flags.sceneDiversity), coveragePass: parseCoveragePass(flags.coveragePass), vectorFeedback: parseVectorFeedback(flags.vectorFeedback), entityLinks: parseEntityLinks(flags.entityLinks), replyHandoff: parseReplyHandoff(flags.replyHandoff), lengthSignal: parseLengthSignal(flags.lengthSignal), semanticNormaliser: flags.semanticNormaliser as 'mean' | 'median' | undefined, facts: flags.factWeight === undefined ? undefined : flags.factWeight === 0 ? null : { weight: flags.factWeight }, weights: { lexical: flags.lexicalWeight, semantic: flags.semanticWeight } },
          onProgress: (current, done, total) => {
            if (bar === null) return;
            if (current !== phase) {
              if (phase !== '') bar.stop();
              phase = current;
              bar.start(total, 0, { phase: current === 'ingest' ? 'ingesting conversations' : 'asking questions' });
            }
            bar.update(done);
          },
        });
        bar?.stop();
        const latencies = [...result.latencies].sort((a, b) => a - b);
        const p50 = latencies[Math.floor(latencies.length / 2)] ?? 0;
        output.out(`mnemo eval: embedder ${memory.embedder === null ? 'none' : `${memory.embedder.provider}/${memory.embedder.modelId}`}, doc=${flags.doc}, ${result.conversations} conversations${flags.facts === undefined ? '' : `, ${result.factsStored} facts (${result.factsSkipped} skipped)`}; scored=${result.scored} skipped=${result.skipped}; ingest ${result.ingestSeconds.toFixed(1)} s, query p50 ${p50.toFixed(2)} ms`);
        output.out(formatMetrics(result.metrics));
        if (flags.out !== undefined) writeFileSync(flags.out, result.run.map((line) => JSON.stringify(line)).join('\n') + '\n');
        if (flags.json !== undefined) writeFileSync(flags.json, JSON.stringify({ metrics: result.metrics, queryP50Ms: p50 }, null, 2) + '\n');
      } finally {
        bar?.stop();
        await memory.close();
        if (dir !== null) rmSync(dir, { recursive: true, force: true });
      }
    });
}
