/**
 * The peer of bench:engine: the nodejs-order-book package, run on the same streams as our engine
 * (bench/streams.ts translates each command into the peer's limit, cancel or modify; `PeerOps`), and
 * compared with our engine's book afterwards. Option objects are built before timing, so the timed loop
 * only calls the peer's API.
 */
import obPkg from 'nodejs-order-book';
import type { LimitOrderOptions, OrderUpdatePrice, OrderUpdateSize } from 'nodejs-order-book';
import type { BookLevel } from '../engine/core/book/book.ts';
import type { Engine } from '../engine/core/engine.ts';
import { PeerOpKind, type PeerOps, type Scenario } from './streams.ts';
import { clockNs } from './timing.ts';

const { OrderBook, Side: PeerSide } = obPkg;
export type PeerBook = InstanceType<typeof OrderBook>;

export interface PeerPlan {
  kinds: Uint8Array;
  /** A prepared option object per limit placement (GTC or IOC), null for the other kinds. */
  limits: (LimitOrderOptions | null)[];
  /** A prepared update per modify (of the price or of the size), null for the other kinds. */
  updates: (OrderUpdatePrice | OrderUpdateSize | null)[];
  ids: string[];
}

/** Option objects built before timing, so the timed loop only calls the peer's API. */
export function peerPlan(ops: PeerOps, count: number): PeerPlan {
  const limits: (LimitOrderOptions | null)[] = new Array<LimitOrderOptions | null>(count).fill(null);
  const updates: (OrderUpdatePrice | OrderUpdateSize | null)[] = new Array<OrderUpdatePrice | OrderUpdateSize | null>(count).fill(null);
  for (let index = 0; index < count; index++) {
    const kind = ops.kinds[index];
    if (kind === PeerOpKind.limit || kind === PeerOpKind.iocLimit) {
      const side = ops.sides[index] === 0 ? PeerSide.BUY : PeerSide.SELL;
      const limit: LimitOrderOptions = { side, id: ops.ids[index]!, size: ops.sizes[index]!, price: ops.prices[index]! };
      // The package's TimeInForce enum is not exported; its values are these strings.
      if (kind === PeerOpKind.iocLimit) limit.timeInForce = 'IOC' as NonNullable<LimitOrderOptions['timeInForce']>;
      limits[index] = limit;
    } else if (kind === PeerOpKind.modifyPrice) {
      updates[index] = { price: ops.prices[index]! };
    } else if (kind === PeerOpKind.modifySize) {
      updates[index] = { size: ops.sizes[index]! };
    }
  }
  return { kinds: ops.kinds.slice(0, count), limits, updates, ids: ops.ids.slice(0, count) };
}

export interface PeerOutcome {
  seconds: number;
  /** Limits the peer answered with an error. */
  errors: number;
  /** Cancels and modifies of ids the peer did not hold (its book gone another way than ours). */
  cancelMisses: number;
  modifyMisses: number;
}

export function timePeer(book: PeerBook, plan: PeerPlan): PeerOutcome {
  const { kinds, limits, updates, ids } = plan;
  const count = kinds.length;
  let errors = 0;
  let cancelMisses = 0;
  let modifyMisses = 0;
  const start = clockNs();
  for (let index = 0; index < count; index++) {
    const kind = kinds[index];
    if (kind === PeerOpKind.limit || kind === PeerOpKind.iocLimit) {
      if (book.limit(limits[index]!).err !== null) errors++;
    } else if (kind === PeerOpKind.cancel) {
      if (book.cancel(ids[index]!) === undefined) cancelMisses++;
    } else if (book.modify(ids[index]!, updates[index]!).err !== null) {
      modifyMisses++;
    }
  }
  return { seconds: (clockNs() - start) / 1e9, errors, cancelMisses, modifyMisses };
}

export function preparePeer(scenario: Scenario): PeerBook {
  const book = new OrderBook();
  const setup = scenario.peerSetup!;
  const plan = peerPlan(setup, setup.kinds.length);
  const outcome = timePeer(book, plan);
  if (outcome.errors !== 0 || outcome.cancelMisses !== 0 || outcome.modifyMisses !== 0) throw new Error('peer refused its setup orders');
  return book;
}

/** How far the peer's book is from our engine's (pair 0): levels (price and total lots, both sides) and lots. */
export interface DepthDifference {
  /** Price levels held by either book whose total lots differ (or that only one holds). */
  readonly differing: number;
  readonly levels: number;
  readonly ourLots: number;
  readonly peerLots: number;
}

export function depthDifference(book: PeerBook, engine: Engine): DepthDifference {
  const [asks, bids] = book.depth();
  const ours = engine.contexts[0]!.book;
  let differing = 0;
  let levels = 0;
  let ourLots = 0;
  let peerLots = 0;
  for (const [side, theirs] of [
    [0, bids],
    [1, asks],
  ] as const) {
    const out: BookLevel[] = [];
    const count = ours.depth(side, Number.MAX_SAFE_INTEGER, out);
    const mine = new Map(out.slice(0, count).map((level) => [level.priceTicks, level.lots]));
    const peer = new Map(theirs.map(([price, size]) => [price, size]));
    for (const lots of mine.values()) ourLots += lots;
    for (const lots of peer.values()) peerLots += lots;
    for (const price of new Set([...mine.keys(), ...peer.keys()])) {
      levels++;
      if (mine.get(price) !== peer.get(price)) differing++;
    }
  }
  return { differing, levels, ourLots, peerLots };
}
