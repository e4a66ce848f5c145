// The prompt context builder: the recall hierarchy with sources, the lore a character may know, the budget, templates.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allocateBudget, sectionCaps } from '../src/context/allocate-budget.js';
import type { ContextLine, ContextResult } from '../src/context/context-types.js';
import { renderTemplate, templatePlaceholders } from '../src/context/render-template.js';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import type { TokenCounter } from '../src/seams/token-counter.js';
import { estimateTokenCounter, gptTokenCounter } from '../src/token-counters/index.js';
import { tempDir } from './helpers.js';
import { MARTA, MARTA_TAGS, ORIEL_TAGS, SAVE, seedScene } from './serving-fixture.js';
import type { Scene } from './serving-fixture.js';

const dir = tempDir();
let memory: Mnemo;
let scene: Scene;

beforeAll(async () => {
  memory = await openMemory({ path: join(dir, 'context.db'), embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger });
  scene = await seedScene(memory);
});
afterAll(async () => memory.close());

const section = (result: ContextResult, name: string) => result.sections.find((candidate) => candidate.name === name);
const sourcesOf = (result: ContextResult, name: string) => section(result, name)?.lines.map((line) => line.source) ?? [];

describe('context builder', () => {
  it('assembles mental model, beliefs, facts, memories and lore, every line with its source', async () => {
    const result = await memory.context.build({ saveId: SAVE, character: MARTA, message: 'Where is the smuggled salt hidden?', tags: MARTA_TAGS, currentTurnId: 12, budget: 2000 });
    expect(result.sections.map((entry) => entry.name)).toEqual(['mental_model', 'beliefs', 'facts', 'memories', 'lore_context']);
    expect(sourcesOf(result, 'mental_model')).toEqual([expect.objectContaining({ kind: 'mental_model', modelId: scene.modelId, subject: MARTA })]);
    expect(result.variables.mental_model).toBe(`- Marta: Marta runs the Sunken Bell, trades in smuggled salt and lies to the harbourmaster; she is afraid of Rowan. [model ${scene.modelId}, turn 11]`);

    const beliefs = sourcesOf(result, 'beliefs');
    // most message terms first (smuggled + salt, then salt), then the character's before the world's
    expect(beliefs.map((source) => source.kind === 'belief' && source.beliefId)).toEqual([scene.beliefIds[0], scene.beliefIds[2], scene.beliefIds[1]]);
    expect(result.variables.beliefs.split('\n')[0]).toBe(`- Marta deals in smuggled salt. (NEW, 3 facts) [belief ${scene.beliefIds[0]}]`);
    expect(result.variables.beliefs).toContain('- Marta fears Rowan. (NEW, 1 fact)');

    const facts = section(result, 'facts')?.lines ?? [];
    expect(facts.map((line) => line.source)).toEqual(expect.arrayContaining([{ kind: 'fact', factId: scene.factIds[1], turnId: 8 }]));
    expect(facts.map((line) => (line.source.kind === 'fact' ? line.source.turnId : -1))).toEqual([3, 8, 10, 11]);
    expect(facts[1]?.text).toBe(`- [turn 8] Marta hid the smuggled salt under the cellar stairs. [fact ${scene.factIds[1]}]`);

    const memories = section(result, 'memories')?.lines ?? [];
    expect(memories.length).toBeGreaterThan(0);
    for (const line of memories) {
      expect(line.source.kind).toBe('chunk');
      if (line.source.kind !== 'chunk') continue;
      expect(scene.chunkIds).toContain(line.source.chunkId);
      expect(line.source.chunkType).toBe('narrative');
      expect(line.text).toContain(`[turn ${line.source.turnId}]`);
      expect(line.text).toContain(`[chunk ${line.source.chunkId.slice(0, 8)}]`);
    }
    const turns = memories.map((line) => (line.source.kind === 'chunk' ? line.source.turnId : -1));
    expect(turns).toEqual([...turns].sort((a, b) => a - b));
    expect(memories.some((line) => line.text.includes('cellar stairs'))).toBe(true);

    for (const line of section(result, 'lore_context')?.lines ?? []) expect(line.source).toMatchObject({ kind: 'lore', entryId: expect.any(String), title: expect.any(String) });
    expect(result.tokenizer).toBe('o200k_base');
  });

  it('never lets in lore the character may not know, in the lore section or through lore chunks of the save', async () => {
    const question = 'Tell me about the Brackwater lantern house and the tidelines under the Toll Bridge';
    const marta = await memory.context.build({ saveId: SAVE, character: MARTA, message: question, tags: MARTA_TAGS, budget: 4000, limits: { lore: 20, memories: 50 } });
    const titles = (result: ContextResult) => sourcesOf(result, 'lore_context').map((source) => (source.kind === 'lore' ? source.title : ''));
    expect(titles(marta)).not.toContain('The Brackwater lantern house');
    expect(titles(marta)).not.toContain('The tidelines');
    expect(marta.prompt).not.toMatch(/lantern house|tidelines/iu);
    expect(sourcesOf(marta, 'memories').every((source) => source.kind === 'chunk' && source.chunkType !== 'lore')).toBe(true);
    const oriel = await memory.context.build({ saveId: SAVE, character: 'Oriel', message: question, tags: ORIEL_TAGS, budget: 4000, limits: { lore: 20 } });
    expect(titles(oriel)).toEqual(expect.arrayContaining(['The Brackwater lantern house', 'The tidelines']));
  });

  it('filters the memories by metadata before ranking (where), and refuses a bad filter before reading', async () => {
    await memory.addMany([1, 2, 3, 4].map((turnId) => ({ saveId: 'where-save', turnId, text: `The lantern flickers at the docks, night ${turnId}.`, metadata: { speaker: turnId % 2 === 0 ? 'Marta' : 'Rowan' } })));
    const result = await memory.context.build({ saveId: 'where-save', character: 'Marta', message: 'lantern docks', tags: [], where: { speaker: 'Rowan' }, limits: { memories: 10 } });
    expect(sourcesOf(result, 'memories').map((source) => source.kind === 'chunk' && source.turnId).sort()).toEqual([1, 3]);
    await expect(memory.context.build({ saveId: 'where-save', character: 'Marta', message: 'lantern', tags: [], where: { speaker: { in: [] } } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('reads nothing after the current turn', async () => {
    const result = await memory.context.build({ saveId: SAVE, character: MARTA, message: 'salt Rowan debt harbourmaster', tags: MARTA_TAGS, currentTurnId: 5, budget: 3000, limits: { memories: 50 } });
    for (const source of result.sections.flatMap((entry) => entry.lines.map((line) => line.source))) {
      if (source.kind === 'chunk' || source.kind === 'fact') expect(source.turnId).toBeLessThanOrEqual(5);
    }
    // beliefs created by turn 5 only (their statements are as the living layer holds them now); the model came at 11
    expect(sourcesOf(result, 'beliefs').map((source) => source.kind === 'belief' && source.beliefId)).toEqual([scene.beliefIds[0], scene.beliefIds[2]]);
    expect(result.variables.mental_model).toBe('');
    expect(sourcesOf(result, 'facts')).toEqual([{ kind: 'fact', factId: scene.factIds[0], turnId: 3 }]);
  });

  it('leaves out the headers of empty sections in the default template, and keeps a given template as written', async () => {
    const early = await memory.context.build({ saveId: SAVE, character: MARTA, message: 'salt Rowan debt harbourmaster', tags: MARTA_TAGS, currentTurnId: 5, budget: 3000 });
    expect(early.variables.mental_model).toBe('');
    expect(early.prompt.startsWith('## What Marta believes\n- ')).toBe(true);
    expect(early.prompt).not.toContain('## Who Marta is now');
    expect(early.prompt).not.toMatch(/^## .*\n(\n|$)/mu);
    const nothing = await memory.context.build({ saveId: 'no-such-save', character: 'Nobody', message: 'zzzz qqqq', tags: [], limits: { lore: 0 } });
    expect(nothing.prompt).toBe('');
    const given = await memory.context.build({ saveId: SAVE, character: MARTA, message: 'salt', tags: MARTA_TAGS, currentTurnId: 5, template: '## Who {character} is now\n{mental_model}\n\n## Beliefs\n{beliefs}' });
    expect(given.prompt.startsWith('## Who Marta is now\n\n\n## Beliefs\n- ')).toBe(true);
  });

  it('stays within every budget, counts exactly, and never cuts a line', async () => {
    const counter = await gptTokenCounter();
    for (const budget of [1, 15, 40, 75, 120, 250, 600, 1200]) {
      const result = await memory.context.build({ saveId: SAVE, character: MARTA, message: 'What happened with the salt and the harbourmaster?', tags: MARTA_TAGS, budget });
      expect(result.tokens.used).toBeLessThanOrEqual(budget);
      expect(result.tokens.used).toBe(result.sections.reduce((sum, entry) => sum + counter.count(entry.text), 0));
      for (const entry of result.sections) {
        expect(entry.text).toBe(entry.lines.map((line) => line.text).join('\n'));
        expect(entry.tokens).toBe(counter.count(entry.text));
        for (const line of [...entry.lines, ...entry.omitted]) expect(line.text).not.toContain('\n');
      }
      expect(result.tokens.prompt).toBe(counter.count(result.prompt));
    }
  });

  it('reads trends at the current turn', async () => {
    const later = await memory.context.build({ saveId: SAVE, character: MARTA, message: 'salt', tags: MARTA_TAGS, currentTurnId: 40 });
    expect(sourcesOf(later, 'beliefs').map((source) => source.kind === 'belief' && source.trend)).toEqual(['STALE', 'STALE', 'STALE']);
    expect(later.variables.beliefs).toContain('(STALE, 3 facts)');
  });

  it('is deterministic', async () => {
    const request = { saveId: SAVE, character: MARTA, message: 'Who threatened you?', tags: MARTA_TAGS, currentTurnId: 12, budget: 300 };
    expect(await memory.context.build(request)).toEqual(await memory.context.build(request));
  });

  it('renders a template with the seed\'s placeholders and the caller\'s variables; an unknown placeholder is a clear error', async () => {
    const template = 'You are {name}, {personality}.\n## What you know about the world\n{lore_context}\n## Your history with this character\n{memories}\n{{literal}}';
    const result = await memory.context.build({ saveId: SAVE, character: MARTA, message: 'Who founded Brackwater?', tags: MARTA_TAGS, template, variables: { name: 'Marta', personality: 'a warm, gossipy bartender' } });
    expect(result.prompt.startsWith('You are Marta, a warm, gossipy bartender.\n## What you know about the world\n- Founding of Brackwater: ')).toBe(true);
    expect(result.prompt.endsWith('\n{literal}')).toBe(true);
    expect(result.variables).toMatchObject({ name: 'Marta', character: MARTA, message: 'Who founded Brackwater?' });

    await expect(memory.context.build({ saveId: SAVE, character: MARTA, message: 'x', tags: [], template: 'Hello {mood}' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('unknown placeholder {mood} at position 6'),
      details: expect.objectContaining({ placeholder: 'mood' }),
    });
    await expect(memory.context.build({ saveId: SAVE, character: MARTA, message: 'x', tags: [], variables: { lore_context: 'forged' } })).rejects.toMatchObject({ code: 'INVALID_INPUT', details: { field: 'variables.lore_context' } });
    await expect(memory.context.build({ saveId: SAVE, character: MARTA, message: 'x', tags: [], template: 'a { b' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const defaults = await memory.context.build({ saveId: SAVE, character: MARTA, message: 'salt', tags: MARTA_TAGS });
    expect(defaults.prompt).toContain('## Who Marta is now\n- Marta: Marta runs the Sunken Bell');
    expect(defaults.tokens.budget).toBe(1200);
  });

  it('drops the source tags on request, keeping trends and turns', async () => {
    const result = await memory.context.build({ saveId: SAVE, character: MARTA, message: 'salt', tags: MARTA_TAGS, sourceTags: false, budget: 2000 });
    expect(result.prompt).not.toMatch(/\[(belief|fact|chunk|lore|model) /u);
    expect(result.variables.beliefs).toContain('- Marta deals in smuggled salt. (NEW, 3 facts)');
    expect(result.variables.facts).toContain('- [turn 8] Marta hid');
    expect(sourcesOf(result, 'facts').length).toBeGreaterThan(0);
  });

  it('refuses bad requests before reading anything', async () => {
    const bad = [
      { saveId: '', character: MARTA, message: 'x', tags: [] },
      { saveId: SAVE, character: '  ', message: 'x', tags: [] },
      { saveId: SAVE, character: MARTA, message: 'x' },
      { saveId: SAVE, character: MARTA, message: 'x', tags: [], budget: 0 },
      { saveId: SAVE, character: MARTA, message: 'x', tags: [], limits: { memories: -1 } },
      { saveId: SAVE, character: MARTA, message: 'x', tags: [], shares: { beliefs: -1 } },
    ];
    for (const request of bad) await expect(memory.context.build(request as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('budget allocation', () => {
  const characters: TokenCounter = { name: 'characters', count: (text) => text.length };
  const lines = (prefix: string, lengths: number[]): ContextLine[] => lengths.map((length, index) => ({ text: `${prefix}${index}`.padEnd(length, '.'), tokens: length, source: { kind: 'fact', factId: index, turnId: index } }));

  it('gives each section its share first, then the leftover by priority, skipping a line too long rather than cutting it', async () => {
    const caps = sectionCaps(100);
    expect(caps).toEqual({ mental_model: 15, beliefs: 20, facts: 15, memories: 30, lore_context: 20 });
    const sections = await allocateBudget(
      {
        mental_model: { lines: lines('m', [30]) },
        beliefs: { lines: lines('b', [10, 50, 9]) },
        memories: { lines: lines('c', [10]) },
      },
      100,
      {},
      characters,
    );
    const byName = Object.fromEntries(sections.map((entry) => [entry.name, entry]));
    // pass 1: beliefs keep b0 (10) and b2 (10 + newline + 9 = 20); memories keep c0; the model (30 > 15) waits.
    // pass 2: 100 - 30 used = 70 left: the model (30) goes first, then b1 (51 more) no longer fits.
    expect(byName.mental_model?.lines.map((line) => line.text[0])).toEqual(['m']);
    expect(byName.beliefs?.text).toBe(['b0........', 'b2.......'].join('\n'));
    expect(byName.beliefs?.omitted.map((line) => line.tokens)).toEqual([50]);
    expect(sections.reduce((sum, entry) => sum + entry.tokens, 0)).toBe(60);
  });

  it('shows kept lines in the section\'s display order, ties best first', async () => {
    const candidates = lines('f', [5, 5, 5]).map((line, index) => ({ ...line, source: { kind: 'fact' as const, factId: index, turnId: [9, 2, 9][index] as number } }));
    const [, , facts] = await allocateBudget({ facts: { lines: candidates, display: (a, b) => (a.source.kind === 'fact' && b.source.kind === 'fact' ? (a.source.turnId ?? 0) - (b.source.turnId ?? 0) : 0) } }, 1000, {}, characters);
    expect(facts?.lines.map((line) => line.text)).toEqual(['f1...', 'f0...', 'f2...']);
  });

  /** One token per character, counted whole or piece by piece (a piece per character), recording how many characters were read. */
  const piecewise = () => {
    const counter = { name: 'pieces', read: 0, count: (text: string) => {
      counter.read += text.length;
      return text.length;
    }, *pieces(text: string) {
      for (let index = 0; index < text.length; index++) {
        counter.read++;
        yield 1;
      }
    } };
    return counter;
  };

  it('counts each line once and no further than the room it has: linear in the text, not in lines x section', async () => {
    const counter = piecewise();
    const long = lines('c', Array.from({ length: 200 }, () => 100_000));
    const small = lines('f', Array.from({ length: 200 }, () => 50));
    const sections = await allocateBudget({ memories: { lines: long }, facts: { lines: small } }, 2000, {}, counter);
    const byName = Object.fromEntries(sections.map((entry) => [entry.name, entry]));
    expect(byName.memories?.lines).toEqual([]);
    expect(byName.facts?.lines.length).toBe(39); // 39 x 50 + 38 newlines = 1988 of 2000
    // 200 lines of 100,000 characters read as far as the room (at most 2,001 each), the 200 small ones once, then
    // each section's kept text once: far from the 20 million characters a full count would read.
    expect(counter.read).toBeLessThan(200 * 2002 + 200 * 50 + 2000);
    expect(byName.memories?.omitted.every((line) => line.tokens > 0 && line.tokens <= 2001)).toBe(true);
  });

  it('stays within the budget with a counter that charges joined lines more than their parts', async () => {
    const framed: TokenCounter = { name: 'framed', count: (text) => text.length + 5 * (text.split('\n').length - 1) };
    const sections = await allocateBudget({ beliefs: { lines: lines('b', [10, 10, 10, 10]) }, facts: { lines: lines('f', [10, 10]) } }, 45, {}, framed);
    const used = sections.reduce((sum, entry) => sum + entry.tokens, 0);
    expect(used).toBeLessThanOrEqual(45);
    for (const entry of sections) expect(entry.tokens).toBe(framed.count(entry.text));
  });
});

describe('templates', () => {
  it('lists placeholders and renders literal braces', () => {
    expect(templatePlaceholders('{a} {{b}} {c} {a}')).toEqual(['a', 'c']);
    expect(renderTemplate('{{x}} = {x}', { x: '1' })).toBe('{x} = 1');
    expect(() => renderTemplate('oops }', {})).toThrow(/closes nothing/u);
    expect(() => renderTemplate('{not a name}', {})).toThrow(/placeholder name/u);
  });
});

describe('token counters', () => {
  const samples = [
    'Kaël hides the silver key under the third stone of the well, then walks back to the Sunken Bell for eel pie.',
    "Marta cache le sel de contrebande sous l'escalier de la cave et ment au capitaine du port.",
    'Marta versteckt das geschmuggelte Salz unter der Kellertreppe und belügt den Hafenmeister.',
    'Марта прячет контрабандную соль под лестницей в подвале и лжёт начальнику порта.',
    'マルタは密輸した塩を地下室の階段の下に隠し、港長に嘘をつく。',
    '玛尔塔把走私的盐藏在地窖的楼梯下，并对港务长撒谎。',
    'Η Μάρτα κρύβει το λαθραίο αλάτι κάτω από τη σκάλα του κελαριού.',
    'मार्था तस्करी का नमक तहखाने की सीढ़ियों के नीचे छिपाती है।',
    '마르타는 밀수한 소금을 지하실 계단 아래에 숨긴다.',
    "- [turn 12] Kaël steals Rowan's purse at the ford. [chunk 3f2a9b1c]",
    '- Marta deals in smuggled salt. (STRENGTHENING, 3 facts) [belief 17]',
  ];

  it('counts with o200k_base, treating special-token text as ordinary text', async () => {
    const counter = await gptTokenCounter();
    expect(counter.count('Kaël hides the silver key under the third stone of the well.')).toBe(14);
    expect(counter.count('')).toBe(0);
    expect(counter.count('hello <|endoftext|> x')).toBeGreaterThan(3);
    expect((await gptTokenCounter('cl100k_base')).name).toBe('cl100k_base');
    await expect(gptTokenCounter('p50k' as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('estimates at or above the real count on prose in nine languages and on context lines', async () => {
    const real = await gptTokenCounter();
    const estimate = estimateTokenCounter();
    for (const text of samples) expect(estimate.count(text)).toBeGreaterThanOrEqual(real.count(text));
    expect(estimate.count('Kaël hides the key.')).toBe(7);
    expect(estimate.count('')).toBe(0);
  });

  it('can be swapped: a memory opened with the estimate builds within the estimated budget', async () => {
    const other = await openMemory({ path: ':memory:', embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger, tokenCounter: estimateTokenCounter() });
    await seedScene(other);
    const result = await other.context.build({ saveId: SAVE, character: MARTA, message: 'salt', tags: MARTA_TAGS, budget: 200 });
    expect(result.tokenizer).toBe('estimate:character-classes');
    expect(result.tokens.used).toBeLessThanOrEqual(200);
    await other.close();
  });
});
