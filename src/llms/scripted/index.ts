// The scripted LLM: deterministic answers for tests.
export { ScriptedLlm, scriptedLlm } from './scripted-llm.js';
export type { Script, ScriptedAnswer, ScriptedCall, ScriptedLlmOptions } from './scripted-llm.js';
