/**
 * The arena's commands, events, result codes and limits (domain id 4: numbers 4000..4999).
 *
 * Two teams, BLUE (0) and RED (1), each a portfolio of oracle assets with weights in basis points. Team
 * shares trade on one book per team in USDC: prices in ticks of 0.01 USDC, sizes in lots of 0.001 share.
 * A NAV is an integer count of USDC atoms per whole share. Epochs end at multiples of the epoch length of
 * journaled time and are numbered 1, 2, ... from the seed.
 */
import type { DomainCommandCodec, FieldReader, FieldWriter } from '../../core/domain.ts';
import { domainResult } from '../../core/results.ts';

export const arenaDomainId = 4;

export const Team = { blue: 0, red: 1 } as const;
export type Team = (typeof Team)[keyof typeof Team];
export const teamNames = ['BLUE', 'RED'] as const;
export const teamCount = 2;

// Limits: a named maximum for everything the arena holds or accepts.
/** Assets in one team's portfolio. */
export const portfolioAssetsMax = 32;
/** Characters of an asset symbol (the oracle's own bound). */
export const arenaSymbolCharsMax = 12;
/** Basis points in a whole portfolio: a team's weights add up to exactly this. */
export const weightsTotalBps = 10_000;
/** Shortest and longest epoch (1 second, for tests and simulations; 7 days). */
export const epochMsMin = 1_000;
export const epochMsMax = 7 * 86_400_000;
/** The NAV base: at most 1 000 000 USDC per share (in atoms of a 6-decimal USDC). */
export const navBaseAtomsMax = 1_000_000_000_000;
/** The house's spread around NAV, in basis points of NAV. */
export const mmSpreadBpsMin = 2;
export const mmSpreadBpsMax = 5_000;
/** The largest order: 1 000 000 shares (in lots of 0.001). */
export const orderLotsMax = 1_000_000_000;
/** The highest price: 1 000 000 USDC per share (in ticks of 0.01). */
export const priceTicksMax = 100_000_000;
/** The house's inventory bound, per team, in lots. */
export const mmInventoryLotsMax = 1_000_000_000_000;
/** Accounts that ever traded in the arena (positions are kept for each of them). */
export const participantsMax = 10_000;
/** Resting orders of one user across both books, and of the whole arena. */
export const openOrdersPerUserMax = 100;
export const arenaOrdersMax = 100_000;
/** Distinct price levels on one side of one team book. */
export const arenaPriceLevelsPerSideMax = 10_000;
/** Resolved epochs kept (older ones are dropped, oldest first, and then answered as unknown). */
export const epochsKeptMax = 1_000;
/** Headlines kept, newest first, and the characters of one. */
export const headlinesMax = 50;
export const headlineCharsMax = 120;
/** Taker fee of arena trades, in basis points of notional; it feeds the arena fee pool. */
export const arenaTakerFeeBps = 10;
/** Share lots in one whole share, and the price tick in hundredths of a USDC. */
export const lotsPerShare = 1_000;
export const ticksPerUsdc = 100;

export const ArenaCommandType = { seedArena: 4001, placeArenaOrder: 4002, cancelArenaOrder: 4003 } as const;
export const ArenaEventType = {
  arenaSeeded: 4001,
  navUpdated: 4002,
  orderAccepted: 4003,
  orderRested: 4004,
  orderCancelled: 4005,
  trade: 4006,
  epochResolved: 4007,
  headlineAdded: 4008,
  houseInventoryChanged: 4009,
} as const;

export const arenaEventNames: Readonly<Record<number, string>> = {
  [ArenaEventType.arenaSeeded]: 'ArenaSeeded',
  [ArenaEventType.navUpdated]: 'NavUpdated',
  [ArenaEventType.orderAccepted]: 'ArenaOrderAccepted',
  [ArenaEventType.orderRested]: 'ArenaOrderRested',
  [ArenaEventType.orderCancelled]: 'ArenaOrderCancelled',
  [ArenaEventType.trade]: 'ArenaTrade',
  [ArenaEventType.epochResolved]: 'EpochResolved',
  [ArenaEventType.headlineAdded]: 'HeadlineAdded',
  [ArenaEventType.houseInventoryChanged]: 'HouseInventoryChanged',
};

/** Creates the arena once: both teams' portfolios, the epoch length and the house's quoting bounds. */
export interface SeedArena {
  blueSymbols: string[];
  blueWeightsBps: number[];
  redSymbols: string[];
  redWeightsBps: number[];
  navBaseAtoms: number;
  epochMs: number;
  mmSpreadBps: number;
  mmSizeLots: number;
  mmInventoryMaxLots: number;
}

/** A good-till-cancelled limit order of `userId` on one team's book (side 0 buy, 1 sell). */
export interface PlaceArenaOrder {
  userId: number;
  team: number;
  side: number;
  priceTicks: number;
  sizeLots: number;
}

export interface CancelArenaOrder {
  userId: number;
  orderId: number;
}

// Events (plain data: the shell's view and the stream are fed from them alone).

export interface ArenaSeeded {
  config: SeedArena;
  epoch: number;
  epochStartMs: number;
  epochEndMs: number;
  /** Per team, the oracle price of each portfolio asset at the epoch's start (0: none yet, held as cash). */
  startPricesE8: number[][];
  timestampMs: number;
}

export interface NavUpdated {
  epoch: number;
  navsAtoms: number[];
  /** Per team, the price of each portfolio asset the NAVs were computed with. */
  pricesE8: number[][];
  timestampMs: number;
}

export interface ArenaOrderAccepted {
  orderId: number;
  userId: number;
  team: number;
  side: number;
  priceTicks: number;
  sizeLots: number;
  house: boolean;
  timestampMs: number;
}

export interface ArenaOrderRested {
  orderId: number;
  userId: number;
  team: number;
  side: number;
  priceTicks: number;
  remainingLots: number;
}

/** Why an order left the book unfilled: the owner cancelled it, the house re-quoted, or a self-trade stopped it. */
export const CancelReason = { user: 0, requote: 1, selfTrade: 2 } as const;
export const cancelReasonNames = ['user', 'requote', 'self_trade'] as const;

export interface ArenaOrderCancelled {
  orderId: number;
  userId: number;
  team: number;
  side: number;
  priceTicks: number;
  remainingLots: number;
  reason: number;
  /** Whether the order had rested (a self-trade remainder never did). */
  rested: boolean;
}

export interface ArenaTrade {
  team: number;
  priceTicks: number;
  lots: number;
  /** USDC atoms the buyer paid the seller. */
  notionalAtoms: number;
  makerOrderId: number;
  takerOrderId: number;
  makerUserId: number;
  takerUserId: number;
  takerSide: number;
  /** The taker's fee (USDC atoms) paid into the arena fee pool. */
  feeAtoms: number;
  makerRemainingLots: number;
  timestampMs: number;
}

export interface EpochResolved {
  epoch: number;
  startMs: number;
  endMs: number;
  navBaseAtoms: number;
  navsAtoms: number[];
  /** 0 BLUE, 1 RED, -1 a tie (no winner; the pool carries over). */
  winner: number;
  /** The pool's available USDC at the boundary, what was paid out of it, and what it kept. */
  poolAtoms: number;
  paidAtoms: number;
  payoutUserIds: number[];
  payoutShareLots: number[];
  payoutAtoms: number[];
  nextEpoch: number;
  nextStartMs: number;
  nextEndMs: number;
  nextStartPricesE8: number[][];
  timestampMs: number;
}

export const HeadlineKind = { leader: 0, mover: 1, result: 2, seeded: 3 } as const;
export const headlineKindNames = ['leader', 'mover', 'result', 'seeded'] as const;

export interface HeadlineAdded {
  kind: number;
  text: string;
  timestampMs: number;
}

/** The house minted (positive) or retired (negative) shares of a team to stay within its inventory bounds. */
export interface HouseInventoryChanged {
  team: number;
  deltaLots: number;
  holdingsLots: number;
}

export const ArenaResult = {
  invalidSeed: domainResult(
    arenaDomainId,
    4001,
    'INVALID_ARENA_SEED',
    `each team holds 1 to ${portfolioAssetsMax} distinct oracle symbols with positive weights adding up to ${weightsTotalBps} bps; the epoch lasts ${epochMsMin} to ${epochMsMax} ms; the NAV base is 1 to ${navBaseAtomsMax} atoms; the spread ${mmSpreadBpsMin} to ${mmSpreadBpsMax} bps; the house size at least one lot and its inventory bound at least twice its size`,
  ),
  arenaExists: domainResult(arenaDomainId, 4002, 'ARENA_EXISTS', 'the arena is already seeded; the first seed stands'),
  arenaNotSeeded: domainResult(arenaDomainId, 4003, 'ARENA_NOT_SEEDED', 'the arena market does not exist yet'),
  invalidOrder: domainResult(
    arenaDomainId,
    4004,
    'INVALID_ARENA_ORDER',
    `an arena order names a user, team BLUE or RED, side buy or sell, a price of 1 to ${priceTicksMax} ticks of 0.01 USDC and a size of 1 to ${orderLotsMax} lots of 0.001 share`,
  ),
  insufficientShares: domainResult(arenaDomainId, 4005, 'INSUFFICIENT_SHARES', 'a sell needs unreserved shares of the team (no short selling)'),
  tooManyOrders: domainResult(arenaDomainId, 4006, 'TOO_MANY_ARENA_ORDERS', `a user rests at most ${openOrdersPerUserMax} arena orders, the arena at most ${arenaOrdersMax}`),
  tooManyParticipants: domainResult(arenaDomainId, 4007, 'TOO_MANY_ARENA_PARTICIPANTS', `at most ${participantsMax} accounts trade in the arena`),
  tooManyLevels: domainResult(arenaDomainId, 4008, 'TOO_MANY_ARENA_PRICE_LEVELS', `a team book holds at most ${arenaPriceLevelsPerSideMax} price levels a side`),
  orderNotFound: domainResult(arenaDomainId, 4009, 'ARENA_ORDER_NOT_FOUND', 'no such resting arena order of yours'),
} as const;

function symbolFits(value: unknown): value is string {
  return typeof value === 'string' && value.length <= arenaSymbolCharsMax && /^[\x20-\x7e]*$/.test(value);
}

function integersFit(values: unknown, countMax: number): values is number[] {
  return Array.isArray(values) && values.length <= countMax && values.every((value) => Number.isSafeInteger(value));
}

const seedIntegers = ['navBaseAtoms', 'epochMs', 'mmSpreadBps', 'mmSizeLots', 'mmInventoryMaxLots'] as const;

export const seedArenaCodec: DomainCommandCodec<SeedArena> = {
  type: ArenaCommandType.seedArena,
  name: 'SeedArena',
  fieldCount: 9,
  isEncodable: (body) =>
    Array.isArray(body.blueSymbols) &&
    body.blueSymbols.length <= portfolioAssetsMax &&
    body.blueSymbols.every(symbolFits) &&
    Array.isArray(body.redSymbols) &&
    body.redSymbols.length <= portfolioAssetsMax &&
    body.redSymbols.every(symbolFits) &&
    integersFit(body.blueWeightsBps, portfolioAssetsMax) &&
    integersFit(body.redWeightsBps, portfolioAssetsMax) &&
    seedIntegers.every((name) => Number.isSafeInteger(body[name])),
  write(writer: FieldWriter, body) {
    writer.strings(body.blueSymbols);
    writer.integers(body.blueWeightsBps);
    writer.strings(body.redSymbols);
    writer.integers(body.redWeightsBps);
    for (const name of seedIntegers) writer.integer(body[name]);
  },
  read(reader: FieldReader) {
    return {
      blueSymbols: reader.strings('blueSymbols', portfolioAssetsMax, arenaSymbolCharsMax),
      blueWeightsBps: reader.integers('blueWeightsBps', portfolioAssetsMax),
      redSymbols: reader.strings('redSymbols', portfolioAssetsMax, arenaSymbolCharsMax),
      redWeightsBps: reader.integers('redWeightsBps', portfolioAssetsMax),
      navBaseAtoms: reader.integer('navBaseAtoms'),
      epochMs: reader.integer('epochMs'),
      mmSpreadBps: reader.integer('mmSpreadBps'),
      mmSizeLots: reader.integer('mmSizeLots'),
      mmInventoryMaxLots: reader.integer('mmInventoryMaxLots'),
    };
  },
};

const orderFields = ['userId', 'team', 'side', 'priceTicks', 'sizeLots'] as const;

export const placeArenaOrderCodec: DomainCommandCodec<PlaceArenaOrder> = {
  type: ArenaCommandType.placeArenaOrder,
  name: 'PlaceArenaOrder',
  fieldCount: 5,
  isEncodable: (body) => orderFields.every((name) => Number.isSafeInteger(body[name])),
  write(writer: FieldWriter, body) {
    for (const name of orderFields) writer.integer(body[name]);
  },
  read(reader: FieldReader) {
    return {
      userId: reader.integer('userId'),
      team: reader.integer('team'),
      side: reader.integer('side'),
      priceTicks: reader.integer('priceTicks'),
      sizeLots: reader.integer('sizeLots'),
    };
  },
};

export const cancelArenaOrderCodec: DomainCommandCodec<CancelArenaOrder> = {
  type: ArenaCommandType.cancelArenaOrder,
  name: 'CancelArenaOrder',
  fieldCount: 2,
  isEncodable: (body) => Number.isSafeInteger(body.userId) && Number.isSafeInteger(body.orderId),
  write(writer: FieldWriter, body) {
    writer.integer(body.userId);
    writer.integer(body.orderId);
  },
  read(reader: FieldReader) {
    return { userId: reader.integer('userId'), orderId: reader.integer('orderId') };
  },
};

const symbolPattern = /^[A-Z0-9]{1,12}$/;

/** Whether one team's portfolio is valid: distinct symbols, positive weights adding up to the whole. */
function validPortfolio(symbols: unknown, weights: unknown): boolean {
  if (!Array.isArray(symbols) || !Array.isArray(weights)) return false;
  if (symbols.length === 0 || symbols.length > portfolioAssetsMax || weights.length !== symbols.length) return false;
  if (new Set(symbols).size !== symbols.length) return false;
  if (!symbols.every((symbol) => typeof symbol === 'string' && symbolPattern.test(symbol))) return false;
  let total = 0;
  for (const weight of weights) {
    if (!Number.isSafeInteger(weight) || (weight as number) < 1 || (weight as number) > weightsTotalBps) return false;
    total += weight as number;
  }
  return total === weightsTotalBps;
}

export function validSeed(body: SeedArena): boolean {
  if (!validPortfolio(body.blueSymbols, body.blueWeightsBps) || !validPortfolio(body.redSymbols, body.redWeightsBps)) return false;
  const within = (value: number, low: number, high: number) => Number.isSafeInteger(value) && value >= low && value <= high;
  return (
    within(body.navBaseAtoms, 1, navBaseAtomsMax) &&
    within(body.epochMs, epochMsMin, epochMsMax) &&
    within(body.mmSpreadBps, mmSpreadBpsMin, mmSpreadBpsMax) &&
    within(body.mmSizeLots, 1, orderLotsMax) &&
    within(body.mmInventoryMaxLots, 2 * body.mmSizeLots, mmInventoryLotsMax)
  );
}

/** A signed amount in basis points as a percent with two decimals: 123 → "+1.23", -5 → "-0.05". */
export function percentOfBps(bps: number): string {
  const sign = bps < 0 ? '-' : '+';
  const magnitude = Math.abs(bps);
  const cents = magnitude % 100;
  return `${sign}${(magnitude - cents) / 100}.${cents < 10 ? '0' : ''}${cents}`;
}

/** The change from `base` to `value` in basis points, rounded toward zero (integers only). */
export function changeBps(value: number, base: number): number {
  if (base <= 0) return 0;
  return Number((BigInt(value - base) * 10_000n) / BigInt(base));
}
