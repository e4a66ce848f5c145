// A scene for the context builder and the servers: Marta's tavern in Brackwater, with narrative, living memory and lore.
import { ORSA_CHARACTERS, ORSA_LORE } from '../src/testing/lore-fixture.js';
import type { Mnemo } from '../src/open-memory.js';

export const SAVE = 'run-1';
export const MARTA = 'Marta';
export const MARTA_TAGS: string[] = [...ORSA_CHARACTERS.bartender];
export const ORIEL_TAGS: string[] = [...ORSA_CHARACTERS.archmage];

/** What the scene wrote: ids to look for in contexts and responses. */
export interface Scene {
  chunkIds: string[];
  factIds: number[];
  beliefIds: number[];
  modelId: number;
}

/** Fills a memory with the scene: 12 turns of narrative (and a lore chunk), facts, beliefs, Marta's model, the Orsa lore book. */
export async function seedScene(memory: Mnemo, saveId = SAVE): Promise<Scene> {
  await memory.lore.importEntries(ORSA_LORE);
  const chunkIds: string[] = [];
  const turns = [
    'Kaël walks into the Sunken Bell and orders eel pie from Marta.',
    'Marta tells Kaël that the Salt Toll doubled this spring.',
    'Rowan the smuggler slips Marta a sack of untaxed salt.',
    'A storm rolls in; the salvaged bell of the Sunken Bell rings.',
    'Kaël asks Marta about the founding of Brackwater.',
    'Marta waters down the ale when the harbourmaster is away.',
    'Kaël pays Marta three silver for a room upstairs.',
    'Marta hides the smuggled salt under the cellar stairs.',
    'The harbourmaster Tobin Reed questions Marta about salt.',
    'Marta lies to Tobin Reed and sends him away.',
    'Kaël overhears Rowan threatening Marta over a debt.',
    'Marta asks Kaël to carry a letter to the Toll Bridge.',
  ];
  for (const [index, text] of turns.entries()) chunkIds.push(await memory.add({ saveId, turnId: index + 1, text }));
  chunkIds.push(await memory.add({ saveId, turnId: 0, text: 'The Brackwater lantern house stands over tidelines.', chunkType: 'lore' }));
  const factIds = [
    ...(await memory.store.living.insertFacts(saveId, 3, [{ statement: 'Rowan gave Marta a sack of untaxed salt.', entities: ['Rowan', 'Marta'], who: 'Rowan' }])),
    ...(await memory.store.living.insertFacts(saveId, 8, [{ statement: 'Marta hid the smuggled salt under the cellar stairs.', entities: ['Marta'], who: 'Marta' }])),
    ...(await memory.store.living.insertFacts(saveId, 10, [{ statement: 'Marta lied to the harbourmaster Tobin Reed.', entities: ['Marta', 'Tobin Reed'], who: 'Marta' }])),
    ...(await memory.store.living.insertFacts(saveId, 11, [{ statement: 'Rowan threatened Marta over a debt.', entities: ['Rowan', 'Marta'], who: 'Rowan' }])),
  ];
  const [salt, hid, lied, threat] = factIds as [number, number, number, number];
  const beliefIds = [
    (await memory.store.living.insertBelief(saveId, { statement: 'Marta deals in smuggled salt.', subject: MARTA, sources: [{ factId: salt, turnId: 3 }, { factId: hid, turnId: 8 }, { factId: lied, turnId: 10 }], createdTurnId: 3, updatedTurnId: 10 })) as number,
    (await memory.store.living.insertBelief(saveId, { statement: 'Marta fears Rowan.', subject: MARTA, sources: [{ factId: threat, turnId: 11 }], createdTurnId: 11, updatedTurnId: 11 })) as number,
    (await memory.store.living.insertBelief(saveId, { statement: 'Salt is taxed heavily in Brackwater.', subject: '', sources: [{ factId: salt, turnId: 3 }], createdTurnId: 3, updatedTurnId: 3 })) as number,
  ];
  const modelId = (await memory.store.living.upsertModel(saveId, MARTA, 'Marta runs the Sunken Bell, trades in smuggled salt and lies to the harbourmaster; she is afraid of Rowan.', 11, beliefIds.slice(0, 2))) as number;
  return { chunkIds, factIds, beliefIds, modelId };
}
