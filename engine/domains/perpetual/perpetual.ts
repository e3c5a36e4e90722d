/**
 * Perpetual YES/NO prediction markets: per market (an oracle symbol), rolling aligned epochs; in each, a
 * pari-mutuel pool per mode (live and paper apart) of PRED stakes on YES (the price ends above where it
 * started) or NO (below), seeded by the house on both sides.
 *
 * Rules:
 * - Settings come in a journaled ConfigurePerpetual (epoch length, house seed, markets); they apply to
 *   epochs opened after it. A market with no oracle price waits without an epoch; waiting markets are
 *   looked at again by a timer at every whole `priceRecheckMs` of journaled time (and on every RunTimers
 *   that runs this module), and open when the oracle has priced them.
 * - An epoch opened at journaled time T has number n = floor(T / E) (E the length in force), starts at T
 *   with the oracle's price at T, and ends at (n + 1) × E. Its timer resolves it at the first RunTimers at
 *   or after its end, with the oracle's price at that command as the end price, and opens the next epoch
 *   at once (so after a downtime the epochs it spanned never existed).
 * - At the opening the house (ledger account domainUserId(3, 0) per mode) holds the seed for YES and for
 *   NO when it has both available; otherwise that mode's epoch has no seed.
 * - Predict holds the stake in the user's account; a prediction is allowed until the epoch's end (a
 *   command at or after the end is refused EPOCH_CLOSED).
 * - Resolution per mode: a side won when the end price is above (YES) or below (NO) the start price. Every
 *   stake (the users' holds and the house's seeds) is paid into the pool account domainUserId(3, 1); each
 *   winning stake gets floor(pool × stake / winning stakes) from it, the house's winning seed as any other
 *   stake; what the floors leave goes to the mode's fee account, so the pool account ends the resolution
 *   as it began (empty). Equal prices, or a winning side nobody staked on (an unseeded epoch), refund every
 *   stake: the holds are released.
 */
import { assert } from '../../core/assert.ts';
import type { Command, Mode } from '../../core/commands.ts';
import { domainEvent, noTimerMs, type DomainModule } from '../../core/domain.ts';
import { noAccount } from '../../core/ledger.ts';
import { domainUserId, userIdMax } from '../../core/limits.ts';
import type { Engine } from '../../core/engine.ts';
import type { DomainPort } from '../../core/port.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import type { StateHasher } from '../../core/state-hash.ts';
import type { Asset } from '../../core/units.ts';
import { Prices } from '../prices/prices.ts';
import {
  Outcome,
  PerpetualCommandType,
  PerpetualEventType,
  PerpetualResult,
  collateralSymbol,
  houseAccountIndex,
  isSide,
  marketsMax,
  perpetualDomainId,
  poolAccountIndex,
  predictionsPerEpochMax,
  priceRecheckMs,
  validConfiguration,
  validStake,
  type ConfigurePerpetual,
  type EpochOpened,
  type EpochResolved,
  type Payout,
  type PerpetualConfigured,
  type Predict,
  type PredictionPlaced,
  type Side,
} from './commands.ts';

export const houseUserId = domainUserId(perpetualDomainId, houseAccountIndex);
export const poolUserId = domainUserId(perpetualDomainId, poolAccountIndex);
const modes = [0, 1] as const;

export interface Stake {
  readonly predictionId: number;
  readonly userId: number;
  readonly side: Side;
  readonly stakeAtoms: number;
  /** The journaled time of the Predict. */
  readonly placedMs: number;
}

/** One mode's pool of one epoch; the pools include the house's seed on each side. */
export class ModePool {
  seedAtoms = 0;
  yesAtoms = 0;
  noAtoms = 0;
  readonly stakes: Stake[] = [];
}

export class Epoch {
  readonly pools: [ModePool, ModePool] = [new ModePool(), new ModePool()];

  constructor(
    readonly epoch: number,
    readonly startMs: number,
    readonly endMs: number,
    readonly startPriceE8: number,
  ) {}
}

export class Market {
  /** The open epoch; null while the market waits for an oracle price. */
  epoch: Epoch | null = null;

  constructor(readonly symbol: string) {}
}

/** A snapshot's stake: [predictionId, userId, side, stakeAtoms, placedMs]. */
type StakeRow = [number, number, number, number, number];

interface PoolRow {
  seedAtoms: number;
  yesAtoms: number;
  noAtoms: number;
  stakes: StakeRow[];
}

interface MarketRow {
  symbol: string;
  epoch: { epoch: number; startMs: number; endMs: number; startPriceE8: number; pools: PoolRow[] } | null;
}

export interface PerpetualSnapshot {
  epochMs: number;
  seedAtoms: number;
  lastPredictionId: number;
  recheckMs: number;
  markets: MarketRow[];
}

export class Perpetual implements DomainModule {
  static readonly domainName = 'perpetual';
  readonly name = Perpetual.domainName;
  readonly commandKinds = [] as const;
  readonly commandTypes = [PerpetualCommandType.configure, PerpetualCommandType.predict];
  /** 0 until the first ConfigurePerpetual: the module's state is empty. */
  epochMs = 0;
  seedAtoms = 0;
  lastPredictionId = 0;
  /** When waiting markets look for a price again; `noTimerMs` when none waits. */
  recheckMs = noTimerMs;
  readonly markets: Market[] = [];
  private readonly collateral: Asset | undefined;

  constructor(private readonly port: DomainPort) {
    this.collateral = port.markets.assetBySymbol(collateralSymbol);
  }

  apply(command: Command): ResultCode {
    assert(command.kind === 17, 'the perpetual module gets domain commands only');
    switch (command.type) {
      case PerpetualCommandType.configure:
        return this.configure(command.body as ConfigurePerpetual);
      case PerpetualCommandType.predict:
        return this.predict(command.body as Predict);
      default:
        return Result.unknownCommand;
    }
  }

  // Queries (the shell and the tests).

  get configured(): boolean {
    return this.epochMs > 0;
  }

  market(symbol: string): Market | undefined {
    return this.markets.find((market) => market.symbol === symbol);
  }

  /** Atoms of the collateral the module holds in (user, mode)'s account: the stakes of open epochs. */
  heldAtoms(userId: number, mode: Mode, assetIndex: number): number {
    if (this.collateral === undefined || assetIndex !== this.collateral.index) return 0;
    let held = 0;
    for (const market of this.markets) {
      const pool = market.epoch?.pools[mode];
      if (pool === undefined) continue;
      if (userId === houseUserId) held += 2 * pool.seedAtoms;
      for (const stake of pool.stakes) if (stake.userId === userId) held += stake.stakeAtoms;
    }
    return held;
  }

  // Commands.

  private configure(body: ConfigurePerpetual): ResultCode {
    if (this.collateral === undefined) return PerpetualResult.invalidConfiguration;
    if (!validConfiguration(body, this.markets.map((market) => market.symbol))) return PerpetualResult.invalidConfiguration;
    const nowMs = this.port.commandTimeMs();
    this.epochMs = body.epochMs;
    this.seedAtoms = body.seedAtoms;
    const added: Market[] = [];
    for (const symbol of body.symbols.slice(this.markets.length)) {
      const market = new Market(symbol);
      this.markets.push(market);
      added.push(market);
    }
    assert(this.markets.length <= marketsMax, 'too many perpetual markets');
    const event: PerpetualConfigured = { epochMs: body.epochMs, seedAtoms: body.seedAtoms, symbols: [...body.symbols] };
    this.port.emit(domainEvent(PerpetualEventType.configured, event));
    for (const market of added) this.open(market, nowMs);
    this.scheduleRecheck(nowMs);
    return Result.ok;
  }

  private predict(body: Predict): ResultCode {
    if (!this.configured) return PerpetualResult.marketNotFound;
    if (!Number.isSafeInteger(body.userId) || body.userId < 1 || body.userId > userIdMax) return Result.invalidUser;
    if (body.mode !== 0 && body.mode !== 1) return Result.invalidMode;
    const market = typeof body.symbol === 'string' ? this.market(body.symbol) : undefined;
    if (market === undefined) return PerpetualResult.marketNotFound;
    if (!isSide(body.side)) return PerpetualResult.invalidSide;
    if (!validStake(body.amountAtoms)) return PerpetualResult.invalidAmount;
    const epoch = market.epoch;
    if (epoch === null) return PerpetualResult.marketNotOpen;
    const nowMs = this.port.commandTimeMs();
    if (nowMs >= epoch.endMs) return PerpetualResult.epochClosed;
    const pool = epoch.pools[body.mode];
    if (pool.stakes.length >= predictionsPerEpochMax) return PerpetualResult.epochFull;
    const asset = this.collateral!;
    const account = this.port.ledger.find(body.userId, body.mode);
    if (account === noAccount || this.port.ledger.availableAtoms(account, asset.index) < body.amountAtoms) return Result.insufficientBalance;
    // The last check: opening the pool account is the only change a refusal could otherwise leave behind.
    if (this.poolAccount(body.mode) === noAccount) return Result.tooManyAccounts;

    this.port.ledger.hold(account, asset.index, body.amountAtoms);
    const predictionId = ++this.lastPredictionId;
    pool.stakes.push({ predictionId, userId: body.userId, side: body.side, stakeAtoms: body.amountAtoms, placedMs: nowMs });
    if (body.side === 0) pool.yesAtoms += body.amountAtoms;
    else pool.noAtoms += body.amountAtoms;
    const event: PredictionPlaced = {
      predictionId,
      symbol: market.symbol,
      epoch: epoch.epoch,
      userId: body.userId,
      mode: body.mode,
      side: body.side,
      stakeAtoms: body.amountAtoms,
      yesPoolAtoms: pool.yesAtoms,
      noPoolAtoms: pool.noAtoms,
    };
    this.port.emit(domainEvent(PerpetualEventType.predictionPlaced, event));
    return Result.ok;
  }

  // Epochs.

  private prices(): Prices | undefined {
    const prices = this.port.domain(Prices.domainName);
    return prices instanceof Prices ? prices : undefined;
  }

  /** Opens the market's next epoch at `nowMs` if the oracle prices it; the house seeds what it can. */
  private open(market: Market, nowMs: number): void {
    const priceE8 = this.prices()?.priceE8(market.symbol) ?? 0;
    if (priceE8 <= 0) return;
    const number = Math.floor(nowMs / this.epochMs);
    const epoch = new Epoch(number, nowMs, (number + 1) * this.epochMs, priceE8);
    const asset = this.collateral!;
    const seeds: [number, number] = [0, 0];
    for (const mode of modes) {
      const house = this.port.ledger.find(houseUserId, mode);
      if (this.seedAtoms === 0 || house === noAccount || this.port.ledger.availableAtoms(house, asset.index) < 2 * this.seedAtoms) continue;
      if (this.poolAccount(mode) === noAccount) continue;
      this.port.ledger.hold(house, asset.index, 2 * this.seedAtoms);
      const pool = epoch.pools[mode];
      pool.seedAtoms = this.seedAtoms;
      pool.yesAtoms = this.seedAtoms;
      pool.noAtoms = this.seedAtoms;
      seeds[mode] = this.seedAtoms;
    }
    market.epoch = epoch;
    const event: EpochOpened = { symbol: market.symbol, epoch: number, startMs: nowMs, endMs: epoch.endMs, startPriceE8: priceE8, seedAtoms: seeds };
    this.port.emit(domainEvent(PerpetualEventType.epochOpened, event));
  }

  private resolve(market: Market, epoch: Epoch): void {
    const endPriceE8 = this.prices()?.priceE8(market.symbol) ?? 0;
    assert(endPriceE8 > 0, 'a priced market lost its price');
    const outcome: Outcome = endPriceE8 > epoch.startPriceE8 ? Outcome.yes : endPriceE8 < epoch.startPriceE8 ? Outcome.no : Outcome.refund;
    const event: EpochResolved = {
      symbol: market.symbol,
      epoch: epoch.epoch,
      startMs: epoch.startMs,
      endMs: epoch.endMs,
      startPriceE8: epoch.startPriceE8,
      endPriceE8,
      outcome,
      yesPoolAtoms: [epoch.pools[0].yesAtoms, epoch.pools[1].yesAtoms],
      noPoolAtoms: [epoch.pools[0].noAtoms, epoch.pools[1].noAtoms],
      remainderAtoms: [0, 0],
      payouts: [],
    };
    for (const mode of modes) {
      const pool = epoch.pools[mode];
      const winningAtoms = outcome === Outcome.yes ? pool.yesAtoms : outcome === Outcome.no ? pool.noAtoms : 0;
      if (winningAtoms === 0) this.refund(pool, mode, event.payouts);
      else event.remainderAtoms[mode] = this.settle(pool, mode, outcome as Side, winningAtoms, event.payouts);
    }
    this.port.emit(domainEvent(PerpetualEventType.epochResolved, event));
  }

  /** Gives every stake of the pool back (equal prices, or nobody on the winning side). */
  private refund(pool: ModePool, mode: Mode, payouts: Payout[]): void {
    const ledger = this.port.ledger;
    const asset = this.collateral!.index;
    for (const stake of pool.stakes) {
      ledger.release(this.accountOf(stake.userId, mode), asset, stake.stakeAtoms);
      payouts.push({ predictionId: stake.predictionId, userId: stake.userId, mode, side: stake.side, stakeAtoms: stake.stakeAtoms, payoutAtoms: stake.stakeAtoms });
    }
    if (pool.seedAtoms > 0) {
      ledger.release(this.accountOf(houseUserId, mode), asset, 2 * pool.seedAtoms);
      for (const side of [0, 1] as const) payouts.push({ predictionId: 0, userId: houseUserId, mode, side, stakeAtoms: pool.seedAtoms, payoutAtoms: pool.seedAtoms });
    }
  }

  /** Pays the pool out to the winning side pro rata, floored; returns what the floors left for the fee account. */
  private settle(pool: ModePool, mode: Mode, winner: Side, winningAtoms: number, payouts: Payout[]): number {
    const ledger = this.port.ledger;
    const asset = this.collateral!.index;
    const poolAccount = this.accountOf(poolUserId, mode);
    const poolBefore = ledger.availableAtoms(poolAccount, asset);
    const totalAtoms = pool.yesAtoms + pool.noAtoms;
    const house = pool.seedAtoms > 0 ? this.accountOf(houseUserId, mode) : noAccount;
    for (const stake of pool.stakes) ledger.payFromHeld(this.accountOf(stake.userId, mode), poolAccount, asset, stake.stakeAtoms);
    if (pool.seedAtoms > 0) ledger.payFromHeld(house, poolAccount, asset, 2 * pool.seedAtoms);
    // pool × stake can pass 2^53; the quotient cannot (it is at most the pool).
    const share = (stakeAtoms: number): number => Number((BigInt(totalAtoms) * BigInt(stakeAtoms)) / BigInt(winningAtoms));
    let paidAtoms = 0;
    for (const stake of pool.stakes) {
      const payoutAtoms = stake.side === winner ? share(stake.stakeAtoms) : 0;
      if (payoutAtoms > 0) ledger.payFromAvailable(poolAccount, this.accountOf(stake.userId, mode), asset, payoutAtoms);
      paidAtoms += payoutAtoms;
      payouts.push({ predictionId: stake.predictionId, userId: stake.userId, mode, side: stake.side, stakeAtoms: stake.stakeAtoms, payoutAtoms });
    }
    if (pool.seedAtoms > 0) {
      for (const side of [0, 1] as const) {
        const payoutAtoms = side === winner ? share(pool.seedAtoms) : 0;
        if (payoutAtoms > 0) ledger.payFromAvailable(poolAccount, house, asset, payoutAtoms);
        paidAtoms += payoutAtoms;
        payouts.push({ predictionId: 0, userId: houseUserId, mode, side, stakeAtoms: pool.seedAtoms, payoutAtoms });
      }
    }
    const remainderAtoms = totalAtoms - paidAtoms;
    assert(remainderAtoms >= 0, 'payouts beyond the pool');
    if (remainderAtoms > 0) ledger.payFromAvailable(poolAccount, ledger.find(0, mode), asset, remainderAtoms);
    assert(ledger.availableAtoms(poolAccount, asset) === poolBefore && ledger.heldAtoms(poolAccount, asset) === 0, 'the pool account did not end empty');
    return remainderAtoms;
  }

  /**
   * The mode's pool account, opened with the first stake that will be paid into it (a user's prediction or
   * a house seed), so every resolution that pays finds it; `noAccount` when the ledger is full.
   */
  private poolAccount(mode: Mode): number {
    const account = this.port.ledger.find(poolUserId, mode);
    return account !== noAccount ? account : this.port.ledger.findOrOpen(poolUserId, mode);
  }

  private accountOf(userId: number, mode: Mode): number {
    const account = this.port.ledger.find(userId, mode);
    assert(account !== noAccount, 'a stake without its account');
    return account;
  }

  private scheduleRecheck(nowMs: number): void {
    const waiting = this.markets.some((market) => market.epoch === null);
    this.recheckMs = waiting ? (Math.floor(nowMs / priceRecheckMs) + 1) * priceRecheckMs : noTimerMs;
  }

  // Timers: epoch ends, and the look for prices of waiting markets.

  nextTimerMs(): number {
    let earliest = this.recheckMs;
    for (const market of this.markets) if (market.epoch !== null && market.epoch.endMs < earliest) earliest = market.epoch.endMs;
    return earliest;
  }

  runTimers(nowMs: number): void {
    for (const market of this.markets) {
      const epoch = market.epoch;
      if (epoch !== null && epoch.endMs <= nowMs) {
        this.resolve(market, epoch);
        market.epoch = null;
      }
      if (market.epoch === null) this.open(market, nowMs);
    }
    this.scheduleRecheck(nowMs);
  }

  // Hash and snapshot.

  hash(hasher: StateHasher): void {
    if (!this.configured) return;
    hasher.number(-13);
    hasher.number(this.epochMs);
    hasher.number(this.seedAtoms);
    hasher.number(this.lastPredictionId);
    hasher.number(this.recheckMs);
    hasher.number(this.markets.length);
    for (const market of this.markets) {
      hasher.string(market.symbol);
      const epoch = market.epoch;
      if (epoch === null) {
        hasher.number(-1);
        continue;
      }
      hasher.number(epoch.epoch);
      hasher.number(epoch.startMs);
      hasher.number(epoch.endMs);
      hasher.number(epoch.startPriceE8);
      for (const pool of epoch.pools) {
        hasher.number(pool.seedAtoms);
        hasher.number(pool.yesAtoms);
        hasher.number(pool.noAtoms);
        hasher.number(pool.stakes.length);
        for (const stake of pool.stakes) {
          hasher.number(stake.predictionId);
          hasher.number(stake.userId);
          hasher.number(stake.side);
          hasher.number(stake.stakeAtoms);
          hasher.number(stake.placedMs);
        }
      }
    }
  }

  snapshot(): PerpetualSnapshot | null {
    if (!this.configured) return null;
    return {
      epochMs: this.epochMs,
      seedAtoms: this.seedAtoms,
      lastPredictionId: this.lastPredictionId,
      recheckMs: this.recheckMs,
      markets: this.markets.map((market) => {
        const epoch = market.epoch;
        return {
          symbol: market.symbol,
          epoch:
            epoch === null
              ? null
              : {
                  epoch: epoch.epoch,
                  startMs: epoch.startMs,
                  endMs: epoch.endMs,
                  startPriceE8: epoch.startPriceE8,
                  pools: epoch.pools.map((pool) => ({
                    seedAtoms: pool.seedAtoms,
                    yesAtoms: pool.yesAtoms,
                    noAtoms: pool.noAtoms,
                    stakes: pool.stakes.map((stake): StakeRow => [stake.predictionId, stake.userId, stake.side, stake.stakeAtoms, stake.placedMs]),
                  })),
                },
        };
      }),
    };
  }

  restore(state: unknown): void {
    assert(!this.configured && this.markets.length === 0, 'restore needs a fresh perpetual module');
    const data = state as Partial<PerpetualSnapshot> | null;
    const integer = (value: unknown): value is number => Number.isSafeInteger(value);
    if (
      data === null ||
      typeof data !== 'object' ||
      !integer(data.epochMs) ||
      data.epochMs <= 0 ||
      !integer(data.seedAtoms) ||
      !integer(data.lastPredictionId) ||
      !integer(data.recheckMs) ||
      !Array.isArray(data.markets) ||
      data.markets.length > marketsMax
    ) {
      throw new Error('perpetual snapshot: malformed');
    }
    const markets: Market[] = [];
    for (const row of data.markets as unknown[]) {
      const fields = row as Partial<MarketRow>;
      if (typeof fields.symbol !== 'string' || markets.some((market) => market.symbol === fields.symbol)) throw new Error('perpetual snapshot: malformed market');
      const market = new Market(fields.symbol);
      const epochRow = fields.epoch;
      if (epochRow !== null && epochRow !== undefined) {
        if (![epochRow.epoch, epochRow.startMs, epochRow.endMs, epochRow.startPriceE8].every(integer) || !Array.isArray(epochRow.pools) || epochRow.pools.length !== 2) {
          throw new Error('perpetual snapshot: malformed epoch');
        }
        const epoch = new Epoch(epochRow.epoch, epochRow.startMs, epochRow.endMs, epochRow.startPriceE8);
        epochRow.pools.forEach((poolRow, mode) => {
          if (
            ![poolRow.seedAtoms, poolRow.yesAtoms, poolRow.noAtoms].every(integer) ||
            !Array.isArray(poolRow.stakes) ||
            poolRow.stakes.length > predictionsPerEpochMax ||
            !poolRow.stakes.every((stake) => Array.isArray(stake) && stake.length === 5 && stake.every(integer) && isSide(stake[2]))
          ) {
            throw new Error('perpetual snapshot: malformed pool');
          }
          const pool = epoch.pools[mode]!;
          pool.seedAtoms = poolRow.seedAtoms;
          pool.yesAtoms = poolRow.yesAtoms;
          pool.noAtoms = poolRow.noAtoms;
          for (const [predictionId, userId, side, stakeAtoms, placedMs] of poolRow.stakes) pool.stakes.push({ predictionId, userId, side: side as Side, stakeAtoms, placedMs });
        });
        market.epoch = epoch;
      }
      markets.push(market);
    }
    this.epochMs = data.epochMs;
    this.seedAtoms = data.seedAtoms;
    this.lastPredictionId = data.lastPredictionId;
    this.recheckMs = data.recheckMs;
    this.markets.push(...markets);
  }
}

/** The perpetual module of an engine built with `platformDomains`. */
export function perpetualOf(engine: Engine): Perpetual {
  const perpetual = engine.domain(Perpetual.domainName);
  if (!(perpetual instanceof Perpetual)) throw new Error('this engine has no perpetual module');
  return perpetual;
}
