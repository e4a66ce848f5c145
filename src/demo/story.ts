// The demo's story: fifty turns of a small tale written for Mnemo, used by `mnemo demo` and the tests.

/** One turn of the demo story. */
export interface StoryTurn {
  turnId: number;
  chunkType: 'narrative' | 'dialogue';
  text: string;
}

const LINES: readonly [StoryTurn['chunkType'], string][] = [
  ['narrative', 'Rain drums on the roof of the Harvest Moon inn as Kaël shakes the mud from his boots.'],
  ['dialogue', 'Rowan the innkeeper says: "A room is two silver a night, and the stew is free if you fix the well."'],
  ['narrative', 'Kaël pays with two silver coins stamped with the crest of the Stonefield family.'],
  ['narrative', 'In the corner, a hooded woman named Mira studies a map of the northern marshes.'],
  ['dialogue', 'Mira says: "The ferry to Greywater has not run since the lighthouse went dark."'],
  ['narrative', 'Kaël climbs down into the well and finds a rusted iron key wedged between two stones.'],
  ['dialogue', 'Rowan says: "That key belonged to old Tamsin, the lighthouse keeper. She vanished last spring."'],
  ['narrative', 'That night a wolf howls beyond the palisade, and the stable horses kick at their doors.'],
  ['narrative', 'At dawn Kaël and Mira set out along the causeway toward the abandoned lighthouse.'],
  ['dialogue', 'Mira says: "My brother Oren went to the lighthouse in autumn. He never wrote back."'],
  ['narrative', 'The causeway is half drowned; eels glide between the cracked paving stones.'],
  ['narrative', 'A broken cart lies on its side, its cargo of salt barrels split open by the tide.'],
  ['narrative', 'Kaël finds a torn letter in the cart, signed with the letter O and smelling of lamp oil.'],
  ['dialogue', 'Mira says: "That is Oren\'s hand. He writes his O like a coiled serpent."'],
  ['narrative', 'The lighthouse door is locked; the rusted iron key from the well turns in it with a groan.'],
  ['narrative', 'Inside, the spiral stair is slick with seaweed and the lamp room above is cold.'],
  ['narrative', 'Scratched into the lamp-room wall: "The Tide Court takes what the keeper will not give."'],
  ['dialogue', 'Kaël says: "The Tide Court? I thought that was a story to frighten fishermen\'s children."'],
  ['narrative', 'Mira lights the great lamp with her flint, and a beam sweeps across the grey water.'],
  ['narrative', 'Far out on the water, something answers the beam: three green lights rising from the waves.'],
  ['narrative', 'A boat of bleached driftwood drifts to the lighthouse steps with no one at the oars.'],
  ['dialogue', 'A voice from the boat says: "The Tide Court invites the lamp-lighters to its hall beneath the bay."'],
  ['narrative', 'Kaël hesitates, but Mira steps into the driftwood boat without a word.'],
  ['narrative', 'The boat sinks gently, and a bubble of air closes over them like a glass dome.'],
  ['narrative', 'Beneath the bay lies a hall of coral pillars lit by drowned lanterns.'],
  ['dialogue', 'The Coral Queen says: "Tamsin broke her oath to us. The lamp was ours to command."'],
  ['dialogue', 'Mira says: "Where is my brother Oren? He carried letters for the keeper."'],
  ['dialogue', 'The Coral Queen says: "Oren serves the court now. He chose to stay, as all guests may."'],
  ['narrative', 'Kaël notices that the courtiers all wear the same silver bracelet etched with waves.'],
  ['narrative', 'Among the courtiers stands a pale young man with ink-stained fingers: Oren.'],
  ['dialogue', 'Oren says: "Mira, you should not have come. The bracelet keeps us from leaving."'],
  ['narrative', 'Kaël offers the Coral Queen a bargain: the lamp will shine every night if Oren goes free.'],
  ['dialogue', 'The Coral Queen says: "A keeper must swear it. Who will keep the lamp, stranger?"'],
  ['narrative', 'Kaël swears the oath on the iron key, and the key grows warm in his palm.'],
  ['narrative', 'Oren\'s silver bracelet cracks and falls away into the sand.'],
  ['narrative', 'The three of them rise through the water in the glass bubble and reach the lighthouse steps.'],
  ['dialogue', 'Mira says: "Kaël, you have bound yourself to this rock for my brother. I will not forget it."'],
  ['narrative', 'Back at the Harvest Moon, Rowan pours three mugs of cider and asks no questions.'],
  ['narrative', 'Oren tells the common room that Tamsin is alive, a prisoner in the Tide Court\'s deepest vault.'],
  ['dialogue', 'Rowan says: "Then the Stonefields lied. They told the council Tamsin drowned by accident."'],
  ['narrative', 'A Stonefield rider arrives at midnight and demands the iron key in the family\'s name.'],
  ['narrative', 'Kaël refuses, and the rider leaves a black feather on the bar: a warning.'],
  ['dialogue', 'Mira says: "A black feather means the Stonefields have hired the Ravens. Sleep with your boots on."'],
  ['narrative', 'Before dawn, someone tries the lock of Kaël\'s room with a thin steel pick.'],
  ['narrative', 'Kaël catches the thief\'s wrist; it is a girl of twelve with a raven tattoo.'],
  ['dialogue', 'The girl says: "Lady Stonefield pays in gold. She wants the key because the vault opens with it."'],
  ['narrative', 'So the iron key opens not only the lighthouse but the Tide Court\'s deepest vault.'],
  ['narrative', 'Kaël, Mira and Oren decide to return beneath the bay at the next new moon to free Tamsin.'],
  ['dialogue', 'Rowan says: "Take the old lantern from the cellar. Tamsin left it with me for a day like this."'],
  ['narrative', 'The new moon rises. The lamp of the lighthouse burns, and the driftwood boat waits at the steps.'],
];

/**
 * The fifty turns of the demo story, numbered from 1.
 *
 * @example
 * ```ts
 * demoStory()[0]; // { turnId: 1, chunkType: 'narrative', text: 'Rain drums on the roof ...' }
 * ```
 */
export function demoStory(): StoryTurn[] {
  return LINES.map(([chunkType, text], index) => ({ turnId: index + 1, chunkType, text }));
}
