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
 * `subscribed`, then an `account_snapshot` (every open order and every balance of the mode, in parts of
 * at most `snapshotPartOrders` orders) stamped with the topic's current seq; every later message of the
 * (user, mode) topic carries seq + 1, seq + 2, ... A gap means a lost message: resubscribe for a fresh
 * snapshot. A connection belongs to the first user it authenticates; it may subscribe to both modes of
 * that user. `unsubscribe` (channel account, with `mode`) stops a mode; `ping` is answered `pong`; a bad
 * frame or a refused credential is answered with an error frame and the connection stays open.
 *
 * Durability. Messages come only from durable batches (onDurable). Order and fill messages come from the
 * batch's events. Balances are read from the ledger, which holds what the engine applied, durable or not;
 * so they are read only at a clean point, a durable batch after which the engine applied nothing more
 * (the sequencer's last seq is the batch's). A snapshot asked for while undurable commands are in flight
 * waits for the next clean point (its copy is taken then, and the topic's later messages are held for the
 * connection until its last part is sent, so no delta falls between); balance updates of accounts a batch
 * touched wait likewise. Under steady load the engine may never stop at a durable batch on its own (one
 * batch is applied while the previous one syncs), so while a snapshot waits the stream asks the sequencer
 * for a clean point (`requestCleanPoint`: new commands wait unapplied until what was applied is durable),
 * at once for a snapshot and at most every `cleanPointIntervalMs` for balance updates: a snapshot comes
 * within about two batch syncs, a balance update within that interval and two syncs. Balances lag; they
 * are never ahead of the journal. A snapshot of more than one part also waits for its user's copy budget
 * (`snapshotOrdersPerS`, below), checked at the clean point.
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
import { formatAtoms, formatPrice, formatQuantity } from '../../engine/core/units.ts';
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
import { CapturedOrders } from './account-snapshot.ts';
import { TrackedOrders, untracked } from './tracked-orders.ts';
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
 * Open orders one `account_snapshot` part lists at most (a frame of about 300 KB). An account may hold up
 * to the engine's cap of 200 000; its snapshot is then sent in parts, each when the connection's unsent
 * bytes are at most half of `WS_BACKPRESSURE_BYTES`, and the topic's messages published meanwhile are
 * queued for the connection and sent after the last part, before it joins the topic.
 */
export const snapshotPartOrders = 1000;
/**
 * The topic's messages a connection may have queued while its snapshot's parts are sent, in bytes, as a
 * multiple of `WS_BACKPRESSURE_BYTES` (16 MiB by default); a connection that falls further behind is
 * closed (1013; behind a full backlog uWS drops the close frame and cuts the connection), as uWS closes a
 * subscriber past its backpressure limit.
 */
export const snapshotQueueBackpressures = 16;
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
  /** Snapshots being sent in parts, one mode after the other: the first is being sent. */
  readonly sending: SnapshotSend[];
  closed: boolean;
}

/** A snapshot being sent in parts, and the topic's messages published since its copy, for one connection. */
interface SnapshotSend {
  readonly mode: Mode;
  readonly key: string;
  readonly orders: CapturedOrders;
  /** Every balance of (user, mode) at the copy: the first part carries them. */
  readonly balances: StreamMessage[];
  readonly parts: number;
  /** The topic's seq at the copy: every part carries it. */
  readonly seq: number;
  /** Index of the next part to send (0 is the first). */
  nextPart: number;
  /** Frames of the topic's messages after `seq`, in the connection's encoding. */
  readonly queue: Array<string | Uint8Array>;
  queuedBytes: number;
}

export interface PrivateStreamOptions {
  readonly context: ShellContext;
  readonly authenticator: Authenticator;
  readonly backpressureBytes: number;
  readonly connectionsMax: number;
  /** Open orders a second copied for one user's snapshots of more than one part (`WS_SNAPSHOT_ORDERS_PER_S`). */
  readonly snapshotOrdersPerS: number;
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
  /** Live orders of watched accounts. */
  private readonly orders = new TrackedOrders();
  /** Balances of watched accounts that a durable batch touched, reported at the next clean point: key → asset ids (not indexes). */
  private readonly dirty = new Map<string, Set<number>>();
  /** Connections waiting for a clean point, or for their user's copy budget, to get their snapshot. */
  private readonly waiting: Array<{ ws: WebSocket<Session>; mode: Mode }> = [];
  /** Connections being sent a topic's snapshot in parts, by topic key: the topic's messages are queued for them. */
  private readonly senders = new Map<string, Set<WebSocket<Session>>>();
  /**
   * Per user, the open orders its large snapshots may still copy (a token bucket refilled at
   * `snapshotOrdersPerS`, holding at most one second's worth, run into debt by a copy): a client that
   * subscribes again and again to an account of 200 000 orders would otherwise hold the engine's thread
   * with copies. Snapshots of at most one part never wait.
   */
  private readonly copyBudgets = new Map<number, { orders: number; atMs: number }>();
  /** Retries the snapshots waiting for their user's budget. */
  private budgetTimer: NodeJS.Timeout | null = null;
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
          { encoding, userId: 0, modes: new Set(), cancelOnDisconnect: new Set(), sending: [], closed: false },
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
      drain: (ws) => this.pump(ws),
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
    if (this.budgetTimer !== null) clearTimeout(this.budgetTimer);
    this.budgetTimer = null;
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
    this.startWaiting();
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
    this.queueForSenders(key, stamped);
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
    const orders = this.orders;
    const timestamp = new Date(ts).toISOString();
    switch (event.kind) {
      case EventKind.orderAccepted: {
        if (!this.watched(event.userId, event.mode)) return;
        const pair = this.options.context.markets.pairById(event.pairId);
        if (pair === undefined) return;
        const slot = orders.track({
          orderId: event.orderId,
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
        });
        this.markDirty(event.userId, event.mode, event.side === Side.buy ? pair.quote.id : pair.base.id);
        this.orderUpdate(slot, 'accepted', orderStatusNames[event.status], event.quantityLots, timestamp, {
          time_in_force: timeInForceNames[event.timeInForce],
          stop_price: event.stopPriceTicks === 0 ? null : formatPrice(event.stopPriceTicks, pair),
        });
        return;
      }
      case EventKind.tradeExecuted: {
        // Either side may be a watched order (both, in a self-trade): each gets its own fill.
        const taker = orders.slotOf(event.takerOrderId);
        if (taker !== untracked) {
          this.fill(taker, event.tradeId, event.priceTicks, event.quantityLots, event.notionalAtoms, event.takerFeeAtoms, event.takerRemainingLots, 'taker', timestamp);
        }
        const maker = orders.slotOf(event.makerOrderId);
        if (maker !== untracked) {
          this.fill(maker, event.tradeId, event.priceTicks, event.quantityLots, event.notionalAtoms, event.makerFeeAtoms, event.makerRemainingLots, 'maker', timestamp);
        }
        return;
      }
      case EventKind.ammFill: {
        const slot = orders.slotOf(event.orderId);
        if (slot !== untracked) {
          this.fill(slot, event.tradeId, event.priceTicks, event.quantityLots, event.notionalAtoms, event.feeAtoms, event.remainingLots, liquidityNames[event.liquidity], timestamp);
        }
        return;
      }
      case EventKind.orderCancelled:
      case EventKind.orderExpired: {
        const slot = orders.slotOf(event.orderId);
        if (slot === untracked) return;
        this.markDirtyHeld(slot);
        const cancelled = event.kind === EventKind.orderCancelled;
        const reason = cancelled ? cancelReasonNames[event.reason] : expireReasonNames[event.reason];
        this.orderUpdate(slot, cancelled ? 'cancelled' : 'expired', cancelled ? 'cancelled' : 'expired', event.remainingLots, timestamp, { reason });
        orders.untrack(slot);
        return;
      }
      case EventKind.orderAmended: {
        const slot = orders.slotOf(event.orderId);
        if (slot === untracked) return;
        orders.amended(slot, event.priceTicks, event.quantityLots);
        this.markDirtyHeld(slot);
        const status = orders.filledLots(slot) > 0 ? 'partially_filled' : 'open';
        this.orderUpdate(slot, 'amended', status, event.remainingLots, timestamp, { priority_kept: event.priorityKept });
        return;
      }
      case EventKind.stopTriggered: {
        const slot = orders.slotOf(event.orderId);
        if (slot === untracked) return;
        this.orderUpdate(slot, 'triggered', 'open', orders.quantityLots(slot) - orders.filledLots(slot), timestamp, {});
        return;
      }
      case EventKind.balanceChanged:
        if (this.watched(event.userId, event.mode)) this.markDirty(event.userId, event.mode, event.assetId);
        return;
      default:
        return;
    }
  }

  /** Marks dirty the asset the order in `slot` holds (quote for a buy, base for a sell). */
  private markDirtyHeld(slot: number): void {
    const pair = this.orders.pair(slot);
    this.markDirty(this.orders.userId(slot), this.orders.mode(slot), this.orders.side(slot) === Side.buy ? pair.quote.id : pair.base.id);
  }

  private fill(
    slot: number,
    tradeId: number,
    priceTicks: number,
    lots: number,
    notionalAtoms: number,
    feeAtoms: number,
    remainingLots: number,
    liquidity: 'taker' | 'maker',
    timestamp: string,
  ): void {
    const orders = this.orders;
    const pair = orders.pair(slot);
    const userId = orders.userId(slot);
    const mode = orders.mode(slot);
    const clientOrderId = orders.clientOrderId(slot);
    orders.filled(slot, lots, notionalAtoms);
    this.markDirty(userId, mode, pair.base.id);
    this.markDirty(userId, mode, pair.quote.id);
    this.publish(userId, mode, {
      type: 'fill',
      channel: privateChannel,
      mode: modeNames[mode],
      trade_id: String(tradeId),
      order_id: String(orders.orderId(slot)),
      client_order_id: clientOrderId === '' ? null : clientOrderId,
      symbol: pair.base.symbol,
      pair: pair.name,
      side: sideNames[orders.side(slot)],
      price: formatPrice(priceTicks, pair),
      quantity: formatQuantity(lots, pair),
      fee: formatAtoms(feeAtoms, pair.quote),
      fee_asset: pair.quote.symbol,
      liquidity,
      timestamp,
    });
    const filled = remainingLots === 0;
    this.orderUpdate(slot, filled ? 'filled' : 'partially_filled', filled ? 'filled' : 'partially_filled', remainingLots, timestamp, {});
    if (filled) orders.untrack(slot);
  }

  private orderUpdate(slot: number, event: string, status: string, remainingLots: number, timestamp: string, extra: StreamMessage): void {
    const orders = this.orders;
    const pair = orders.pair(slot);
    const orderType = orders.orderType(slot);
    const clientOrderId = orders.clientOrderId(slot);
    const mode = orders.mode(slot);
    const isMarket = orderType === OrderType.market || orderType === OrderType.stopMarket;
    this.publish(orders.userId(slot), mode, {
      type: 'order_update',
      channel: privateChannel,
      mode: modeNames[mode],
      event,
      order_id: String(orders.orderId(slot)),
      client_order_id: clientOrderId === '' ? null : clientOrderId,
      symbol: pair.base.symbol,
      pair: pair.name,
      side: sideNames[orders.side(slot)],
      order_type: orderTypeNames[orderType],
      price: isMarket ? null : formatPrice(orders.priceTicks(slot), pair),
      quantity: formatQuantity(orders.quantityLots(slot), pair),
      filled_quantity: formatQuantity(orders.filledLots(slot), pair),
      remaining_quantity: formatQuantity(remainingLots, pair),
      average_price: averagePrice(pair, orders.filledLots(slot), orders.filledNotionalAtoms(slot)),
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

  /** Part `index` of the snapshot `send`: its share of the copied open orders (newest first), and on the first part the balances. */
  private snapshotPart(userId: number, send: SnapshotSend, index: number): StreamMessage {
    const from = index * snapshotPartOrders;
    return {
      type: 'account_snapshot',
      channel: privateChannel,
      mode: modeNames[send.mode],
      user_id: userId,
      part: index + 1,
      parts: send.parts,
      orders: send.orders.rows(from, Math.min(from + snapshotPartOrders, send.orders.count)),
      open_orders_total: send.orders.count,
      balances: index === 0 ? send.balances : [],
      seq: send.seq,
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
        const send = session.sending.find((candidate) => candidate.mode === mode);
        if (send !== undefined) this.stopSending(ws, send);
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
    if (this.clean()) {
      if (this.startTopic(ws, mode)) return;
      this.waiting.push({ ws, mode });
      return this.retryWhenBudgeted();
    }
    this.waiting.push({ ws, mode });
    this.askCleanPoint();
  }

  /**
   * At a clean point: copies the open orders of (user, mode), tracks them, and starts sending the snapshot;
   * from now on the topic's messages are queued for this connection until its last part is sent (`pump`).
   */
  private startTopic(ws: WebSocket<Session>, mode: Mode): boolean {
    const session = ws.getUserData();
    if (!session.modes.has(mode)) return true;
    const engine = this.options.context.durable.engine;
    const count = engine.openOrderCount(session.userId, mode);
    if (count > snapshotPartOrders && !this.spendCopyBudget(session.userId, count)) return false;
    const key = topicKey(session.userId, mode);
    const orders = new CapturedOrders(engine, session.userId, mode);
    orders.trackAll(this.orders);
    const { context } = this.options;
    const ledger = context.durable.engine.ledger;
    const account = ledger.find(session.userId, mode);
    const send: SnapshotSend = {
      mode,
      key,
      orders,
      balances: context.markets.assets.map((asset) => balanceRow(context, ledger, account, mode, asset)),
      parts: Math.max(1, Math.ceil(orders.count / snapshotPartOrders)),
      seq: this.seqs.get(key) ?? 0,
      nextPart: 0,
      queue: [],
      queuedBytes: 0,
    };
    session.sending.push(send);
    let senders = this.senders.get(key);
    if (senders === undefined) this.senders.set(key, (senders = new Set()));
    senders.add(ws);
    this.pump(ws);
    return true;
  }

  /** At a clean point: starts the waiting snapshots their users' budgets allow, in order; the others wait on. */
  private startWaiting(): void {
    const waiting = this.waiting.splice(0);
    for (const entry of waiting) {
      if (entry.ws.getUserData().closed) continue;
      if (!this.startTopic(entry.ws, entry.mode)) this.waiting.push(entry);
    }
    if (this.waiting.length > 0) this.retryWhenBudgeted();
  }

  /** The user's budget refilled to now; whether it allows a copy, which then spends `count` from it. */
  private spendCopyBudget(userId: number, count: number): boolean {
    const now = this.options.context.clock();
    const rate = this.options.snapshotOrdersPerS;
    let budget = this.copyBudgets.get(userId);
    if (budget === undefined) {
      if (this.copyBudgets.size >= 1024) this.forgetFullBudgets(now);
      budget = { orders: rate, atMs: now };
      this.copyBudgets.set(userId, budget);
    }
    budget.orders = this.budgetAt(budget, now);
    budget.atMs = now;
    if (budget.orders <= 0) return false;
    budget.orders -= count;
    return true;
  }

  /** What a budget holds at `now`: refilled at `snapshotOrdersPerS` since it was last spent, up to one second's worth. */
  private budgetAt(budget: { orders: number; atMs: number }, now: number): number {
    const rate = this.options.snapshotOrdersPerS;
    return Math.min(rate, budget.orders + ((now - budget.atMs) * rate) / 1000);
  }

  /** Drops the budgets that have refilled (a user without one starts full), so the map holds only recent copiers. */
  private forgetFullBudgets(now: number): void {
    const rate = this.options.snapshotOrdersPerS;
    for (const [userId, budget] of this.copyBudgets) {
      if (this.budgetAt(budget, now) >= rate) this.copyBudgets.delete(userId);
    }
  }

  /** Sets a timer for when the first waiting user's budget is positive again; then the waiting snapshots are tried. */
  private retryWhenBudgeted(): void {
    const now = this.options.context.clock();
    const rate = this.options.snapshotOrdersPerS;
    let waitMs = Infinity;
    for (const { ws } of this.waiting) {
      const budget = this.copyBudgets.get(ws.getUserData().userId);
      const orders = budget === undefined ? rate : this.budgetAt(budget, now);
      waitMs = Math.min(waitMs, orders > 0 ? 0 : (-orders * 1000) / rate);
    }
    if (waitMs === Infinity) return;
    if (this.budgetTimer !== null) clearTimeout(this.budgetTimer);
    this.budgetTimer = setTimeout(() => {
      this.budgetTimer = null;
      if (this.clean()) this.startWaiting();
      else this.askCleanPoint();
    }, Math.ceil(waitMs) + 1);
  }

  /**
   * Sends what the connection's snapshots still owe while its unsent bytes are at most half the
   * backpressure limit: the parts, then the queued messages; when a snapshot owes nothing more, the
   * connection joins its topic in the same turn (no message falls between or comes twice). Called again
   * when the socket drains.
   */
  private pump(ws: WebSocket<Session>): void {
    const session = ws.getUserData();
    const roomBytes = this.options.backpressureBytes / 2;
    while (!session.closed && session.sending.length > 0) {
      const send = session.sending[0]!;
      while (send.nextPart < send.parts) {
        if (ws.getBufferedAmount() > roomBytes) return;
        sendFrame(ws, this.snapshotPart(session.userId, send, send.nextPart++));
      }
      let sent = 0;
      while (sent < send.queue.length) {
        if (ws.getBufferedAmount() > roomBytes) break;
        const frame = send.queue[sent++]!;
        ws.send(frame, typeof frame !== 'string');
        send.queuedBytes -= frame.length;
      }
      send.queue.splice(0, sent);
      if (send.queue.length > 0) return;
      this.stopSending(ws, send);
      ws.subscribe(uwsTopic(send.key, session.encoding));
    }
  }

  /** Forgets a snapshot being sent to `ws` (sent, unsubscribed, or the connection closed). */
  private stopSending(ws: WebSocket<Session>, send: SnapshotSend): void {
    const sending = ws.getUserData().sending;
    sending.splice(sending.indexOf(send), 1);
    const senders = this.senders.get(send.key);
    senders?.delete(ws);
    if (senders?.size === 0) this.senders.delete(send.key);
  }

  /** Queues a topic message for the connections still being sent the topic's snapshot. */
  private queueForSenders(key: string, stamped: StreamMessage): void {
    const senders = this.senders.get(key);
    if (senders === undefined) return;
    let json: string | undefined;
    let packed: Uint8Array | undefined;
    for (const ws of [...senders]) {
      const session = ws.getUserData();
      const send = session.sending.find((candidate) => candidate.key === key);
      if (session.closed || send === undefined) continue;
      const frame = session.encoding === 'json' ? (json ??= JSON.stringify(stamped)) : (packed ??= encode(stamped));
      send.queue.push(frame);
      send.queuedBytes += frame.length;
      if (send.queuedBytes > this.options.backpressureBytes * snapshotQueueBackpressures) ws.end(1013, 'fell behind while its snapshot was sent');
    }
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
    this.orders.untrackAccount(userId, mode);
  }

  private onClose(ws: WebSocket<Session>): void {
    this.sockets.delete(ws);
    const session = ws.getUserData();
    session.closed = true;
    for (const send of [...session.sending]) this.stopSending(ws, send);
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
