// A MUD NPC session in a terminal: `npx tsx examples/mud-npc/main.ts [--db mud.db] [--player Kaël] [--embedder auto] [--show-prompt]`.
// Commands: `ask marta <message>`, `ask oriel <message>`, `as <player>`, `quit`. A model answers when MNEMO_LLM_BASE_URL
// and MNEMO_LLM_MODEL name an OpenAI-compatible server (Ollama, llama.cpp, vLLM, OpenAI); otherwise an offline stand-in does.
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { openAiCompatibleLlm, openMemory } from 'mnemo-engine';
import type { EmbedderName } from 'mnemo-engine';
import { NPCS } from './npcs.js';
import { talk } from './talk.js';

const { values } = parseArgs({
  options: { db: { type: 'string', default: 'mud.db' }, player: { type: 'string', default: 'Kaël' }, embedder: { type: 'string', default: 'auto' }, 'show-prompt': { type: 'boolean', default: false } },
});
const baseUrl = process.env['MNEMO_LLM_BASE_URL'] || undefined; // unset or empty: no server
const model = process.env['MNEMO_LLM_MODEL'] || undefined;
const llm = baseUrl !== undefined && model !== undefined ? openAiCompatibleLlm({ baseUrl, model, apiKey: process.env['MNEMO_LLM_API_KEY'] || null }) : null;

const memory = await openMemory({ path: values.db, embedder: values.embedder as EmbedderName });
try {
  const report = await memory.lore.importRepository(join(import.meta.dirname, '..', 'lore'));
  console.log(`Lore: ${report.entries} entries (${report.created.length} new, ${report.updated.length} changed, ${report.embedded} embedded). Replies: ${llm === null ? 'offline stand-in' : `${llm.modelId} at ${baseUrl}`}.`);
  let player = values.player;
  for await (const line of createInterface({ input: process.stdin, terminal: false })) {
    const [verb, name, ...words] = line.trim().split(/\s+/u);
    if (verb === undefined || verb === '') continue;
    console.log(`> ${line.trim()}`);
    if (verb === 'quit') break;
    if (verb === 'as' && name !== undefined) {
      player = [name, ...words].join(' ');
      console.log(`You are ${player} now.`);
      continue;
    }
    const npc = name === undefined ? undefined : NPCS[name.toLowerCase()];
    if (verb !== 'ask' || npc === undefined || words.length === 0) {
      console.log(`Try: ask ${Object.keys(NPCS).join(' | ask ')} <message>, as <player>, quit.`);
      continue;
    }
    const exchange = await talk(memory, llm, npc, player, words.join(' '));
    if (values['show-prompt']) console.log(`--- ${npc.character}'s prompt (${exchange.context.tokens.prompt} tokens) ---\n${exchange.prompt}\n---`);
    console.log(`${npc.character} (knows: ${exchange.lore.join('; ') || 'no lore for this'}): ${exchange.reply}`);
  }
} finally {
  await memory.close();
}
