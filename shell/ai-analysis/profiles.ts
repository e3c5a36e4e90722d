/**
 * The asset profiles the AI analysis works from (fixtures/asset-profiles.json): for every asset the oracle
 * prices, its name, aliases, sector and the vocabulary of its sector, technology and uses, the protocols and
 * products around it and its competitors. Loaded strictly: a bad entry stops the start with its reason.
 *
 * `PhraseIndex` finds every profile phrase in a text's words in one pass: phrases are compared as
 * normalised words (text.ts), so case, punctuation and hyphens do not matter; a ticker counts when the
 * writer set it as one (capitals or `$`), and also in lower case unless the ticker is an everyday word.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { phraseWords, type Word } from './text.ts';

export const defaultAssetProfilesPath = fileURLToPath(new URL('../../fixtures/asset-profiles.json', import.meta.url));

/** Phrases of one list of a profile at most, and characters of one phrase at most. */
export const profilePhrasesMax = 40;
export const profilePhraseCharsMax = 80;

export interface AssetProfile {
  readonly symbol: string;
  readonly name: string;
  readonly assetType: 'crypto' | 'stock';
  readonly tickerIsWord: boolean;
  readonly aliases: readonly string[];
  readonly sector: string;
  readonly sectorVocabulary: readonly string[];
  readonly technology: readonly string[];
  readonly useCases: readonly string[];
  readonly ecosystem: readonly string[];
  readonly competitors: readonly string[];
}

/** Which part of a profile a phrase comes from. */
export type PhraseField = 'ticker' | 'name' | 'alias' | 'sector' | 'technology' | 'use_case' | 'ecosystem';

/** The fields that name the asset itself. */
export const namingFields: ReadonlySet<PhraseField> = new Set(['ticker', 'name', 'alias']);

function phraseList(entry: Record<string, unknown>, key: string, where: string): string[] {
  const value = entry[key];
  if (!Array.isArray(value) || value.length > profilePhrasesMax) throw new Error(`${where}: ${key} must be an array of at most ${profilePhrasesMax} phrases`);
  for (const phrase of value) {
    if (typeof phrase !== 'string' || phrase.trim() === '' || phrase.length > profilePhraseCharsMax) throw new Error(`${where}: ${key} holds a phrase that is empty or over ${profilePhraseCharsMax} characters`);
  }
  return value as string[];
}

function text(entry: Record<string, unknown>, key: string, where: string): string {
  const value = entry[key];
  if (typeof value !== 'string' || value.trim() === '' || value.length > profilePhraseCharsMax) throw new Error(`${where}: ${key} must be a non-empty string of at most ${profilePhraseCharsMax} characters`);
  return value;
}

/**
 * Loads the profiles and checks them: each symbol once, competitors naming profiles of the file, and a
 * profile for every symbol in `required` (the oracle's assets).
 */
export function loadAssetProfiles(required: readonly string[], path = defaultAssetProfilesPath): AssetProfile[] {
  const document = JSON.parse(readFileSync(path, 'utf8')) as { profiles?: unknown };
  if (!Array.isArray(document.profiles) || document.profiles.length === 0) throw new Error(`${path}: profiles must be a non-empty array`);
  const seen = new Set<string>();
  const profiles = document.profiles.map((entry: Record<string, unknown>, index): AssetProfile => {
    const where = `${path}: profiles[${index}]`;
    const symbol = entry['symbol'];
    if (typeof symbol !== 'string' || !/^[A-Z0-9]{1,12}$/.test(symbol) || seen.has(symbol)) throw new Error(`${where}: symbol must be new and 1 to 12 of A-Z, 0-9`);
    seen.add(symbol);
    const assetType = entry['asset_type'];
    if (assetType !== 'crypto' && assetType !== 'stock') throw new Error(`${where}: asset_type must be crypto or stock`);
    if (typeof entry['ticker_is_word'] !== 'boolean') throw new Error(`${where}: ticker_is_word must be true or false`);
    return {
      symbol,
      name: text(entry, 'name', where),
      assetType,
      tickerIsWord: entry['ticker_is_word'],
      aliases: phraseList(entry, 'aliases', where),
      sector: text(entry, 'sector', where),
      sectorVocabulary: phraseList(entry, 'sector_vocabulary', where),
      technology: phraseList(entry, 'technology', where),
      useCases: phraseList(entry, 'use_cases', where),
      ecosystem: phraseList(entry, 'ecosystem', where),
      competitors: phraseList(entry, 'competitors', where),
    };
  });
  for (const profile of profiles) {
    for (const competitor of profile.competitors) {
      if (!seen.has(competitor) || competitor === profile.symbol) throw new Error(`${path}: ${profile.symbol}'s competitor ${competitor} is not another profile of the file`);
    }
  }
  for (const symbol of required) if (!seen.has(symbol)) throw new Error(`${path}: no profile of ${symbol}, which the oracle prices`);
  return profiles;
}

/** One phrase of one profile found in a text: where it starts, in words. */
export interface PhraseMatch {
  readonly symbol: string;
  readonly field: PhraseField;
  readonly phrase: string;
  readonly start: number;
  readonly length: number;
}

interface IndexedPhrase {
  readonly symbol: string;
  readonly field: PhraseField;
  readonly phrase: string;
  readonly words: readonly string[];
  /** A ticker that is an everyday word counts only when written as a ticker. */
  readonly tickerFormOnly: boolean;
}

/** Every phrase of every profile, by its first word, so a text is scanned once. */
export class PhraseIndex {
  private readonly byFirstWord = new Map<string, IndexedPhrase[]>();

  constructor(profiles: readonly AssetProfile[]) {
    for (const profile of profiles) {
      const add = (field: PhraseField, phrase: string, tickerFormOnly = false): void => {
        const phraseWordList = field === 'ticker' ? [phrase.toLowerCase()] : phraseWords(phrase);
        if (phraseWordList.length === 0) return;
        const first = phraseWordList[0]!;
        const list = this.byFirstWord.get(first) ?? [];
        list.push({ symbol: profile.symbol, field, phrase, words: phraseWordList, tickerFormOnly });
        this.byFirstWord.set(first, list);
      };
      add('ticker', profile.symbol, profile.tickerIsWord);
      add('name', profile.name);
      for (const alias of profile.aliases) add('alias', alias);
      add('sector', profile.sector);
      for (const phrase of profile.sectorVocabulary) add('sector', phrase);
      for (const phrase of profile.technology) add('technology', phrase);
      for (const phrase of profile.useCases) add('use_case', phrase);
      for (const phrase of profile.ecosystem) add('ecosystem', phrase);
    }
    // Longer phrases first, so that "XRP Ledger" is reported before "XRP" at the same word.
    for (const list of this.byFirstWord.values()) list.sort((a, b) => b.words.length - a.words.length);
  }

  /** Every phrase found in `text`, in text order (a phrase may overlap another of another field). */
  find(text: readonly Word[]): PhraseMatch[] {
    const matches: PhraseMatch[] = [];
    for (let start = 0; start < text.length; start++) {
      const candidates = this.byFirstWord.get(text[start]!.normal);
      if (candidates === undefined) continue;
      for (const candidate of candidates) {
        if (start + candidate.words.length > text.length) continue;
        let same = true;
        for (let offset = 1; offset < candidate.words.length && same; offset++) same = text[start + offset]!.normal === candidate.words[offset];
        if (!same) continue;
        if (candidate.tickerFormOnly && !text[start]!.tickerForm) continue;
        matches.push({ symbol: candidate.symbol, field: candidate.field, phrase: candidate.phrase, start, length: candidate.words.length });
      }
    }
    return matches;
  }
}
