// `mnemo demo`: ingest a fifty-turn story, query it showing why each hit ranked, rewind, and prove the rewind.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { demoStory } from '../../demo/story.js';
import type { Mnemo } from '../../open-memory.js';
import type { QueryOptions } from '../../core/types.js';
import type { Output } from '../context.js';
import { globalOptions, openWithEmbedder } from '../context.js';
import { formatHit } from '../format-hit.js';

const SAVE = 'lighthouse';

async function show(memory: Mnemo, output: Output, title: string, text: string, options: QueryOptions) {
  output.out(`\n> ${title}\n  query: "${text}" ${JSON.stringify(options)}`);
  const hits = await memory.query(SAVE, text, options);
  output.out(hits.map((hit, index) => formatHit(hit, index + 1)).join('\n'));
  return hits;
}

/** Runs the demo on `memory`; returns true when every check held. */
export async function runDemo(memory: Mnemo, output: Output): Promise<boolean> {
  const story = demoStory();
  const started = performance.now();
  for (const turn of story) await memory.addMany([{ saveId: SAVE, turnId: turn.turnId, text: turn.text, chunkType: turn.chunkType }]);
  const seconds = (performance.now() - started) / 1000;
  output.out(`Ingested ${story.length} turns of "The Lighthouse" into save '${SAVE}' in ${(seconds * 1000).toFixed(0)} ms ` +
    `(embedder: ${memory.embedder === null ? 'none, words only' : `${memory.embedder.provider}/${memory.embedder.modelId}`}).`);

  await show(memory, output, 'Exact words and meaning together', 'what does the iron key open?', { k: 3 });
  await show(memory, output, 'A name only the lexical arm knows well', 'Oren', { k: 3 });
  await show(memory, output, 'Focus terms lift what is on scene (Rowan is here)', 'who knows about Tamsin?', { k: 3, focusTerms: ['Rowan'] });
  await show(memory, output, 'Only dialogue, and only up to turn 30', 'the Coral Queen', { k: 3, chunkType: 'dialogue', maxTurnId: 30 });

  const before = await memory.query(SAVE, 'vault key Stonefield thief', { k: 5 });
  const removed = await memory.rewind(SAVE, 40);
  output.out(`\n> Rewind to turn 40: ${removed} chunks removed; ${await memory.count(SAVE)} remain.`);
  const after = await show(memory, output, 'The same question after the rewind', 'vault key Stonefield thief', { k: 5 });
  const leaked = after.filter((hit) => hit.turnId > 40);
  const hadLater = before.some((hit) => hit.turnId > 40);
  const ok = removed === 10 && leaked.length === 0 && hadLater;
  output.out(ok
    ? `\n✓ Before the rewind the top 5 held turns after 40; after it none surfaces (latest turn now ${Math.max(...after.map((hit) => hit.turnId))}).`
    : `\n✗ Rewind check failed: removed ${removed}, leaked ${leaked.length}, had later turns before: ${hadLater}.`);
  return ok;
}

/** Registers `mnemo demo`. */
export function registerDemo(program: Command, output: Output): void {
  program
    .command('demo')
    .description('ingest a short story, query it with explanations, rewind it (uses a temporary database unless --db is given)')
    .action(async (_flags: unknown, command: Command) => {
      const options = globalOptions(command);
      let root = command;
      while (root.parent) root = root.parent;
      const explicit = root.getOptionValueSource('db') !== 'default';
      const dir = explicit ? null : mkdtempSync(join(tmpdir(), 'mnemo-demo-'));
      const path = dir === null ? options.db : join(dir, 'demo.db');
      const memory = await openWithEmbedder(path, options.embedder);
      output.out(`Mnemo demo: database ${memory.location}`);
      try {
        if (explicit && (await memory.count(SAVE)) > 0) await memory.rewind(SAVE, 0);
        const ok = await runDemo(memory, output);
        if (!ok) process.exitCode = 1;
      } finally {
        await memory.close();
        if (dir !== null) rmSync(dir, { recursive: true, force: true });
      }
    });
}
