// The text adventure's loop: each action is a turn in Mnemo; "save" keeps a checkpoint, "load" rewinds to it, "save as" forks a new slot.
import type { Mnemo } from 'mnemo-engine';
import { act, START } from './world.js';
import type { GameState } from './world.js';

/** A save slot's checkpoint, kept with remember / recall under the key `checkpoint` in the slot's scope. */
type Checkpoint = {
  turn: number;
  state: GameState;
};

const OPENING = 'You wake on the docks of Brackwater with salt in your hair and no coin in your purse.';
const HELP = 'Commands: look, go <place>, take <thing>, open box, recall <words>, save, load, save as <slot>, slots, switch <slot>, help, quit.';

/**
 * Plays the adventure: reads commands from `commands`, writes what happens with `print`. Slot `slot-1` is played
 * first (or, in a database played before, resumed at its last save). Every action is one turn, stored as a narrative chunk.
 */
export async function playAdventure(memory: Mnemo, commands: AsyncIterable<string>, print: (line: string) => void): Promise<void> {
  let slot = 'slot-1';
  let turn = 0;
  let state: GameState = START;

  const record = async (text: string) => {
    turn += 1;
    await memory.add({ saveId: slot, turnId: turn, text });
  };
  const checkpoint = async (saveId: string): Promise<Checkpoint | null> => (await memory.recall.get('checkpoint', saveId))?.value as Checkpoint | null ?? null;
  const keep = async (saveId: string) => {
    const value: Checkpoint = { turn, state };
    await memory.recall.store('checkpoint', value, { scope: saveId });
  };
  const restore = async (saveId: string): Promise<string> => {
    const saved = await checkpoint(saveId);
    if (saved === null) return `${saveId} has no save yet.`;
    const forgotten = await memory.rewind(saveId, saved.turn);
    slot = saveId;
    turn = saved.turn;
    state = saved.state;
    return `Loaded ${slot} at turn ${turn}${forgotten > 0 ? ` (${forgotten} later turn${forgotten === 1 ? '' : 's'} forgotten)` : ''}. You are at the ${state.room}.`;
  };

  if ((await checkpoint(slot)) !== null) print(await restore(slot)); // a database played before: go on from its save
  else {
    await memory.add({ saveId: slot, turnId: 0, text: OPENING });
    await keep(slot);
    print(OPENING);
  }
  print(HELP);
  for await (const line of commands) {
    const command = line.trim().replace(/\s+/gu, ' ');
    if (command === '') continue;
    print(`> ${command}`);
    const [verb = '', ...rest] = command.toLowerCase().split(' ');
    const object = rest.join(' ');
    if (verb === 'quit') break;
    if (verb === 'help') print(HELP);
    else if (verb === 'save' && object === '') {
      await keep(slot);
      print(`Saved ${slot} at turn ${turn}.`);
    } else if (verb === 'save' && rest[0] === 'as' && rest[1] !== undefined) {
      const name = rest.slice(1).join('-');
      if ((await memory.count(name)) > 0) print(`${name} is taken; pick another name.`);
      else {
        await memory.fork(slot, name, turn);
        print(`Saved as ${name} at turn ${turn}; ${slot} keeps its own story. Now playing ${name}.`);
        slot = name;
        await keep(slot);
      }
    } else if (verb === 'load') print(await restore(slot));
    else if (verb === 'switch' && object !== '') print(await restore(object));
    else if (verb === 'slots') {
      for (const save of await memory.listSaves()) print(`${save.saveId === slot ? '*' : ' '} ${save.saveId}: turns 0-${save.maxTurnId}, saved at turn ${(await checkpoint(save.saveId))?.turn ?? '-'}`);
    } else if (verb === 'recall' && object !== '') {
      const hits = await memory.query(slot, object, { k: 2, currentTurnId: turn });
      if (hits.length === 0) print('You remember nothing of the kind.');
      for (const hit of hits) print(`You remember (turn ${hit.turnId}): ${hit.text}`);
    } else {
      const outcome = act(state, verb, object);
      if (outcome === null) print('Nothing happens.');
      else {
        state = outcome.state;
        await record(outcome.text);
        print(outcome.text);
      }
    }
  }
  print(`Goodbye. ${slot} is at turn ${turn}.`);
}
