/**
 * The support agents' retrieval and extractive answers, over the passages of corpus.ts.
 *
 * Index: MiniSearch (BM25+, its default parameters) over four fields of each passage: `title` (boost 2),
 * `section` (1), `lead` (1.5, see `leadOf`) and `text` (1). Terms are lower-cased, English stop words and
 * question fillers are dropped, and a plural `s` is cut (`orders` and `order` are one term; not after `s`,
 * `u` or `i`, so `address`, `status` and `basis` stay whole), the same for documents and questions. A
 * question term of 4 characters or more also matches terms it begins (prefix: `order` finds `orderbook`),
 * and one of 5 or more matches terms one edit away (fuzzy 0.2: a typo); such matches weigh less than exact
 * ones (MiniSearch's default weights). Words of the request's `context` join the query at half weight. A
 * question's first `questionTermsMax` distinct terms are searched (a context's first `contextTermsMax`),
 * and tokens over `termCharsMax` characters are no terms, so that the longest question costs a bounded
 * search.
 *
 * A passage answers only when it matches at least half of the question's distinct terms (rounded up);
 * when none does, the answer is "no answer found" with suggestions, never the best of bad matches.
 *
 * Answer rule: the qualifying passages are taken best first, at most `answerPassagesMax`, and only those
 * scoring at least a quarter of the best. From each, the sentences (for code blocks and tables, the lines)
 * holding the most question terms, at most `sentencesPerPassageMax`, in the passage's own order (a passage
 * that matched only by its heading gives its first sentence). Sentences are cut at `sentenceCharsMax` and
 * the answer stops before it would pass `answerCharsMax`. Every passage quoted is cited: its document, its
 * section and its score (rounded to 3 decimals). Nothing depends on time or chance: one question and one
 * corpus give one answer.
 */
import MiniSearch, { type SearchResult } from 'minisearch';
import type { Passage } from './corpus.ts';

export const answerPassagesMax = 3;
export const sentencesPerPassageMax = 2;
export const sentenceCharsMax = 400;
export const answerCharsMax = 1200;
/** A passage below this share of the best score is not quoted. */
export const scoreShareMin = 0.25;
/** How much a word of the request's context counts against one of the question. */
export const contextWeight = 0.5;

export interface Citation {
  readonly document: string;
  readonly section: string;
  readonly score: number;
}

export interface Retrieved {
  readonly passage: Passage;
  readonly score: number;
}

export interface ExtractiveAnswer {
  /** False when no passage qualified: `text` then says so. */
  readonly answered: boolean;
  readonly text: string;
  readonly citations: readonly Citation[];
  /** The passages quoted (what a model may phrase from). */
  readonly passages: readonly Retrieved[];
}

/** Words that carry no meaning of their own in a question or a document. */
export const stopWords: ReadonlySet<string> = new Set(
  (
    'a about above after again all also am an and any are as at be because been before being below between both but by can could ' +
    'did do does doing done down during each either else ever every few for from further get gets getting give given go had has have ' +
    'having he her here hers him his how i if in into is it its itself just let me more most my no nor not now of off on once only or ' +
    'other our ours out over own please same she should so some such than that the their theirs them then there these they this those ' +
    'through to too under until up us very want was way we were what when where which while who whom why will with would you your yours ' +
    'work works explain tell know mean means need'
  ).split(' '),
);

const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

/** Longer tokens (hashes, long identifiers) are not words anyone asks for: they are left out of index and query. */
export const termCharsMax = 40;
/** Distinct terms of a question searched at most (its first ones), and of a context. */
export const questionTermsMax = 24;
export const contextTermsMax = 8;

/** A term as the index keeps it (null: not indexed). */
export function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (lower.length === 0 || lower.length > termCharsMax || stopWords.has(lower)) return null;
  if (lower.length > 3 && lower.endsWith('s') && !/[sui]s$/.test(lower)) return lower.slice(0, -1);
  return lower;
}

/** The distinct processed terms of a text, in order of first appearance. */
export function termsOf(text: string): string[] {
  const seen = new Set<string>();
  for (const token of tokenize(text)) {
    const term = processTerm(token);
    if (term !== null) seen.add(term);
  }
  return [...seen];
}

const prefixLengthMin = 4;
const fuzzyLengthMin = 5;

/** Whether a sentence's term counts as the question's term (exact, or begins with it, as the index's prefix rule). */
function covers(sentenceTerm: string, questionTerm: string): boolean {
  return sentenceTerm === questionTerm || (questionTerm.length >= prefixLengthMin && sentenceTerm.startsWith(questionTerm));
}

/** A Markdown table's separator row (`| --- | :-: |`). */
const tableRule = /^\|[\s:|-]+\|$/;

/** A passage's sentences; a code block's and a table's are its lines (a table without its separator row). */
function sentencesOf(passage: Passage): string[] {
  const lines = passage.text.split('\n').map((line) => line.trim());
  if (passage.code) return lines.filter((line) => line !== '' && !/^(```|~~~)/.test(line));
  if (lines.every((line) => line.startsWith('|'))) return lines.filter((line) => !tableRule.test(line));
  return passage.text
    .replace(/\s*\n\s*/g, ' ')
    .split(/(?<=[.!?])\s+(?=[A-Z0-9`"(\[])/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const space = text.lastIndexOf(' ', max - 1);
  return `${text.slice(0, space > max / 2 ? space : max - 1)}…`;
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/** How much more a match in the passage's heading (or operation name) counts than one in its text. */
export const titleBoost = 2;
/**
 * A prose paragraph's first words usually name its subject ("Two-factor login: ...", "API keys (...) are"):
 * they are indexed once more as the `lead`, at this boost, on top of the text they belong to. Code blocks
 * and operations have none (an operation's name is its title already).
 */
export const leadBoost = 1.5;
export const leadWordsMax = 6;

/** The first `leadWordsMax` words of a prose passage. */
function leadOf(passage: Passage): string {
  if (passage.code || passage.document.startsWith('openapi:')) return '';
  return tokenize(passage.text.slice(0, 200)).filter((token) => token !== '').slice(0, leadWordsMax).join(' ');
}

export class SupportIndex {
  private readonly search: MiniSearch<Passage>;

  constructor(readonly passages: readonly Passage[]) {
    this.search = new MiniSearch<Passage>({
      fields: ['title', 'section', 'lead', 'text'],
      extractField: (passage, field) => (field === 'lead' ? leadOf(passage) : passage[field as keyof Passage]),
      processTerm: (term) => processTerm(term),
      searchOptions: {
        boost: { title: titleBoost, section: 1, lead: leadBoost, text: 1 },
        prefix: (term) => term.length >= prefixLengthMin,
        fuzzy: (term) => (term.length >= fuzzyLengthMin ? 0.2 : false),
        // At most two edits, whatever the term's length: a fuzzy match further away is no longer a typo.
        maxFuzzy: 2,
        combineWith: 'OR',
      },
    });
    this.search.addAll(passages);
  }

  /**
   * The passages that qualify for `question` (at least half of its terms matched), best first; ties by
   * corpus order, so that equal scores rank the same on every run.
   */
  retrieve(question: string, context = ''): Retrieved[] {
    const questionTerms = termsOf(question).slice(0, questionTermsMax);
    if (questionTerms.length === 0) return [];
    const contextTerms = termsOf(context)
      .filter((term) => !questionTerms.includes(term))
      .slice(0, contextTermsMax);
    const terms = [...questionTerms, ...contextTerms];
    const results = this.search.search(terms.join(' '), {
      boostTerm: (_term, index) => (index < questionTerms.length ? 1 : contextWeight),
    });
    const needed = Math.ceil(questionTerms.length / 2);
    return results
      .filter((result: SearchResult) => result.queryTerms.filter((term) => questionTerms.includes(term)).length >= needed)
      .sort((a, b) => b.score - a.score || (a.id as number) - (b.id as number))
      .map((result) => ({ passage: this.passages[result.id as number]!, score: result.score }));
  }

  /** The extractive answer to `question` (see the rule at the top of this file). */
  answer(question: string, context = ''): ExtractiveAnswer {
    const retrieved = this.retrieve(question, context);
    const best = retrieved[0];
    if (best === undefined) return { answered: false, text: noAnswerText, citations: [], passages: [] };
    const questionTerms = termsOf(question).slice(0, questionTermsMax);
    const quoted = retrieved.filter((item) => item.score >= best.score * scoreShareMin).slice(0, answerPassagesMax);
    const parts: string[] = [];
    const used: Retrieved[] = [];
    let length = 0;
    for (const item of quoted) {
      const chosen = this.bestSentences(item.passage, questionTerms);
      const fitting: string[] = [];
      for (const sentence of chosen) {
        if (length + sentence.length + 1 > answerCharsMax) break;
        fitting.push(sentence);
        length += sentence.length + 1;
      }
      if (fitting.length === 0) break;
      parts.push(...fitting);
      used.push(item);
    }
    return {
      answered: true,
      text: parts.join(' '),
      citations: used.map((item) => ({ document: item.passage.document, section: item.passage.section, score: round3(item.score) })),
      passages: used,
    };
  }

  private bestSentences(passage: Passage, questionTerms: readonly string[]): string[] {
    const sentences = sentencesOf(passage).map((sentence, position) => {
      const terms = termsOf(sentence);
      const hits = questionTerms.filter((questionTerm) => terms.some((term) => covers(term, questionTerm))).length;
      return { text: cut(sentence, sentenceCharsMax), position, hits };
    });
    const ranked = sentences.filter((sentence) => sentence.hits > 0).sort((a, b) => b.hits - a.hits || a.position - b.position);
    const chosen = ranked.length > 0 ? ranked.slice(0, sentencesPerPassageMax) : sentences.slice(0, 1);
    return chosen.sort((a, b) => a.position - b.position).map((sentence) => sentence.text);
  }
}

export const noAnswerText = 'No answer found in the platform documents for this question.';

/** Where to look next when nothing matched. */
export const noAnswerSuggestions: readonly string[] = [
  'Read /llms.txt: one line for every public route.',
  'Browse /openapi-public.json: every route with its parameters and schemas.',
  "Ask with a feature's or route's own words, e.g. 'scale order', 'API key', 'rate limit' or 'withdraw'.",
];
