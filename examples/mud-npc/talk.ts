// One exchange with an NPC: its prompt built by Mnemo (the lore it may know, what it remembers of the player), a reply, and the exchange remembered.
import type { ContextResult, LLM, Mnemo } from 'mnemo-engine';
import type { Npc } from './npcs.js';

/** What one exchange produced: the reply, and the prompt the model was given (sections with their sources). */
export interface Exchange {
  reply: string;
  prompt: string;
  context: ContextResult;
  /** The lore entries the prompt held, by title. */
  lore: string[];
}

/** The save holding an NPC's interaction memory: everything said to it, by anyone, turn by turn. */
export const npcSave = (npc: Npc) => `npc-${npc.character.toLowerCase()}`;

function persona(npc: Npc, player: string): string {
  return [
    `You are ${npc.fullName}: ${npc.personality}. ${player} is talking to you.`,
    'Answer in character, in one to three sentences, using only what you know below.',
    `If it does not answer the question, say so in your own words, e.g. "${npc.doesNotKnow}"`,
  ].join('\n');
}

/**
 * The reply when no model is configured: the best lore hit the NPC may know among those sharing a word with the
 * question, naming the next one, or the NPC's "I do not know" line when none shares a word with it. A stand-in for a model,
 * so that the example runs offline and its output can be checked.
 */
async function offlineReply(memory: Mnemo, npc: Npc, player: string, message: string, context: ContextResult): Promise<string> {
  const [best, next] = (await memory.lore.search(message, { tags: npc.tags, k: 10 })).filter((hit) => hit.explanation.lexical !== null);
  const earlier = context.sections.find((section) => section.name === 'memories')?.lines.some((line) => line.text.includes(`${player} asked ${npc.character}`)) === true;
  const again = earlier ? `Back again, ${player}? ` : '';
  if (best === undefined) return `${again}${npc.doesNotKnow}`;
  return `${again}${best.content.replace(/\s+/gu, ' ').trim()}${next === undefined ? '' : ` I could tell you more about ${next.title}.`}`;
}

/**
 * Lets `player` say `message` to `npc`: builds the NPC's context (lore filtered by its tags before ranking, its
 * memories of this and earlier exchanges, within 900 tokens), asks the model (or the offline stand-in), and adds
 * the exchange to the NPC's interaction memory as two dialogue chunks of the next turn.
 */
export async function talk(memory: Mnemo, llm: LLM | null, npc: Npc, player: string, message: string): Promise<Exchange> {
  const saveId = npcSave(npc);
  const turn = ((await memory.listSaves()).find((save) => save.saveId === saveId)?.maxTurnId ?? 0) + 1;
  const context = await memory.context.build({ saveId, character: npc.character, message, tags: npc.tags, focusTerms: [player], budget: 900 });
  const prompt = `${persona(npc, player)}\n\n${context.prompt}`.trim();
  const reply = llm === null
    ? await offlineReply(memory, npc, player, message, context)
    : (await llm.complete([{ role: 'system', content: prompt }, { role: 'user', content: message }], { maxTokens: 200 })).trim();
  await memory.addMany([
    { saveId, turnId: turn, chunkType: 'dialogue', text: `${player} asked ${npc.character}: "${message}"`, metadata: { speaker: player } },
    { saveId, turnId: turn, chunkType: 'dialogue', text: `${npc.character} told ${player}: "${reply}"`, metadata: { speaker: npc.character } },
  ]);
  const lore = context.sections.find((section) => section.name === 'lore_context')?.lines.flatMap((line) => (line.source.kind === 'lore' ? [line.source.title] : [])) ?? [];
  return { reply, prompt, context, lore };
}
