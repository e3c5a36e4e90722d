/**
 * The movers tournament in the engine: rounds of journaled time in which users pick 1 to 5 oracle symbols,
 * scored by the mean percentage change of their picks from entry to the round's end.
 *
 * Rules:
 * - A ConfigureMovers sets the round length R. The first one opens round 1; a later one changes the length
 *   of the rounds opened after it (the running round keeps its end).
 * - A round opened at journaled time T ends at (floor(T / R) + 1) × R (rounds are aligned to multiples of
 *   R). Rounds are numbered 1, 2, ... in the order they open.
 * - EnterMovers is accepted while the round runs (command time before its end), once per user and round,
 *   with 1 to 5 distinct symbols each priced by the oracle at that command; the entry keeps those prices.
 * - The round's timer ends it at the first RunTimers at or after its end: each entry scores
 *   `scoreE6` (commands.ts) against the oracle's prices at that RunTimers, entries rank by score (highest
 *   first), ties by entry time, then by entry id; the next round opens at once at that time (so after a
 *   downtime the rounds it spanned never existed).
 * - No money moves: the tournament ranks, it pays nothing.
 */
import { assert } from '../../core/assert.ts';
import type { Command } from '../../core/commands.ts';
import { domainEvent, noTimerMs, type DomainModule } from '../../core/domain.ts';
import type { Engine } from '../../core/engine.ts';
import { userIdMax } from '../../core/limits.ts';
import type { DomainPort } from '../../core/port.ts';
import { Result, type ResultCode } from '../../core/results.ts';
import type { StateHasher } from '../../core/state-hasher.ts';
import { Prices } from '../prices/prices.ts';
import {
  MoversCommandType,
  MoversEventType,
  MoversResult,
  entriesPerRoundMax,
  entrySymbolsMax,
  roundMsMax,
  roundMsMin,
  scoreE6,
  type ConfigureMovers,
  type EnterMovers,
  type EntryResult,
  type MoversConfigured,
  type MoversEntered,
  type RoundEnded,
  type RoundOpened,
} from './commands.ts';

export interface Entry {
  entryId: number;
  userId: number;
  symbols: string[];
  startPricesE8: number[];
  enteredMs: number;
}

export interface Round {
  round: number;
  startMs: number;
  endMs: number;
  entries: Entry[];
}

type EntryRow = [number, number, string[], number[], number];

export interface MoversSnapshot {
  roundMs: number;
  lastEntryId: number;
  round: { round: number; startMs: number; endMs: number; entries: EntryRow[] };
}

export class Movers implements DomainModule {
  static readonly domainName = 'movers';
  readonly name = Movers.domainName;
  readonly commandKinds = [] as const;
  readonly commandTypes = [MoversCommandType.configure, MoversCommandType.enter];
  /** 0 until the first ConfigureMovers. */
  roundMs = 0;
  lastEntryId = 0;
  /** The running round; null until configured. */
  current: Round | null = null;

  constructor(private readonly port: DomainPort) {}

  apply(command: Command): ResultCode {
    assert(command.kind === 17, 'the movers module gets domain commands only');
    switch (command.type) {
      case MoversCommandType.configure:
        return this.configure(command.body as ConfigureMovers);
      case MoversCommandType.enter:
        return this.enter(command.body as EnterMovers);
      default:
        return Result.unknownCommand;
    }
  }

  private prices(): Prices | undefined {
    const prices = this.port.domain(Prices.domainName);
    return prices instanceof Prices ? prices : undefined;
  }

  /** The entry of `userId` in the running round, if any. */
  entryOf(userId: number): Entry | undefined {
    return this.current?.entries.find((entry) => entry.userId === userId);
  }

  private configure(body: ConfigureMovers): ResultCode {
    if (!Number.isSafeInteger(body.roundMs) || body.roundMs < roundMsMin || body.roundMs > roundMsMax) return MoversResult.invalidRoundLength;
    this.roundMs = body.roundMs;
    const event: MoversConfigured = { roundMs: body.roundMs };
    this.port.emit(domainEvent(MoversEventType.configured, event));
    if (this.current === null) this.open(this.port.commandTimeMs(), 1);
    return Result.ok;
  }

  private enter(body: EnterMovers): ResultCode {
    const round = this.current;
    if (round === null) return MoversResult.notConfigured;
    if (!Number.isSafeInteger(body.userId) || body.userId < 1 || body.userId > userIdMax) return Result.invalidUser;
    const symbols = body.symbols;
    if (!Array.isArray(symbols) || symbols.length < 1 || symbols.length > entrySymbolsMax) return MoversResult.symbolCount;
    if (new Set(symbols).size !== symbols.length) return MoversResult.duplicateSymbol;
    const prices = this.prices();
    const startPricesE8 = symbols.map((symbol) => (typeof symbol === 'string' ? (prices?.priceE8(symbol) ?? 0) : 0));
    if (startPricesE8.some((priceE8) => priceE8 <= 0)) return MoversResult.unpricedSymbol;
    const nowMs = this.port.commandTimeMs();
    if (nowMs >= round.endMs) return MoversResult.roundClosed;
    if (this.entryOf(body.userId) !== undefined) return MoversResult.alreadyEntered;
    if (round.entries.length >= entriesPerRoundMax) return MoversResult.roundFull;

    const entry: Entry = { entryId: ++this.lastEntryId, userId: body.userId, symbols: [...symbols], startPricesE8, enteredMs: nowMs };
    round.entries.push(entry);
    const event: MoversEntered = { entryId: entry.entryId, round: round.round, userId: entry.userId, symbols: [...entry.symbols], startPricesE8: [...startPricesE8], enteredMs: nowMs };
    this.port.emit(domainEvent(MoversEventType.entered, event));
    return Result.ok;
  }

  private open(nowMs: number, number: number): void {
    const endMs = (Math.floor(nowMs / this.roundMs) + 1) * this.roundMs;
    this.current = { round: number, startMs: nowMs, endMs, entries: [] };
    const event: RoundOpened = { round: number, startMs: nowMs, endMs };
    this.port.emit(domainEvent(MoversEventType.roundOpened, event));
  }

  /** The results of a round against the oracle's prices now, in rank order. */
  rank(round: Round): EntryResult[] {
    const prices = this.prices();
    const scored = round.entries.map((entry) => {
      const endPricesE8 = entry.symbols.map((symbol) => prices?.priceE8(symbol) ?? 0);
      assert(endPricesE8.every((priceE8) => priceE8 > 0), 'a priced symbol lost its price');
      return { entry, endPricesE8, score: scoreE6(entry.startPricesE8, endPricesE8) };
    });
    scored.sort((a, b) => b.score - a.score || a.entry.enteredMs - b.entry.enteredMs || a.entry.entryId - b.entry.entryId);
    return scored.map((row, index) => ({ entryId: row.entry.entryId, userId: row.entry.userId, rank: index + 1, scoreE6: row.score, endPricesE8: row.endPricesE8 }));
  }

  // Timers: the running round's end.

  nextTimerMs(): number {
    return this.current === null ? noTimerMs : this.current.endMs;
  }

  runTimers(nowMs: number): void {
    const round = this.current;
    if (round === null || round.endMs > nowMs) return;
    const event: RoundEnded = { round: round.round, startMs: round.startMs, endMs: round.endMs, endedMs: nowMs, results: this.rank(round) };
    this.port.emit(domainEvent(MoversEventType.roundEnded, event));
    this.open(nowMs, round.round + 1);
  }

  // Hash and snapshot.

  hash(hasher: StateHasher): void {
    const round = this.current;
    if (round === null) return;
    hasher.number(-110);
    hasher.number(this.roundMs);
    hasher.number(this.lastEntryId);
    hasher.number(round.round);
    hasher.number(round.startMs);
    hasher.number(round.endMs);
    hasher.number(round.entries.length);
    for (const entry of round.entries) {
      hasher.number(entry.entryId);
      hasher.number(entry.userId);
      hasher.number(entry.enteredMs);
      hasher.number(entry.symbols.length);
      for (let index = 0; index < entry.symbols.length; index++) {
        hasher.string(entry.symbols[index]!);
        hasher.number(entry.startPricesE8[index]!);
      }
    }
  }

  snapshot(): MoversSnapshot | null {
    const round = this.current;
    if (round === null) return null;
    return {
      roundMs: this.roundMs,
      lastEntryId: this.lastEntryId,
      round: {
        round: round.round,
        startMs: round.startMs,
        endMs: round.endMs,
        entries: round.entries.map((entry): EntryRow => [entry.entryId, entry.userId, [...entry.symbols], [...entry.startPricesE8], entry.enteredMs]),
      },
    };
  }

  restore(state: unknown): void {
    assert(this.current === null, 'restore needs a fresh movers module');
    const data = state as Partial<MoversSnapshot> | null;
    const integer = (value: unknown): value is number => Number.isSafeInteger(value);
    const row = data?.round;
    if (
      data === null ||
      typeof data !== 'object' ||
      !integer(data.roundMs) ||
      data.roundMs < roundMsMin ||
      !integer(data.lastEntryId) ||
      row === undefined ||
      ![row.round, row.startMs, row.endMs].every(integer) ||
      !Array.isArray(row.entries) ||
      row.entries.length > entriesPerRoundMax
    ) {
      throw new Error('movers snapshot: malformed');
    }
    const entries: Entry[] = [];
    for (const fields of row.entries as unknown[]) {
      if (!Array.isArray(fields) || fields.length !== 5) throw new Error('movers snapshot: malformed entry');
      const [entryId, userId, symbols, startPricesE8, enteredMs] = fields as EntryRow;
      if (
        ![entryId, userId, enteredMs].every(integer) ||
        !Array.isArray(symbols) ||
        !Array.isArray(startPricesE8) ||
        symbols.length !== startPricesE8.length ||
        symbols.length > entrySymbolsMax ||
        !symbols.every((symbol) => typeof symbol === 'string') ||
        !startPricesE8.every(integer)
      ) {
        throw new Error('movers snapshot: malformed entry');
      }
      entries.push({ entryId, userId, symbols: [...symbols], startPricesE8: [...startPricesE8], enteredMs });
    }
    this.roundMs = data.roundMs;
    this.lastEntryId = data.lastEntryId;
    this.current = { round: row.round, startMs: row.startMs, endMs: row.endMs, entries };
  }
}

/** The movers module of an engine built with `platformDomains`. */
export function moversOf(engine: Engine): Movers {
  const movers = engine.domain(Movers.domainName);
  if (!(movers instanceof Movers)) throw new Error('this engine has no movers module');
  return movers;
}
