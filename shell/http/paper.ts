/**
 * Paper accounts: each user's simulated account opens with PAPER_BALANCES on the user's first paper
 * order, through one journaled OpenPaperAccount command enqueued just before that order (the engine
 * refuses a second opening, so racing first orders fund it once). Until then, reads of the paper account
 * show the balances it will open with.
 */
import { CommandKind, Mode, type Command } from '../../engine/core/commands.ts';
import { noAccount } from '../../engine/core/ledger.ts';
import { Result } from '../../engine/core/results.ts';
import { amountToAtoms, type Asset, type Markets } from '../../engine/core/units.ts';
import type { PaperFunding, ShellContext } from '../context.ts';

/** Parses PAPER_BALANCES (`USDC:100000,ETH:10`); throws naming the bad entry, at start. */
export function parsePaperBalances(text: string, markets: Markets): PaperFunding {
  const assets: Asset[] = [];
  const amountsAtoms: number[] = [];
  for (const entry of text.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const [symbol, amount] = entry.split(':');
    const asset = symbol === undefined ? undefined : markets.assetBySymbol(symbol);
    if (asset === undefined || amount === undefined) throw new Error(`PAPER_BALANCES: ${entry} is not ASSET:amount with a known asset`);
    if (assets.includes(asset)) throw new Error(`PAPER_BALANCES: ${asset.symbol} appears twice`);
    const atoms = amountToAtoms(amount, asset);
    if (atoms.code !== Result.ok) throw new Error(`PAPER_BALANCES: ${entry} is not a valid amount of ${asset.symbol}`);
    assets.push(asset);
    amountsAtoms.push(atoms.value);
  }
  return { assets, amountsAtoms };
}

/** Enqueues the opening of the user's paper account unless it is open (see the file comment). */
export function ensurePaperAccount(context: ShellContext, userId: number): void {
  if (context.durable.engine.ledger.find(userId, Mode.paper) !== noAccount) return;
  const funding = context.paperFunding;
  const command: Command = {
    kind: CommandKind.openPaperAccount,
    seq: 0,
    ts: 0,
    userId,
    assetIds: funding.assets.map((asset) => asset.id),
    amountsAtoms: [...funding.amountsAtoms],
  };
  // Nothing waits for this answer: the order enqueued next is answered once both are durable.
  context.durable.enqueue(command, () => {});
}

/** Available atoms of a paper account not opened yet: what it will open with. */
export function paperStartingAtoms(context: ShellContext, asset: Asset): number {
  const index = context.paperFunding.assets.indexOf(asset);
  return index < 0 ? 0 : context.paperFunding.amountsAtoms[index]!;
}
