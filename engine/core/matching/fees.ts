/**
 * Fees and holds: the fee of a fill on an order's cumulative notional (rounded up once per order), the fee
 * caps a buy holds, and the price band a market order may take within.
 */
import { assert } from '../assert.ts';
import type { EngineState } from '../engine-state.ts';
import { bpsDenominator, safeIntegerMax } from '../limits.ts';
import type { Pair } from '../units.ts';

/** Fee owed when an order's cumulative notional grows from `before` to `before + notional`. */
export function feeIncrement(beforeAtoms: number, notionalAtoms: number, feeBps: number): number {
  // A zero rate (the default maker fee) owes nothing: skip four divisions per fill.
  if (feeBps === 0) return 0;
  return feeCap(beforeAtoms + notionalAtoms, feeBps) - feeCap(beforeAtoms, feeBps);
}

/** ceil(notional × bps / 10 000), computed without leaving the safe-integer range. */
export function feeCap(notionalAtoms: number, feeBps: number): number {
  // A zero rate (the default maker fee, held on every buy) caps nothing: skip two divisions.
  if (feeBps === 0) return 0;
  const whole = Math.floor(notionalAtoms / bpsDenominator);
  const rest = notionalAtoms - whole * bpsDenominator;
  return whole * feeBps + Math.ceil((rest * feeBps) / bpsDenominator);
}

/** The highest price a market buy may take at, `marketBandBps` above the best ask. */
export function buyBand(engine: EngineState, bestAskTicks: number): number {
  return Math.floor((bestAskTicks * (bpsDenominator + engine.settings.marketBandBps)) / bpsDenominator);
}

/** The lowest price a market sell may take at, `marketBandBps` below the best bid (at least one tick). */
export function sellBand(engine: EngineState, bestBidTicks: number): number {
  return Math.max(1, Math.ceil((bestBidTicks * (bpsDenominator - engine.settings.marketBandBps)) / bpsDenominator));
}

/** The taker fee rate of a ledger account: its own (a tier's discount) or the engine's. */
export function accountTakerFeeBps(engine: EngineState, account: number): number {
  const table = engine.takerFeeBpsByAccount;
  return table.size === 0 ? engine.settings.takerFeeBps : (table.get(account) ?? engine.settings.takerFeeBps);
}

/**
 * Quote atoms a buy of `lots` at `priceTicks` holds: the notional plus the taker fee cap at the order's
 * taker rate and the maker fee cap.
 */
export function buyHold(engine: EngineState, pair: Pair, priceTicks: number, lots: number, takerFeeBps: number): number {
  const notionalAtoms = priceTicks * lots * pair.quoteAtomsPerTickLot;
  const hold = notionalAtoms + feeCap(notionalAtoms, takerFeeBps) + feeCap(notionalAtoms, engine.settings.makerFeeBps);
  assert(hold <= safeIntegerMax, 'buy hold beyond the safe range');
  return hold;
}
