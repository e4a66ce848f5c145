// The English stop words of the default analyzer: Snowball's list (function words only), as tokenize splits it.

/**
 * Snowball's English stop list (snowballstem.org, `algorithms/english/stop.txt`, BSD licence): pronouns,
 * determiners, auxiliaries, conjunctions, prepositions and a few adverbs of degree, and nothing else, so content
 * words such as "well", "way", "still", "like" or "said" stay searchable. Its contractions are given as the
 * pieces `tokenize` splits them into ("don't" -> "don", "t"; "I'm" -> "i", "m"); pieces that are also words
 * ("can", "won", "let", "shan") are left out, so "can" and "won" stay searchable.
 *
 * @example
 * ```ts
 * ENGLISH_STOP_WORDS.has('the'); // true
 * ENGLISH_STOP_WORDS.has('well'); // false
 * ```
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  [
    // pronouns
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself',
    'it its itself they them their theirs themselves what which who whom this that these those',
    // auxiliaries
    'am is are was were be been being have has had having do does did doing would should could ought',
    // contraction pieces: i'm, you're, i've, i'd, i'll, it's, isn't, aren't, wasn't, weren't, hasn't, haven't,
    // hadn't, doesn't, don't, didn't, wouldn't, shouldn't, couldn't, mustn't, cannot
    'm re ve d ll s t isn aren wasn weren hasn haven hadn doesn don didn wouldn shouldn couldn mustn cannot',
    // articles, conjunctions, prepositions
    'a an the and but if or because as until while of at by for with about against between into through during',
    'before after above below to from up down in out on off over under',
    // adverbs and determiners of degree
    'again further then once here there when where why how all any both each few more most other some such no nor',
    'not only own same so than too very',
  ]
    .join(' ')
    .split(' '),
);
