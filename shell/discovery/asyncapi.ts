/**
 * The AsyncAPI 3.0 document of the WebSocket streams (GET /asyncapi.json). The server passes the uWS
 * patterns it mounts (`/ws/markets/:market_id/orderbook/:asset`); each is described from `streamCatalogue`,
 * written from the stream's code (shell/ws/exchange-stream.ts, shell/ws/private-stream.ts, shell/markets/stream.ts, shell/arena/stream.ts,
 * shell/vaults/stream.ts, shell/incentives/stream.ts). A mounted pattern the catalogue does not know still
 * appears, marked `x-undescribed`, and the discovery test fails on it: a new stream must be described here.
 *
 * Every stream speaks one protocol (shell/ws/topic-stream.ts): client frames subscribe, unsubscribe and
 * ping (JSON text or msgpack binary); the server answers subscribed/unsubscribed, pong, or an error frame
 * (the connection stays open); `?encoding=msgpack` makes every server message a msgpack binary frame.
 * Each topic numbers its messages: a snapshot carries the topic's current seq, every later message seq + 1,
 * so a gap means a lost message (resubscribe for a fresh snapshot).
 */
import { apiVersion, discoveryPaths, license, serviceTitle } from './openapi.ts';

type Schema = Record<string, unknown>;

const string = (description?: string): Schema => (description === undefined ? { type: 'string' } : { type: 'string', description });
const nullableString = (description: string): Schema => ({ type: ['string', 'null'], description });
const integer = (description: string): Schema => ({ type: 'integer', description });
const constant = (value: string): Schema => ({ type: 'string', const: value });
const oneOf = (values: readonly string[], description?: string): Schema => ({ type: 'string', enum: [...values], ...(description === undefined ? {} : { description }) });
const array = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description === undefined ? {} : { description }) });
/** An object whose `properties` are all required and `optional` ones may be there too. */
const object = (properties: Record<string, Schema>, description?: string, optional: Record<string, Schema> = {}): Schema => ({
  type: 'object',
  required: Object.keys(properties),
  properties: { ...properties, ...optional },
  ...(description === undefined ? {} : { description }),
});
const seq = integer('the topic\'s sequence number: a snapshot carries the current one, every later message of the topic one more');
const timestamp = string('ISO 8601 UTC');
const levels = (side: string): Schema => array({ type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 2, description: '[price, quantity]' }, `${side} as [price, quantity], best first`);

interface MessageSpec {
  readonly summary: string;
  readonly payload: Schema;
}

interface StreamSpec {
  /** The channel's id in the document. */
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly parameters?: Readonly<Record<string, string>>;
  /** The subscribable channels (the `channel` field of a client frame). */
  readonly channels: readonly string[];
  /** Fields a subscribe may add beyond action and channel. */
  readonly subscribeFields?: Readonly<Record<string, Schema>>;
  /** Fields the subscribed/unsubscribed answer echoes. */
  readonly echoFields?: Readonly<Record<string, Schema>>;
  readonly messages: Readonly<Record<string, MessageSpec>>;
}

const exchangeTop = { best_bid: nullableString('best bid price'), best_ask: nullableString('best ask price'), spread: nullableString('best ask minus best bid') };

/** The hybrid top of one side (shell/market/market-data.ts, MarketData.hybridTop); null when the side is empty. */
const hybridQuote = (side: string): Schema => ({
  type: ['object', 'null'],
  required: ['price', 'quantity', 'source', 'chain', 'sources'],
  properties: {
    price: string(`the best ${side} a taker gets, order book and pools together`),
    quantity: string('base quantity at that price, every source together'),
    source: string('`clob` for the order book, else the pool\'s name: the first source a taker meets at that price'),
    chain: nullableString('that source\'s chain; null for the order book'),
    sources: array(object({ source: string(), chain: nullableString('null for the order book'), quantity: string() }), 'every source at that price, in matching order'),
  },
});

const marketsHead = { market_id: integer('the market\'s id'), contract_address: string('the market\'s address') };
const marketsMessages: Record<string, MessageSpec> = {
  orderbook_snapshot: {
    summary: 'orderbook: the asset\'s YES book at subscription',
    payload: object({ type: constant('orderbook_snapshot'), ...marketsHead, asset: string(), bids: levels('bids'), asks: levels('asks'), ...exchangeTop, seq }),
  },
  orderbook_update: {
    summary: 'orderbook: the asset\'s full levels after every durable batch that changed its book (full levels, not deltas: no merge needed)',
    payload: object({ type: constant('orderbook_update'), ...marketsHead, asset: string(), bids: levels('bids'), asks: levels('asks'), ...exchangeTop, timestamp, seq }),
  },
  trades_snapshot: {
    summary: 'trades: the asset\'s last 50 trades, oldest first',
    payload: object({
      type: constant('trades_snapshot'),
      ...marketsHead,
      asset: string(),
      trades: array(object({ asset: string(), price: string(), quantity: string(), side: oneOf(['buy', 'sell'], 'the taker\'s side'), timestamp })),
      seq,
    }),
  },
  trade: {
    summary: 'trades: one fill',
    payload: object({ type: constant('trade'), ...marketsHead, asset: string(), price: string(), quantity: string(), side: oneOf(['buy', 'sell'], 'the taker\'s side'), timestamp, seq }),
  },
  price_update: {
    summary: 'prices: the asset\'s oracle price, as a snapshot and after every durable tick while the market is pending or active',
    payload: object({ type: constant('price_update'), ...marketsHead, asset: string(), price: string(), change_24h: { type: ['string', 'number', 'null'], description: 'percent change over 24 hours' }, timestamp, seq }),
  },
  market_status: {
    summary: 'market: the status as a snapshot, then one at activation (start prices) and one at completion (standings, winners, WTA pool, payouts)',
    payload: object(
      {
        type: constant('market_status'),
        ...marketsHead,
        status: oneOf(['pending', 'active', 'completed']),
        start_time: timestamp,
        end_time: timestamp,
        start_prices: { type: ['object', 'null'], additionalProperties: { type: 'string' }, description: 'asset → price at activation' },
        seq,
      },
      undefined,
      {
        token: string('completed only: the settlement token'),
        standings: array({ type: 'object' }, 'completed only'),
        winners: array({ type: 'string' }, 'completed only'),
        wta: { type: 'object', description: 'completed only: the winner-takes-all pool and its payouts' },
        positions_payouts: array({ type: 'object' }, 'completed only'),
        positions_payout_total: string('completed only'),
      },
    ),
  },
};

const arenaNav = { epoch: integer('the running epoch'), teams: array(object({ team: oneOf(['BLUE', 'RED']), nav: string('USDC'), return_pct: string() })), leader: { type: ['string', 'null'] }, timestamp };
const vaultNav = {
  vault: string('the vault\'s slug'),
  address: nullableString('the vault\'s address'),
  nav: string('USDC'),
  share_price: string('USDC per share'),
  shares_outstanding: string(),
  timestamp,
};
const tierBenefits = object({ fee_discount: integer('taker fee discount, basis points'), reward_multiplier: { type: 'number' } });

/** Every stream the server may mount, by its uWS pattern. */
export const streamCatalogue: Readonly<Record<string, StreamSpec>> = {
  '/ws/exchange/:symbol': {
    id: 'exchange',
    title: 'Exchange pair stream',
    description:
      'One trading pair of the exchange. Nothing is sent unasked: subscribe to orderbook (a snapshot with up to 5000 levels a side, then one delta per durable batch listing every changed level, quantity "0" removing it), trades, prices, market, and hybrid_bbo (the best price a taker gets on each side across the order book and the AMM pools, netted so it is never crossed: a snapshot, then the full top whenever it changes). Paper books are never published. Resume by seq (every channel but hybrid_bbo): a subscribe with from_seq, the last seq the client has of the topic from this server, the leader or any stream edge (they serve the same seqs), is answered subscribed with resumed true and the messages after from_seq, with no snapshot; resumed false means the server no longer holds them and the subscription starts afresh (the orderbook with its snapshot).',
    parameters: { symbol: 'the base token\'s slug, any case (BTC)' },
    channels: ['orderbook', 'trades', 'prices', 'market', 'hybrid_bbo'],
    subscribeFields: { from_seq: integer('resume after this seq of the topic (the last one the client has)') },
    echoFields: { symbol: string(), resumed: { type: 'boolean', description: 'answering a subscribe with from_seq: whether the messages after it follow (no snapshot)' } },
    messages: {
      orderbook_update: {
        summary: 'orderbook: snapshot true once at subscription (seq = the topic\'s current), then deltas (snapshot false) seq + 1, ...',
        payload: object({
          type: constant('orderbook_update'),
          channel: constant('orderbook'),
          symbol: string(),
          asset: string(),
          pair: string('BASE/QUOTE'),
          seq,
          snapshot: { type: 'boolean', description: 'true: the full book; false: changed levels only ("0" removes a level)' },
          bids: levels('bids'),
          asks: levels('asks'),
          ...exchangeTop,
          timestamp: { type: ['string', 'null'], description: 'ISO 8601 UTC of the last batch' },
        }),
      },
      trade: {
        summary: 'trades: one message per fill',
        payload: object({
          type: constant('trade'),
          channel: constant('trades'),
          symbol: string(),
          asset: string(),
          seq,
          trade_id: { type: 'string', pattern: '^[0-9]+$', description: 'the trade id, a decimal string as in REST' },
          price: string(),
          quantity: string(),
          side: oneOf(['buy', 'sell'], 'the taker\'s side'),
          venue: string('where it filled: the book or an AMM pool'),
          timestamp,
        }),
      },
      price_update: {
        summary: 'prices: the last trade price after a batch that traded',
        payload: object({
          type: constant('price_update'),
          channel: constant('prices'),
          symbol: string(),
          asset: string(),
          seq,
          price: nullableString('last trade price'),
          change_24h: nullableString('24-hour change'),
          change_percent_24h: nullableString('24-hour change, percent'),
          timestamp,
        }),
      },
      market_update: {
        summary: 'market: top of book and 24-hour figures after a batch that traded or moved the top',
        payload: object({
          type: constant('market_update'),
          channel: constant('market'),
          symbol: string(),
          asset: string(),
          pair: string(),
          seq,
          last_price: nullableString('last trade price'),
          ...exchangeTop,
          volume_24h: nullableString('24-hour volume'),
          high_24h: nullableString('24-hour high'),
          low_24h: nullableString('24-hour low'),
          change_24h: nullableString('24-hour change'),
          timestamp,
        }),
      },
      hybrid_bbo: {
        summary: 'hybrid_bbo: snapshot true once at subscription (seq = the topic\'s current), then the whole top (snapshot false) seq + 1, ... after each durable batch that changed it',
        payload: object({
          type: constant('hybrid_bbo'),
          channel: constant('hybrid_bbo'),
          symbol: string(),
          asset: string(),
          pair: string('BASE/QUOTE'),
          seq,
          snapshot: { type: 'boolean', description: 'true: the message answering the subscribe' },
          best_bid: hybridQuote('bid'),
          best_ask: hybridQuote('ask'),
          spread: nullableString('best ask minus best bid, always positive; null unless both exist'),
          timestamp: { type: ['string', 'null'], description: 'ISO 8601 UTC of the last batch that changed the pair' },
        }),
      },
    },
  },
  '/ws/exchange/private': {
    id: 'exchange_private',
    title: 'Private user stream',
    description:
      'The caller\'s own orders, fills and balances, per mode, from durable batches only. The subscribe frame carries the credential: api_key (read permission; trade with cancel_on_disconnect) or token (a bearer access token). ' +
      'The answer is subscribed, then an account_snapshot (open orders and every balance) stamped with the topic\'s current seq, then order_update, fill and balance_update messages seq + 1, ... ' +
      'A connection belongs to the first user it authenticates. With cancel_on_disconnect true, closing the connection journals a cancel-all of every pair of that mode. ' +
      'Balances are read at clean points (no undurable command in flight), so under load they may lag, never lead, the journal.',
    channels: ['account'],
    subscribeFields: {
      api_key: string('an API key with the read permission (trade when cancel_on_disconnect)'),
      token: string('a bearer access token, instead of api_key'),
      timestamp: {
        type: ['string', 'integer'],
        description: 'signed API keys only: Unix time in milliseconds, within API_SIGNATURE_WINDOW_MS of the server\'s clock',
      },
      signature: string('signed API keys only: hex HMAC-SHA256 under the key\'s secret of timestamp + "\\nSUBSCRIBE\\n/ws/exchange/private\\n\\n"; each frame signed anew'),
      mode: oneOf(['live', 'paper'], 'the account\'s mode; live when absent'),
      cancel_on_disconnect: { type: 'boolean', description: 'cancel every open order of this mode when this connection closes; default false' },
    },
    echoFields: { mode: oneOf(['live', 'paper']), cancel_on_disconnect: { type: 'boolean' } },
    messages: {
      account_snapshot: {
        summary: 'at subscription: every open order and every balance of the mode, in parts of at most 1 000 orders (newest first), each part with seq = the topic\'s current; the topic\'s later messages follow the last part',
        payload: object({
          type: constant('account_snapshot'),
          channel: constant('account'),
          mode: oneOf(['live', 'paper']),
          user_id: integer('the authenticated user'),
          part: integer('this part\'s number, 1 to parts'),
          parts: integer('how many parts the snapshot has (1 unless the account has more than 1 000 open orders)'),
          orders: array(
            object({
              order_id: string(),
              client_order_id: nullableString('the client\'s id'),
              symbol: string(),
              pair: string('BASE/QUOTE'),
              side: oneOf(['buy', 'sell']),
              order_type: oneOf(['limit', 'market', 'stop_limit', 'stop_market']),
              time_in_force: oneOf(['GTC', 'IOC', 'FOK']),
              price: nullableString('limit price; null for market kinds'),
              stop_price: nullableString('trigger price of stops'),
              quantity: string(),
              filled_quantity: string(),
              remaining_quantity: string(),
              average_price: nullableString('average fill price'),
              status: oneOf(['pending', 'open', 'partially_filled']),
            }),
          ),
          open_orders_total: integer('the account\'s open orders, over all parts'),
          balances: { ...array(object({ asset: string(), available: string(), held: string(), total: string() })), description: 'every asset in part 1; empty in later parts' },
          seq,
        }),
      },
      order_update: {
        summary: 'one of the caller\'s orders changed: accepted, partially_filled, filled, cancelled, expired, amended or triggered',
        payload: object(
          {
            type: constant('order_update'),
            channel: constant('account'),
            mode: oneOf(['live', 'paper']),
            event: oneOf(['accepted', 'partially_filled', 'filled', 'cancelled', 'expired', 'amended', 'triggered']),
            order_id: string(),
            client_order_id: nullableString('the client\'s id'),
            symbol: string(),
            pair: string('BASE/QUOTE'),
            side: oneOf(['buy', 'sell']),
            order_type: oneOf(['limit', 'market', 'stop_limit', 'stop_market']),
            price: nullableString('limit price; null for market kinds'),
            quantity: string(),
            filled_quantity: string(),
            remaining_quantity: string(),
            average_price: nullableString('average fill price'),
            status: oneOf(['pending', 'open', 'partially_filled', 'filled', 'cancelled', 'expired']),
            timestamp,
            seq,
          },
          undefined,
          {
            time_in_force: oneOf(['GTC', 'IOC', 'FOK'], 'accepted only'),
            stop_price: nullableString('accepted only'),
            reason: string('cancelled: user, cancel_all or self_trade; expired: ioc, fok or market'),
            priority_kept: { type: 'boolean', description: 'amended only' },
          },
        ),
      },
      fill: {
        summary: 'one fill of the caller\'s order, with its fee (quote asset) and liquidity flag; the order_update it caused follows',
        payload: object({
          type: constant('fill'),
          channel: constant('account'),
          mode: oneOf(['live', 'paper']),
          trade_id: string(),
          order_id: string(),
          client_order_id: nullableString('the client\'s id'),
          symbol: string(),
          pair: string('BASE/QUOTE'),
          side: oneOf(['buy', 'sell'], 'the caller\'s side'),
          price: string(),
          quantity: string(),
          fee: string('in fee_asset'),
          fee_asset: string(),
          liquidity: oneOf(['maker', 'taker']),
          timestamp,
          seq,
        }),
      },
      balance_update: {
        summary: 'one asset\'s balance after a durable batch that moved it (read at a clean point)',
        payload: object({ type: constant('balance_update'), channel: constant('account'), mode: oneOf(['live', 'paper']), asset: string(), available: string(), held: string(), total: string(), seq }),
      },
    },
  },
  '/ws/markets/:market_id/orderbook/:asset': {
    id: 'predictionMarket',
    title: 'Prediction market stream',
    description:
      'One prediction market. Nothing is sent unasked: subscribe to orderbook, trades or prices (of the path\'s asset, or another asset of the market named by `asset`) or market. When the market completes its books are sent empty once more and its topics end.',
    parameters: { market_id: 'the market\'s id or contract address', asset: 'one of the market\'s assets (BTC), any case' },
    channels: ['orderbook', 'trades', 'prices', 'market'],
    subscribeFields: { asset: string('an asset of the market (default: the path\'s)') },
    echoFields: { ...marketsHead, asset: string('absent for the market channel') },
    messages: marketsMessages,
  },
  '/ws/orderbook/:contract_address': {
    id: 'predictionMarketLegacy',
    title: 'Prediction market stream (legacy path)',
    description:
      'The legacy path of a prediction market\'s stream: subscribed to every asset\'s orderbook as it opens (a subscribed answer and a snapshot each); it takes the same subscribe frames, where the asset channels need `asset`.',
    parameters: { contract_address: 'the market\'s contract address or id' },
    channels: ['orderbook', 'trades', 'prices', 'market'],
    subscribeFields: { asset: string('an asset of the market (required for orderbook, trades and prices)') },
    echoFields: { ...marketsHead, asset: string('absent for the market channel') },
    messages: marketsMessages,
  },
  '/ws/arena': {
    id: 'arena',
    title: 'Arena stream',
    description:
      'BLUE vs RED. A connection is subscribed to all seven topics as it opens (nav, epoch, headlines, and orderbook and trades of each team), each with its snapshot; a client may unsubscribe from what it does not need. Nothing is sent before the arena is seeded.',
    channels: ['nav', 'epoch', 'headlines', 'orderbook', 'trades'],
    subscribeFields: { team: oneOf(['BLUE', 'RED'], 'required for orderbook and trades (any case)') },
    echoFields: { team: oneOf(['BLUE', 'RED'], 'orderbook and trades only') },
    messages: {
      nav_snapshot: { summary: 'nav: both teams\' NAV at subscription', payload: object({ type: constant('nav_snapshot'), ...arenaNav, seq }) },
      nav_update: { summary: 'nav: after each durable batch that moved a NAV', payload: object({ type: constant('nav_update'), ...arenaNav, seq }) },
      epoch_state: {
        summary: 'epoch: the running epoch at subscription and at the seed',
        payload: object({ type: constant('epoch_state'), epoch: integer('epoch number'), status: constant('running'), start: timestamp, end: timestamp, epoch_seconds: integer('epoch length'), countdown_seconds: integer('seconds left'), teams: arenaNav.teams, seq }),
      },
      epoch_resolved: {
        summary: 'epoch: an epoch\'s result (winner or tie, closing NAVs, bonus pool) and the next epoch',
        payload: object({
          type: constant('epoch_resolved'),
          epoch: integer('the resolved epoch'),
          start: timestamp,
          end: timestamp,
          winner: { type: ['string', 'null'], enum: ['BLUE', 'RED', null] },
          tie: { type: 'boolean' },
          teams: array(object({ team: oneOf(['BLUE', 'RED']), nav_end: string('USDC'), return_pct: string() })),
          bonus_pool: string('USDC'),
          next_epoch: object({ epoch: integer('next epoch'), start: timestamp, end: timestamp }),
          timestamp,
          seq,
        }),
      },
      headlines: { summary: 'headlines: the newest 20 at subscription', payload: object({ type: constant('headlines'), headlines: array(object({ text: string(), kind: string(), timestamp })), seq }) },
      headline: { summary: 'headlines: one new line', payload: object({ type: constant('headline'), text: string(), kind: string(), timestamp, seq }) },
      orderbook_update: {
        summary: 'orderbook: a team\'s share book; snapshot true (up to 500 levels a side) at subscription, then deltas of changed levels ("0" removes one)',
        payload: object({ type: constant('orderbook_update'), team: oneOf(['BLUE', 'RED']), snapshot: { type: 'boolean' }, bids: levels('bids'), asks: levels('asks'), nav: string('the team\'s NAV, USDC'), timestamp, seq }),
      },
      trade: {
        summary: 'trades: one fill on a team\'s book',
        payload: object({ type: constant('trade'), team: oneOf(['BLUE', 'RED']), price: string('USDC per share'), quantity: string('shares'), taker_side: oneOf(['buy', 'sell']), maker: oneOf(['house', 'user']), timestamp, seq }),
      },
    },
  },
  '/ws/vault/nav': {
    id: 'vaultNav',
    title: 'Vault NAV stream',
    description:
      'The public strategy vaults\' NAV. A connection is subscribed to every public vault as it opens; subscribe with `vault` for one vault\'s topic only. Paper vaults never appear here.',
    channels: ['nav'],
    subscribeFields: { vault: string('a public vault\'s address or slug (absent: every public vault)') },
    echoFields: { vault: string('the vault\'s slug, when one was named') },
    messages: {
      snapshot: { summary: 'the NAV of the topic\'s vaults at subscription', payload: object({ type: constant('snapshot'), vaults: array(object(vaultNav)), timestamp, seq }) },
      nav_update: { summary: 'a vault\'s revaluation (strategy run, deposit, withdrawal)', payload: object({ type: constant('nav_update'), ...vaultNav, seq }) },
      position_opened: {
        summary: 'a strategy\'s buy fill',
        payload: object({ type: constant('position_opened'), vault: string(), asset: string(), side: constant('buy'), quantity: string(), notional: string(), order_id: string(), unwind: { type: 'boolean' }, timestamp, seq }),
      },
      trade_closed: {
        summary: 'a strategy\'s or an unwind\'s sell fill',
        payload: object({ type: constant('trade_closed'), vault: string(), asset: string(), side: constant('sell'), quantity: string(), notional: string(), order_id: string(), unwind: { type: 'boolean' }, timestamp, seq }),
      },
      heartbeat: { summary: 'every VAULT_NAV_HEARTBEAT_MS, on every topic', payload: object({ type: constant('heartbeat'), timestamp, seq }) },
    },
  },
  '/ws/incentives/:wallet_address': {
    id: 'incentives',
    title: 'Incentives stream',
    description:
      'The incentives of a wallet\'s owner (the user behind a bot wallet or one of their deposit addresses), subscribed on connect, from durable batches only. An unknown wallet is refused at the upgrade (404 WALLET_NOT_FOUND).',
    parameters: { wallet_address: 'a bot wallet (EVM 0x + 40 hex, or Solana base58) or a deposit address' },
    channels: ['incentives'],
    echoFields: { wallet: string() },
    messages: {
      snapshot: {
        summary: 'the owner\'s bots with tier and benefits, and total earnings',
        payload: object({ type: constant('snapshot'), wallet: string(), bots: array(object({ bot_id: integer('bot id'), name: string(), tier: string(), benefits: tierBenefits })), total_earnings: string('PLAT'), seq }),
      },
      earnings_update: {
        summary: 'a payout reached the owner (staking claim, airdrop claim, ...)',
        payload: object({ type: constant('earnings_update'), bot_id: { type: ['integer', 'null'] }, token: string(), new_earnings: string(), total_earnings: string(), seq }),
      },
      tier_change: {
        summary: 'one of the owner\'s bots changed tier on a fill',
        payload: object({ type: constant('tier_change'), bot_id: integer('bot id'), old_tier: string(), new_tier: string(), new_benefits: tierBenefits, seq }),
      },
    },
  },
};

/** `/ws/markets/:market_id/orderbook/:asset` → `/ws/markets/{market_id}/orderbook/{asset}`. */
export function streamAddress(pattern: string): string {
  return pattern.replace(/:([a-z_][a-z0-9_]*)/gi, '{$1}');
}

function parameterNames(pattern: string): string[] {
  return [...pattern.matchAll(/:([a-z_][a-z0-9_]*)/gi)].map((match) => match[1]!);
}

function clientMessages(spec: StreamSpec): Record<string, Schema> {
  const channel = oneOf(spec.channels);
  const extra = spec.subscribeFields ?? {};
  return {
    subscribe: {
      name: 'subscribe',
      summary: 'Subscribe to a topic: answered subscribed, then its snapshot (where it has one) and every later message',
      payload: { type: 'object', required: ['action', 'channel'], properties: { action: constant('subscribe'), channel, ...extra } },
    },
    unsubscribe: {
      name: 'unsubscribe',
      summary: 'Stop a topic: answered unsubscribed',
      payload: { type: 'object', required: ['action', 'channel'], properties: { action: constant('unsubscribe'), channel, ...extra } },
    },
    ping: { name: 'ping', summary: 'Answered pong', payload: object({ action: constant('ping') }) },
  };
}

function serverMessages(spec: StreamSpec): Record<string, Schema> {
  const echo = spec.echoFields ?? {};
  const messages: Record<string, Schema> = {
    subscribed: { name: 'subscribed', summary: 'A subscribe took effect', payload: { type: 'object', required: ['type', 'channel'], properties: { type: constant('subscribed'), channel: oneOf(spec.channels), ...echo } } },
    unsubscribed: { name: 'unsubscribed', summary: 'An unsubscribe took effect', payload: { type: 'object', required: ['type', 'channel'], properties: { type: constant('unsubscribed'), channel: oneOf(spec.channels), ...echo } } },
    pong: { name: 'pong', summary: 'The answer to ping', payload: object({ type: constant('pong') }) },
    error: {
      name: 'error',
      summary: 'A refused frame (malformed JSON or msgpack, unknown action, channel or topic, too many subscriptions); the connection stays open',
      payload: object({ type: constant('error'), error: object({ code: string('MALFORMED_JSON, MALFORMED_MSGPACK, VALIDATION_FAILED, TOO_MANY_SUBSCRIPTIONS, or a not-found code'), message: string() }) }),
    },
  };
  for (const [name, message] of Object.entries(spec.messages)) messages[name] = { name, summary: message.summary, payload: message.payload };
  return messages;
}

export interface AsyncApiOptions {
  /** The public origin (`https://api.example`): the document's server. */
  readonly baseUrl: string;
  /** The uWS patterns the server mounts, in mount order. */
  readonly streamPatterns: readonly string[];
}

export function asyncApiDocument(options: AsyncApiOptions): Record<string, unknown> {
  const base = new URL(options.baseUrl);
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  for (const pattern of options.streamPatterns) {
    const spec = streamCatalogue[pattern];
    const names = parameterNames(pattern);
    const parameters = names.length === 0 ? {} : { parameters: Object.fromEntries(names.map((name) => [name, { description: spec?.parameters?.[name] ?? name }])) };
    if (spec === undefined) {
      const id = `undescribed_${Object.keys(channels).length}`;
      channels[id] = { address: streamAddress(pattern), title: pattern, description: 'Not described yet.', ...parameters, 'x-undescribed': true };
      continue;
    }
    const client = clientMessages(spec);
    const server = serverMessages(spec);
    channels[spec.id] = {
      address: streamAddress(pattern),
      title: spec.title,
      description: spec.description,
      ...parameters,
      messages: { ...client, ...server },
      bindings: {
        ws: { query: { type: 'object', properties: { encoding: { type: 'string', enum: ['json', 'msgpack'], default: 'json', description: 'msgpack: every server message is a binary msgpack frame' } } } },
      },
    };
    const ref = (name: string) => ({ $ref: `#/channels/${spec.id}/messages/${name}` });
    operations[`${spec.id}ClientFrames`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${spec.id}` },
      // No credential is asked at the upgrade: the private stream takes its credential in the subscribe frame.
      security: [],
      summary: `Frames a client sends on ${streamAddress(pattern)}`,
      messages: Object.keys(client).map(ref),
    };
    operations[`${spec.id}ServerMessages`] = {
      action: 'send',
      channel: { $ref: `#/channels/${spec.id}` },
      security: [],
      summary: `Messages the server sends on ${streamAddress(pattern)}`,
      messages: Object.keys(server).map(ref),
    };
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: `${serviceTitle}: streams`,
      version: apiVersion,
      description:
        'The WebSocket streams. Client frames: {"action":"subscribe"|"unsubscribe","channel":C,...} and {"action":"ping"}, as JSON text or msgpack binary, ' +
        'up to 4096 bytes; at most 256 topics per connection. Each topic numbers its messages: a snapshot carries the topic\'s current seq and every later ' +
        'message one more, so a gap means a lost message (resubscribe for a fresh snapshot). `?encoding=msgpack` makes every server message a msgpack ' +
        'binary frame. A subscriber too far behind (WS_BACKPRESSURE_BYTES) is disconnected. The HTTP routes are in ' +
        `${discoveryPaths.openapi}.`,
      license: { name: license.name },
      externalDocs: { description: 'The HTTP API (OpenAPI 3.1)', url: new URL(discoveryPaths.openapi, base).href },
    },
    servers: {
      public: {
        host: base.host,
        protocol: base.protocol === 'https:' ? 'wss' : 'ws',
        ...(base.pathname === '/' ? {} : { pathname: base.pathname.replace(/\/$/, '') }),
        description: 'The service\'s WebSocket origin.',
      },
    },
    defaultContentType: 'application/json',
    channels,
    operations,
  };
}
