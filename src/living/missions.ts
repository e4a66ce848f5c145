// Belief missions: the world's default memory style and per-character ones ("Rowan: remembers every debt"),
// stored with the world in the store's meta table and read tolerantly.
import { nameKey } from '../core/living-rules.js';
import type { Store } from '../seams/store.js';

/** Meta key of the world-wide default mission. */
export const UNIVERSE_MISSION_KEY = 'living.belief_mission';
/** Meta key of the per-character missions, a JSON object { name: mission }. */
export const BELIEF_MISSIONS_KEY = 'living.belief_missions';

/** Per-character missions, keyed by the character's name as written. */
export type BeliefMissions = Record<string, string>;

/**
 * Reads a stored missions value. Blank or malformed JSON, non-objects, and entries that are not non-empty
 * strings are dropped rather than raised.
 *
 * @example
 * ```ts
 * beliefMissionsFromValue('{"Rowan": "remembers every debt", "Bad": 3}'); // { Rowan: 'remembers every debt' }
 * beliefMissionsFromValue('not json');                                    // {}
 * ```
 */
export function beliefMissionsFromValue(raw: string | null | undefined): BeliefMissions {
  if (typeof raw !== 'string' || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return {};
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const missions: BeliefMissions = {};
  for (const [name, mission] of Object.entries(parsed)) {
    if (typeof mission === 'string' && name.trim() !== '' && mission.trim() !== '') missions[name.trim()] = mission.trim();
  }
  return missions;
}

/**
 * Parses one "Name: mission" per line. The first colon splits (a mission may hold colons); lines without a colon,
 * or with an empty name or mission, are dropped. A later line for the same name wins.
 *
 * @example
 * ```ts
 * parseMissionsText('Rowan: remembers debts\n\nMira: notes: everything\nno colon here');
 * // { Rowan: 'remembers debts', Mira: 'notes: everything' }
 * ```
 */
export function parseMissionsText(text: string): BeliefMissions {
  const missions: BeliefMissions = {};
  for (const line of (typeof text === 'string' ? text : '').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const mission = line.slice(colon + 1).trim();
    if (name !== '' && mission !== '') missions[name] = mission;
  }
  return missions;
}

/**
 * The lines of a missions text that parseMissionsText would drop: not blank, and not "Name: mission" with both
 * parts non-empty. The CLI refuses a text holding any, rather than silently setting fewer missions.
 *
 * @example
 * ```ts
 * malformedMissionLines('Rowan: remembers debts\nMarta remembers gossip'); // ['Marta remembers gossip']
 * ```
 */
export function malformedMissionLines(text: string): string[] {
  return text.split(/\r?\n/).filter((line) => {
    if (line.trim() === '') return false;
    const colon = line.indexOf(':');
    return colon < 0 || line.slice(0, colon).trim() === '' || line.slice(colon + 1).trim() === '';
  });
}

/**
 * The inverse of parseMissionsText: one "Name: mission" line per character, in the object's order.
 *
 * @example
 * ```ts
 * missionsToText({ Rowan: 'remembers debts' }); // 'Rowan: remembers debts'
 * ```
 */
export function missionsToText(missions: BeliefMissions): string {
  return Object.entries(missions).map(([name, mission]) => `${name}: ${mission}`).join('\n');
}

/**
 * The mission of `name` (case-insensitive), or undefined.
 *
 * @example
 * ```ts
 * missionFor({ Kaël: 'Find the iron key.' }, 'kaël'); // 'Find the iron key.'
 * ```
 */
export function missionFor(missions: BeliefMissions, name: string): string | undefined {
  const key = nameKey(name);
  for (const [candidate, mission] of Object.entries(missions)) if (nameKey(candidate) === key) return mission;
  return undefined;
}

/**
 * The world-wide default mission ("" when unset).
 *
 * @example
 * ```ts
 * const mission = await getUniverseMission(memory.store); // '' when none is set
 * ```
 */
export async function getUniverseMission(store: Store): Promise<string> {
  return ((await store.getMeta(UNIVERSE_MISSION_KEY)) ?? '').trim();
}

/**
 * Sets the world-wide default mission ("" clears it).
 *
 * @example
 * ```ts
 * await setUniverseMission(memory.store, 'Track who owes whom.');
 * ```
 */
export async function setUniverseMission(store: Store, mission: string): Promise<void> {
  await store.setMeta(UNIVERSE_MISSION_KEY, String(mission ?? '').trim());
}

/**
 * The per-character missions ({} when unset or unreadable).
 *
 * @example
 * ```ts
 * const missions = await getBeliefMissions(memory.store); // e.g. { Kaël: 'Find the iron key.' }
 * ```
 */
export async function getBeliefMissions(store: Store): Promise<BeliefMissions> {
  return beliefMissionsFromValue(await store.getMeta(BELIEF_MISSIONS_KEY));
}

/**
 * Replaces the per-character missions (unusable entries dropped).
 *
 * @example
 * ```ts
 * await setBeliefMissions(memory.store, { Kaël: 'Find the iron key.', Mira: 'Keep the forge lit.' });
 * ```
 */
export async function setBeliefMissions(store: Store, missions: BeliefMissions): Promise<void> {
  await store.setMeta(BELIEF_MISSIONS_KEY, JSON.stringify(beliefMissionsFromValue(JSON.stringify(missions ?? {}))));
}
