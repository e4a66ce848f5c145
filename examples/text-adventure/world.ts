// The little world of the text adventure: four places on the Brackwater docks, three things to pick up, and what each action says.

/** Where the player is and what they carry: the whole game state, saved with each checkpoint. */
export type GameState = {
  room: RoomName;
  inventory: string[];
};

export type RoomName = 'docks' | 'tavern' | 'cellar' | 'bridge';

interface Room {
  description: string;
  exits: RoomName[];
  items: string[];
}

export const ROOMS: Record<RoomName, Room> = {
  docks: { description: 'the docks of Brackwater, where eel boats knock against the piers', exits: ['tavern', 'bridge'], items: ['lantern'] },
  tavern: { description: 'the Sunken Bell, warm and loud, Marta polishing mugs behind the bar', exits: ['docks', 'cellar'], items: ['letter'] },
  cellar: { description: 'a damp cellar under the stairs, sacks of salt stacked to the ceiling', exits: ['tavern'], items: ['key'] },
  bridge: { description: 'the Toll Bridge over the Sallow, a locked toll box chained to the rail', exits: ['docks'], items: [] },
};

export const START: GameState = { room: 'docks', inventory: [] };

/** What happens when the player does something: the narrative line of the turn (null: nothing happened) and the new state. */
export function act(state: GameState, verb: string, object: string): { text: string; state: GameState } | null {
  const room = ROOMS[state.room];
  if (verb === 'look') return { text: `You look around ${room.description}. Exits: ${room.exits.join(', ')}.`, state };
  if (verb === 'go') {
    if (!(room.exits as string[]).includes(object)) return null;
    const next = object as RoomName;
    return { text: `You walk to ${ROOMS[next].description}.`, state: { ...state, room: next } };
  }
  if (verb === 'take') {
    const here = room.items.filter((item) => !state.inventory.includes(item));
    if (!here.includes(object)) return null;
    return { text: `You take the ${object} from ${state.room === 'tavern' ? 'the bar' : `the ${state.room}`}.`, state: { ...state, inventory: [...state.inventory, object] } };
  }
  if (verb === 'open' && object === 'box' && state.room === 'bridge') {
    if (!state.inventory.includes('key')) return { text: 'You rattle the toll box; it is locked.', state };
    return { text: 'You open the toll box with the cellar key: inside lies a ledger of smuggled salt, signed by Rowan.', state: { ...state, inventory: [...state.inventory, 'ledger'] } };
  }
  return null;
}
