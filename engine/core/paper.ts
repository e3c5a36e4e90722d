/**
 * Paper trading's own paths: opening a paper account with its simulated balances, and the fills of resting
 * paper orders by live prints (trades of the live book, noted by matching/prints.ts during the command and
 * applied after it by the Engine). A paper order's taker side matches like a live one (matching/taker.ts),
 * with a copy of the live hybrid book as its outside liquidity (venues/outside.ts).
 */
import { assert } from './assert.ts';
import type { MatchHandler } from './book/book.ts';
import { Mode, SelfTradePrevention, type OpenPaperAccount, type Side } from './commands.ts';
import type { EngineState } from './engine-state.ts';
import { BalanceReason, Liquidity, OrderStatus, liveBookVenueId } from './events.ts';
import { emitBalance } from './funding.ts';
import { noAccount } from './ledger.ts';
import { paperFundingAssetsMax } from './limits.ts';
import { feeIncrement } from './matching/fees.ts';
import { ensureAccountLists } from './orders/accounts.ts';
import { finishFilled } from './orders/lifecycle.ts';
import { Result, type ResultCode } from './results.ts';
import { triggerStops } from './stops.ts';
import { validUser } from './validate.ts';
import { emitAmmFill, settleOutside } from './venues/outside.ts';

/**
 * Resting paper orders fill when a live trade prints through their price: for each live trade of the
 * command, in order, paper bids at or above its price and paper asks at or below it fill at their own
 * price (as makers), in price-time priority, up to the trade's quantity on each side. The paper book's
 * last price follows the live one, so paper stops trigger on live prints too.
 */
export function fillPaperOnPrints(engine: EngineState): void {
  for (let index = 0; index < engine.printCount; index++) {
    const context = engine.contexts[engine.printPairs[index]! * 2 + 1]!;
    const priceTicks = engine.printPrices[index]!;
    const lots = engine.printLots[index]!;
    context.lastPriceTicks = priceTicks;
    engine.takerContext = context;
    // With no paper order resting on the pair (the usual case for a live print) there is nothing to fill.
    if (context.book.orderCount > 0) {
      context.book.match(1, priceTicks, lots, noAccount, SelfTradePrevention.none, engine.paperPrints);
      context.book.match(0, priceTicks, lots, noAccount, SelfTradePrevention.none, engine.paperPrints);
    }
    triggerStops(engine, context);
  }
  engine.printCount = 0;
}

/**
 * Opens a paper account with its simulated starting balances. Refused when it is open already, so that
 * two first paper orders racing each other fund it once.
 */
export function openPaperAccount(engine: EngineState, command: OpenPaperAccount): ResultCode {
  if (!validUser(command.userId)) return Result.invalidUser;
  const { assetIds, amountsAtoms } = command;
  if (!Array.isArray(assetIds) || !Array.isArray(amountsAtoms) || assetIds.length !== amountsAtoms.length) return Result.invalidCommand;
  if (assetIds.length > paperFundingAssetsMax) return Result.invalidCommand;
  for (let index = 0; index < assetIds.length; index++) {
    const asset = engine.markets.assetById(assetIds[index]!);
    if (asset === undefined) return Result.unknownAsset;
    const amount = amountsAtoms[index]!;
    if (!Number.isSafeInteger(amount) || amount <= 0) return Result.invalidCommand;
    if (assetIds.indexOf(assetIds[index]!) !== index) return Result.invalidCommand;
    if (!engine.ledger.canMint(asset.index, amount)) return Result.balanceLimit;
  }
  if (engine.ledger.find(command.userId, Mode.paper) !== noAccount) return Result.paperAccountExists;
  if (engine.ledger.accountCount >= engine.limits.accountsMax) return Result.tooManyAccounts;
  const account = engine.ledger.findOrOpen(command.userId, Mode.paper);
  ensureAccountLists(engine, account);
  for (let index = 0; index < assetIds.length; index++) {
    const asset = engine.markets.assetById(assetIds[index]!)!;
    engine.ledger.deposit(account, asset.index, amountsAtoms[index]!);
    emitBalance(engine, account, asset.index, asset.id, BalanceReason.deposit, amountsAtoms[index]!);
  }
  return Result.ok;
}

/** Fills of resting paper orders by live prints (see fillPaperOnPrints): no taker order of ours. */
export class PaperPrintFills implements MatchHandler {
  constructor(private readonly engine: EngineState) {}

  /** A resting paper order filled by a live print, as a maker at its own price (see fillPaperOnPrints). */
  onFill(makerSlot: number, priceTicks: number, lots: number, makerRemainingLots: number): void {
    const engine = this.engine;
    const store = engine.orders;
    const context = engine.takerContext;
    const pair = context.pair;
    const notionalAtoms = priceTicks * lots * pair.quoteAtomsPerTickLot;
    const feeAtoms = feeIncrement(store.makerNotionalAtoms(makerSlot), notionalAtoms, engine.settings.makerFeeBps);
    store.setMakerNotionalAtoms(makerSlot, store.makerNotionalAtoms(makerSlot) + notionalAtoms);
    settleOutside(engine, pair, context.mode, makerSlot, store.side(makerSlot) as Side, priceTicks, lots, notionalAtoms, feeAtoms);
    store.setFilledLots(makerSlot, store.filledLots(makerSlot) + lots);
    store.setFilledNotionalAtoms(makerSlot, store.filledNotionalAtoms(makerSlot) + notionalAtoms);
    store.setStatus(makerSlot, makerRemainingLots === 0 ? OrderStatus.filled : OrderStatus.partiallyFilled);
    emitAmmFill(engine, context, makerSlot, Liquidity.maker, priceTicks, lots, notionalAtoms, feeAtoms, liveBookVenueId, 0);
    if (makerRemainingLots === 0) finishFilled(engine, makerSlot);
  }

  onSelfTradeMakerRemoved(): void {
    assert(false, 'a live print has no account of its own');
  }
}
