// The MCP server's instructions: how its tools fit together, sent to the client at initialize for the model to read.

/** What a model is told about Mnemo's tools when a client connects (the MCP `instructions`). */
export const MCP_INSTRUCTIONS = [
  'Mnemo is the memory of a game, a story or an agent run.',
  'A save (saveId) is one timeline: its text is stored turn by turn (turnId 0, 1, 2, ...). add_memory writes a turn; query_memory searches it by words and meaning; pass currentTurnId so nothing later comes back. list_saves shows the saves you may use.',
  'rewind deletes everything of a save after a turn, in every layer, for good (use it when the player loads an earlier point). fork_save copies a save as of a turn into a new save and leaves the old one as it was (a "save as" or a branch). export_save gives a save as one file; import_save brings such a file into a new save. delete_save removes a whole save, every layer, for good (export_save first to keep a copy); delete_chunks removes chunks by id or entryId.',
  'Living memory distils turns in the background: list_facts (what happened), list_beliefs (durable beliefs with a trend), list_mental_models (one profile per character).',
  'Lore is world knowledge shared by every save. A character may know continental lore and the entries whose every tag it holds: always pass its tags (zone, district, faction) to lore_search and build_context; [] means continental lore only.',
  'build_context assembles one character\'s prompt context (who it is now, beliefs, facts, lore it may know, memories) within a token budget.',
  'remember and recall keep JSON values under keys in named scopes, apart from saves.',
  'Results are compact text, one line per item with a short id (the first 8 characters); the structured result has the full records. Pass scores: true to see why each hit ranked.',
].join('\n');
