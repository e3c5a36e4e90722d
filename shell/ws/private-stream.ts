/**
 * The private user stream, `/ws/exchange/private`: one user's own orders, fills and balances, per mode.
 *
 * Protocol (the topic-stream protocol, with credentials in the subscribe frame, since a browser cannot set
 * headers on a WebSocket upgrade): the client sends
 * `{"action":"subscribe","channel":"account","api_key":K}` (or `"token":T`, a bearer access token), with
 * optional `"mode":"live"|"paper"` (live when absent) and `"cancel_on_disconnect":true`. The key needs the
 * read permission, and the trade permission when cancel_on_disconnect is asked. A signed key (README
 * "Signed requests") adds `"timestamp"` (Unix ms) and `"signature"`, the HMAC of
 * `timestamp\nSUBSCRIBE\n/ws/exchange/private\n\n` under its secret, under the same receive window and
 * replay guard as HTTP requests: each subscribe frame is signed anew. The server answers
 * `subscribed`, then an `account_snapshot` (every open order and every balance of the mode) stamped with the
 * topic's current seq; every later message of the (user, mode) topic carries seq + 1, seq + 2, ... A gap
 * means a lost message: resubscribe for a fresh snapshot. A connection belongs to the first user it
 * authenticates; it may subscribe to both modes of that user. `unsubscribe` (channel account, with
 * `mode`) stops a mode; `ping` is answered `pong`; a bad frame or a refused credential is answered with an
 * error frame and the connection stays open.
 *
 * Durability. Messages come only from durable batches (onDurable). Order and fill messages come from the
 * batch's events. Balances are read from the ledger, which holds what the engine applied, durable or not;
 * so they are read only at a clean point, a durable batch after which the engine applied nothing more
 * (the sequencer's last seq is the batch's). A snapshot asked for while undurable commands are in flight
 * waits for the next clean point (the connection is subscribed then, in the same turn of the loop, so no
 * delta falls between); balance updates of accounts a batch touched wait likewise. Under steady load the
 * engine may never stop at a durable batch on its own (one batch is applied while the previous one syncs),
 * so while a snapshot waits the stream asks the sequencer for a clean point (`requestCleanPoint`: new
 * commands wait unapplied until what was applied is durable), at once for a snapshot and at most every
 * `cleanPointIntervalMs` for balance updates: a snapshot comes within about two batch syncs, a balance
 * update within that interval and two syncs. Balances lag; they are never ahead of the journal.
 *
 * Cancel on disconnect: when a connection whose subscribe asked for it closes (the client went away, the
 * server shut down, or uWS dropped a reader too far behind), one CancelAll of the mode's every pair is
 * submitted through the sequencer for the user, so it is journaled like a client's cancel-all (reason
 * cancel_all). It applies to the mode subscribed with the flag: paper too when asked there.
 */
import uWS, { type TemplatedApp, type WebSocket } from 'uWebSockets.js';
import { encode } from '@msgpack/msgpack';
import { backlogBytes, readClientFrame, refuseFrame, sendFrame, streamSocketOptions } from './frames.ts';
import { CommandKind, Mode, modeNames, orderTypeNames, OrderType, sideNames, Side, timeInForceNames, type Command } from '../../engine/core/commands.ts';
import { cancelReasonNames, EventKind, expireReasonNames, liquidityNames, orderStatusNames, type EngineEvent } from '../../engine/core/events.ts';
import { formatAtoms, formatPrice, formatQuantity, type Pair } from '../../engine/core/units.ts';
import { Result } from '../../engine/core/results.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import type { Authenticator, Credentials } from '../auth/authenticator.ts';
import { subscribeParts } from '../auth/signatures.ts';
import { RateFigures } from '../auth/rate-limit.ts';
import type { Principal } from '../auth/access.ts';
import { ApiError, errorBody } from '../http/errors.ts';
import { averagePrice } from '../http/order-json.ts';
import { balanceRow } from '../http/account.ts';
import type { ShellContext } from '../context.ts';
import type { Encoding, StreamMessage } from './topic-stream.ts';

/** The uWS pattern of the stream (the AsyncAPI document describes it). */
export const privateStreamPath = '/ws/exchange/private';
export const privateChannel = 'account';
/**
 * Least time between two clean points asked for balance updates (runtime clock, ms). Each one holds new
 * commands back for up to two batch syncs, so this bounds that cost under load to a few per cent, and a
 * balance update's lag to about this plus two syncs.
 */
export const cleanPointIntervalMs = 100;
/**
 * Open orders an account_snapshot lists at most: the newest ones, by order id. An account may hold more
 * (the engine's cap is 200 000); its snapshot then says so (`orders_truncated`, `open_orders_total`) and
 * the client pages the rest from GET /api/v1/exchange/orders/open. It bounds the snapshot's frame (about
 * 3 MB) and the time building it takes from the engine's thread.
 */
export const snapshotOrdersMax = 10_000;
/** Longest credential a subscribe frame may carry (the frame itself is at most 4 KiB). */
const credentialCharsMax = 2048;
/** Longest timestamp or signature text a subscribe frame may carry (a signature is 64 hex digits). */
const signedFieldCharsMax = 128;
/** What a signed key's subscribe frame signs: `timestamp\nSUBSCRIBE\n/ws/exchange/private\n\n`. */
const subscribeSigned = subscribeParts(privateStreamPath);

interface Session {
  readonly encoding: Encoding;
  /** The user the connection belongs to, once a subscribe authenticated (0 before). */
  userId: number;
  /** Modes subscribed, and those whose orders are cancelled when the connection closes. */
  readonly modes: Set<Mode>;
  readonly cancelOnDisconnect: Set<Mode>;
  closed: boolean;
}

/** What the stream remembers of a watched order: the fields its later events do not carry. */
interface OrderInfo {
  readonly userId: number;
  readonly mode: Mode;
  readonly pair: Pair;
  readonly side: Side;
  readonly orderType: OrderType;
  readonly clientOrderId: string;
  quantityLots: number;
  priceTicks: number;
  filledLots: number;
  filledNotionalAtoms: number;
}

export interface PrivateStreamOptions {
  readonly context: ShellContext;
  readonly authenticator: Authenticator;
  readonly backpressureBytes: number;
  readonly connectionsMax: number;
}

const accessRead = { auth: 'bearer_or_key', permission: 'read', rateLimit: 'general' } as const;
const accessTrade = { auth: 'bearer_or_key', permission: 'trade', rateLimit: 'general' } as const;

function topicKey(userId: number, mode: Mode): string {
  return `${userId}:${mode}`;
}

function uwsTopic(key: string, encoding: Encoding): string {
  return `${encoding === 'json' ? 'j' : 'm'}:${privateStreamPath}:${key}`;
}

export class PrivateStream {
  private readonly sockets = new Set<WebSocket<Session>>();
  private readonly seqs = new Map<string, number>();
  /** Subscribers per topic key: only watched accounts have their events turned into messages. */
  private readonly watchers = new Map<string, number>();
  /** Orders of watched accounts, by order id. */
  private readonly orders = new Map<number, OrderInfo>();
  /** Balances of watched accounts that a durable batch touched, reported at the next clean point: key → asset ids (not indexes). */
  private readonly dirty = new Map<string, Set<number>>();
  /** Connections waiting for a clean point to get their snapshot. */
  private readonly waiting: Array<{ ws: WebSocket<Session>; mode: Mode }> = [];
  /** When a clean point was last asked (runtime clock, ms): balance updates ask at most every `cleanPointIntervalMs`. */
  private cleanPointAskedMs = -Infinity;
  private app: TemplatedApp | null = null;

  constructor(private readonly options: PrivateStreamOptions) {}

  /** Registers the path on the app; called once, before the server listens and before the pair stream's pattern. */
  mount(app: TemplatedApp): void {
    this.app = app;
    app.ws<Session>(privateStreamPath, {
      ...streamSocketOptions(this.options.backpressureBytes),
      upgrade: (res, req, context) => {
        const encoding = req.getQuery('encoding') ?? 'json';
        const reject = (status: string, code: string, message: string): void => {
          res.cork(() => res.writeStatus(status).writeHeader('Content-Type', 'application/json').end(errorBody(code, message)));
        };
        if (encoding !== 'json' && encoding !== 'msgpack') return reject('422 Unprocessable Entity', 'VALIDATION_FAILED', 'query.encoding: must be json or msgpack');
        if (this.sockets.size >= this.options.connectionsMax) return reject('503 Service Unavailable', 'UNAVAILABLE', 'too many stream connections');
        res.upgrade<Session>(
          { encoding, userId: 0, modes: new Set(), cancelOnDisconnect: new Set(), closed: false },
          req.getHeader('sec-websocket-key'),
          req.getHeader('sec-websocket-protocol'),
          req.getHeader('sec-websocket-extensions'),
          context,
        );
      },
      open: (ws) => {
        this.sockets.add(ws);
      },
      message: (ws, message, isBinary) => this.onMessage(ws, message, isBinary),
      close: (ws) => this.onClose(ws),
    });
  }

  get openConnections(): number {
    return this.sockets.size;
  }

  /** Bytes written to the stream's sockets that the kernel has not taken yet (the metrics' backlog). */
  get sendBacklogBytes(): number {
    return backlogBytes(this.sockets);
  }

  /** The topic's current seq: the seq of its last message (0 before any). */
  seqOf(userId: number, mode: Mode): number {
    return this.seqs.get(topicKey(userId, mode)) ?? 0;
  }

  /** Closes every connection (1001 going away); connections with cancel_on_disconnect submit their cancels. */
  closeAll(): void {
    for (const ws of [...this.sockets]) ws.end(1001, 'server shutting down');
  }

  /** A durable batch: order and fill messages of watched accounts now, balances and waiting snapshots at a clean point. */
  onDurable(batch: DurableBatch): void {
    if (this.watchers.size > 0) batch.forEachEvent((event, _seq, ts) => this.onEvent(event, ts));
    if (this.options.context.durable.sequencer.lastSeq !== batch.lastSeq) {
      if (this.dirty.size > 0 && this.options.context.clock() - this.cleanPointAskedMs >= cleanPointIntervalMs) this.askCleanPoint();
      return;
    }
    this.flushBalances();
    for (const { ws, mode } of this.waiting.splice(0)) if (!ws.getUserData().closed) this.startTopic(ws, mode);
  }

  private askCleanPoint(): void {
    this.cleanPointAskedMs = this.options.context.clock();
    this.options.context.durable.sequencer.requestCleanPoint();
  }

  private clean(): boolean {
    const sequencer = this.options.context.durable.sequencer;
    return sequencer.lastSeq === sequencer.durableSeq;
  }

  private publish(userId: number, mode: Mode, message: StreamMessage): void {
    const key = topicKey(userId, mode);
    const seq = (this.seqs.get(key) ?? 0) + 1;
    this.seqs.set(key, seq);
    const app = this.app;
    if (app === null) return;
    const stamped = { ...message, seq };
    const jsonTopic = uwsTopic(key, 'json');
    const msgpackTopic = uwsTopic(key, 'msgpack');
    if (app.numSubscribers(jsonTopic) > 0) app.publish(jsonTopic, JSON.stringify(stamped), false);
    if (app.numSubscribers(msgpackTopic) > 0) app.publish(msgpackTopic, encode(stamped), true);
  }

  private watched(userId: number, mode: Mode): boolean {
    return this.watchers.has(topicKey(userId, mode));
  }

  private markDirty(userId: number, mode: Mode, assetId: number): void {
    const key = topicKey(userId, mode);
    let assets = this.dirty.get(key);
    if (assets === undefined) this.dirty.set(key, (assets = new Set()));
    assets.add(assetId);
  }

  private onEvent(event: EngineEvent, ts: number): void {
    const markets = this.options.context.markets;
    const timestamp = new Date(ts).toISOString();
    switch (event.kind) {
      case EventKind.orderAccepted: {
        if (!this.watched(event.userId, event.mode)) return;
        const pair = markets.pairById(event.pairId);
        if (pair === undefined) return;
        const info: OrderInfo = {
          userId: event.userId,
          mode: event.mode,
          pair,
          side: event.side,
          orderType: event.orderType,
          clientOrderId: event.clientOrderId,
          quantityLots: event.quantityLots,
          priceTicks: event.priceTicks,
          filledLots: 0,
          filledNotionalAtoms: 0,
        };
        this.orders.set(event.orderId, info);
        this.markDirty(event.userId, event.mode, event.side === Side.buy ? pair.quote.id : pair.base.id);
        this.orderUpdate(event.orderId, info, 'accepted', orderStatusNames[event.status], info.quantityLots, timestamp, {
          time_in_force: timeInForceNames[event.timeInForce],
          stop_price: event.stopPriceTicks === 0 ? null : formatPrice(event.stopPriceTicks, pair),
        });
        return;
      }
      case EventKind.tradeExecuted: {
        // Either side may be a watched order (both, in a self-trade): each gets its own fill.
        const taker = this.orders.get(event.takerOrderId);
        if (taker !== undefined) {
          this.fill(event.takerOrderId, taker, event.tradeId, event.priceTicks, event.quantityLots, event.notionalAtoms, event.takerFeeAtoms, event.takerRemainingLots, 'taker', timestamp);
        }
        const maker = this.orders.get(event.makerOrderId);
        if (maker !== undefined) {
          this.fill(event.makerOrderId, maker, event.tradeId, event.priceTicks, event.quantityLots, event.notionalAtoms, event.makerFeeAtoms, event.makerRemainingLots, 'maker', timestamp);
        }
        return;
      }
      case EventKind.ammFill: {
        const info = this.orders.get(event.orderId);
        if (info !== undefined) {
          this.fill(event.orderId, info, event.tradeId, event.priceTicks, event.quantityLots, event.notionalAtoms, event.feeAtoms, event.remainingLots, liquidityNames[event.liquidity], timestamp);
        }
        return;
      }
      case EventKind.orderCancelled:
      case EventKind.orderExpired: {
        const info = this.orders.get(event.orderId);
        if (info === undefined) return;
        this.orders.delete(event.orderId);
        this.markDirty(info.userId, info.mode, info.side === Side.buy ? info.pair.quote.id : info.pair.base.id);
        const cancelled = event.kind === EventKind.orderCancelled;
        const reason = cancelled ? cancelReasonNames[event.reason] : expireReasonNames[event.reason];
        this.orderUpdate(event.orderId, info, cancelled ? 'cancelled' : 'expired', cancelled ? 'cancelled' : 'expired', event.remainingLots, timestamp, { reason });
        return;
      }
      case EventKind.orderAmended: {
        const info = this.orders.get(event.orderId);
        if (info === undefined) return;
        info.priceTicks = event.priceTicks;
        info.quantityLots = event.quantityLots;
        this.markDirty(info.userId, info.mode, info.side === Side.buy ? info.pair.quote.id : info.pair.base.id);
        const status = info.filledLots > 0 ? 'partially_filled' : 'open';
        this.orderUpdate(event.orderId, info, 'amended', status, event.remainingLots, timestamp, { priority_kept: event.priorityKept });
        return;
      }
      case EventKind.stopTriggered: {
        const info = this.orders.get(event.orderId);
        if (info === undefined) return;
        this.orderUpdate(event.orderId, info, 'triggered', 'open', info.quantityLots - info.filledLots, timestamp, {});
        return;
      }
      case EventKind.balanceChanged:
        if (this.watched(event.userId, event.mode)) this.markDirty(event.userId, event.mode, event.assetId);
        return;
      default:
        return;
    }
  }

  private fill(
    orderId: number,
    info: OrderInfo,
    tradeId: number,
    priceTicks: number,
    lots: number,
    notionalAtoms: number,
    feeAtoms: number,
    remainingLots: number,
    liquidity: 'taker' | 'maker',
    timestamp: string,
  ): void {
    const pair = info.pair;
    info.filledLots += lots;
    info.filledNotionalAtoms += notionalAtoms;
    this.markDirty(info.userId, info.mode, pair.base.id);
    this.markDirty(info.userId, info.mode, pair.quote.id);
    this.publish(info.userId, info.mode, {
      type: 'fill',
      channel: privateChannel,
      mode: modeNames[info.mode],
      trade_id: String(tradeId),
      order_id: String(orderId),
      client_order_id: info.clientOrderId === '' ? null : info.clientOrderId,
      symbol: pair.base.symbol,
      pair: pair.name,
      side: sideNames[info.side],
      price: formatPrice(priceTicks, pair),
      quantity: formatQuantity(lots, pair),
      fee: formatAtoms(feeAtoms, pair.quote),
      fee_asset: pair.quote.symbol,
      liquidity,
      timestamp,
    });
    const filled = remainingLots === 0;
    if (filled) this.orders.delete(orderId);
    this.orderUpdate(orderId, info, filled ? 'filled' : 'partially_filled', filled ? 'filled' : 'partially_filled', remainingLots, timestamp, {});
  }

  private orderUpdate(orderId: number, info: OrderInfo, event: string, status: string, remainingLots: number, timestamp: string, extra: StreamMessage): void {
    const pair = info.pair;
    const isMarket = info.orderType === OrderType.market || info.orderType === OrderType.stopMarket;
    this.publish(info.userId, info.mode, {
      type: 'order_update',
      channel: privateChannel,
      mode: modeNames[info.mode],
      event,
      order_id: String(orderId),
      client_order_id: info.clientOrderId === '' ? null : info.clientOrderId,
      symbol: pair.base.symbol,
      pair: pair.name,
      side: sideNames[info.side],
      order_type: orderTypeNames[info.orderType],
      price: isMarket ? null : formatPrice(info.priceTicks, pair),
      quantity: formatQuantity(info.quantityLots, pair),
      filled_quantity: formatQuantity(info.filledLots, pair),
      remaining_quantity: formatQuantity(remainingLots, pair),
      average_price: averagePrice(pair, info.filledLots, info.filledNotionalAtoms),
      status,
      timestamp,
      ...extra,
    });
  }

  /** Publishes the balances of watched accounts that changed since the last clean point; only at a clean point. */
  private flushBalances(): void {
    const { context } = this.options;
    const ledger = context.durable.engine.ledger;
    for (const [key, assets] of this.dirty) {
      const [userText, modeText] = key.split(':');
      const userId = Number(userText);
      const mode = Number(modeText) as Mode;
      if (!this.watched(userId, mode)) continue;
      const account = ledger.find(userId, mode);
      for (const assetId of [...assets].sort((a, b) => a - b)) {
        const asset = context.markets.assetById(assetId);
        if (asset === undefined) continue;
        this.publish(userId, mode, { type: 'balance_update', channel: privateChannel, mode: modeNames[mode], ...balanceRow(context, ledger, account, mode, asset) });
      }
    }
    this.dirty.clear();
  }

  /**
   * The open orders (every one, or the newest `snapshotOrdersMax`) and every balance of (user, mode) as
   * the engine holds them: called only at a clean point.
   */
  private snapshot(userId: number, mode: Mode): StreamMessage {
    const { context } = this.options;
    const engine = context.durable.engine;
    const store = engine.orders;
    const orders: StreamMessage[] = [];
    let slots = engine.openOrderSlots(userId, mode);
    const total = slots.length;
    if (total > snapshotOrdersMax) slots = slots.sort((a, b) => store.orderId(b) - store.orderId(a)).slice(0, snapshotOrdersMax);
    for (const slot of slots) {
      const pair = engine.contexts[store.context(slot)]!.pair;
      const orderId = store.orderId(slot);
      const orderType = store.orderType(slot) as OrderType;
      const info: OrderInfo = {
        userId,
        mode,
        pair,
        side: store.side(slot) as Side,
        orderType,
        clientOrderId: store.clientOrderId[slot] ?? '',
        quantityLots: store.quantityLots(slot),
        priceTicks: store.priceTicks(slot),
        filledLots: store.filledLots(slot),
        filledNotionalAtoms: store.filledNotionalAtoms(slot),
      };
      this.orders.set(orderId, info);
      const isMarket = orderType === OrderType.market || orderType === OrderType.stopMarket;
      orders.push({
        order_id: String(orderId),
        client_order_id: info.clientOrderId === '' ? null : info.clientOrderId,
        symbol: pair.base.symbol,
        pair: pair.name,
        side: sideNames[info.side],
        order_type: orderTypeNames[orderType],
        time_in_force: timeInForceNames[store.timeInForce(slot)],
        price: isMarket ? null : formatPrice(info.priceTicks, pair),
        stop_price: store.stopPriceTicks(slot) === 0 ? null : formatPrice(store.stopPriceTicks(slot), pair),
        quantity: formatQuantity(info.quantityLots, pair),
        filled_quantity: formatQuantity(info.filledLots, pair),
        remaining_quantity: formatQuantity(info.quantityLots - info.filledLots, pair),
        average_price: averagePrice(pair, info.filledLots, info.filledNotionalAtoms),
        status: orderStatusNames[store.status(slot)],
      });
    }
    const account = engine.ledger.find(userId, mode);
    const balances = context.markets.assets.map((asset) => balanceRow(context, engine.ledger, account, mode, asset));
    return {
      type: 'account_snapshot',
      channel: privateChannel,
      mode: modeNames[mode],
      user_id: userId,
      orders,
      open_orders_total: total,
      orders_truncated: total > orders.length,
      balances,
    };
  }



  private onMessage(ws: WebSocket<Session>, data: ArrayBuffer, isBinary: boolean): void {
    const frame = readClientFrame(data, isBinary);
    if (!frame.ok) return refuseFrame(ws, frame.code, frame.reason);
    const message = frame.message as StreamMessage;
    const { action, channel } = message;
    if (action === 'ping') return sendFrame(ws, { type: 'pong' });
    if (action !== 'subscribe' && action !== 'unsubscribe') return refuseFrame(ws, 'VALIDATION_FAILED', 'action: must be subscribe, unsubscribe or ping');
    if (channel !== privateChannel) return refuseFrame(ws, 'VALIDATION_FAILED', `channel: must be ${privateChannel}`);
    const modeText = message['mode'] ?? 'live';
    if (modeText !== 'live' && modeText !== 'paper') return refuseFrame(ws, 'VALIDATION_FAILED', 'mode: must be live or paper');
    const mode = modeText === 'paper' ? Mode.paper : Mode.live;
    const session = ws.getUserData();
    if (action === 'unsubscribe') {
      if (session.modes.delete(mode)) {
        ws.unsubscribe(uwsTopic(topicKey(session.userId, mode), session.encoding));
        this.unwatch(session.userId, mode);
      }
      session.cancelOnDisconnect.delete(mode);
      return sendFrame(ws, { type: 'unsubscribed', channel, mode: modeText });
    }
    const cancelOnDisconnect = message['cancel_on_disconnect'] ?? false;
    if (typeof cancelOnDisconnect !== 'boolean') return refuseFrame(ws, 'VALIDATION_FAILED', 'cancel_on_disconnect: must be a boolean');
    const apiKey = message['api_key'] ?? '';
    const token = message['token'] ?? '';
    if (typeof apiKey !== 'string' || apiKey.length > credentialCharsMax) return refuseFrame(ws, 'VALIDATION_FAILED', `api_key: must be a string of at most ${credentialCharsMax} characters`);
    if (typeof token !== 'string' || token.length > credentialCharsMax) return refuseFrame(ws, 'VALIDATION_FAILED', `token: must be a string of at most ${credentialCharsMax} characters`);
    if (apiKey === '' && token === '') return refuseFrame(ws, 'UNAUTHENTICATED', 'api_key (read permission) or token (a bearer access token) required');
    // A signed key signs the subscribe itself (README "Signed requests"); other credentials ignore these.
    const timestamp = message['timestamp'] ?? '';
    const signature = message['signature'] ?? '';
    if (!(typeof timestamp === 'string' && timestamp.length <= signedFieldCharsMax) && !Number.isSafeInteger(timestamp)) {
      return refuseFrame(ws, 'VALIDATION_FAILED', 'timestamp: must be Unix time in milliseconds, a string or an integer');
    }
    if (typeof signature !== 'string' || signature.length > signedFieldCharsMax) return refuseFrame(ws, 'VALIDATION_FAILED', `signature: must be a string of at most ${signedFieldCharsMax} characters`);
    const credentials: Credentials = {
      apiKey,
      authorization: token === '' ? '' : `Bearer ${token}`,
      remoteAddress: '',
      timestamp: String(timestamp),
      signature,
      signedParts: subscribeSigned,
    };
    let principal: Principal | null | Promise<Principal>;
    try {
      principal = this.options.authenticator.authenticate(cancelOnDisconnect ? accessTrade : accessRead, 1, credentials, new RateFigures());
    } catch (error) {
      return this.refuseCredential(ws, error);
    }
    Promise.resolve(principal).then(
      (resolved) => this.authenticated(ws, resolved!, mode, cancelOnDisconnect),
      (error: unknown) => {
        if (!session.closed) this.refuseCredential(ws, error);
      },
    );
  }

  private refuseCredential(ws: WebSocket<Session>, error: unknown): void {
    if (error instanceof ApiError) return refuseFrame(ws, error.code, error.message);
    this.options.context.log('private_stream_auth_failed', { error: String(error) });
    refuseFrame(ws, 'UNAUTHENTICATED', 'the credential could not be checked');
  }

  private authenticated(ws: WebSocket<Session>, principal: Principal, mode: Mode, cancelOnDisconnect: boolean): void {
    const session = ws.getUserData();
    if (session.closed) return;
    if (session.userId !== 0 && session.userId !== principal.userId) {
      return refuseFrame(ws, 'PERMISSION_DENIED', 'this connection belongs to another user: open a new one');
    }
    session.userId = principal.userId;
    if (cancelOnDisconnect) session.cancelOnDisconnect.add(mode);
    if (session.modes.has(mode)) return sendFrame(ws, { type: 'subscribed', channel: privateChannel, mode: modeNames[mode], cancel_on_disconnect: session.cancelOnDisconnect.has(mode) });
    session.modes.add(mode);
    this.watchers.set(topicKey(session.userId, mode), (this.watchers.get(topicKey(session.userId, mode)) ?? 0) + 1);
    sendFrame(ws, { type: 'subscribed', channel: privateChannel, mode: modeNames[mode], cancel_on_disconnect: session.cancelOnDisconnect.has(mode) });
    if (this.clean()) return this.startTopic(ws, mode);
    this.waiting.push({ ws, mode });
    this.askCleanPoint();
  }

  /** Sends the snapshot and subscribes in one turn of the loop, at a clean point: no message falls between. */
  private startTopic(ws: WebSocket<Session>, mode: Mode): void {
    const session = ws.getUserData();
    if (!session.modes.has(mode)) return;
    const key = topicKey(session.userId, mode);
    sendFrame(ws, { ...this.snapshot(session.userId, mode), seq: this.seqs.get(key) ?? 0 });
    ws.subscribe(uwsTopic(key, session.encoding));
  }

  private unwatch(userId: number, mode: Mode): void {
    const key = topicKey(userId, mode);
    const count = (this.watchers.get(key) ?? 0) - 1;
    if (count > 0) {
      this.watchers.set(key, count);
      return;
    }
    this.watchers.delete(key);
    this.dirty.delete(key);
    for (const [orderId, info] of this.orders) if (info.userId === userId && info.mode === mode) this.orders.delete(orderId);
  }

  private onClose(ws: WebSocket<Session>): void {
    this.sockets.delete(ws);
    const session = ws.getUserData();
    session.closed = true;
    for (const mode of session.modes) this.unwatch(session.userId, mode);
    for (const mode of session.cancelOnDisconnect) this.cancelAll(session.userId, mode);
  }

  /** The cancel-on-disconnect: one CancelAll of every pair, journaled like a client's. */
  private cancelAll(userId: number, mode: Mode): void {
    const { context } = this.options;
    const command: Command = { kind: CommandKind.cancelAll, seq: 0, ts: 0, userId, mode, pairId: 0 };
    context.durable.enqueue(command, (outcome) => {
      if (outcome.error !== null) context.log('cancel_on_disconnect_failed', { user_id: userId, mode: modeNames[mode], error: outcome.error.message });
      else if (outcome.result === Result.ok) context.log('cancel_on_disconnect', { user_id: userId, mode: modeNames[mode], seq: outcome.seq });
    });
  }
}
