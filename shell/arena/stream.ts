/**
 * /ws/arena: the arena's real-time stream on the project's topic stream (per-topic seq, a snapshot then
 * deltas, JSON or msgpack, bad frames answered). Channels and their topics:
 *
 *   nav                 nav_snapshot, then nav_update after each durable batch that moved a NAV
 *   epoch               epoch_state, then epoch_resolved at each epoch's end (and epoch_state at the seed)
 *   headlines           headlines (the newest 20), then headline per new line
 *   orderbook + team    orderbook_update with snapshot true, then deltas of changed levels ("0" removes one)
 *   trades + team       trade per fill
 *
 * A connection is subscribed to all seven topics as it opens (initialTopics), so a client that sends
 * nothing gets every snapshot and every later message; it may unsubscribe from what it does not need.
 */
import { ApiError } from '../http/errors.ts';
import { TopicStream, type StreamMessage, type TopicChoice } from '../ws/topic-stream.ts';
import type { EngineEvent } from '../../engine/core/events.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import { inDomainRange } from '../../engine/core/domain.ts';
import { ArenaEventType, arenaDomainId, teamCount, type ArenaTrade, type EpochResolved, type HeadlineAdded } from '../../engine/domains/arena/commands.ts';
import { houseUserId } from '../../engine/domains/arena/arena.ts';
import { epochRecord, formatLots, formatPriceTicks, formatUsdc, headlineRecord, iso, leader, resultRecord, teamName, teamNavs, teamOf } from './records.ts';
import type { ArenaView } from './view.ts';

export const arenaChannels = ['nav', 'epoch', 'headlines', 'orderbook', 'trades'] as const;
/** Levels a side in an order book snapshot. */
export const streamBookDepth = 500;
const headlinesInSnapshot = 20;

export interface ArenaStreamOptions {
  readonly view: ArenaView;
  readonly clock: () => number;
  readonly backpressureBytes: number;
  readonly connectionsMax: number;
}

type Route = true;

function teamChoice(channel: string, message: Readonly<StreamMessage>): TopicChoice {
  const team = teamOf(message['team']);
  if (team < 0) throw new ApiError(422, 'VALIDATION_FAILED', `team: the ${channel} channel needs team BLUE or RED`);
  return { key: `${channel}:${teamName(team)}`, fields: { team: teamName(team) } };
}

export class ArenaStream {
  readonly stream: TopicStream<Route>;

  constructor(private readonly options: ArenaStreamOptions) {
    this.stream = new TopicStream<Route>({
      path: '/ws/arena',
      channels: arenaChannels,
      backpressureBytes: options.backpressureBytes,
      connectionsMax: options.connectionsMax,
      route: () => true,
      topicOf: (_route, channel, message) => (channel === 'orderbook' || channel === 'trades' ? teamChoice(channel, message) : { key: channel, fields: {} }),
      snapshot: (_route, channel, key) => this.snapshot(channel, key),
      initialTopics: () => [
        { channel: 'nav', choice: { key: 'nav', fields: {} } },
        { channel: 'epoch', choice: { key: 'epoch', fields: {} } },
        { channel: 'headlines', choice: { key: 'headlines', fields: {} } },
        ...['BLUE', 'RED'].flatMap((team) => [
          { channel: 'orderbook', choice: { key: `orderbook:${team}`, fields: { team } } },
          { channel: 'trades', choice: { key: `trades:${team}`, fields: { team } } },
        ]),
      ],
    });
  }

  private navMessage(type: string): StreamMessage {
    const view = this.options.view;
    return { type, epoch: view.epoch, teams: teamNavs(view), leader: leader(view), timestamp: iso(view.updatedMs) };
  }

  private snapshot(channel: string, key: string): StreamMessage | null {
    const view = this.options.view;
    if (!view.seeded) return null;
    switch (channel) {
      case 'nav':
        return this.navMessage('nav_snapshot');
      case 'epoch':
        return { type: 'epoch_state', ...epochRecord(view, this.options.clock()) };
      case 'headlines':
        return { type: 'headlines', headlines: view.headlines.slice(0, headlinesInSnapshot).map(headlineRecord) };
      case 'orderbook': {
        const team = teamOf(key.slice('orderbook:'.length));
        const side = (index: number) => view.levels(team, index).slice(0, streamBookDepth).map(([price, level]) => [formatPriceTicks(price), formatLots(level.lots)]);
        return { type: 'orderbook_update', team: teamName(team), snapshot: true, bids: side(0), asks: side(1), nav: formatUsdc(view.navsAtoms[team]!), timestamp: iso(this.options.clock()) };
      }
      default:
        return null;
    }
  }

  /** Applies a durable batch to the view and publishes what it changed. */
  onBatch(batch: DurableBatch): void {
    const view = this.options.view;
    const changes = view.newChanges();
    let any = false;
    batch.forEachDomainEvent((event, _seq, ts) => {
      if (!inDomainRange(arenaDomainId, event.type)) return;
      any = true;
      view.apply(event, ts, changes);
      this.publishEvent(event, ts);
    });
    if (!any) return;
    if (changes.navs) this.stream.publish('nav', this.navMessage('nav_update'));
    for (let team = 0; team < teamCount; team++) {
      const [bids, asks] = changes.levels[team]!;
      if (bids.size === 0 && asks.size === 0) continue;
      const side = (index: number, prices: Set<number>) =>
        [...prices].sort((a, b) => (index === 0 ? b - a : a - b)).map((price) => [formatPriceTicks(price), formatLots(view.books[team]![index]!.get(price)?.lots ?? 0)]);
      this.stream.publish(`orderbook:${teamName(team)}`, {
        type: 'orderbook_update',
        team: teamName(team),
        snapshot: false,
        bids: side(0, bids),
        asks: side(1, asks),
        nav: formatUsdc(view.navsAtoms[team]!),
        timestamp: iso(view.updatedMs),
      });
    }
  }

  private publishEvent(event: Extract<EngineEvent, { kind: 18 }>, ts: number): void {
    const view = this.options.view;
    switch (event.type) {
      case ArenaEventType.arenaSeeded:
        this.stream.publish('epoch', { type: 'epoch_state', ...epochRecord(view, this.options.clock()) });
        return;
      case ArenaEventType.trade: {
        const trade = event.body as ArenaTrade;
        this.stream.publish(`trades:${teamName(trade.team)}`, {
          type: 'trade',
          team: teamName(trade.team),
          price: formatPriceTicks(trade.priceTicks),
          quantity: formatLots(trade.lots),
          taker_side: trade.takerSide === 0 ? 'buy' : 'sell',
          maker: trade.makerUserId === houseUserId ? 'house' : 'user',
          timestamp: iso(trade.timestampMs),
        });
        return;
      }
      case ArenaEventType.epochResolved: {
        const resolved = event.body as EpochResolved;
        const record = view.epochRecord(resolved.epoch);
        if (record === undefined) return;
        this.stream.publish('epoch', {
          type: 'epoch_resolved',
          ...resultRecord(record, resolved.navBaseAtoms),
          next_epoch: { epoch: resolved.nextEpoch, start: iso(resolved.nextStartMs), end: iso(resolved.nextEndMs) },
          timestamp: iso(ts),
        });
        return;
      }
      case ArenaEventType.headlineAdded:
        this.stream.publish('headlines', { type: 'headline', ...headlineRecord(event.body as HeadlineAdded) });
        return;
      default:
    }
  }
}
