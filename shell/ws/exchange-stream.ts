/**
 * The exchange stream, `/ws/exchange/{symbol}`: SPEC.md's subscribe protocol over uWS pub/sub.
 *
 * A client sends `{"action":"subscribe","channel":"orderbook"}` (channels orderbook, trades, prices,
 * market, hybrid_bbo; `unsubscribe` undoes it, `ping` is answered with `pong`). An orderbook subscriber
 * gets a full snapshot stamped with the topic's seq, then deltas seq + 1, seq + 2, ...; a hybrid_bbo
 * subscriber gets the hybrid book's top (order book and AMM venues, netted) the same way, then each change. `?encoding=msgpack` makes every
 * server message a binary msgpack frame (clients may send either). Messages are encoded once per topic and
 * encoding, and only for topics someone listens to.
 *
 * Limits: a subscriber that falls more than WS_BACKPRESSURE_BYTES behind is disconnected by uWS (never
 * buffered without bound); at most WS_CONNECTIONS_MAX connections; client messages up to 4 KiB.
 */
import uWS, { type TemplatedApp, type WebSocket } from 'uWebSockets.js';
import { encode } from '@msgpack/msgpack';
import { backlogBytes, readClientFrame, refuseFrame, sendFrame } from './frames.ts';
import type { Markets, Pair } from '../../engine/core/units.ts';
import { channels, type Channel, type MarketData, type StreamSink } from '../market/market-data.ts';
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
}

const clientMessageBytesMax = 4096;
/** The uWS pattern of the stream (the AsyncAPI document describes it). */
export const exchangeStreamPath = '/ws/exchange/:symbol';
/** Levels per side in a snapshot; deltas cover every level. */
export const snapshotLevelsMax = 5000;

function topic(pair: Pair, channel: Channel, encoding: Encoding): string {
  return `${encoding === 'json' ? 'j' : 'm'}:${pair.slug}:${channel}`;
}

export class ExchangeStream implements StreamSink {
  private marketData: MarketData | null = null;
  private readonly sockets = new Set<WebSocket<Subscriber>>();
  private readonly app: TemplatedApp;

  constructor(app: TemplatedApp, private readonly options: ExchangeStreamOptions) {
    this.app = app;
    app.ws<Subscriber>(exchangeStreamPath, {
      compression: uWS.DISABLED,
      maxPayloadLength: clientMessageBytesMax,
      maxBackpressure: options.backpressureBytes,
      closeOnBackpressureLimit: 1,
      idleTimeout: 120,
      sendPingsAutomatically: true,
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

  /** The market data whose snapshots new subscribers get (set once, after recovery). */
  attach(marketData: MarketData): void {
    this.marketData = marketData;
  }

  get openConnections(): number {
    return this.sockets.size;
  }

  /** Bytes queued to all of its connections and not yet sent (each connection's backpressure, summed). */
  get sendBacklogBytes(): number {
    return backlogBytes(this.sockets);
  }

  /** Closes every stream connection (1001 going away): the server is shutting down. */
  closeAll(): void {
    for (const ws of [...this.sockets]) ws.end(1001, 'server shutting down');
  }

  listening(pair: Pair, channel: Channel): boolean {
    return this.app.numSubscribers(topic(pair, channel, 'json')) > 0 || this.app.numSubscribers(topic(pair, channel, 'msgpack')) > 0;
  }

  publish(pair: Pair, channel: Channel, message: Record<string, unknown>): void {
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
    if (ws.isSubscribed(name)) return sendFrame(ws, { type: 'subscribed', channel, symbol });
    // The snapshot and the subscription happen in one turn of the loop: no delta can fall between them.
    ws.subscribe(name);
    sendFrame(ws, { type: 'subscribed', channel, symbol });
    if (channel === 'orderbook') sendFrame(ws, this.marketData!.snapshot(subscriber.pair, snapshotLevelsMax));
    if (channel === 'hybrid_bbo') sendFrame(ws, this.marketData!.hybridSnapshot(subscriber.pair));
  }
}
