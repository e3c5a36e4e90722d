/**
 * The embedded prompt analyzer: which assets a free-text prompt is about, each with a probability and the
 * terms that decided it. Deterministic: the same prompt and profiles give the same answer.
 *
 * 1. The prompt is tokenised by wink-nlp (text.ts): stop words dropped, the rest stemmed; a word written as
 *    a ticker (capitals or `$`, or any case for tickers that are not everyday words) also yields the term
 *    `tk:<ticker>`.
 * 2. A minisearch index (BM25) holds one document per profile with four fields, boosted: ticker and name
 *    ×4, aliases ×2, vocabulary (sector, its vocabulary, technology, uses, ecosystem) ×1; the same
 *    tokeniser indexed them. No fuzzy or prefix matching, so scores depend on the words alone.
 * 3. Calibration: x = score / referenceScore, where referenceScore is the median, over the profiles, of the
 *    score a profile gets for a prompt of exactly its name (so x = 1 is "as strong as naming an asset");
 *    p = 1 / (1 + e^(−k·(x − x0))) with k = 2 and x0 = 1 (monotone in the score, in 0..1). An asset named
 *    exactly (its ticker, name or alias, found by PhraseIndex) gets max(p, 0.8); an asset only inferred
 *    from vocabulary gets 0.75 · p, so named assets rank first and inferred ones keep their order.
 * 4. Assets with probability at least `promptProbabilityMin` are kept, highest first (ties by symbol), at
 *    most `promptAssetsMax`; probabilities are rounded to 3 decimals.
 */
import MiniSearch from 'minisearch';
import { words } from './text.ts';
import { PhraseIndex, namingFields, type AssetProfile, type PhraseField } from './profiles.ts';

/** Longest prompt accepted, in characters. */
export const promptCharsMax = 2000;
/** Assets one answer lists at most. */
export const promptAssetsMax = 10;
/** Probability an asset needs to be listed. */
export const promptProbabilityMin = 0.2;
/** Probability an exact mention of an asset's ticker, name or alias reaches at least. */
export const exactMentionFloor = 0.8;
/** Scale of the probability of an asset only inferred from vocabulary (no exact mention): its ceiling. */
export const inferredScale = 0.75;
/** The logistic's steepness and midpoint on the normalised score. */
export const calibrationSteepness = 2;
export const calibrationMidpoint = 1;
/** Field boosts of the BM25 index. */
export const fieldBoosts = { ticker: 4, name: 4, aliases: 2, vocabulary: 1 } as const;

type IndexField = keyof typeof fieldBoosts;
const fieldLabels: Record<IndexField, string> = { ticker: 'ticker', name: 'name', aliases: 'aliases', vocabulary: 'sector vocabulary' };
const fieldOfPhrase: Record<PhraseField, string> = { ticker: 'ticker', name: 'name', alias: 'alias', sector: 'sector', technology: 'technology', use_case: 'use case', ecosystem: 'ecosystem' };

export interface PromptAsset {
  readonly symbol: string;
  readonly probability: number;
  readonly explanation: string;
}

interface ProfileDocument {
  readonly symbol: string;
  readonly ticker: string;
  readonly name: string;
  readonly aliases: string;
  readonly vocabulary: string;
}

/** The term of a ticker, apart from the words of names and vocabulary. */
const tickerTerm = (symbol: string): string => `tk:${symbol.toLowerCase()}`;

/** Index terms of a field's text: the stems of its words without stop words. */
function fieldTerms(text: string): string[] {
  return words(text).filter((word) => !word.stop).map((word) => word.stem);
}

function round(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}

export class PromptAnalyzer {
  private readonly index: MiniSearch<ProfileDocument>;
  private readonly phrases: PhraseIndex;
  /** Tickers that are not everyday words: matched in any case. */
  private readonly plainTickers: ReadonlySet<string>;
  private readonly profiles: ReadonlyMap<string, AssetProfile>;
  /** The median score of "a prompt naming one asset", the unit of the normalised score. */
  readonly referenceScore: number;

  constructor(profiles: readonly AssetProfile[]) {
    this.profiles = new Map(profiles.map((profile) => [profile.symbol, profile]));
    this.phrases = new PhraseIndex(profiles);
    this.plainTickers = new Set(profiles.filter((profile) => !profile.tickerIsWord).map((profile) => profile.symbol.toLowerCase()));
    this.index = new MiniSearch<ProfileDocument>({
      idField: 'symbol',
      fields: ['ticker', 'name', 'aliases', 'vocabulary'],
      tokenize: (text, field) => (field === 'ticker' ? [tickerTerm(text)] : fieldTerms(text)),
      processTerm: (term) => term,
      searchOptions: { boost: { ...fieldBoosts }, combineWith: 'OR', fuzzy: false, prefix: false, tokenize: (text) => this.queryTerms(text).terms, processTerm: (term) => term },
    });
    this.index.addAll(
      profiles.map((profile) => ({
        symbol: profile.symbol,
        ticker: profile.symbol,
        name: profile.name,
        aliases: profile.aliases.join(' ; '),
        vocabulary: [profile.sector, ...profile.sectorVocabulary, ...profile.technology, ...profile.useCases, ...profile.ecosystem].join(' ; '),
      })),
    );
    const nameScores = profiles
      .map((profile) => this.index.search(profile.name).find((result) => result.id === profile.symbol)?.score ?? 0)
      .sort((a, b) => a - b);
    this.referenceScore = Math.max(nameScores[Math.floor(nameScores.length / 2)] ?? 1, 1e-9);
  }

  /** The query terms of a prompt, and for each term the words of the prompt it came from. */
  private queryTerms(prompt: string): { terms: string[]; surfaces: Map<string, string> } {
    const terms: string[] = [];
    const surfaces = new Map<string, string>();
    for (const word of words(prompt)) {
      if (!word.stop) {
        terms.push(word.stem);
        if (!surfaces.has(word.stem)) surfaces.set(word.stem, word.surface);
      }
      if (word.tickerForm || this.plainTickers.has(word.normal)) {
        const term = tickerTerm(word.normal);
        terms.push(term);
        if (!surfaces.has(term)) surfaces.set(term, word.surface);
      }
    }
    return { terms, surfaces };
  }

  /** The calibrated probability of a BM25 score (before the exact-mention floor). */
  probabilityOf(score: number): number {
    const x = score / this.referenceScore;
    return 1 / (1 + Math.exp(-calibrationSteepness * (x - calibrationMidpoint)));
  }

  /** The assets `prompt` is about, most probable first. */
  analyze(prompt: string): PromptAsset[] {
    const { surfaces } = this.queryTerms(prompt);
    const exact = new Map<string, Array<{ field: PhraseField; phrase: string }>>();
    for (const match of this.phrases.find(words(prompt))) {
      if (!namingFields.has(match.field)) continue;
      const list = exact.get(match.symbol) ?? [];
      if (!list.some((seen) => seen.phrase === match.phrase && seen.field === match.field)) list.push({ field: match.field, phrase: match.phrase });
      exact.set(match.symbol, list);
    }
    const results = new Map(this.index.search(prompt).map((result) => [result.id as string, result]));
    const candidates: PromptAsset[] = [];
    for (const symbol of new Set([...results.keys(), ...exact.keys()])) {
      const profile = this.profiles.get(symbol);
      if (profile === undefined) continue;
      const result = results.get(symbol);
      const score = result?.score ?? 0;
      const mentions = exact.get(symbol) ?? [];
      let probability = this.probabilityOf(score);
      probability = mentions.length > 0 ? Math.max(probability, exactMentionFloor) : probability * inferredScale;
      probability = round(probability, 3);
      if (probability < promptProbabilityMin) continue;
      const parts: string[] = [];
      if (mentions.length > 0) parts.push(`exact mention of ${mentions.map((mention) => `${fieldOfPhrase[mention.field]} "${mention.phrase}"`).join(', ')}`);
      if (result !== undefined) {
        const matched = Object.keys(result.match)
          .sort()
          .map((term) => `"${surfaces.get(term) ?? term}" in ${(result.match[term] as IndexField[]).map((field) => fieldLabels[field]).join(' and ')}`);
        parts.push(`matched ${matched.join(', ')}`);
      }
      parts.push(`BM25 score ${round(score, 2)} (normalised ${round(score / this.referenceScore, 2)}) gives probability ${probability}`);
      const sentence = parts.join('; ');
      candidates.push({ symbol, probability, explanation: `${profile.name} (${symbol}): ${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.` });
    }
    candidates.sort((a, b) => b.probability - a.probability || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
    return candidates.slice(0, promptAssetsMax);
  }
}
