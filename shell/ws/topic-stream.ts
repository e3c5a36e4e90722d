/**
 * A topic stream: one WebSocket path speaking the subscribe protocol of the API specification's Events table, for the
 * streams that domains add (markets, the legacy orderbook, vault NAV, incentives, arena). The exchange's
 * own stream (exchange-stream.ts) predates it and speaks the same protocol.
 *
 * Protocol. The client sends `{"action":"subscribe","channel":C, ...}` (`unsubscribe` undoes it, `ping` is
 * answered with `pong`); the stream's `topicOf` reads the rest of the message (an `asset`, say) and names
 * the topic. The server answers `subscribed` (or `unsubscribed`) naming the topic's fields, then, where the
 * topic has one, a snapshot stamped with the topic's current seq; every later message of the topic
 * carries seq + 1, seq + 2, ... so a subscriber can detect a gap. `?encoding=msgpack` makes every server
 * message a binary msgpack frame (clients may send either). A frame that is not valid JSON or msgpack, is
 * not an object, or names an unknown action, channel or topic is answered with
 * `{"type":"error","error":{"code","message"}}` and the connection stays open.
 *
 * Every topic's seq advances whether or not anyone listens, so a snapshot and the deltas after it agree;
 * messages are encoded once per topic and encoding, and only when someone listens.
 *
 * Limits: client frames up to `clientMessageBytesMax` (frames.ts); at most `connectionsMax` connections per stream;
 * a subscriber more than `backpressureBytes` behind is disconnected by uWS (never buffered without bound);
 * at most `subscriptionsPerConnectionMax` topics per connection.
 */
import uWS, { type TemplatedApp, type WebSocket } from 'uWebSockets.js';
import { encode } from '@msgpack/msgpack';
import { backlogBytes, readClientFrame, refuseFrame, sendFrame, streamSocketOptions } from './frames.ts';
import { ApiError, errorBody } from '../http/errors.ts';

import type { Encoding } from './frames.ts';
export type { Encoding };
export type StreamMessage = Record<string, unknown>;

export const subscriptionsPerConnectionMax = 256;

/** What a subscribe names: the topic's key (unique within the stream) and the fields that echo it. */
export interface TopicChoice {
  readonly key: string;
  readonly fields: StreamMessage;
}

export interface TopicStreamOptions<Route> {
  /** The uWS pattern, e.g. `/ws/markets/:market_id/orderbook/:asset`. */
  readonly path: string;
  readonly channels: readonly string[];
  readonly backpressureBytes: number;
  readonly connectionsMax: number;
  /** The connection's route from the path's parameters, in order; throws ApiError to refuse the upgrade. */
  route(parameters: readonly string[]): Route;
  /** The topic a subscribe or unsubscribe message names; throws ApiError to refuse it. */
  topicOf(route: Route, channel: string, message: Readonly<StreamMessage>): TopicChoice;
  /** The snapshot a new subscriber of the topic gets (its seq is stamped here), or null for none. */
  snapshot(route: Route, channel: string, key: string): StreamMessage | null;
  /**
   * Topics a connection is subscribed to as it opens, without asking (the legacy orderbook stream sends
   * every book of a market); each gets its `subscribed` answer and snapshot as if asked for.
   */
  initialTopics?(route: Route): ReadonlyArray<{ readonly channel: string; readonly choice: TopicChoice }>;
}

interface Subscriber<Route> {
  readonly route: Route;
  readonly encoding: Encoding;
  subscriptions: number;
}

/**
 * The uWS topic of a key. uWS topics are shared by the whole app, so the stream's path is part of the
 * name: two streams may use the same keys without each other's subscribers getting their messages.
 */
function uwsTopic(path: string, key: string, encoding: Encoding): string {
  return `${encoding === 'json' ? 'j' : 'm'}:${path}:${key}`;
}

export class TopicStream<Route> {
  private readonly sockets = new Set<WebSocket<Subscriber<Route>>>();
  private readonly seqs = new Map<string, number>();
  private app: TemplatedApp | null = null;
  private readonly parameterCount: number;

  constructor(private readonly options: TopicStreamOptions<Route>) {
    this.parameterCount = options.path.split('/').filter((part) => part.startsWith(':')).length;
  }

  /** Registers the path on the app; called once, before the server listens. */
  mount(app: TemplatedApp): void {
    this.app = app;
    app.ws<Subscriber<Route>>(this.options.path, {
      ...streamSocketOptions(this.options.backpressureBytes),
      upgrade: (res, req, context) => this.upgrade(res, req, context),
      open: (ws) => {
        this.sockets.add(ws);
        const initial = this.options.initialTopics?.(ws.getUserData().route) ?? [];
        for (const { channel, choice } of initial) this.subscribe(ws, channel, choice);
      },
      message: (ws, message, isBinary) => this.onMessage(ws, message, isBinary),
      close: (ws) => {
        this.sockets.delete(ws);
      },
    });
  }

  get openConnections(): number {
    return this.sockets.size;
  }

  /** Bytes queued to all of its connections and not yet sent (each connection's backpressure, summed). */
  get sendBacklogBytes(): number {
    return backlogBytes(this.sockets);
  }

  /** The uWS pattern the stream is mounted at (the AsyncAPI document describes each). */
  get path(): string {
    return this.options.path;
  }

  /** The topic's current seq: the seq of its last message (0 before any). */
  seqOf(key: string): number {
    return this.seqs.get(key) ?? 0;
  }

  /** Forgets a topic that will never speak again (a completed market's books), after its last message. */
  forget(key: string): void {
    this.seqs.delete(key);
  }

  /** Every topic's current seq, by key (stream edges take the leader's: shell/cluster/edge.ts). */
  positions(): Record<string, number> {
    return Object.fromEntries(this.seqs);
  }

  /** Takes another process's seqs at the same durable seq; returns the keys whose seq differed. */
  setPositions(positions: Readonly<Record<string, number>>): string[] {
    const differed: string[] = [];
    for (const [key, seq] of Object.entries(positions)) {
      if (this.seqOf(key) === seq) continue;
      differed.push(key);
      this.seqs.set(key, seq);
    }
    return differed;
  }

  /** Stamps the topic's next seq on `message` and sends it to the topic's subscribers. */
  publish(key: string, message: StreamMessage): void {
    const seq = this.seqOf(key) + 1;
    this.seqs.set(key, seq);
    const app = this.app;
    if (app === null) return;
    const jsonTopic = uwsTopic(this.options.path, key, 'json');
    const msgpackTopic = uwsTopic(this.options.path, key, 'msgpack');
    const json = app.numSubscribers(jsonTopic) > 0;
    const msgpack = app.numSubscribers(msgpackTopic) > 0;
    if (!json && !msgpack) return;
    const stamped = { ...message, seq };
    if (json) app.publish(jsonTopic, JSON.stringify(stamped), false);
    if (msgpack) app.publish(msgpackTopic, encode(stamped), true);
  }

  /** Closes every connection (1001 going away): the server is shutting down. */
  closeAll(code = 1001, reason = 'server shutting down'): void {
    for (const ws of [...this.sockets]) ws.end(code, reason);
  }

  private upgrade(res: uWS.HttpResponse, req: uWS.HttpRequest, context: uWS.us_socket_context_t): void {
    const reject = (status: number, code: string, message: string): void => {
      res.cork(() => res.writeStatus(`${status} ${statusText(status)}`).writeHeader('Content-Type', 'application/json').end(errorBody(code, message)));
    };
    const parameters: string[] = [];
    for (let index = 0; index < this.parameterCount; index++) parameters.push(decodeURIComponent(req.getParameter(index) ?? ''));
    const encoding = req.getQuery('encoding') ?? 'json';
    if (encoding !== 'json' && encoding !== 'msgpack') return reject(422, 'VALIDATION_FAILED', 'query.encoding: must be json or msgpack');
    if (this.sockets.size >= this.options.connectionsMax) return reject(503, 'UNAVAILABLE', 'too many stream connections');
    let route: Route;
    try {
      route = this.options.route(parameters);
    } catch (error) {
      if (error instanceof ApiError) return reject(error.status, error.code, error.message);
      return reject(400, 'BAD_REQUEST', 'the stream path could not be read');
    }
    res.upgrade<Subscriber<Route>>(
      { route, encoding, subscriptions: 0 },
      req.getHeader('sec-websocket-key'),
      req.getHeader('sec-websocket-protocol'),
      req.getHeader('sec-websocket-extensions'),
      context,
    );
  }



  private onMessage(ws: WebSocket<Subscriber<Route>>, data: ArrayBuffer, isBinary: boolean): void {
    const frame = readClientFrame(data, isBinary);
    if (!frame.ok) return refuseFrame(ws, frame.code, frame.reason);
    const message = frame.message as StreamMessage;
    const { action, channel } = message;
    if (action === 'ping') return sendFrame(ws, { type: 'pong' });
    if (action !== 'subscribe' && action !== 'unsubscribe') {
      return refuseFrame(ws, 'VALIDATION_FAILED', 'action: must be subscribe, unsubscribe or ping');
    }
    if (typeof channel !== 'string' || !this.options.channels.includes(channel)) {
      return refuseFrame(ws, 'VALIDATION_FAILED', `channel: must be one of ${this.options.channels.join(', ')}`);
    }
    const subscriber = ws.getUserData();
    let choice: TopicChoice;
    try {
      choice = this.options.topicOf(subscriber.route, channel, message);
    } catch (error) {
      if (error instanceof ApiError) return refuseFrame(ws, error.code, error.message);
      throw error;
    }
    const name = uwsTopic(this.options.path, choice.key, subscriber.encoding);
    if (action === 'unsubscribe') {
      if (ws.unsubscribe(name)) subscriber.subscriptions--;
      return sendFrame(ws, { type: 'unsubscribed', channel, ...choice.fields });
    }
    this.subscribe(ws, channel, choice);
  }

  private subscribe(ws: WebSocket<Subscriber<Route>>, channel: string, choice: TopicChoice): void {
    const subscriber = ws.getUserData();
    const name = uwsTopic(this.options.path, choice.key, subscriber.encoding);
    if (ws.isSubscribed(name)) return sendFrame(ws, { type: 'subscribed', channel, ...choice.fields });
    if (subscriber.subscriptions >= subscriptionsPerConnectionMax) {
      return refuseFrame(ws, 'TOO_MANY_SUBSCRIPTIONS', `at most ${subscriptionsPerConnectionMax} topics per connection`);
    }
    // The snapshot and the subscription happen in one turn of the loop: no message can fall between them.
    ws.subscribe(name);
    subscriber.subscriptions++;
    sendFrame(ws, { type: 'subscribed', channel, ...choice.fields });
    const snapshot = this.options.snapshot(subscriber.route, channel, choice.key);
    if (snapshot !== null) sendFrame(ws, { ...snapshot, seq: this.seqOf(choice.key) });
  }
}

function statusText(status: number): string {
  switch (status) {
    case 400:
      return 'Bad Request';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'Not Found';
    case 422:
      return 'Unprocessable Entity';
    case 503:
      return 'Service Unavailable';
    default:
      return 'Error';
  }
}
