/**
 * The exchange stream, `/ws/exchange/{symbol}`: the API specification's subscribe protocol over uWS pub/sub.
 *
 * A client sends `{"action":"subscribe","channel":"orderbook"}` (channels orderbook, trades, prices,
 * market, hybrid_bbo; `unsubscribe` undoes it, `ping` is answered with `pong`). An orderbook subscriber
 * gets a full snapshot stamped with the topic's seq, then deltas seq + 1, seq + 2, ...; a hybrid_bbo
 * subscriber gets the hybrid book's top (order book and AMM venues, netted) the same way, then each change. `?encoding=msgpack` makes every
 * server message a binary msgpack frame (clients may send either). Messages are encoded once per topic and
 * encoding, and only for topics someone listens to.
 *
 * Resume by seq: a subscribe may carry `from_seq`, the seq of the last message the client has of that topic
 * (from this process or another one serving the same seqs: the leader or a stream edge, shell/cluster/edge.ts).
 * The server keeps the last WS_RESUME_MESSAGES messages of every durable channel (not hybrid_bbo) of a
 * topic once someone has subscribed to it (an edge: of every topic); when it still holds everything after
 * `from_seq`, the answer is `subscribed` with `resumed: true`, then those messages, then the live ones, and
 * no snapshot. A `from_seq` ahead of this process (it is behind the one the client came from) also resumes:
 * the messages up to `from_seq` then arrive again, and the client drops them by seq. Otherwise the answer
 * says `resumed: false` and the subscription starts as a fresh one (the orderbook's snapshot).
 *
 * Limits: a subscriber that falls more than WS_BACKPRESSURE_BYTES behind is disconnected by uWS (never
 * buffered without bound); at most WS_CONNECTIONS_MAX connections; client messages up to 4 KiB.
 *
 * Durable batches reach the stream through `onDurable`, which may send one batch's messages together with
 * the next batch's when commands are already waiting to be made durable (one fan-out for two batches).
 */
import uWS, { type TemplatedApp, type WebSocket } from 'uWebSockets.js';
import { encode } from '@msgpack/msgpack';
import { backlogBytes, readClientFrame, refuseFrame, sendFrame, streamSocketOptions } from './frames.ts';
import type { Markets, Pair } from '../../engine/core/units.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import { channels, durableChannels, type Channel, type MarketData, type StreamSink } from '../market/market-data.ts';
import { errorBody } from '../http/errors.ts';
import type { Log } from '../log.ts';

type Encoding = 'json' | 'msgpack';

interface Subscriber {
  readonly pair: Pair;
  readonly encoding: Encoding;
}

export interface ExchangeStreamOptions {
  readonly markets: Markets;
  readonly log: Log;
  readonly backpressureBytes: number;
  readonly connectionsMax: number;
  /** Messages kept per topic for resuming by seq (0: no resume). */
  readonly resumeMessagesMax?: number;
  /** Keep every topic's messages from the start, not only from its first subscriber (a stream edge). */
  readonly retainAll?: boolean;
  /**
   * Connections from which a durable batch's messages may wait for the next batch's, so that both go out
   * in one fan-out (`onDurable`). Default `coalesceConnectionsDefault`.
   */
  readonly coalesceConnectionsMin?: number;
}

/**
 * Below this many connections a fan-out costs less than a journal sync (about 7.6 µs of the thread per
 * connection here against 0.5-3 ms a sync), so holding a batch's messages for the next one would only
 * make them later.
 */
export const coalesceConnectionsDefault = 256;

/** The uWS pattern of the stream (the AsyncAPI document describes it). */
export const exchangeStreamPath = '/ws/exchange/:symbol';
/** Levels per side in a snapshot; deltas cover every level. */
export const snapshotLevelsMax = 5000;

function topic(pair: Pair, channel: Channel, encoding: Encoding): string {
  return `${encoding === 'json' ? 'j' : 'm'}:${pair.slug}:${channel}`;
}

/** The channels a client can resume by seq: those whose seqs follow from durable batches alone. */
const resumable: ReadonlySet<string> = new Set(durableChannels);

export class ExchangeStream implements StreamSink {
  private marketData: MarketData | null = null;
  /** The last messages of each topic (`slug:channel`), oldest first, for resuming by seq. */
  private readonly history = new Map<string, Array<Record<string, unknown>>>();
  /** Topics whose messages are kept: someone subscribed to them once. */
  private readonly retained = new Set<string>();
  private readonly sockets = new Set<WebSocket<Subscriber>>();
  private readonly app: TemplatedApp;
  private readonly coalesceConnectionsMin: number;
  /** Whether published messages wait (`onDurable`); `held` keeps them in order until the next batch. */
  private holding = false;
  private held: Array<[Pair, Channel, Record<string, unknown>]> = [];
  /** Durable batches whose messages went out with the next batch's (admin stats: stream_coalesced_batches). */
  coalescedBatches = 0;
  private commandsPending: () => boolean = () => false;
  /** Whether `decide` is due in this turn's check phase. */
  private deciding = false;
  /** After the turn's reads (setImmediate): hold on for the next durable batch, or send now. */
  private readonly decide = (): void => {
    this.deciding = false;
    if (!this.holding) return;
    if (this.commandsPending()) this.coalescedBatches++;
    else this.release();
  };

  constructor(app: TemplatedApp, private readonly options: ExchangeStreamOptions) {
    this.app = app;
    this.coalesceConnectionsMin = options.coalesceConnectionsMin ?? coalesceConnectionsDefault;
    app.ws<Subscriber>(exchangeStreamPath, {
      ...streamSocketOptions(options.backpressureBytes),
      upgrade: (res, req, context) => this.upgrade(res, req, context),
      open: (ws) => {
        this.sockets.add(ws);
      },
      message: (ws, message, isBinary) => this.onMessage(ws, message, isBinary),
      close: (ws) => {
        this.sockets.delete(ws);
      },
    });
  }

  /**
   * The market data whose snapshots new subscribers get (set once, after recovery), and whether commands
   * the engine applied are not yet durable (`commandsPending`: another durable batch will follow; the
   * sequencer's queue depth above 0), which lets `onDurable` send a batch's messages with the next one's.
   */
  attach(marketData: MarketData, commandsPending: () => boolean = () => false): void {
    this.marketData = marketData;
    this.commandsPending = commandsPending;
  }

  get openConnections(): number {
    return this.sockets.size;
  }

  /** Bytes queued to all of its connections and not yet sent (each connection's backpressure, summed). */
  get sendBacklogBytes(): number {
    return backlogBytes(this.sockets);
  }

  /** Closes every stream connection (1001 going away) after what is held: the server is shutting down. */
  closeAll(code = 1001, reason = 'server shutting down'): void {
    this.release();
    for (const ws of [...this.sockets]) ws.end(code, reason);
  }

  /**
   * Publishes a durable batch's market data (the market data's `onBatch`). A fan-out holds the server's
   * thread one send per connection (about 75 ms for 10 000 connections here), and a journal batch that
   * becomes durable meanwhile is published only after it; so is one whose commands were read in the same
   * turn of the event loop, after this batch's publish and before uWS sends what was published (at the
   * turn's end). So with at least `coalesceConnectionsMin` connections a batch's messages are held, and
   * once the turn's reads are done (setImmediate) they are sent, unless commands are then waiting to be
   * made durable (`commandsPending`): then they wait for the next durable batch and go out with its
   * messages in the same turn, which uWS sends to each connection in one write. A batch waits for one
   * other batch at most (a journal sync, 0.5-3 ms here): the next durable batch releases what is held,
   * whether or not more commands wait. Seqs, contents and order do not change, only when the messages
   * leave; a subscribe releases what is held first, so that its snapshot (or resumed messages) and the
   * messages after it line up as always.
   */
  onDurable(batch: DurableBatch): void {
    const marketData = this.marketData!;
    if (this.holding) {
      marketData.onBatch(batch);
      return this.release();
    }
    if (this.sockets.size < this.coalesceConnectionsMin) return marketData.onBatch(batch);
    this.holding = true;
    marketData.onBatch(batch);
    // A batch that changed nothing public holds nothing.
    if (this.held.length === 0) {
      this.holding = false;
      return;
    }
    if (!this.deciding) {
      this.deciding = true;
      setImmediate(this.decide);
    }
  }

  /** Sends what `onDurable` held, in order. */
  private release(): void {
    this.holding = false;
    if (this.held.length === 0) return;
    const held = this.held;
    this.held = [];
    for (const [pair, channel, message] of held) this.send(pair, channel, message);
  }

  listening(pair: Pair, channel: Channel): boolean {
    if (this.keeps(pair, channel)) return true;
    return this.app.numSubscribers(topic(pair, channel, 'json')) > 0 || this.app.numSubscribers(topic(pair, channel, 'msgpack')) > 0;
  }

  /** Forgets the kept messages (their seqs no longer match the topics': a stream edge took new ones). */
  resetHistory(): void {
    this.history.clear();
  }

  private keeps(pair: Pair, channel: Channel): boolean {
    if ((this.options.resumeMessagesMax ?? 0) === 0 || !resumable.has(channel)) return false;
    return this.options.retainAll === true || this.retained.has(`${pair.slug}:${channel}`);
  }

  publish(pair: Pair, channel: Channel, message: Record<string, unknown>): void {
    if (this.keeps(pair, channel)) {
      const key = `${pair.slug}:${channel}`;
      const kept = this.history.get(key) ?? [];
      if (kept.length === 0) this.history.set(key, kept);
      kept.push(message);
      // Trimmed in steps, so that keeping costs no copy per message.
      const max = this.options.resumeMessagesMax!;
      if (kept.length >= 2 * max) kept.splice(0, kept.length - max);
    }
    if (this.holding) {
      this.held.push([pair, channel, message]);
      return;
    }
    this.send(pair, channel, message);
  }

  private send(pair: Pair, channel: Channel, message: Record<string, unknown>): void {
    const jsonTopic = topic(pair, channel, 'json');
    if (this.app.numSubscribers(jsonTopic) > 0) this.app.publish(jsonTopic, JSON.stringify(message), false);
    const msgpackTopic = topic(pair, channel, 'msgpack');
    if (this.app.numSubscribers(msgpackTopic) > 0) this.app.publish(msgpackTopic, encode(message), true);
  }

  private upgrade(res: uWS.HttpResponse, req: uWS.HttpRequest, context: uWS.us_socket_context_t): void {
    const reject = (status: string, code: string, message: string): void => {
      res.cork(() => res.writeStatus(status).writeHeader('Content-Type', 'application/json').end(errorBody(code, message)));
    };
    const symbol = req.getParameter(0) ?? '';
    const pair = this.options.markets.pairBySymbol(symbol);
    if (pair === undefined) return reject('404 Not Found', 'PAIR_NOT_FOUND', `no trading pair for symbol ${JSON.stringify(symbol)}`);
    const encodingText = req.getQuery('encoding') ?? 'json';
    if (encodingText !== 'json' && encodingText !== 'msgpack') {
      return reject('422 Unprocessable Entity', 'VALIDATION_FAILED', 'query.encoding: must be json or msgpack');
    }
    if (this.sockets.size >= this.options.connectionsMax || this.marketData === null) {
      return reject('503 Service Unavailable', 'UNAVAILABLE', 'too many stream connections');
    }
    res.upgrade<Subscriber>(
      { pair, encoding: encodingText },
      req.getHeader('sec-websocket-key'),
      req.getHeader('sec-websocket-protocol'),
      req.getHeader('sec-websocket-extensions'),
      context,
    );
  }



  /**
   * The messages of a topic after `fromSeq` when this process can resume from there (an empty list when
   * nothing was missed or `fromSeq` is ahead of it), or null when it cannot (not kept, or kept too few).
   */
  private missedSince(pair: Pair, channel: Channel, fromSeq: number): Array<Record<string, unknown>> | null {
    if (!resumable.has(channel) || (this.options.resumeMessagesMax ?? 0) === 0) return null;
    const current = this.marketData!.seqOf(pair, channel);
    if (fromSeq >= current) return [];
    const kept = this.history.get(`${pair.slug}:${channel}`) ?? [];
    const first = kept[0]?.['seq'];
    const last = kept[kept.length - 1]?.['seq'];
    if (typeof first !== 'number' || last !== current || first > fromSeq + 1) return null;
    return kept.filter((message) => (message['seq'] as number) > fromSeq);
  }

  private onMessage(ws: WebSocket<Subscriber>, data: ArrayBuffer, isBinary: boolean): void {
    const frame = readClientFrame(data, isBinary);
    if (!frame.ok) return refuseFrame(ws, frame.code, frame.reason);
    const { action, channel } = frame.message;
    if (action === 'ping') return sendFrame(ws, { type: 'pong' });
    if (action !== 'subscribe' && action !== 'unsubscribe') {
      return refuseFrame(ws, 'VALIDATION_FAILED', 'action: must be subscribe, unsubscribe or ping');
    }
    if (typeof channel !== 'string' || !(channels as readonly string[]).includes(channel)) {
      return refuseFrame(ws, 'VALIDATION_FAILED', `channel: must be one of ${channels.join(', ')}`);
    }
    const subscriber = ws.getUserData();
    const name = topic(subscriber.pair, channel as Channel, subscriber.encoding);
    const symbol = subscriber.pair.base.symbol;
    if (action === 'unsubscribe') {
      ws.unsubscribe(name);
      return sendFrame(ws, { type: 'unsubscribed', channel, symbol });
    }
    const fromSeq = frame.message['from_seq'];
    if (fromSeq !== undefined && !(Number.isSafeInteger(fromSeq) && (fromSeq as number) >= 0)) {
      return refuseFrame(ws, 'VALIDATION_FAILED', 'from_seq: must be a non-negative integer');
    }
    if (ws.isSubscribed(name)) return sendFrame(ws, { type: 'subscribed', channel, symbol });
    if (resumable.has(channel) && (this.options.resumeMessagesMax ?? 0) > 0) this.retained.add(`${subscriber.pair.slug}:${channel}`);
    // The snapshot (or the resumed messages) and the subscription happen in one turn of the loop: no
    // delta can fall between them. Held messages go first: the snapshot's seq already counts them.
    this.release();
    ws.subscribe(name);
    if (fromSeq !== undefined) {
      const missed = this.missedSince(subscriber.pair, channel as Channel, fromSeq as number);
      sendFrame(ws, { type: 'subscribed', channel, symbol, resumed: missed !== null });
      if (missed !== null) {
        for (const message of missed) sendFrame(ws, message);
        return;
      }
    } else sendFrame(ws, { type: 'subscribed', channel, symbol });
    if (channel === 'orderbook') sendFrame(ws, this.marketData!.snapshot(subscriber.pair, snapshotLevelsMax));
    if (channel === 'hybrid_bbo') sendFrame(ws, this.marketData!.hybridSnapshot(subscriber.pair));
  }
}
