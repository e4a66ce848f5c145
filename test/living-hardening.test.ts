// Living-memory defects of the adversarial pass: unsupported CREATEs, idle() before a retry, and a warning without its URL.
import { describe, expect, it } from 'vitest';
import type { Fact } from '../src/core/living-types.js';
import type { Logger } from '../src/core/logger.js';
import { silentLogger } from '../src/core/logger.js';
import { runConsolidation } from '../src/living/consolidate.js';
import { openAiCompatibleLlm } from '../src/llms/openai-compatible/index.js';
import { ScriptedLlm } from '../src/llms/scripted/index.js';
import { openMemory } from '../src/open-memory.js';

const fact = (factId: number, statement: string): Fact => ({ factId, turnId: 1, statement, entities: ['Rowan'], factType: 'world', who: 'Rowan', what: null, when: null, where: null, why: null } as unknown as Fact);

describe('consolidation', () => {
  it('drops a CREATE whose only cited fact was never shown to the model', async () => {
    const llm = new ScriptedLlm([{
      actions: [
        { kind: 'CREATE', belief_id: null, subject: 'Rowan', statement: 'Rowan hoards salt.', source_fact_ids: [999] },
        { kind: 'CREATE', belief_id: null, subject: 'Rowan', statement: 'Rowan owes Marta.', source_fact_ids: [7, 999] },
      ],
    }]);
    const outcome = await runConsolidation(llm, [fact(7, 'Rowan borrowed three silver from Marta.')], []);
    expect(outcome).toEqual({ ok: true, value: [{ kind: 'CREATE', statement: 'Rowan owes Marta.', subject: 'Rowan', beliefId: null, sourceFactIds: [7] }] });
  });
});

describe('the living worker', () => {
  it('idle() waits for a failed stage\'s retry instead of returning while it is pending', async () => {
    let calls = 0;
    const llm = new ScriptedLlm(() => (++calls === 1 ? new Error('model down for a moment') : { facts: [{ statement: 'Kaël crossed the ford.', entities: ['Kaël'] }] }));
    const memory = await openMemory({ path: ':memory:', embedder: null, logger: silentLogger, llm, living: { retryBaseMs: 60, pollMs: 20 } });
    try {
      await memory.add({ saveId: 's', turnId: 1, text: 'Kaël crosses the ford.' });
      await memory.living.recordTurn({ saveId: 's', turnId: 1 });
      await memory.living.idle();
      const [status] = await memory.living.status('s');
      expect(status?.jobs).toMatchObject({ pending: 0, running: 0, done: 1, failed: 0 });
      expect((await memory.living.facts('s')).map((item) => item.statement)).toEqual(['Kaël crossed the ford.']);
    } finally {
      await memory.close();
    }
  });

  it('names the URL it tried when the model server is unreachable', async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (message: string) => warnings.push(message) };
    const llm = openAiCompatibleLlm({ baseUrl: 'http://127.0.0.1:9/v1', model: 'nowhere', maxRetries: 0 });
    const memory = await openMemory({ path: ':memory:', embedder: null, logger, llm, living: { autoStart: false, maxAttempts: 1 } });
    try {
      await memory.living.recordTurn({ saveId: 's', turnId: 1, text: 'Kaël crosses the ford.' });
      await memory.living.runPending();
      expect(warnings.join('\n')).toContain('http://127.0.0.1:9/v1/chat/completions');
    } finally {
      await memory.close();
    }
  });
});
