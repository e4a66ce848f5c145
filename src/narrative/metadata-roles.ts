// Which chunk metadata keys tell the index who said a chunk, which scene it belongs to and when it happened.
import { MnemoError } from '../core/errors.js';
import type { Metadata } from '../core/types.js';
import { dayNumber } from '../retrieval/document-context.js';
import type { ContextFields } from '../retrieval/document-context.js';

/**
 * The metadata keys that play each context role (null: the role is not read). The search's speaker, scene and
 * time signals read them:
 * - `speaker`: who said or did the chunk, a name as the text and questions write it (`"Rowan"`);
 * - `scene`: the scene, session or chapter it belongs to, a string or a number; chunks with the same value form
 *   one scene;
 * - `time`: when it happened, an ISO 8601 date or date-time (`"2023-05-08"`, `"2023-05-08T13:56"`) or milliseconds
 *   since 1970; other values (in-world calendars) are ignored.
 */
export interface MetadataRoles {
  speaker?: string | null;
  scene?: string | null;
  time?: string | null;
}

/** The convention: `metadata.speaker`, `metadata.scene`, `metadata.time`. */
export const DEFAULT_METADATA_ROLES: Readonly<Required<MetadataRoles>> = { speaker: 'speaker', scene: 'scene', time: 'time' };

const ROLE_NAMES = ['speaker', 'scene', 'time'] as const;

/**
 * The roles given, checked (each a non-empty key of at most 64 characters, or null), gaps filled from the convention.
 *
 * @example
 * ```ts
 * resolveMetadataRoles({ scene: 'session', time: 'date_iso' }); // { speaker: 'speaker', scene: 'session', time: 'date_iso' }
 * ```
 */
export function resolveMetadataRoles(given: MetadataRoles = {}): Required<MetadataRoles> {
  const roles = { ...DEFAULT_METADATA_ROLES };
  for (const role of ROLE_NAMES) {
    const key = given[role];
    if (key === undefined) continue;
    if (key !== null && (typeof key !== 'string' || key === '' || key.length > 64)) {
      throw new MnemoError('INVALID_INPUT', `metadataRoles.${role}: expected a metadata key (a non-empty string of at most 64 characters) or null, got ${JSON.stringify(key)}.`, { details: { field: `metadataRoles.${role}` } });
    }
    roles[role] = key;
  }
  return roles;
}

/** The metadata keys a scan must read for these roles. */
export function roleKeys(roles: Required<MetadataRoles>): string[] {
  return [...new Set(ROLE_NAMES.map((role) => roles[role]).filter((key): key is string => key !== null))];
}

/**
 * A chunk's context as the index holds it, read from its metadata by role: a speaker given as a string, a scene as
 * a string or a number, a time as `dayNumber` reads it; anything else is left out.
 *
 * @example
 * ```ts
 * contextFieldsOf({ speaker: 'Rowan', scene: 3, time: '2023-05-08T13:56' }, DEFAULT_METADATA_ROLES);
 * // { speaker: 'Rowan', scene: '3', day: 19485 }
 * ```
 */
export function contextFieldsOf(metadata: Metadata | undefined, roles: Required<MetadataRoles>): ContextFields {
  if (metadata === undefined) return {};
  const fields: ContextFields = {};
  const speaker = roles.speaker === null ? undefined : metadata[roles.speaker];
  if (typeof speaker === 'string' && speaker.trim() !== '') fields.speaker = speaker;
  const scene = roles.scene === null ? undefined : metadata[roles.scene];
  if ((typeof scene === 'string' && scene !== '') || (typeof scene === 'number' && Number.isFinite(scene))) fields.scene = String(scene);
  const day = roles.time === null ? undefined : dayNumber(metadata[roles.time]);
  if (day !== undefined) fields.day = day;
  return fields;
}
