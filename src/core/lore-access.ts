// The lore access rule, shared by every store and the search index: continental for all, otherwise every tag held.

/**
 * True when a character holding `heldTags` may know an entry: continental entries reach everyone; any other
 * entry needs every one of its tags to be held (AND, not OR). An entry tagged ["brackwater", "lamplighters"]
 * is hidden from a Brackwater bartender and from a Lamplighter elsewhere.
 *
 * @example
 * ```ts
 * loreAccessible('faction', ['brackwater', 'lamplighters'], new Set(['brackwater'])); // false
 * loreAccessible('continental', [], new Set()); // true
 * ```
 */
export function loreAccessible(scopeLevel: string, scopeTags: readonly string[], heldTags: ReadonlySet<string>): boolean {
  return scopeLevel === 'continental' || scopeTags.every((tag) => heldTags.has(tag));
}
