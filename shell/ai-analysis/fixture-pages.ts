/**
 * Fixture pages of the AI analysis tests: a page about one asset, a page about a competitor, negative
 * news, an announcement and a documentation page. Written for the tests; they describe no real event.
 */
const html = (title: string, body: string, head = ''): string =>
  `<!doctype html><html><head><title>${title}</title>${head}</head><body><nav><a href="/">Home</a> <a href="/markets">Markets</a> <a href="/about">About us</a></nav><main><article><h1>${title}</h1>${body}</article></main><footer>Copyright the fixture site. All rights reserved. Subscribe to our newsletter.</footer></body></html>`;

export const fixturePages: Readonly<Record<string, { readonly contentType: string; readonly body: string }>> = {
  '/solana-upgrade': {
    contentType: 'text/html; charset=utf-8',
    body: html(
      'Solana network upgrade doubles throughput',
      `<p>The Solana network completed an upgrade this week that doubles its transaction throughput, according to the validators who tested it.</p>
<p>Solana developers said the new parallel execution engine lowers transaction fees and makes consumer apps faster and more reliable.</p>
<p>Activity on decentralized exchanges built on Solana grew strongly after the upgrade, and SOL staking rewards improved for validators.</p>
<p>Users welcomed the smoother experience, and wallets reported record daily sign-ups with great reviews.</p>
<p>The upgrade is an excellent success for SOL holders and the wider ecosystem, which now processes more payments than ever.</p>`,
      '<meta property="og:type" content="article"><meta property="og:title" content="Solana network upgrade doubles throughput">',
    ),
  },
  '/exchange-hack': {
    contentType: 'text/html',
    body: html(
      'Dogecoin plunges after exchange hack',
      `<p>Dogecoin fell sharply on Tuesday after a large exchange was hacked and attackers stole millions of coins from its hot wallets.</p>
<p>Traders panicked and dumped DOGE as fears of further losses spread across the market.</p>
<p>The exchange froze withdrawals, and angry customers said they could not access their funds.</p>
<p>Analysts warned that the crash could get worse, calling the situation a terrible failure of security.</p>
<p>Dogecoin lost a third of its value in a single day, its worst drop this year.</p>`,
    ),
  },
  '/avalanche-launch': {
    contentType: 'text/html',
    body: html(
      'Avalanche announces a new gaming subnet',
      `<p>The Avalanche team announced a gaming subnet today, with fast finality for game studios.</p>
<p>Studios can launch their own chains with low fees and keep their players' assets on the C-Chain.</p>
<p>The network expects more decentralized applications to follow in the coming months.</p>`,
    ),
  },
  '/docs/getting-started': {
    contentType: 'text/html',
    body: html(
      'Getting started with price feeds',
      `<p>This guide shows how to read a Chainlink price feed from a smart contract.</p>
<pre>const feed = aggregator(address);</pre><pre>const answer = feed.latestRoundData();</pre><pre>return answer;</pre>
<p>Node operators publish the data feeds on chain, and contracts read them in one call.</p>`,
    ),
  },
  '/regulators': {
    contentType: 'text/html',
    body: html(
      'Regulators sue over XRP sales',
      `<p>Regulators filed a lawsuit in court claiming that XRP sales broke securities law.</p>
<p>The SEC said the enforcement action seeks a ban on further sales and a large fine.</p>
<p>Lawyers for the company said the regulation does not apply and that they will fight the case.</p>`,
    ),
  },
  '/plain.txt': {
    contentType: 'text/plain',
    body: 'Market notes\nBitcoin was flat today.\nNothing else happened.\n',
  },
  '/image.png': { contentType: 'image/png', body: 'not really an image' },
};
