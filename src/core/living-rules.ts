// The deterministic rules of living memory, shared by every store adapter: normalising facts, applying belief
// changes, and rolling beliefs and models back to a turn. Pure functions: no I/O, inputs never mutated.
import type { Belief, BeliefChange, BeliefInput, BeliefSource, ConsolidationAction, Fact, FactInput, LivingJob, MentalModel } from './living-types.js';

/** The key names are compared by: NFC, trimmed, lowercased (Unicode-aware, so "KAËL" matches "Kaël"). */
export function nameKey(name: string): string {
  return name.normalize('NFC').trim().toLowerCase();
}

/** A belief source as stored: with the turn of the pass that attached it, so a rewind can detach it exactly. */
export interface StoredSource extends BeliefSource {
  addedTurnId: number;
}

/**
 * A belief as adapters store it (the public Belief plus what exact rollback needs). Invariant kept by every rule
 * here: `updatedTurnId` is at least the turn of every change, attached source and DELETE, so "changed after N" is
 * exactly `updatedTurnId > N` (adapters index it).
 */
export interface BeliefRecord extends Omit<Belief, 'sources' | 'proofCount'> {
  beliefId: number | null;
  sources: StoredSource[];
}

/** A version of a mental model: what the summary was after the refresh at `turnId`. */
export interface ModelVersion {
  turnId: number;
  summary: string;
  sources: number[];
}

/** A stored version of a mental model. */
export interface StoredModelVersion extends ModelVersion {
  modelId: number;
}

/** Every living row of one save, each list in the order its rows were stored (ids ascending; versions as stored). */
export interface LivingSaveLayer {
  facts: Fact[];
  beliefs: BeliefRecord[];
  models: MentalModel[];
  versions: StoredModelVersion[];
  jobs: LivingJob[];
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** The documented fact types (docs/living-memory.md); any other is stored as the first, `world`. */
export const FACT_TYPES = ['world', 'experience', 'opinion'] as const;
const factTypes: ReadonlySet<string> = new Set(FACT_TYPES);

/** Distinct non-empty names, first spelling kept, compared with nameKey. */
export function distinctNames(names: readonly unknown[]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const name of names) {
    const value = text(name);
    if (value === '' || seen.has(nameKey(value))) continue;
    seen.add(nameKey(value));
    result.push(value);
  }
  return result;
}

/**
 * A fact with every field filled: strings trimmed, `factType` lowercased and one of FACT_TYPES (`world` when
 * absent or any other value), entities distinct.
 * Returns null when the statement is blank (an extractor that found nothing must not write blank rows).
 *
 * @example
 * ```ts
 * normalizeFact({ statement: ' Kaël owns a key. ', entities: ['Kaël', 'kaël'] }, 3);
 * // { factId: null, turnId: 3, statement: 'Kaël owns a key.', factType: 'world', ..., entities: ['Kaël'] }
 * ```
 */
export function normalizeFact(input: FactInput, turnId: number | null): Fact | null {
  const statement = text(input?.statement);
  if (statement === '') return null;
  const factType = text(input.factType).toLowerCase();
  return {
    factId: null,
    turnId,
    statement,
    factType: factTypes.has(factType) ? factType : 'world',
    who: text(input.who),
    what: text(input.what),
    when: text(input.when),
    where: text(input.where),
    why: text(input.why),
    entities: distinctNames(Array.isArray(input.entities) ? input.entities : []),
  };
}

/** The public view of a stored belief: proofCount derived from the sources, which lose their internal turn. */
export function toBelief(record: BeliefRecord): Belief {
  return {
    beliefId: record.beliefId,
    statement: record.statement,
    subject: record.subject,
    proofCount: record.sources.length,
    sources: record.sources.map(({ factId, turnId }) => ({ factId, turnId })),
    history: record.history.map((change) => ({ ...change, factIds: [...change.factIds] })),
    createdTurnId: record.createdTurnId,
    updatedTurnId: record.updatedTurnId,
    stale: record.stale,
    deletedTurnId: record.deletedTurnId,
  };
}

/** The latest of `turnId` and the turns at which `sources` were attached (keeps the BeliefRecord invariant). */
function latestTurn(turnId: number, sources: readonly StoredSource[]): number {
  return sources.reduce((latest, source) => Math.max(latest, source.addedTurnId), turnId);
}

/** New sources for `factIds`: known facts only (the map gives their turn), none already held, each once. */
function newSources(factIds: readonly number[], factTurnMap: ReadonlyMap<number, number>, held: readonly StoredSource[], turnId: number): StoredSource[] {
  const seen = new Set(held.map((source) => source.factId));
  const added: StoredSource[] = [];
  for (const factId of factIds) {
    const factTurn = factTurnMap.get(factId);
    if (factTurn === undefined || seen.has(factId)) continue;
    seen.add(factId);
    added.push({ factId, turnId: factTurn, addedTurnId: Math.max(turnId, factTurn) });
  }
  return added;
}

/**
 * A new belief from a CREATE action at `turnId`, or null (the action is skipped) when its statement is blank or
 * none of its cited facts is known (in `factTurnMap`): a belief rests on at least one known fact.
 *
 * @example
 * ```ts
 * createBelief({ kind: 'CREATE', statement: 'Rowan distrusts Kaël.', subject: 'Rowan', beliefId: null, sourceFactIds: [4] }, 9, new Map([[4, 9]]));
 * ```
 */
export function createBelief(action: ConsolidationAction, turnId: number, factTurnMap: ReadonlyMap<number, number>): BeliefRecord | null {
  const statement = text(action.statement);
  if (statement === '') return null;
  const subject = text(action.subject);
  const sources = newSources(action.sourceFactIds, factTurnMap, [], turnId);
  if (sources.length === 0) return null;
  return {
    beliefId: null,
    statement,
    subject,
    sources,
    history: [{ action: 'CREATE', turnId, statement, subject, factIds: sources.map((source) => source.factId) }],
    createdTurnId: turnId,
    updatedTurnId: latestTurn(turnId, sources),
    stale: false,
    deletedTurnId: null,
  };
}

/**
 * The belief after an UPDATE at `turnId`: new statement, new sources appended, stale cleared. The subject stays
 * (one facet per belief). Null (the action is skipped) when the statement is blank, the belief is deleted, or it
 * would rest on no known fact (it had no source and the action cites none known).
 */
export function updateBelief(record: BeliefRecord, action: ConsolidationAction, turnId: number, factTurnMap: ReadonlyMap<number, number>): BeliefRecord | null {
  const statement = text(action.statement);
  if (statement === '' || record.deletedTurnId !== null) return null;
  const added = newSources(action.sourceFactIds, factTurnMap, record.sources, turnId);
  if (record.sources.length + added.length === 0) return null;
  return {
    ...record,
    statement,
    sources: [...record.sources, ...added],
    history: [...record.history, { action: 'UPDATE', turnId, statement, subject: record.subject, factIds: added.map((source) => source.factId) }],
    updatedTurnId: latestTurn(turnId, added),
    stale: false,
  };
}

/** The belief after a DELETE at `turnId` (kept as a row so a rewind can restore it), or null if already deleted. */
export function deleteBelief(record: BeliefRecord, turnId: number): BeliefRecord | null {
  if (record.deletedTurnId !== null) return null;
  return {
    ...record,
    history: [...record.history, { action: 'DELETE', turnId, statement: record.statement, subject: record.subject, factIds: [] }],
    updatedTurnId: Math.max(turnId, record.updatedTurnId),
    deletedTurnId: turnId,
  };
}

/**
 * A belief from `insertBelief` input, or null when the statement is blank. Sources are de-duplicated; with no
 * history, a CREATE at `createdTurnId` is recorded.
 */
export function beliefFromInput(input: BeliefInput): BeliefRecord | null {
  const statement = text(input?.statement);
  if (statement === '') return null;
  const subject = text(input.subject);
  const createdTurnId = input.createdTurnId ?? 0;
  const seen = new Set<number>();
  const sources: StoredSource[] = [];
  for (const source of input.sources ?? []) {
    if (seen.has(source.factId)) continue;
    seen.add(source.factId);
    sources.push({ factId: source.factId, turnId: source.turnId, addedTurnId: Math.max(createdTurnId, source.turnId) });
  }
  const history: BeliefChange[] = input.history !== undefined && input.history.length > 0
    ? input.history.map((change) => ({ ...change, factIds: [...change.factIds] }))
    : [{ action: 'CREATE', turnId: createdTurnId, statement, subject, factIds: sources.map((source) => source.factId) }];
  return {
    beliefId: null,
    statement,
    subject,
    sources,
    history,
    createdTurnId,
    updatedTurnId: Math.max(createdTurnId, input.updatedTurnId ?? createdTurnId, ...history.map((change) => change.turnId), ...sources.map((source) => source.addedTurnId)),
    stale: input.stale ?? false,
    deletedTurnId: null,
  };
}

/**
 * A belief as it stood at turn `target` (the rollback rule):
 * - created after `target`: it did not exist yet, so null (delete it);
 * - else its sources keep only those from turns <= target attached at turns <= target (proofCount follows),
 *   changes after `target` are undone from the history (statement, subject and a later DELETE restored),
 *   updatedTurnId becomes the turn of its last surviving change (so <= target), and if anything changed it is
 *   flagged stale for the next consolidation pass.
 */
export function rewindBelief(record: BeliefRecord, target: number): { record: BeliefRecord | null; changed: boolean } {
  if (record.createdTurnId > target) return { record: null, changed: true };
  const sources = record.sources.filter((source) => source.turnId <= target && source.addedTurnId <= target);
  const history = record.history.filter((change) => change.turnId <= target);
  let { statement, subject, deletedTurnId, updatedTurnId } = record;
  const last = history[history.length - 1];
  if (history.length < record.history.length && last !== undefined) {
    statement = last.statement;
    subject = last.subject;
    deletedTurnId = last.action === 'DELETE' ? last.turnId : null;
    updatedTurnId = latestTurn(last.turnId, sources);
  } else {
    if (deletedTurnId !== null && deletedTurnId > target) deletedTurnId = null;
    updatedTurnId = Math.min(updatedTurnId, target);
  }
  const changed = sources.length !== record.sources.length || history.length !== record.history.length
    || statement !== record.statement || subject !== record.subject || deletedTurnId !== record.deletedTurnId || updatedTurnId !== record.updatedTurnId;
  if (!changed) return { record, changed: false };
  return { record: { ...record, sources, history, statement, subject, deletedTurnId, updatedTurnId, stale: true }, changed: true };
}

/**
 * A belief after the facts of turn `turnId` were re-extracted (the removed ones are `factIds`), or `undefined` when
 * it is not concerned (it neither cites them nor changed at that turn):
 * - if nothing after that turn changed it, the turn's changes are undone (as a rewind to the turn before would);
 *   null when the turn created it;
 * - else it only loses the sources citing the removed facts, and is flagged stale.
 */
export function reextractBelief(record: BeliefRecord, turnId: number, factIds: ReadonlySet<number>): BeliefRecord | null | undefined {
  const cites = record.sources.some((source) => factIds.has(source.factId));
  const lastChange = Math.max(record.updatedTurnId, ...record.history.map((change) => change.turnId));
  if (!cites && lastChange !== turnId) return undefined;
  if (lastChange <= turnId) {
    const { record: undone } = rewindBelief(record, turnId - 1);
    if (undone === null) return null;
    return { ...undone, sources: undone.sources.filter((source) => !factIds.has(source.factId)), stale: true };
  }
  return { ...record, sources: record.sources.filter((source) => !factIds.has(source.factId)), stale: true };
}

/**
 * A mental model as it stood at turn `target`: null if created later; unchanged if last refreshed by then; else
 * restored from `version` (its latest version at or before `target`), updatedTurnId clamped, flagged stale.
 */
export function rewindModel(model: MentalModel, version: ModelVersion | null, target: number): { model: MentalModel | null; changed: boolean } {
  if (model.createdTurnId > target) return { model: null, changed: true };
  if (model.updatedTurnId <= target) return { model, changed: false };
  const restored = version === null
    ? { ...model, updatedTurnId: target, stale: true }
    : { ...model, summary: version.summary, sources: [...version.sources], updatedTurnId: version.turnId, stale: true };
  return { model: restored, changed: true };
}
