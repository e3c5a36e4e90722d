/**
 * The page reader and the embedded URL analyzer on fixture pages (no network): Readability keeps the
 * article and drops navigation and footers; headlines by og:title, <title>, <h1>; plain text and JSON;
 * the content-type rule; the summary (bounded, in page order); the relevance bands and relationships for
 * a page about one asset, a competitor's page, negative news and regulatory news; key points are evidence
 * sentences; the overall impact follows the weighted directions; answers are deterministic.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAssetProfiles, type AssetProfile } from './profiles.ts';
import { pageKindOf, readPage } from './page.ts';
import { UrlAnalyzer, relevanceBands, summaryCharsMax, type UrlAnalysis } from './url-analyzer.ts';
import { fixturePages } from './fixture-pages.ts';

const profiles = loadAssetProfiles([]);
const bySymbol = new Map(profiles.map((profile) => [profile.symbol, profile]));
const analyzer = new UrlAnalyzer(profiles);
const pick = (...symbols: string[]): AssetProfile[] => symbols.map((symbol) => bySymbol.get(symbol)!);

function analyze(path: string, ...symbols: string[]): UrlAnalysis {
  const fixture = fixturePages[path]!;
  return analyzer.analyze(`http://pages.test${path}`, readPage(pageKindOf(fixture.contentType)!, fixture.body), pick(...symbols)).analysis;
}

const inBand = (score: number, band: keyof typeof relevanceBands): boolean => score >= relevanceBands[band][0] && score <= relevanceBands[band][1];

test('the page reader keeps the article, drops navigation and footers, and finds the headline', () => {
  const page = readPage('html', fixturePages['/solana-upgrade']!.body);
  assert.equal(page.headline, 'Solana network upgrade doubles throughput');
  assert.equal(page.ogType, 'article');
  assert.ok(page.paragraphs.some((paragraph) => paragraph.startsWith('The Solana network completed an upgrade')));
  assert.ok(!page.paragraphs.some((paragraph) => /Subscribe|About us/.test(paragraph)), 'no navigation or footer text');
  assert.equal(readPage('html', '<html><head><title> A  title </title></head><body><h1>H</h1><p>x</p></body></html>').headline, 'A title');
  assert.equal(readPage('html', '<html><body><h1>Only a heading</h1><p>Short text.</p></body></html>').headline, 'Only a heading');
  const text = readPage('text', 'First line\nSecond line.\n\nThird line.');
  assert.deepEqual([text.headline, text.paragraphs], ['First line', ['Second line.', 'Third line.']]);
  const json = readPage('json', JSON.stringify({ title: 'Feed', items: [{ text: 'Bitcoin rose on strong demand today.' }, { text: 'ok' }] }));
  assert.deepEqual([json.headline, json.paragraphs], ['Feed', ['Bitcoin rose on strong demand today.']]);
  assert.equal(pageKindOf('text/html; charset=utf-8'), 'html');
  assert.equal(pageKindOf('application/ld+json'), 'json');
  assert.equal(pageKindOf('image/png'), null);
  assert.equal(pageKindOf(undefined), null);
});

test('content types follow the documented rule', () => {
  assert.equal(analyze('/solana-upgrade', 'SOL').content_type, 'article');
  assert.equal(analyze('/avalanche-launch', 'AVAX').content_type, 'announcement');
  assert.equal(analyze('/docs/getting-started', 'LINK').content_type, 'documentation');
  assert.equal(analyze('/plain.txt', 'BTC').content_type, 'page');
  const json = analyzer.analyze('http://pages.test/feed', readPage('json', '{"title":"Feed","text":"Bitcoin rose on strong demand."}'), pick('BTC')).analysis;
  assert.equal(json.content_type, 'data');
});

test('a page about one asset: direct subject band, Direct Impact, positive, with its sentences as key points', () => {
  const analysis = analyze('/solana-upgrade', 'SOL');
  const sol = analysis.asset_analyses[0]!;
  assert.equal(sol.symbol, 'SOL');
  assert.equal(sol.name, 'Solana');
  assert.ok(inBand(sol.relevance_score, 'direct'), String(sol.relevance_score));
  assert.equal(sol.relationship, 'Direct Impact');
  assert.equal(sol.impact_direction, 'positive');
  assert.ok(sol.confidence > 0.5 && sol.confidence <= 0.95);
  assert.ok(sol.key_points.length >= 1 && sol.key_points.length <= 3);
  for (const point of sol.key_points) assert.match(point, /Solana|SOL/, 'each key point names the asset');
  assert.match(sol.analysis, /direct subject/);
  assert.equal(analysis.overall_market_impact, 'positive');
  assert.equal(analysis.headline, 'Solana network upgrade doubles throughput');
  assert.equal(analysis.url, 'http://pages.test/solana-upgrade');
});

test('the summary is extractive, in page order and bounded', () => {
  const analysis = analyze('/solana-upgrade', 'SOL');
  const page = readPage('html', fixturePages['/solana-upgrade']!.body).paragraphs.join(' ');
  assert.ok(analysis.url_summary.length > 0 && analysis.url_summary.length <= summaryCharsMax);
  let from = 0;
  for (const sentence of analysis.url_summary.split(/(?<=\.) /)) {
    const at = page.indexOf(sentence, from);
    assert.ok(at >= from, `"${sentence}" is a sentence of the page, after the previous one`);
    from = at + sentence.length;
  }
});

test('a competitor\'s page: Competitive Pressure in the weak band, the competitor\'s good news pressing down', () => {
  const [eth, avax] = analyze('/solana-upgrade', 'ETH', 'AVAX').asset_analyses;
  for (const rival of [eth!, avax!]) {
    assert.equal(rival.relationship, 'Competitive Pressure', rival.symbol);
    assert.ok(inBand(rival.relevance_score, 'weak'), `${rival.symbol} ${rival.relevance_score}`);
    assert.equal(rival.impact_direction, 'negative');
    assert.match(rival.analysis, /competitor Solana/);
  }
});

test('negative news gives a negative direction and a negative overall impact', () => {
  const analysis = analyze('/exchange-hack', 'DOGE');
  const doge = analysis.asset_analyses[0]!;
  assert.equal(doge.relationship, 'Direct Impact');
  assert.ok(inBand(doge.relevance_score, 'direct'));
  assert.equal(doge.impact_direction, 'negative');
  assert.equal(analysis.overall_market_impact, 'negative');
});

test('regulatory language around an asset gives Regulatory Impact; unrelated assets are minimal', () => {
  const [xrp, nflx] = analyze('/regulators', 'XRP', 'NFLX').asset_analyses;
  assert.equal(xrp!.relationship, 'Regulatory Impact');
  assert.equal(xrp!.impact_direction, 'negative');
  assert.ok(inBand(nflx!.relevance_score, 'minimal'));
  assert.equal(nflx!.relationship, 'Market Sentiment');
});

test('mentions outside the headline fall in the lower bands by the documented rule', () => {
  const page = readPage('html', `<html><body><article><h1>Markets today</h1>
    <p>Stocks moved little in quiet trading across the board this morning.</p>
    <p>Investors waited for data on jobs and prices later in the week.</p>
    <p>Bond yields rose a little while the dollar held steady against peers.</p>
    <p>Oil prices slipped as supply worries eased over the weekend.</p>
    <p>Retail sales figures are due on Thursday and may move rates.</p>
    <p>Bitcoin was mentioned once by a strategist in an interview.</p></article></body></html>`);
  const [btc] = analyzer.analyze('http://pages.test/markets', page, pick('BTC')).analysis.asset_analyses;
  assert.ok(inBand(btc!.relevance_score, 'weak'), String(btc!.relevance_score));
  assert.equal(btc!.relationship, 'Direct Impact');
  const lead = readPage('html', `<html><body><article><h1>Markets today</h1>
    <p>Bitcoin led the market this morning as Bitcoin buyers returned.</p>
    <p>Bitcoin funds saw inflows, and Bitcoin miners sold less.</p>
    <p>Stocks moved little in quiet trading.</p></article></body></html>`);
  const [strong] = analyzer.analyze('http://pages.test/markets', lead, pick('BTC')).analysis.asset_analyses;
  assert.ok(inBand(strong!.relevance_score, 'strong'), String(strong!.relevance_score));
});

test('the same page gives the same analysis', () => {
  assert.deepEqual(analyze('/exchange-hack', 'DOGE', 'BTC', 'ETH'), analyze('/exchange-hack', 'DOGE', 'BTC', 'ETH'));
});
