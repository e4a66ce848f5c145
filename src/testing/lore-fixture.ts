// A small lore book of Orsa (the world of examples/lore) in code, with characters, for the lore contract suite.
import type { LoreEntryInput } from '../lore/lore-schema.js';

/** Entries across the four levels, with a multi-tag one (Brackwater + Lamplighters), faction-only tideline lore, and metadata (topic) on three. */
export const ORSA_LORE: readonly LoreEntryInput[] = [
  { source: 'continental.yaml', title: 'The Long Drowning', scopeLevel: 'continental', scopeTags: [], content: 'Nine hundred years ago the sea rose over the Lowmere plains and the old empire of Caddoc sank. Everyone counts the years from that winter.' },
  { source: 'continental.yaml', title: 'The Lantern Compact', scopeLevel: 'continental', scopeTags: [], content: 'The five free ports swore the Lantern Compact: each keeps a lighthouse burning for the ships of all the others.' },
  { source: 'brackwater/regional.yaml', title: 'Founding of Brackwater', scopeLevel: 'regional', scopeTags: ['brackwater'], content: 'Brackwater was founded six hundred years ago by eel fishers and salt panners where the river Sallow meets the sea.' },
  { source: 'brackwater/regional.yaml', title: 'The Salt Toll', scopeLevel: 'regional', scopeTags: ['brackwater'], content: 'Every salt barge coming down the Sallow pays the Salt Toll at the Toll Bridge, one sack in twenty.', metadata: { topic: 'trade', toll: true } },
  { source: 'brackwater/docks.yaml', title: 'The Sunken Bell', scopeLevel: 'local', scopeTags: ['brackwater_docks'], content: 'The Sunken Bell is the oldest tavern on the docks, famous for eel pie; its salvaged bell rings before every storm.' },
  { source: 'brackwater/undercroft.yaml', title: 'The drowned market', scopeLevel: 'local', scopeTags: ['brackwater_undercroft'], content: 'At every low tide a market opens in the Undercroft where stolen salt and forged tide-marks change hands.', metadata: { topic: 'trade' } },
  { source: 'highfen/regional.yaml', title: 'The Peat War', scopeLevel: 'regional', scopeTags: ['highfen'], content: 'Eighty years ago the peat clans burned the toll boats on the Sallow until Brackwater gave up its toll on peat.' },
  { source: 'factions/lamplighters.yaml', title: 'The tidelines', scopeLevel: 'faction', scopeTags: ['lamplighters'], content: 'Beneath the marshes run tidelines, currents of power along drowned river beds; where tidelines cross, flames burn without fuel.', metadata: { topic: 'magic' } },
  { source: 'factions/lamplighters.yaml', title: 'Reading the tidelines', scopeLevel: 'faction', scopeTags: ['lamplighters'], content: 'An apprentice feels a tideline by holding a moonglass shard over still water until it warms.' },
  { source: 'factions/lamplighters.yaml', title: 'The Brackwater lantern house', scopeLevel: 'faction', scopeTags: ['lamplighters', 'brackwater'], content: 'The Lamplighters founded their Brackwater chapter house two hundred years after the town was founded, drawn by tidelines under the Toll Bridge.' },
  { source: 'factions/mudlarks.yaml', title: 'Mudlark safe houses', scopeLevel: 'faction', scopeTags: ['mudlarks', 'brackwater_undercroft'], content: 'Mudlark safe houses in the Undercroft are marked by a snail shell pressed into the mortar by the door.' },
];

/** Characters of Orsa and their lore tags (zone, district, faction). */
export const ORSA_CHARACTERS = {
  /** Marta Quill, bartender of the Sunken Bell. */
  bartender: ['brackwater', 'brackwater_docks'],
  /** Magister Oriel Vance, the Lamplighters' archmage in Brackwater. */
  archmage: ['brackwater', 'brackwater_docks', 'lamplighters'],
  /** Teodor, a Lamplighter of Saltspire: the faction, but not the town. */
  saltspireLamplighter: ['saltspire', 'lamplighters'],
  /** Nell Sixpence, chief of the mudlarks. */
  mudlark: ['brackwater', 'brackwater_undercroft', 'mudlarks'],
} as const satisfies Record<string, readonly string[]>;
