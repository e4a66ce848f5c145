// Run by scripts/check-package.sh in a project where no optional peer is installed: each gives a clear coded error.
import { gptTokenCounter, isMnemoError, openMemory } from 'mnemo-engine';

async function expectMissing(what: string, attempt: () => Promise<unknown>, install: string): Promise<void> {
  const error = await attempt().then(() => null, (caught: unknown) => caught);
  if (!isMnemoError(error, 'DEPENDENCY_MISSING') || !error.message.includes(install)) {
    throw new Error(`${what}: expected DEPENDENCY_MISSING naming \`${install}\`, got ${String(error)}`);
  }
  console.log(`${what}: DEPENDENCY_MISSING, "${install}"`);
}

await expectMissing("embedder 'minilm'", () => openMemory({ path: ':memory:', embedder: 'minilm' }), 'npm i @huggingface/transformers@4.3.1');
await expectMissing('a postgres:// URL', () => openMemory({ url: 'postgres://mnemo@127.0.0.1:1/none' }), 'npm i pg@8');
await expectMissing('gptTokenCounter()', () => gptTokenCounter(), 'npm i gpt-tokenizer@4');

const memory = await openMemory({ path: ':memory:' });
await memory.add({ saveId: 'run-1', turnId: 1, text: 'Kaël hides the silver key under the third stone of the well.' });
const context = await memory.context.build({ saveId: 'run-1', character: 'Rowan', message: 'Where is the key?', tags: [] });
await memory.close();
if (context.tokenizer !== 'estimate:character-classes') throw new Error(`context tokens: expected the estimate without gpt-tokenizer, got ${context.tokenizer}`);
console.log(`context without gpt-tokenizer: counted by ${context.tokenizer}, ${context.tokens.used} of ${context.tokens.budget} tokens`);
