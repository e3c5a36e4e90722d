/** The shared replay check fails when a replay or a restore would not reach the live state. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from '../core/commands.ts';
import { Engine } from '../core/engine.ts';
import { Result } from '../core/results.ts';
import { loadMarkets } from '../runtime/markets.ts';
import { platformDomains } from '../domains/index.ts';
import { checkReplayAndRestore } from './replay-check.ts';

const markets = loadMarkets();
const usdc = markets.assetBySymbol('USDC')!;
const make = () => new Engine({ markets, domains: platformDomains });

function deposit(seq: number, userId: number, amountAtoms: number): Command {
  return { kind: CommandKind.deposit, seq, ts: 1_000 + seq, userId, mode: 0, assetId: usdc.id, amountAtoms };
}

test('a journal that is the live history passes; a missing command or a refused one fails', () => {
  const live = make();
  const journal = [deposit(1, 7, 500), deposit(2, 8, 900)];
  for (const command of journal) assert.equal(live.apply(command), Result.ok);
  const { replayed, restored } = checkReplayAndRestore(live, journal, make);
  assert.equal(replayed.ledger.supply[usdc.index], 1400);
  assert.equal(restored.ledger.supply[usdc.index], 1400);
  assert.throws(() => checkReplayAndRestore(live, journal.slice(1), make), /does not reach the live state hash/);
  assert.throws(() => checkReplayAndRestore(live, [...journal, deposit(3, 0, 1)], make), /was refused/);
});
