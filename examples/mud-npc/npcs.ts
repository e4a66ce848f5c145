// The two NPCs of the example: the seed's bartender and archmage, as the world of Orsa (examples/lore) has them.
import { loreScopeTags } from 'mnemo-engine';

/** An NPC: who speaks, how, where it stands in the world (its lore tags) and what it says when it does not know. */
export interface Npc {
  /** The name the living layer and the prompts use. */
  character: string;
  fullName: string;
  personality: string;
  /** Its lore tags, from its zone, district and faction: lore it may not know never reaches its prompt. */
  tags: string[];
  /** Its answer when nothing it knows matches the question. */
  doesNotKnow: string;
}

export const NPCS: Record<string, Npc> = {
  marta: {
    character: 'Marta',
    fullName: 'Marta Quill, bartender of the Sunken Bell',
    personality: 'warm, gossipy, quick to pour another ale',
    tags: loreScopeTags({ zone: 'brackwater', district: 'brackwater_docks' }),
    doesNotKnow: "That's Lamplighter talk, love. Ask Magister Oriel up at the lantern house; I only pour the ale.",
  },
  oriel: {
    character: 'Oriel',
    fullName: 'Magister Oriel Vance, archmage of the Lamplighters in Brackwater',
    personality: 'scholarly, precise, a little vain',
    tags: loreScopeTags({ zone: 'brackwater', district: 'brackwater_docks', faction: 'lamplighters' }),
    doesNotKnow: 'The records of the chapter are silent on that, and I do not speculate.',
  },
};
