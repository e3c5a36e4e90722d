/**
 * The embedded prompt analyzer: the profiles cover every oracle asset; rankings for a few prompts (a named
 * asset first, vocabulary-only inference, tickers that are words only when written as tickers); the
 * calibration is monotone and inside 0..1 with the exact-mention floor; explanations name the matched
 * words and fields; answers are deterministic.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadOracleAssets } from '../../engine/runtime/oracle/assets.ts';
import { loadAssetProfiles } from './profiles.ts';
import { PromptAnalyzer, exactMentionFloor, inferredScale, promptAssetsMax, promptProbabilityMin } from './prompt-analyzer.ts';

const oracleSymbols = loadOracleAssets().map((asset) => asset.symbol);
const profiles = loadAssetProfiles(oracleSymbols);
const analyzer = new PromptAnalyzer(profiles);
const symbols = (prompt: string): string[] => analyzer.analyze(prompt).map((asset) => asset.symbol);

test('the profiles cover every asset the oracle prices, and a missing one stops the load', () => {
  assert.deepEqual(profiles.map((profile) => profile.symbol).sort(), [...oracleSymbols].sort());
  assert.throws(() => loadAssetProfiles([...oracleSymbols, 'NOPE']), /no profile of NOPE/);
});

test('a named asset ranks first with at least the exact-mention floor', () => {
  const answer = analyzer.analyze('Should I buy bitcoin before the halving?');
  assert.equal(answer[0]?.symbol, 'BTC');
  assert.ok(answer[0]!.probability >= exactMentionFloor);
  assert.match(answer[0]!.explanation, /Exact mention of name "Bitcoin"/);
  assert.match(answer[0]!.explanation, /"halving" in sector vocabulary/);
  assert.deepEqual(symbols('Compare ETH vs SOL for DeFi').slice(0, 2).sort(), ['ETH', 'SOL']);
  assert.equal(symbols('What about $AAPL after the earnings?')[0], 'AAPL');
});

test('vocabulary alone infers assets below every named one', () => {
  const chips = analyzer.analyze('Which chipmaker benefits from AI data centers and GPUs?');
  assert.deepEqual(chips.slice(0, 2).map((asset) => asset.symbol).sort(), ['AMD', 'NVDA']);
  for (const asset of chips) assert.ok(asset.probability <= inferredScale, `${asset.symbol} ${asset.probability}`);
  assert.equal(symbols('I want exposure to electric vehicles and batteries')[0], 'TSLA');
  const mixed = analyzer.analyze('Tesla or other electric vehicles and batteries makers with GPUs');
  assert.equal(mixed[0]?.symbol, 'TSLA');
  assert.ok(mixed[0]!.probability >= exactMentionFloor);
});

test('a ticker that is an everyday word counts only when written as a ticker', () => {
  assert.deepEqual(symbols('link me to a good recipe'), []);
  assert.equal(symbols('What do you think about $link and oracle price feeds')[0], 'LINK');
  assert.equal(symbols('Is LINK a buy?')[0], 'LINK');
  assert.equal(symbols('is btc a buy?')[0], 'BTC', 'a ticker that is not a word counts in any case');
});

test('nothing relevant gives no assets; answers are bounded and cut', () => {
  assert.deepEqual(analyzer.analyze('hello there, how are you today?'), []);
  const broad = analyzer.analyze('smart contract platform with proof of stake, staking, GPUs, chips, streaming, electric vehicles, search, social media, payments, oracle');
  assert.ok(broad.length <= promptAssetsMax);
  for (const asset of broad) assert.ok(asset.probability >= promptProbabilityMin && asset.probability <= 1);
  for (let index = 1; index < broad.length; index++) assert.ok(broad[index - 1]!.probability >= broad[index]!.probability, 'highest first');
});

test('the calibration is monotone in the BM25 score and stays in 0..1', () => {
  let previous = -1;
  for (let score = 0; score <= 200; score += 0.5) {
    const probability = analyzer.probabilityOf(score);
    assert.ok(probability > previous, `monotone at ${score}`);
    assert.ok(probability > 0 && probability < 1);
    previous = probability;
  }
  assert.ok(Math.abs(analyzer.probabilityOf(analyzer.referenceScore) - 0.5) < 1e-9, 'a score equal to the reference sits at the midpoint');
});

test('the same prompt gives the same answer, from this analyzer and from a new one', () => {
  const prompt = 'Nvidia and AMD GPUs versus Solana staking and the S&P 500';
  const first = analyzer.analyze(prompt);
  assert.deepEqual(analyzer.analyze(prompt), first);
  assert.deepEqual(new PromptAnalyzer(loadAssetProfiles(oracleSymbols)).analyze(prompt), first);
  assert.deepEqual(first.slice(0, 4).map((asset) => asset.symbol).sort(), ['AMD', 'NVDA', 'SOL', 'SPY']);
});
