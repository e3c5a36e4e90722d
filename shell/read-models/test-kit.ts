/**
 * What the read models' tests share: a seeded command stream run through a real Engine, its accepted
 * commands with seqs and spaced timestamps, handed over as durable batches; and a fresh read-model
 * database in a temporary directory.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from '../../engine/core/commands.ts';
import { Engine } from '../../engine/core/engine.ts';
import { CollectingSink, type EngineEvent } from '../../engine/core/events.ts';
import { noSlot } from '../../engine/core/order-store.ts';
import { Result } from '../../engine/core/results.ts';
import { CommandGenerator } from '../../engine/core/sim/generator.ts';
import { loadMarkets } from '../../engine/runtime/markets.ts';
import { batchOfEvents, type DurableBatch } from '../../engine/runtime/sequencer.ts';
import { domainGenerators, platformDomains } from '../../engine/domains/index.ts';
import type { Db } from '../store/database.ts';
import { openReadModelDatabase } from './schema.ts';

export const markets = loadMarkets();
export const startTs = 1_767_225_600_000;
/** Spacing of the commands' timestamps: the stream spans hours, so every interval has several buckets. */
export const commandSpacingMs = 997;

export interface Journaled {
  seq: number;
  ts: number;
  events: EngineEvent[];
}

export function batchOf(commands: readonly Journaled[]): DurableBatch {
  return batchOfEvents(commands[0]!.seq, commands[commands.length - 1]!.seq, (visit) => {
    for (const command of commands) for (const event of command.events) visit(event, command.seq, command.ts);
  });
}

/** Runs `count` generated commands through an engine; the accepted ones get seqs and spaced timestamps. */
export function runEngine(seed: number, count: number): { engine: Engine; journaled: Journaled[] } {
  const sink = new CollectingSink();
  const engine = new Engine({ markets, sink, domains: platformDomains });
  const generator = new CommandGenerator({ seed, markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
  const funding = generator.fundingCommands();
  const journaled: Journaled[] = [];
  for (let index = 0; index < count; index++) {
    const command: Command = index < funding.length ? funding[index]! : generator.next();
    sink.clear();
    if (engine.apply(command) !== Result.ok) continue;
    journaled.push({ seq: journaled.length + 1, ts: startTs + journaled.length * commandSpacingMs, events: [...sink.events] });
  }
  return { engine, journaled };
}

export function temporaryDb(): { dir: string; db: Db } {
  const dir = mkdtempSync(join(tmpdir(), 'read-models-'));
  return { dir, db: openReadModelDatabase(dir) };
}
