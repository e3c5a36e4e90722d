/**
 * The embedded URL analyzer: from a page read by page.ts, the headline, an extractive summary, the content
 * type, and for each requested asset its relevance, relationship, direction, confidence, analysis and key
 * points; then the page's overall market impact. Deterministic: the same page gives the same answer. The
 * rules (README, "AI analysis", says the same):
 *
 * - Units: the headline (unit -1) and the body's sentences (wink-nlp, at most `sentencesMax`), each with
 *   its words and its sentiment. The lead is the first `leadSentences` body sentences.
 * - Summary: term weight w(t) = tf(t) · ln(1 + N / sf(t)) over the stems of non-stop words (tf in the whole
 *   body, sf the sentences holding t, N the sentences); a sentence of at least `summaryWordsMin` words
 *   scores Σ w(t) over its distinct terms / √(its terms); the best `summarySentencesMax` in page order,
 *   cut to `summaryCharsMax` characters.
 * - Content type, first that holds: `data` (a JSON answer); `documentation` (a path segment such as docs,
 *   api, reference, guide; or 3+ code blocks; or the headline says documentation, reference, guide or
 *   tutorial); `announcement` (the headline or lead announces, launches, introduces, unveils or releases);
 *   `article` (og:type article, an <article> element, or 150+ words); `page` otherwise.
 * - Relevance, from the asset's own mentions (ticker, name, aliases): in the headline → direct subject
 *   0.9-1.0; in the lead with 3+ mentions, or in 20 %+ of the sentences → strong 0.7-0.89; 2+ mentions or
 *   in the lead → moderate 0.5-0.69; one mention → weak 0.3-0.49. Not named: a competitor or an ecosystem
 *   product named → weak 0.3-0.49; words of its sector, technology or uses → minimal 0.05 + 0.04 per
 *   distinct phrase, at most 0.29; nothing → 0. Within a band the score rises with the share of sentences
 *   holding the evidence (full at 25 %); two decimals.
 * - Relationship, first that holds: Regulatory Impact (the page has 2+ regulatory cues and one is in a
 *   sentence that names the asset, or its sector when it is not named); Direct Impact (named, and named at
 *   least as often as its competitors, or in the moderate band or above); Competitive Pressure (a
 *   competitor named); Ecosystem Integration (an ecosystem product named); Technology Alignment;
 *   Use Case Overlap; Sector Correlation (words of each, in that order when present); Market Sentiment.
 * - Direction: the mean wink-nlp sentiment of the evidence sentences of the relationship (for Competitive
 *   Pressure negated: good news for a competitor presses on the asset; for Market Sentiment the whole
 *   body); ≥ 0.1 positive, ≤ −0.1 negative, else neutral.
 * - Confidence: min(0.95, 0.2 + 0.5 · relevance + 0.25 · agreement), agreement being the share of evidence
 *   sentences whose own sign matches the direction.
 * - Key points: at most `keyPointsMax` evidence sentences, the strongest sentiment first, shown in page
 *   order.
 * - Overall market impact: m = Σ relevance · d / Σ relevance (d = +1, 0, −1); ≥ 0.2 positive, ≤ −0.2
 *   negative, else neutral (neutral when no asset is relevant).
 */
import { sentences as splitSentences, words, type Word } from './text.ts';
import { PhraseIndex, namingFields, type AssetProfile, type PhraseField, type PhraseMatch } from './profiles.ts';
import type { Page } from './page.ts';

/** Body sentences analysed at most. */
export const sentencesMax = 600;
/** Body sentences that make the lead. */
export const leadSentences = 3;
export const summarySentencesMax = 3;
export const summaryWordsMin = 6;
export const summaryCharsMax = 600;
export const keyPointsMax = 3;
/** Characters of one key point at most. */
export const keyPointCharsMax = 300;
/** Words an `article` has at least when nothing else says so. */
export const articleWordsMin = 150;
/** Regulatory cues a page needs for Regulatory Impact. */
export const regulatoryCuesMin = 2;
/** Mean sentiment beyond which a direction is positive or negative. */
export const directionThreshold = 0.1;
/** Weighted direction beyond which the overall impact is positive or negative. */
export const overallThreshold = 0.2;
/** Share of sentences at which the score reaches the top of its band. */
const densityFull = 0.25;

export const relationships = [
  'Direct Impact',
  'Competitive Pressure',
  'Sector Correlation',
  'Technology Alignment',
  'Market Sentiment',
  'Regulatory Impact',
  'Ecosystem Integration',
  'Use Case Overlap',
] as const;
export type Relationship = (typeof relationships)[number];
export type Direction = 'positive' | 'negative' | 'neutral';
export const contentTypes = ['article', 'announcement', 'documentation', 'data', 'page'] as const;
export type ContentType = (typeof contentTypes)[number];

/** The specification's relevance bands, [low, high]. */
export const relevanceBands = {
  direct: [0.9, 1.0],
  strong: [0.7, 0.89],
  moderate: [0.5, 0.69],
  weak: [0.3, 0.49],
  minimal: [0.0, 0.29],
} as const;
export type RelevanceBand = keyof typeof relevanceBands;

export interface AssetAnalysis {
  readonly symbol: string;
  readonly name: string;
  readonly relevance_score: number;
  readonly relationship: Relationship;
  readonly impact_direction: Direction;
  readonly confidence: number;
  readonly analysis: string;
  readonly key_points: string[];
}

export interface UrlAnalysis {
  readonly headline: string;
  readonly url_summary: string;
  readonly content_type: ContentType;
  readonly overall_market_impact: Direction;
  readonly asset_analyses: AssetAnalysis[];
  readonly url: string;
}

/** The band of each analysis, which a model may refine the score within (and never leave). */
export interface EmbeddedAnalysis {
  readonly analysis: UrlAnalysis;
  readonly bands: readonly RelevanceBand[];
}

interface Unit {
  /** -1 for the headline, else the body sentence's index. */
  readonly index: number;
  readonly text: string;
  readonly sentiment: number;
  readonly words: readonly Word[];
  readonly matches: readonly PhraseMatch[];
  readonly regulatory: number;
}

const regulatoryWords = ['regulator', 'regulators', 'regulation', 'regulatory', 'SEC', 'CFTC', 'lawsuit', 'sue', 'sued', 'court', 'ban', 'banned', 'compliance', 'license', 'licence', 'sanction', 'sanctions', 'enforcement', 'legislation', 'lawmakers', 'antitrust', 'watchdog', 'subpoena', 'fined', 'prosecutors', 'legal'];
const announcementWords = ['announce', 'announces', 'announced', 'announcing', 'launch', 'launches', 'launched', 'introducing', 'introduces', 'unveils', 'unveiled', 'release', 'releases', 'released'];
const documentationWords = ['documentation', 'docs', 'reference', 'guide', 'tutorial', 'quickstart'];
const documentationSegments = new Set(['docs', 'doc', 'documentation', 'api', 'reference', 'guide', 'guides', 'manual', 'developers', 'tutorial', 'tutorials']);

/** Stems of a word list, as words() makes them, so cues match every inflection the stemmer folds. */
const stemsOf = (list: readonly string[]): ReadonlySet<string> => new Set(list.flatMap((word) => words(word).map((item) => item.stem)));

const round2 = (value: number): number => Math.round(value * 100) / 100;
const mean = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);
const directionOf = (value: number, threshold: number): Direction => (value >= threshold ? 'positive' : value <= -threshold ? 'negative' : 'neutral');
const signOf = (direction: Direction): number => (direction === 'positive' ? 1 : direction === 'negative' ? -1 : 0);

function truncate(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const cut = text.slice(0, chars - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > chars / 2 ? cut.slice(0, space) : cut}…`;
}

export class UrlAnalyzer {
  private readonly phrases: PhraseIndex;
  private readonly regulatoryStems = stemsOf(regulatoryWords);
  private readonly announcementStems = stemsOf(announcementWords);
  private readonly documentationStems = stemsOf(documentationWords);
  private readonly profiles: ReadonlyMap<string, AssetProfile>;

  constructor(profiles: readonly AssetProfile[]) {
    this.phrases = new PhraseIndex(profiles);
    this.profiles = new Map(profiles.map((profile) => [profile.symbol, profile]));
  }

  private unit(index: number, text: string, sentiment: number): Unit {
    const unitWords = words(text);
    const regulatory = unitWords.filter((word) => this.regulatoryStems.has(word.stem) && (word.normal !== 'sec' || word.tickerForm)).length;
    return { index, text, sentiment, words: unitWords, matches: this.phrases.find(unitWords), regulatory };
  }

  /** The analysis of `page` (fetched from `url`) for the requested profiles, in their order. */
  analyze(url: string, page: Page, requested: readonly AssetProfile[]): EmbeddedAnalysis {
    const body: Unit[] = [];
    for (const paragraph of page.paragraphs) {
      for (const sentence of splitSentences(paragraph)) {
        if (body.length >= sentencesMax) break;
        if (sentence.text === page.headline) continue;
        body.push(this.unit(body.length, sentence.text, sentence.sentiment));
      }
      if (body.length >= sentencesMax) break;
    }
    const headlineSentiment = page.headline === '' ? 0 : mean(splitSentences(page.headline).map((sentence) => sentence.sentiment));
    const headline = this.unit(-1, page.headline, headlineSentiment);
    const lead = body.slice(0, leadSentences);
    const bodyWords = body.reduce((sum, unit) => sum + unit.words.length, 0);
    const regulatoryCues = headline.regulatory + body.reduce((sum, unit) => sum + unit.regulatory, 0);

    const analyses: AssetAnalysis[] = [];
    const bands: RelevanceBand[] = [];
    for (const profile of requested) {
      const [analysis, band] = this.assetAnalysis(profile, headline, body, lead, regulatoryCues);
      analyses.push(analysis);
      bands.push(band);
    }
    const weight = analyses.reduce((sum, analysis) => sum + analysis.relevance_score, 0);
    const weighted = analyses.reduce((sum, analysis) => sum + analysis.relevance_score * signOf(analysis.impact_direction), 0);
    return {
      analysis: {
        headline: page.headline,
        url_summary: this.summary(body, page.headline),
        content_type: this.contentType(url, page, headline, lead, bodyWords),
        overall_market_impact: weight === 0 ? 'neutral' : directionOf(weighted / weight, overallThreshold),
        asset_analyses: analyses,
        url,
      },
      bands,
    };
  }

  private summary(body: readonly Unit[], headline: string): string {
    const terms = (unit: Unit): string[] => unit.words.filter((word) => !word.stop && word.normal.length > 1).map((word) => word.stem);
    const tf = new Map<string, number>();
    const sf = new Map<string, number>();
    for (const unit of body) {
      const unitTerms = terms(unit);
      for (const term of unitTerms) tf.set(term, (tf.get(term) ?? 0) + 1);
      for (const term of new Set(unitTerms)) sf.set(term, (sf.get(term) ?? 0) + 1);
    }
    const count = body.length;
    const scored = body
      .filter((unit) => unit.words.length >= summaryWordsMin)
      .map((unit) => {
        const distinct = [...new Set(terms(unit))];
        const total = distinct.reduce((sum, term) => sum + (tf.get(term) ?? 0) * Math.log(1 + count / (sf.get(term) ?? 1)), 0);
        return { unit, score: distinct.length === 0 ? 0 : total / Math.sqrt(terms(unit).length) };
      })
      .sort((a, b) => b.score - a.score || a.unit.index - b.unit.index)
      .slice(0, summarySentencesMax)
      .sort((a, b) => a.unit.index - b.unit.index);
    const text = scored.map((entry) => entry.unit.text).join(' ');
    return truncate(text === '' ? (body[0]?.text ?? headline) : text, summaryCharsMax);
  }

  private contentType(url: string, page: Page, headline: Unit, lead: readonly Unit[], bodyWords: number): ContentType {
    if (page.kind === 'json') return 'data';
    let segments: string[] = [];
    try {
      segments = new URL(url).pathname.toLowerCase().split('/').filter((segment) => segment !== '');
    } catch {
      segments = [];
    }
    const headlineHas = (stems: ReadonlySet<string>): boolean => headline.words.some((word) => stems.has(word.stem));
    if (segments.some((segment) => documentationSegments.has(segment)) || page.codeBlocks >= 3 || headlineHas(this.documentationStems)) return 'documentation';
    if (headlineHas(this.announcementStems) || lead.some((unit) => unit.words.some((word) => this.announcementStems.has(word.stem)))) return 'announcement';
    if (page.ogType === 'article' || page.hasArticleElement || bodyWords >= articleWordsMin) return 'article';
    return 'page';
  }

  private assetAnalysis(profile: AssetProfile, headline: Unit, body: readonly Unit[], lead: readonly Unit[], regulatoryCues: number): [AssetAnalysis, RelevanceBand] {
    const all = [headline, ...body];
    const count = body.length === 0 ? 1 : body.length;
    /** Distinct word positions where a phrase of `fields` of the given symbols starts, per unit. */
    const hits = (unit: Unit, symbols: ReadonlySet<string>, fields: ReadonlySet<PhraseField>): number =>
      new Set(unit.matches.filter((match) => symbols.has(match.symbol) && fields.has(match.field)).map((match) => match.start)).size;
    const own = new Set([profile.symbol]);
    const rivals = new Set(profile.competitors);
    const ownHits = (unit: Unit): number => hits(unit, own, namingFields);
    const rivalHits = (unit: Unit): number => hits(unit, rivals, namingFields);
    const phrasesOf = (field: PhraseField): string[] => [...new Set(all.flatMap((unit) => unit.matches.filter((match) => match.symbol === profile.symbol && match.field === field).map((match) => match.phrase)))];
    const unitsWith = (field: PhraseField): Unit[] => all.filter((unit) => unit.matches.some((match) => match.symbol === profile.symbol && match.field === field));

    const ownUnits = all.filter((unit) => ownHits(unit) > 0);
    const ownBody = body.filter((unit) => ownHits(unit) > 0);
    const mentions = body.reduce((sum, unit) => sum + ownHits(unit), 0);
    const inHeadline = ownHits(headline) > 0;
    const inLead = lead.some((unit) => ownHits(unit) > 0);
    const rivalUnits = all.filter((unit) => rivalHits(unit) > 0);
    const rivalMentions = all.reduce((sum, unit) => sum + rivalHits(unit), 0);
    const ecosystemUnits = unitsWith('ecosystem');
    const technology = phrasesOf('technology');
    const useCases = phrasesOf('use_case');
    const sector = phrasesOf('sector');
    const named = ownUnits.length > 0;

    // Relevance: the band from the rule, the place in the band from the share of sentences with evidence.
    let band: RelevanceBand;
    let evidenceShare: number;
    if (named) {
      const density = ownBody.length / count;
      band = inHeadline ? 'direct' : (inLead && mentions >= 3) || density >= 0.2 ? 'strong' : mentions >= 2 || inLead ? 'moderate' : 'weak';
      evidenceShare = density;
    } else if (rivalUnits.length > 0 || ecosystemUnits.length > 0) {
      band = 'weak';
      evidenceShare = new Set([...rivalUnits, ...ecosystemUnits]).size / count;
    } else {
      band = 'minimal';
      evidenceShare = 0;
    }
    const [low, high] = relevanceBands[band];
    let relevance: number;
    if (band === 'minimal') {
      const distinct = technology.length + useCases.length + sector.length;
      relevance = distinct === 0 ? 0 : Math.min(high, 0.05 + 0.04 * distinct);
    } else {
      relevance = low + (high - low) * Math.min(1, evidenceShare / densityFull);
    }
    relevance = round2(relevance);

    // Relationship and the sentences that carry it.
    const sectorUnits = unitsWith('sector');
    const regulatoryUnits = (named ? ownUnits : sectorUnits).filter((unit) => unit.regulatory > 0);
    let relationship: Relationship;
    let evidence: Unit[];
    let invert = false;
    if (regulatoryCues >= regulatoryCuesMin && regulatoryUnits.length > 0) {
      relationship = 'Regulatory Impact';
      evidence = regulatoryUnits;
    } else if (named && (mentions + (inHeadline ? 1 : 0) >= rivalMentions || band !== 'weak')) {
      relationship = 'Direct Impact';
      evidence = ownUnits;
    } else if (rivalUnits.length > 0) {
      relationship = 'Competitive Pressure';
      evidence = rivalUnits;
      invert = true;
    } else if (ecosystemUnits.length > 0) {
      relationship = 'Ecosystem Integration';
      evidence = ecosystemUnits;
    } else if (technology.length > 0) {
      relationship = 'Technology Alignment';
      evidence = unitsWith('technology');
    } else if (useCases.length > 0) {
      relationship = 'Use Case Overlap';
      evidence = unitsWith('use_case');
    } else if (sector.length > 0) {
      relationship = 'Sector Correlation';
      evidence = sectorUnits;
    } else {
      relationship = 'Market Sentiment';
      evidence = body.filter((unit) => Math.abs(unit.sentiment) >= directionThreshold);
    }
    const sentiment = mean(evidence.map((unit) => unit.sentiment)) * (invert ? -1 : 1);
    const direction = directionOf(sentiment, directionThreshold);
    const agreeing = evidence.filter((unit) => directionOf(unit.sentiment * (invert ? -1 : 1), directionThreshold) === direction).length;
    const agreement = evidence.length === 0 ? 0 : agreeing / evidence.length;
    const confidence = round2(Math.min(0.95, 0.2 + 0.5 * relevance + 0.25 * agreement));
    const keyPoints = [...evidence]
      .filter((unit) => unit.text !== '')
      .sort((a, b) => Math.abs(b.sentiment) - Math.abs(a.sentiment) || a.index - b.index)
      .slice(0, keyPointsMax)
      .sort((a, b) => a.index - b.index)
      .map((unit) => truncate(unit.text, keyPointCharsMax));

    const rivalNames = [...new Set(all.flatMap((unit) => unit.matches.filter((match) => rivals.has(match.symbol) && namingFields.has(match.field)).map((match) => match.symbol)))]
      .map((symbol) => this.profiles.get(symbol)?.name ?? symbol);
    const tone = `${direction} (mean sentiment ${round2(sentiment)} over ${evidence.length} sentence${evidence.length === 1 ? '' : 's'})`;
    const bandWords: Record<RelevanceBand, string> = { direct: 'the direct subject of the page', strong: 'strongly related to the page', moderate: 'moderately related to the page', weak: 'weakly related to the page', minimal: 'minimally related to the page' };
    const namedText = named ? `named ${mentions} time${mentions === 1 ? '' : 's'} in ${ownBody.length} of ${body.length} sentences${inHeadline ? ' and in the headline' : ''}` : 'not named';
    let reason: string;
    switch (relationship) {
      case 'Regulatory Impact':
        reason = `regulatory language (${regulatoryCues} cues) surrounds ${named ? 'its mentions' : `its sector (${sector.join(', ')})`}, so the regulatory tone reads ${tone}`;
        break;
      case 'Direct Impact':
        reason = `the page speaks of it directly; the sentences about it read ${tone}`;
        break;
      case 'Competitive Pressure':
        reason = `its competitor${rivalNames.length === 1 ? '' : 's'} ${rivalNames.join(', ')} ${rivalNames.length === 1 ? 'is' : 'are'} named ${rivalMentions} time${rivalMentions === 1 ? '' : 's'}; their news, inverted as pressure on ${profile.name}, reads ${tone}`;
        break;
      case 'Ecosystem Integration':
        reason = `products of its ecosystem are named (${phrasesOf('ecosystem').join(', ')}); those sentences read ${tone}`;
        break;
      case 'Technology Alignment':
        reason = `the page shares its technology (${technology.join(', ')}); those sentences read ${tone}`;
        break;
      case 'Use Case Overlap':
        reason = `the page shares its uses (${useCases.join(', ')}); those sentences read ${tone}`;
        break;
      case 'Sector Correlation':
        reason = `the page speaks of its sector (${sector.join(', ')}); those sentences read ${tone}`;
        break;
      default:
        reason = `nothing ties it to the page beyond the market's mood, which reads ${tone}`;
    }
    const analysis = `${profile.name} (${profile.symbol}) is ${bandWords[band]} (${namedText}): ${relationship}, because ${reason}.`;
    return [{ symbol: profile.symbol, name: profile.name, relevance_score: relevance, relationship, impact_direction: direction, confidence, analysis, key_points: keyPoints }, band];
  }
}
