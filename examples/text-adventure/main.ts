// Runs the text adventure in a terminal: `npx tsx examples/text-adventure/main.ts [--db adventure.db] [--embedder auto]`.
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { openMemory } from 'mnemo-engine';
import type { EmbedderName } from 'mnemo-engine';
import { playAdventure } from './adventure.js';

const { values } = parseArgs({ options: { db: { type: 'string', default: 'adventure.db' }, embedder: { type: 'string', default: 'auto' } } });
const memory = await openMemory({ path: values.db, embedder: values.embedder as EmbedderName });
try {
  await playAdventure(memory, createInterface({ input: process.stdin, terminal: false }), (line) => console.log(line));
} finally {
  await memory.close();
}
