// A stand-in language model for running the agent offline (and in CI): the AI SDK's own mock model, with a few rules for when to call which tool.
import { MockLanguageModelV3 } from 'ai/test';

type CallOptions = MockLanguageModelV3['doGenerateCalls'][number];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 0, text: 0, reasoning: undefined } };

function toolCall(toolName: string, input: Record<string, unknown>, step: number): GenerateResult {
  return { content: [{ type: 'tool-call', toolCallId: `offline-${step}`, toolName, input: JSON.stringify(input) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] };
}

function answer(text: string): GenerateResult {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
}

/** The text of the last message: the user's words, or the tool result the model was sent back. */
function lastMessage(options: CallOptions): { role: string; text: string } {
  const message = options.prompt.at(-1);
  if (message === undefined || message.role === 'system') return { role: 'none', text: '' };
  const parts = typeof message.content === 'string' ? [] : message.content;
  const text = parts
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'tool-result') return part.output.type === 'text' || part.output.type === 'error-text' ? part.output.value : JSON.stringify(part.output);
      return '';
    })
    .join('\n');
  return { role: message.role, text };
}

/**
 * A model that follows three rules, so that the example shows a real tool round trip without a server:
 * "remember that X" calls `remember`; a question with "my" or "me" calls `recall`; any other
 * question calls `query_memory`; after a tool result it answers with the result's first line.
 */
export function offlineModel(): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({
    provider: 'offline',
    modelId: 'rules',
    doGenerate: async (options) => {
      step += 1;
      const last = lastMessage(options);
      if (last.role === 'tool') return answer(last.text.startsWith('Remembered ') ? 'Noted; I will remember that.' : `From memory: ${last.text.split('\n')[0]}`);
      const remembered = /^remember(?: that)? (.+)$/iu.exec(last.text.trim());
      if (remembered !== null) {
        const fact = remembered[1] as string;
        const key = fact.toLowerCase().split(/\W+/u).filter((word) => word.length > 2).slice(0, 3).join('_') || 'note';
        return toolCall('remember', { key, value: fact }, step);
      }
      if (last.text.trim().endsWith('?')) return toolCall(/\b(my|me)\b/iu.test(last.text) ? 'recall' : 'query_memory', { query: last.text.trim(), k: 3 }, step);
      return answer('I see.');
    },
  });
}
