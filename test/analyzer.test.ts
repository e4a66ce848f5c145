import { describe, expect, it } from 'vitest';
import { createAnalyzer } from '../src/retrieval/analyzer.js';

describe('createAnalyzer', () => {
  it('stems and drops stop words in English by default', () => {
    expect(createAnalyzer()('What opened the heavy doors?')).toEqual(['open', 'heavi', 'door']);
  });
  it('keeps names and non-Latin words whole', () => {
    expect(createAnalyzer()('Kaël and 東京')).toEqual(['kaël', '東京']);
  });
  it('can keep stop words, skip stemming, or do neither', () => {
    expect(createAnalyzer({ stopWords: false })('the doors')).toEqual(['the', 'door']);
    expect(createAnalyzer({ stem: false })('the doors')).toEqual(['doors']);
    expect(createAnalyzer({ language: 'none' })('The doors')).toEqual(['the', 'doors']);
  });
  it('keeps content words that a broad stop list would drop (regression: "the well" searched for nothing)', () => {
    expect(createAnalyzer()('Mind the well, it floods.')).toEqual(['mind', 'well', 'flood']);
    expect(createAnalyzer({ stem: false })('still waters, a long way, like she said')).toEqual(['still', 'waters', 'long', 'way', 'like', 'said']);
  });
  it('drops the pieces of English contractions', () => {
    expect(createAnalyzer({ stem: false })("I'm sure they don't know it's there")).toEqual(['sure', 'know']);
  });
  it('takes a list of stop words of its own', () => {
    expect(createAnalyzer({ stopWords: ['Gate', 'the'] })('The gate opens')).toEqual(['open']);
    expect(() => createAnalyzer({ stopWords: ['gate', 3] as never })).toThrow(/stopWords: expected true, false or a list of words/);
  });
  it('speaks other languages', () => {
    expect(createAnalyzer({ language: 'french' })('Les portes ouvertes')).toEqual(['port', 'ouvert']);
  });
  it('refuses an unknown language, listing the known ones', () => {
    expect(() => createAnalyzer({ language: 'klingon' as never })).toThrow(/language: expected "none" or one of english, french/);
  });
});
