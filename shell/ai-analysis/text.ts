/**
 * The language side of the AI analysis, on wink-nlp and its English model: words of a text (normalised,
 * stemmed, stop words flagged, and whether the writer set them as a ticker), sentences, and the sentiment of
 * a sentence. The model is loaded once, when this file is first imported, because loading it costs far
 * more than reading a page with it.
 */
import winkNLP from 'wink-nlp';
import model from 'wink-eng-lite-web-model';

const nlp = winkNLP(model);
const its = nlp.its;

/** One word or number of a text. */
export interface Word {
  /** As written. */
  readonly surface: string;
  /** Lower-cased and normalised (wink-nlp's `normal`). */
  readonly normal: string;
  /** The stem the full-text index uses (Porter stemmer of wink-nlp). */
  readonly stem: string;
  readonly stop: boolean;
  /** Written in capitals (2+ characters) or right after a `$`: the writer means a ticker. */
  readonly tickerForm: boolean;
}

const capitals = /^[A-Z][A-Z0-9]{1,11}$/;

/**
 * The words and numbers of `text` in order; punctuation and symbols are dropped, so "C-Chain", "Pump.fun"
 * and "proof-of-work" become the same words as "C Chain", "Pump fun" and "proof of work".
 */
export function words(text: string): Word[] {
  const doc = nlp.readDoc(text);
  const values = doc.tokens().out(its.value) as string[];
  const normals = doc.tokens().out(its.normal) as string[];
  // wink-nlp's type of `its.stem` misdeclares its third parameter; it is a token helper like `its.normal`.
  const stems = doc.tokens().out(its.stem as unknown as typeof its.normal) as string[];
  const types = doc.tokens().out(its.type) as string[];
  const stops = doc.tokens().out(its.stopWordFlag) as unknown as boolean[];
  const result: Word[] = [];
  for (let index = 0; index < values.length; index++) {
    const type = types[index];
    if (type !== 'word' && type !== 'number') continue;
    const surface = values[index]!;
    const dollar = index > 0 && types[index - 1] === 'currency' && values[index - 1] === '$';
    result.push({ surface, normal: normals[index]!, stem: stems[index]!, stop: stops[index] === true, tickerForm: dollar || capitals.test(surface) });
  }
  return result;
}

/** The normalised words of a phrase, the form phrase matching compares. */
export function phraseWords(phrase: string): string[] {
  return words(phrase).map((word) => word.normal);
}

/** One sentence with its sentiment (wink-nlp's, -1 negative to +1 positive). */
export interface Sentence {
  readonly text: string;
  readonly sentiment: number;
}

/** The sentences of `text` in order, each with its sentiment. */
export function sentences(text: string): Sentence[] {
  const doc = nlp.readDoc(text);
  const texts = doc.sentences().out() as string[];
  const sentiments = doc.sentences().out(its.sentiment) as unknown as number[];
  return texts.map((sentence, index) => ({ text: sentence.trim(), sentiment: sentiments[index] ?? 0 })).filter((sentence) => sentence.text !== '');
}
