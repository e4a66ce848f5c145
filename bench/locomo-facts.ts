// Writes LoCoMo's gold session observations as a facts file for `mnemo eval --facts` (evaluation only: the data is read at run time and never shipped).
// Usage: node --import tsx bench/locomo-facts.ts [--data ../shared/bench/locomo] --out /tmp/locomo.facts.jsonl
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { benchArgs } from './bench-args.js';
import { locomoObservations } from './locomo-observations.js';

const { values } = benchArgs(import.meta.url, { options: { data: { type: 'string' }, out: { type: 'string' } } });
if (values.out === undefined) throw new Error('--out: expected the path of the facts file to write (outside the repository)');
const data = resolve(values.data ?? [join('..', 'shared', 'bench', 'locomo'), '/work/shared/bench/locomo'].find((path) => existsSync(path)) ?? '../shared/bench/locomo');
const facts = locomoObservations(data);
writeFileSync(values.out, facts.map((fact) => JSON.stringify(fact)).join('\n') + '\n');
console.log(`${facts.length} facts written to ${values.out}`);
