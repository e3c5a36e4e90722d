/**
 * The scoring rubric for a profile page: per dimension, anchor terms and phrases with the points each is
 * worth. A page earns an anchor's points once, however often it matches, in the first sentences that
 * contain it; a dimension's points are the sum of its matched anchors, capped at 20. The sentences that
 * matched are the evidence, cited with the page's URL. The anchors are data (the methodology route serves
 * them as they are), so what the scorer rewards is inspectable and the same page always scores the same.
 *
 * Confidence (in hundredths, 0.05 .. 0.95): 20 for an identified name and role, +10 when the company is
 * named too, +10 when the identity came from structured metadata (JSON-LD or og:title), +4 per distinct
 * matched anchor up to +40, +10 when the main text has at least 1 500 characters; at most 95. A page that
 * only names its subject thus stays under the publish threshold (0.45) of the board, and a rich page with
 * evidence in many dimensions reaches it.
 */
import { dimensionKeys, dimensionPointsMax, type DimensionKey, type Dimensions } from './formulas.ts';
import type { Identity } from './extract.ts';
import { sentenceCharsMax } from './extract.ts';

export interface Anchor {
  /** A lower-case phrase; matched on word boundaries, a trailing `*` matches any word ending. */
  readonly phrase: string;
  readonly points: number;
}

export const anchors: Readonly<Record<DimensionKey, readonly Anchor[]>> = {
  foundations: [
    { phrase: 'machine learning research', points: 6 },
    { phrase: 'deep learning', points: 4 },
    { phrase: 'neural network*', points: 4 },
    { phrase: 'backpropagation', points: 6 },
    { phrase: 'statistical learning', points: 4 },
    { phrase: 'optimization', points: 2 },
    { phrase: 'published paper*', points: 4 },
    { phrase: 'peer-reviewed', points: 4 },
  ],
  vector_embeddings: [
    { phrase: 'embedding*', points: 6 },
    { phrase: 'vector database*', points: 6 },
    { phrase: 'vector search', points: 6 },
    { phrase: 'semantic search', points: 4 },
    { phrase: 'retrieval-augmented', points: 5 },
    { phrase: 'representation learning', points: 5 },
    { phrase: 'nearest neighbo*', points: 4 },
  ],
  transformers_lm: [
    { phrase: 'transformer*', points: 6 },
    { phrase: 'self-attention', points: 6 },
    { phrase: 'attention mechanism*', points: 5 },
    { phrase: 'language model*', points: 6 },
    { phrase: 'pretraining', points: 4 },
    { phrase: 'pre-training', points: 4 },
    { phrase: 'fine-tun*', points: 4 },
    { phrase: 'tokeni*', points: 3 },
  ],
  frontier_founder: [
    { phrase: 'frontier model*', points: 8 },
    { phrase: 'foundation model*', points: 6 },
    { phrase: 'ai lab', points: 5 },
    { phrase: 'research lab', points: 4 },
    { phrase: 'co-founded', points: 3 },
    { phrase: 'founded', points: 2 },
  ],
  lm_domain_depth: [
    { phrase: 'training run*', points: 6 },
    { phrase: 'scaling law*', points: 6 },
    { phrase: 'reinforcement learning from human feedback', points: 6 },
    { phrase: 'rlhf', points: 6 },
    { phrase: 'alignment', points: 3 },
    { phrase: 'benchmark*', points: 3 },
    { phrase: 'inference', points: 3 },
    { phrase: 'trained', points: 3 },
  ],
  lm_domain_breadth: [
    { phrase: 'multimodal', points: 5 },
    { phrase: 'computer vision', points: 4 },
    { phrase: 'speech recognition', points: 4 },
    { phrase: 'robotics', points: 4 },
    { phrase: 'reinforcement learning', points: 4 },
    { phrase: 'code generation', points: 4 },
    { phrase: 'ai agents', points: 3 },
  ],
  hands_on_engineering: [
    { phrase: 'wrote the first', points: 6 },
    { phrase: 'wrote code', points: 6 },
    { phrase: 'open source', points: 4 },
    { phrase: 'open-source', points: 4 },
    { phrase: 'pytorch', points: 4 },
    { phrase: 'cuda', points: 5 },
    { phrase: 'python', points: 3 },
    { phrase: 'engineer*', points: 3 },
    { phrase: 'prototype*', points: 3 },
  ],
  industry_impact: [
    { phrase: 'in production', points: 5 },
    { phrase: 'deployed', points: 4 },
    { phrase: 'millions of users', points: 6 },
    { phrase: 'customers', points: 3 },
    { phrase: 'adopted by', points: 4 },
    { phrase: 'patent*', points: 4 },
    { phrase: 'industry standard', points: 4 },
  ],
  scientific_founder: [
    { phrase: 'phd', points: 6 },
    { phrase: 'ph.d', points: 6 },
    { phrase: 'doctorate', points: 6 },
    { phrase: 'professor', points: 4 },
    { phrase: 'postdoc*', points: 4 },
    { phrase: 'research scientist', points: 5 },
    { phrase: 'citation*', points: 4 },
    { phrase: 'neurips', points: 5 },
    { phrase: 'icml', points: 5 },
    { phrase: 'iclr', points: 5 },
  ],
};

/** Evidence sentences kept per dimension, and in all. */
export const evidencePerDimensionMax = 3;
export const evidenceMax = 24;

const compiled = new Map<string, RegExp>();

function anchorPattern(phrase: string): RegExp {
  let pattern = compiled.get(phrase);
  if (pattern === undefined) {
    const wildcard = phrase.endsWith('*');
    const body = (wildcard ? phrase.slice(0, -1) : phrase).replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+');
    pattern = new RegExp(`(?<![\\w-])${body}${wildcard ? '[\\w-]*' : '(?![\\w-])'}`, 'i');
    compiled.set(phrase, pattern);
  }
  return pattern;
}

export interface DimensionMatch {
  readonly dimension: DimensionKey;
  readonly phrase: string;
  readonly points: number;
  /** The first sentence of the page that holds the anchor. */
  readonly sentence: string;
}

export interface RubricResult {
  readonly dimensions: Dimensions;
  readonly matches: readonly DimensionMatch[];
}

/** The rubric over a page's sentences. */
export function scoreSentences(sentences: readonly string[]): RubricResult {
  const matches: DimensionMatch[] = [];
  const points = Object.fromEntries(dimensionKeys.map((key) => [key, 0])) as Record<DimensionKey, number>;
  for (const dimension of dimensionKeys) {
    for (const anchor of anchors[dimension]) {
      const pattern = anchorPattern(anchor.phrase);
      const sentence = sentences.find((candidate) => pattern.test(candidate));
      if (sentence === undefined) continue;
      matches.push({ dimension, phrase: anchor.phrase, points: anchor.points, sentence: sentence.slice(0, sentenceCharsMax) });
      points[dimension] = Math.min(dimensionPointsMax, points[dimension] + anchor.points);
    }
  }
  return { dimensions: points, matches };
}

/** The evidence list of a scoring: the matched sentences, grouped per dimension, bounded. */
export function evidenceOf(matches: readonly DimensionMatch[], url: string, verifiedAt: string): Array<{ claim: string; source_url: string; verified: boolean; verified_at: string; dimension: DimensionKey; anchors: string[] }> {
  const evidence: Array<{ claim: string; source_url: string; verified: boolean; verified_at: string; dimension: DimensionKey; anchors: string[] }> = [];
  for (const dimension of dimensionKeys) {
    const mine = matches.filter((match) => match.dimension === dimension);
    const bySentence = new Map<string, string[]>();
    for (const match of mine) bySentence.set(match.sentence, [...(bySentence.get(match.sentence) ?? []), match.phrase]);
    for (const [sentence, phrases] of [...bySentence].slice(0, evidencePerDimensionMax)) {
      if (evidence.length >= evidenceMax) return evidence;
      evidence.push({ claim: sentence, source_url: url, verified: true, verified_at: verifiedAt, dimension, anchors: phrases });
    }
  }
  return evidence;
}

/** Confidence in hundredths by the rule in this file's comment. */
export function confidenceHundredths(identity: Identity, matches: readonly DimensionMatch[], textChars: number): number {
  let hundredths = 20;
  if (identity.company !== '') hundredths += 10;
  if (identity.identifiedBy === 'json_ld' || identity.identifiedBy === 'og_title') hundredths += 10;
  hundredths += Math.min(40, 4 * matches.length);
  if (textChars >= 1_500) hundredths += 10;
  return Math.min(95, hundredths);
}

const cryptoTerms = /\b(crypto\w*|blockchain\w*|bitcoin|ethereum|defi|web3|on-chain|stablecoin\w*|tokenomics|validator\w*)\b/gi;

/** `crypto` when the text names crypto at least three times, else `general`. */
export function sectorOf(text: string): 'crypto' | 'general' {
  return (text.match(cryptoTerms)?.length ?? 0) >= 3 ? 'crypto' : 'general';
}
