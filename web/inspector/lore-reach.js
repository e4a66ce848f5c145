// The lore access rule, in the page: continental entries reach everyone; any other needs every one of its tags.

/** `{ reachable, missing }` for an entry and a character's tags (the same AND rule as src/core/lore-access.ts). */
export function reach(entry, heldTags) {
  if (entry.scopeLevel === 'continental') return { reachable: true, missing: [] };
  const held = new Set(heldTags);
  const missing = entry.scopeTags.filter((tag) => !held.has(tag));
  return { reachable: missing.length === 0, missing };
}

/** The scope levels, widest first. */
export const SCOPE_LEVELS = ['continental', 'regional', 'local', 'faction'];
