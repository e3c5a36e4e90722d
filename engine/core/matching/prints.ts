/**
 * Live trades of the command being applied, noted for the resting paper orders that a print fills
 * (paper.ts applies them after the command). A leaf of the matching path: the fill handlers of the live
 * book and of the venues note prints here without depending on paper.ts.
 */
import type { EngineState } from '../engine-state.ts';

/** Notes a live trade of the command being applied, for the resting paper orders of its pair. */
export function recordPrint(engine: EngineState, pairIndex: number, priceTicks: number, lots: number): void {
  if (!engine.paperSeesLiveBook) return;
  const index = engine.printCount++;
  engine.printPairs[index] = pairIndex;
  engine.printPrices[index] = priceTicks;
  engine.printLots[index] = lots;
}
