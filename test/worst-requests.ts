// The save at every bound and the most expensive request of each kind, shared by the /health test and bench:worst-request.
import { LIMITS } from '../src/core/limits.js';

const WORDS = ['harvest', 'moon', 'rowan', 'marta', 'salt', 'toll', 'bridge', 'lantern', 'ford', 'silver', 'debt', 'gull'];

/** A text of about `length` characters, made of words the queries share. */
export function prose(length: number, seed: number): string {
  const words: string[] = [];
  let size = 0;
  for (let index = 0; size < length - 12; index++) {
    const word = WORDS[(index * 7 + seed) % WORDS.length] as string;
    words.push(word);
    size += word.length + 1;
  }
  return words.join(' ');
}

/** `count` focus terms of 200 characters, each of several tokens (the long terms, cut to the bounds). */
export function longTerms(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${prose(LIMITS.focusTermChars - 4, index)} ${index}`.slice(0, LIMITS.focusTermChars));
}

/** A request: which token sends it (`player`, limited to its saves, or `admin`), where, and its JSON body. */
export interface WorstRequest {
  name: string;
  as: 'player' | 'admin';
  path: string;
  body?: unknown;
}

/** The save the player's token may use, and the forks the fork request makes (one per try). */
export const OWN_SAVE = 'own';

/**
 * The requests to fill a server to the bounds: 20 chunks of 100,000 characters and 1,000 turns of history in the
 * player's save, 40 lore entries of 20,000 characters (the recall values are the caller's: they need the library).
 */
export function fillRequests(): WorstRequest[] {
  const requests: WorstRequest[] = [];
  for (let batch = 0; batch < 4; batch++) {
    const chunks = Array.from({ length: 5 }, (_, index) => ({ turnId: batch * 5 + index + 1, text: prose(LIMITS.textChars, batch * 5 + index) }));
    requests.push({ name: 'large chunks', as: 'player', path: `/v1/saves/${OWN_SAVE}/chunks`, body: { chunks } });
  }
  const history = Array.from({ length: 1000 }, (_, index) => ({ turnId: 100 + index, text: `Turn ${index}: ${prose(300, index)}` }));
  requests.push({ name: 'history', as: 'player', path: `/v1/saves/${OWN_SAVE}/chunks`, body: { chunks: history } });
  const entries = Array.from({ length: 40 }, (_, index) => ({ source: 'world.yaml', title: `Entry ${index}`, content: prose(LIMITS.loreContentChars, index), scopeLevel: 'continental', scopeTags: [] }));
  requests.push({ name: 'lore', as: 'admin', path: '/v1/lore/import', body: { entries } });
  return requests;
}

/**
 * The most expensive request of each kind, inputs at their bounds. `attempt` numbers the fork (each try makes a
 * new one) so a kind can be tried several times.
 */
export function worstRequests(attempt: number): WorstRequest[] {
  const terms = longTerms(LIMITS.focusTerms);
  const contextTerms = terms.slice(0, LIMITS.focusTerms - 1);
  const own = `/v1/saves/${OWN_SAVE}`;
  const items = LIMITS.contextSectionItems;
  return [
    { name: 'query at every bound', as: 'player', path: `${own}/query`, body: { query: prose(LIMITS.queryChars, 1), k: LIMITS.k, capPerSource: LIMITS.capPerSource, rerankTop: LIMITS.rerankTop, focusTerms: terms } },
    { name: 'short query with long focus terms', as: 'player', path: `${own}/query`, body: { query: 'harvest moon salt toll', focusTerms: terms } },
    { name: 'lore search at every bound', as: 'player', path: '/v1/lore/search', body: { query: prose(LIMITS.queryChars, 3), tags: [], k: LIMITS.k, focusTerms: terms } },
    { name: 'recall at every bound', as: 'player', path: '/v1/recall', body: { query: prose(LIMITS.queryChars, 4), scope: OWN_SAVE, k: LIMITS.k } },
    { name: 'default context', as: 'player', path: `${own}/context`, body: { character: 'Rowan', message: 'What do you know of the harvest moon?', tags: [] } },
    {
      name: 'context at every bound',
      as: 'player',
      path: `${own}/context`,
      body: { character: 'Rowan', message: prose(LIMITS.queryChars, 6), tags: [], budget: LIMITS.contextBudget, limits: { beliefs: items, facts: items, memories: items, lore: items }, focusTerms: contextTerms },
    },
    { name: 'write at the body limit', as: 'player', path: `${own}/chunks`, body: { chunks: Array.from({ length: 10 }, (_, index) => ({ turnId: 5000, text: prose(LIMITS.textChars - 1000, index) })) } },
    { name: 'remember at the value bound', as: 'player', path: '/v1/remember', body: { scope: OWN_SAVE, key: 'big', value: prose(LIMITS.memoryValueChars, 5) } },
    { name: 'listing of 1,000 chunks', as: 'player', path: `${own}/chunks?limit=1000` },
    { name: 'export of the save', as: 'player', path: `${own}/export` },
    { name: 'fork of the save', as: 'player', path: `${own}/fork`, body: { newSaveId: `${OWN_SAVE}-fork-${attempt}`, atTurn: 1_000_000 } },
    { name: 'rewind of a fork', as: 'player', path: `${own}-fork-0/rewind`, body: { turnId: 0 } },
    { name: 'lore import at the body limit', as: 'admin', path: '/v1/lore/import', body: { entries: Array.from({ length: 45 }, (_, index) => ({ source: 'world.yaml', title: `Entry ${index}`, content: prose(LIMITS.loreContentChars, index + 1), scopeLevel: 'continental', scopeTags: [] })) } },
  ];
}

/** The forks a player may make: one per try. */
export function forkSaves(tries: number): string[] {
  return Array.from({ length: tries }, (_, index) => `${OWN_SAVE}-fork-${index}`);
}

/** This process's CPU time in milliseconds (user and system). */
function processCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * Polls `/health` while `work` runs (work in this process: a persist, a flush). Each round trip counts as the
 * smaller of its wall time and the CPU time this process spent meanwhile (see `healthDuring`). Returns the slowest
 * /health and the work's wall time.
 */
export async function healthWhile(baseUrl: string, work: () => Promise<unknown>, cpu: () => number = processCpuMs): Promise<{ worstHealthMs: number; workMs: number }> {
  let done = false;
  const started = performance.now();
  const running = work().finally(() => {
    done = true;
  });
  let worst = 0;
  while (!done) {
    const at = performance.now();
    const cpuAt = cpu();
    const health = await fetch(`${baseUrl}/health`);
    await health.text();
    worst = Math.max(worst, Math.min(performance.now() - at, cpu() - cpuAt));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await running;
  return { worstHealthMs: worst, workMs: performance.now() - started };
}

/**
 * Sends `request` and polls `/health` while it runs. Each round trip counts as the smaller of its wall time and
 * the CPU time this process spent meanwhile: on a shared machine a process also waits for a core, which is not its
 * own work (a server in another process should pass its own CPU clock as `cpu`). Returns the slowest /health, the
 * request's wall time and its status.
 */
export async function healthDuring(baseUrl: string, token: string, request: WorstRequest, cpu: () => number = processCpuMs): Promise<{ worstHealthMs: number; requestMs: number; status: number }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let status = 0;
  const { worstHealthMs, workMs } = await healthWhile(
    baseUrl,
    async () => {
      const response = await fetch(`${baseUrl}${request.path}`, { method: request.body === undefined ? 'GET' : 'POST', headers, body: request.body === undefined ? undefined : JSON.stringify(request.body) });
      await response.arrayBuffer();
      status = response.status;
    },
    cpu,
  );
  return { worstHealthMs, requestMs: workMs, status };
}

/** A save of `count` short chunks (one turn each), the large save whose index a persist writes. */
export function largeSaveChunks(saveId: string, count: number, from = 0): { saveId: string; turnId: number; text: string }[] {
  return Array.from({ length: count }, (_, index) => ({ saveId, turnId: from + index + 1, text: `Turn ${from + index}: ${prose(160, from + index)} ${from + index}` }));
}
