// What a corpus index knows of each document's context: who said it, which scene it belongs to, which day it happened on.
import { grow, reserve } from './grow.js';
import { readWidened, writeNarrowest } from './narrow-integers.js';
import { SnapshotRejected } from './snapshot-format.js';
import type { SnapshotReader, SnapshotWriter } from './snapshot-format.js';
import { tokenize } from './tokenize.js';

/** A document's context, as the index reads it (from a chunk's metadata, see `MetadataRoles`). */
export interface ContextFields {
  /** Who said or did it (a character's name). */
  speaker?: string;
  /** The scene, session or chapter it belongs to (any label: documents with the same one form a scene). */
  scene?: string;
  /** The calendar day it happened on, as days since 1970-01-01 (see `dayNumber`). */
  day?: number;
}

/**
 * Per-slot speaker, scene and day of a corpus's documents, with each scene's live size and length (for a BM25 over
 * scenes). Ids are small integers (0: none), so the per-slot data are plain typed arrays. Kept in step with adds
 * and removals by the corpus index.
 *
 * @example
 * ```ts
 * const context = new DocumentContext();
 * context.set(0, { speaker: 'Rowan', scene: 'mill', day: 19500 }, 12);
 * context.speakersNamedIn(new Set(['rowan', 'mill'])); // Set { 1 }
 * ```
 */
export class DocumentContext {
  private speakerIds = new Int32Array(64);
  private sceneIds = new Int32Array(64);
  private days = new Float64Array(64);
  private readonly speakerNames = new Map<string, number>();
  /** Each speaker's name as tokens (index = speaker id - 1). */
  private readonly speakerTokens: string[][] = [];
  private readonly sceneNames = new Map<string, number>();
  private readonly speakerNameList: string[] = [];
  private readonly sceneNameList: string[] = [];
  /** Per scene id: live documents, their total length in terms. */
  private sceneMembers = new Int32Array(16);
  private sceneLengths = new Float64Array(16);
  private liveSceneCount = 0;
  private totalSceneLength = 0;
  private daysHeld = 0;

  /** Makes room for `slots` documents at once. */
  reserve(slots: number): void {
    this.speakerIds = reserve(this.speakerIds, slots);
    this.sceneIds = reserve(this.sceneIds, slots);
    this.days = reserve(this.days, slots);
  }

  /** Records a new document's context; `length` is its length in index terms. */
  set(slot: number, fields: ContextFields, length: number): void {
    this.speakerIds = grow(this.speakerIds, slot + 1);
    this.sceneIds = grow(this.sceneIds, slot + 1);
    this.days = grow(this.days, slot + 1);
    this.speakerIds[slot] = fields.speaker === undefined || fields.speaker === '' ? 0 : this.speakerId(fields.speaker);
    const scene = fields.scene === undefined || fields.scene === '' ? 0 : this.sceneId(fields.scene);
    this.sceneIds[slot] = scene;
    if (scene > 0) this.joinScene(scene, length, 1);
    const day = fields.day ?? Number.NaN;
    this.days[slot] = day;
    if (!Number.isNaN(day)) this.daysHeld++;
  }

  /** Forgets a removed document (`length`: its length in index terms, as given to `set`). */
  remove(slot: number, length: number): void {
    const scene = this.sceneIds[slot] ?? 0;
    if (scene > 0) this.joinScene(scene, -length, -1);
    if (!Number.isNaN(this.days[slot] ?? Number.NaN)) this.daysHeld--;
    this.speakerIds[slot] = 0;
    this.sceneIds[slot] = 0;
    this.days[slot] = Number.NaN;
  }

  private joinScene(scene: number, length: number, members: number): void {
    const before = this.sceneMembers[scene] as number;
    this.sceneMembers[scene] = before + members;
    this.sceneLengths[scene] = (this.sceneLengths[scene] as number) + length;
    this.totalSceneLength += length;
    if (before === 0 && members > 0) this.liveSceneCount++;
    if (before + members === 0) this.liveSceneCount--;
  }

  private speakerId(name: string): number {
    let id = this.speakerNames.get(name);
    if (id === undefined) {
      id = this.speakerNames.size + 1;
      this.speakerNames.set(name, id);
      this.speakerNameList.push(name);
      this.speakerTokens.push(tokenize(name));
    }
    return id;
  }

  private sceneId(name: string): number {
    let id = this.sceneNames.get(name);
    if (id === undefined) {
      id = this.sceneNames.size + 1;
      this.sceneNames.set(name, id);
      this.sceneNameList.push(name);
      this.sceneMembers = grow(this.sceneMembers, id + 1);
      this.sceneLengths = grow(this.sceneLengths, id + 1);
    }
    return id;
  }

  /** A slot's context as `set` was given it (names, not ids). */
  fieldsOf(slot: number): ContextFields {
    const fields: ContextFields = {};
    const speaker = this.speakerOf(slot);
    if (speaker > 0) fields.speaker = this.speakerList()[speaker - 1];
    const scene = this.sceneOf(slot);
    if (scene > 0) fields.scene = this.sceneList()[scene - 1];
    const day = this.dayOf(slot);
    if (!Number.isNaN(day)) fields.day = day;
    return fields;
  }

  /** The names by id - 1. */
  private speakerList(): readonly string[] {
    return this.speakerNameList;
  }

  private sceneList(): readonly string[] {
    return this.sceneNameList;
  }

  /** Writes the per-slot ids and days and the names (see IndexSnapshot); the per-scene sums are derived on reading. */
  writeState(writer: SnapshotWriter, prefix: string, slots: number): void {
    this.speakerIds = grow(this.speakerIds, slots);
    this.sceneIds = grow(this.sceneIds, slots);
    this.days = grow(this.days, slots);
    writeNarrowest(writer, `${prefix}.speakers`, this.speakerIds.subarray(0, slots));
    writeNarrowest(writer, `${prefix}.scenes`, this.sceneIds.subarray(0, slots));
    writeNarrowest(writer, `${prefix}.days`, this.days.subarray(0, slots));
    writer.strings(`${prefix}.speakerNames`, [...this.speakerList()]);
    writer.strings(`${prefix}.sceneNames`, [...this.sceneList()]);
  }

  /**
   * Reads what `writeState` wrote into this (empty) context; `alive` flags the live slots (1) and `lengths` gives
   * each slot's length in terms, from which the scenes' sizes and lengths are summed again. The per-slot arrays view
   * the snapshot's bytes (a removed slot's entries are cleared in place, as `remove` leaves them).
   */
  readState(reader: SnapshotReader, prefix: string, slots: number, alive: Uint8Array, lengths: Int32Array): void {
    const speakers = readWidened(reader, `${prefix}.speakers`, 'i32');
    const scenes = readWidened(reader, `${prefix}.scenes`, 'i32');
    const days = readWidened(reader, `${prefix}.days`, 'f64');
    if (speakers.length !== slots || scenes.length !== slots || days.length !== slots) throw new SnapshotRejected('context sections disagree with the ids');
    for (const name of reader.strings(`${prefix}.speakerNames`)) this.speakerId(name);
    for (const name of reader.strings(`${prefix}.sceneNames`)) this.sceneId(name);
    const speakerCount = this.speakerNameList.length;
    const sceneCount = this.sceneNameList.length;
    let daysHeld = 0;
    for (let slot = 0; slot < slots; slot++) {
      if (alive[slot] !== 1) {
        speakers[slot] = 0;
        scenes[slot] = 0;
        days[slot] = Number.NaN;
        continue;
      }
      const speaker = speakers[slot] as number;
      const scene = scenes[slot] as number;
      if (speaker < 0 || speaker > speakerCount || scene < 0 || scene > sceneCount) throw new SnapshotRejected('context ids out of range');
      if (scene > 0) this.joinScene(scene, lengths[slot] as number, 1);
      if (!Number.isNaN(days[slot] as number)) daysHeld++;
    }
    this.daysHeld += daysHeld;
    this.speakerIds = speakers;
    this.sceneIds = scenes;
    this.days = days;
  }

  /** The speaker id of a slot (0: none). */
  speakerOf(slot: number): number {
    return this.speakerIds[slot] ?? 0;
  }

  /** The scene id of a slot (0: none). */
  sceneOf(slot: number): number {
    return this.sceneIds[slot] ?? 0;
  }

  /** The day of a slot (NaN: none). */
  dayOf(slot: number): number {
    return this.days[slot] ?? Number.NaN;
  }

  /** True when some live document has a day. */
  get hasDays(): boolean {
    return this.daysHeld > 0;
  }

  /**
   * The speakers a query names: those every word of whose name is among the query's tokens (lowercased, as
   * `tokenize` makes them). O(speakers).
   */
  speakersNamedIn(queryTokens: ReadonlySet<string>): Set<number> {
    const named = new Set<number>();
    this.speakerTokens.forEach((tokens, index) => {
      if (tokens.length > 0 && tokens.every((token) => queryTokens.has(token))) named.add(index + 1);
    });
    return named;
  }

  /**
   * The query's tokens that name a speaker: the words of each speaker `speakersNamedIn` finds. O(speakers).
   *
   * @example
   * ```ts
   * context.speakerWordsIn(new Set(['what', 'did', 'rowan', 'bake'])); // Set { 'rowan' } when Rowan speaks
   * ```
   */
  speakerWordsIn(queryTokens: ReadonlySet<string>): Set<string> {
    const words = new Set<string>();
    for (const speaker of this.speakersNamedIn(queryTokens)) for (const token of this.speakerTokens[speaker - 1] ?? []) words.add(token);
    return words;
  }

  /** How many speaker ids exist (live or not), plus one: the size of a per-speaker array. */
  get speakerSlots(): number {
    return this.speakerNames.size + 1;
  }

  /** How many scene ids exist (live or not), plus one: the size of a per-scene array. */
  get sceneSlots(): number {
    return this.sceneNames.size + 1;
  }

  /** Scenes with at least one live document. */
  get liveScenes(): number {
    return this.liveSceneCount;
  }

  /** The mean length of a live scene in terms. */
  get averageSceneLength(): number {
    return this.liveSceneCount === 0 ? 0 : this.totalSceneLength / this.liveSceneCount;
  }

  /** A scene's live documents. */
  membersOf(scene: number): number {
    return this.sceneMembers[scene] ?? 0;
  }

  /** A scene's length in terms (the sum of its live documents'). */
  lengthOf(scene: number): number {
    return this.sceneLengths[scene] ?? 0;
  }
}

/**
 * The calendar day of a time as a chunk stores it: an ISO 8601 date or date-time string (`2023-05-08`,
 * `2023-05-08T13:56`; the date as written, whatever the zone) or a number of milliseconds since 1970 (UTC). Days
 * count from 1970-01-01. Anything else (free text such as "the third day of Frostmoon") has no day: undefined.
 *
 * @example
 * ```ts
 * dayNumber('1970-01-02T08:00'); // 1
 * dayNumber('yesterday'); // undefined
 * ```
 */
export function dayNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.floor(value / 86_400_000) : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^([+-]?\d{4,6})-(\d{2})-(\d{2})(?:$|[T ])/.exec(value.trim());
  if (match === null) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  return Date.UTC(year, month - 1, day) / 86_400_000;
}
