/**
 * The clones' strategies at work. The bots domain journals when the strategies run (StrategyTicked); this
 * runtime, fed by durable batches, runs every clone's strategy at each durable strike and submits what it
 * decides as ordinary commands through the sequencer on the clone's behalf, so they are journaled and
 * checked exactly as a client's (holds, balances, fees). No domain submits another domain's command.
 *
 * A decision is a function of the source's parameters (fixtures/bots.json) and the oracle's daily closes
 * as durable batches left them (the latest close is the current price); a live species also looks up the
 * WTA markets the engine holds at the strike. What it submits is journaled, so a replay needs no strategy
 * and reaches the same state. The signal
 * (shell/bots/strategy.ts) picks the action:
 * - backtest_bot: long buys order_amount USDC worth of SYMBOL at market on SYMBOL/USDC; short sells that
 *   much SYMBOL at market; flat does nothing;
 * - perpetual_agent: long predicts YES, short NO, on the perpetual market of SYMBOL, staking order_amount PRED;
 * - wta_species: live clones, when long, bet order_amount of the market's token on SYMBOL in the newest WTA
 *   market listing it that is not completed; WTA bets have no paper mode, so a paper species clone
 *   predicts on the perpetual market of SYMBOL instead (YES when long, NO when short).
 * Clones trade in their mode: paper clones on their paper account (opened with PAPER_BALANCES when the
 * clone starts), live clones on their live account, which starts empty and trades once funded (until
 * then their commands are refused for balance, which changes nothing).
 */
import { Mode, type Command } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { Result, resultCode } from '../../engine/core/results.ts';
import { amountToAtoms, formatQuantity, type Pair } from '../../engine/core/units.ts';
import { BotsEventType, SourceType, type CloneStarted } from '../../engine/domains/bots/commands.ts';
import { botsOf, type RunningClone } from '../../engine/domains/bots/bots.ts';
import { MarketsCommandType, MarketStatus, type PlaceBet } from '../../engine/domains/markets/commands.ts';
import type { MarketsModule } from '../../engine/domains/markets/markets.ts';
import { PerpetualCommandType, collateralSymbol, type Predict } from '../../engine/domains/perpetual/commands.ts';
import type { DurableBatch } from '../../engine/runtime/sequencer.ts';
import type { ShellContext } from '../context.ts';
import { orderCommand } from '../http/exchange-orders.ts';
import { PricesView } from '../prices/view.ts';
import type { Catalogue, SourceBot } from './catalogue.ts';
import { signalOf, type Signal } from './strategy.ts';

/** Markets looked at, newest first, when a species looks for a WTA market listing its symbol. */
const wtaMarketsScanned = 50;

export class StrategyRunner {
  readonly prices: PricesView;
  private readonly clones = new Map<number, RunningClone>();
  /** Commands submitted and refused, for the log and the tests. */
  submitted = 0;
  refused = 0;

  constructor(
    private readonly context: ShellContext,
    private readonly catalogue: Catalogue,
  ) {
    const engine = context.durable.engine;
    this.prices = new PricesView(engine);
    // Everything the recovered engine holds is durable.
    for (const clone of botsOf(engine).clones()) this.clones.set(clone.userId, clone);
  }

  onBatch(batch: DurableBatch): void {
    this.prices.onBatch(batch);
    let strikes = 0;
    batch.forEachDomainEvent((event) => {
      if (event.type === BotsEventType.cloneStarted) {
        const body = event.body as CloneStarted;
        this.clones.set(body.userId, { userId: body.userId, mode: body.mode, sourceType: body.sourceType, sourceIndex: body.sourceIndex });
      } else if (event.type === BotsEventType.strategyTicked) {
        strikes++;
      }
    });
    // A batch's strikes run once: the closes they would see are the same.
    if (strikes > 0) this.strike();
  }

  /** Runs every clone's strategy once, in start order. */
  strike(): void {
    for (const clone of this.clones.values()) {
      const source = this.catalogue.byIndex(clone.sourceType, clone.sourceIndex);
      if (source === undefined) continue;
      const closes = this.prices.prices.closes(source.symbol, source.lookbackDays);
      if (closes === undefined) continue;
      const signal = signalOf(source.strategyType, closes.closesE8, source.lookbackDays);
      if (signal === 0) continue;
      const command = this.decide(clone, source, signal, closes.closesE8[closes.closesE8.length - 1]!);
      if (command !== null) this.submit(command);
    }
  }

  private decide(clone: RunningClone, source: SourceBot, signal: Signal, priceE8: number): Command | null {
    const mode = clone.mode as Mode;
    switch (clone.sourceType) {
      case SourceType.backtestBot:
        return this.exchangeOrder(clone.userId, mode, source, signal, priceE8);
      case SourceType.perpetualAgent:
        return this.prediction(clone.userId, mode, source, signal);
      default:
        return mode === Mode.paper ? this.prediction(clone.userId, mode, source, signal) : signal === 1 ? this.bet(clone.userId, source) : null;
    }
  }

  private exchangeOrder(userId: number, mode: Mode, source: SourceBot, signal: Signal, priceE8: number): Command | null {
    const pair = this.context.markets.pairBySymbol(source.symbol.toLowerCase());
    const usdc = this.context.markets.assetBySymbol('USDC');
    if (pair === undefined || usdc === undefined || pair.quote !== usdc) return null;
    const notional = amountToAtoms(source.orderAmount, usdc);
    if (notional.code !== Result.ok) return null;
    const lots = lotsWorth(pair, notional.value, usdc.decimals, priceE8);
    if (lots < 1) return null;
    const command = orderCommand(pair, userId, { side: signal === 1 ? 'buy' : 'sell', order_type: 'market', quantity: formatQuantity(lots, pair), mode: mode === Mode.paper ? 'paper' : 'live' });
    command.orderId = this.context.durable.engine.lastOrderId + 1;
    return command;
  }

  private prediction(userId: number, mode: Mode, source: SourceBot, signal: Signal): Command | null {
    const collateral = this.context.markets.assetBySymbol(collateralSymbol);
    if (collateral === undefined) return null;
    const amount = amountToAtoms(source.orderAmount, collateral);
    if (amount.code !== Result.ok) return null;
    const body: Predict = { userId, mode, symbol: source.symbol, side: signal === 1 ? 0 : 1, amountAtoms: amount.value };
    return domainCommand(PerpetualCommandType.predict, body);
  }

  private bet(userId: number, source: SourceBot): Command | null {
    const markets = this.context.durable.engine.domain('markets') as MarketsModule | undefined;
    if (markets === undefined) return null;
    const newest = markets.marketCount();
    for (let id = newest; id >= 1 && id > newest - wtaMarketsScanned; id--) {
      const market = markets.market(id);
      if (market === undefined || market.status === MarketStatus.completed || !market.assets.includes(source.symbol)) continue;
      const token = this.context.markets.assetById(market.tokenAssetId);
      if (token === undefined) return null;
      const amount = amountToAtoms(source.orderAmount, token);
      if (amount.code !== Result.ok) return null;
      const atoms = Math.min(Math.max(amount.value, market.minBetAtoms), market.maxBetAtoms);
      const body: PlaceBet = { userId, marketId: id, asset: source.symbol, amountAtoms: atoms };
      return domainCommand(MarketsCommandType.placeBet, body);
    }
    return null;
  }

  private submit(command: Command): void {
    this.submitted++;
    this.context.durable.enqueue(command, (outcome) => {
      if (outcome.error === null && outcome.result === Result.ok) return;
      this.refused++;
      this.context.log('bots_strategy_command_refused', { kind: command.kind, code: outcome.error === null ? resultCode(outcome.result) : String(outcome.error) });
    });
  }
}

/** Lots of `pair` worth `notionalAtoms` of the quote (decimals `quoteDecimals`) at `priceE8`, floored. */
export function lotsWorth(pair: Pair, notionalAtoms: number, quoteDecimals: number, priceE8: number): number {
  // base units = notional / 10^quoteDecimals / (priceE8 / 10^8); lots = base units / (mantissa × 10^-scale).
  const numerator = BigInt(notionalAtoms) * 10n ** 8n * 10n ** BigInt(pair.lot.scale);
  const denominator = BigInt(priceE8) * pair.lot.mantissa * 10n ** BigInt(quoteDecimals);
  const lots = numerator / denominator;
  return lots > BigInt(Number.MAX_SAFE_INTEGER) ? 0 : Number(lots);
}
