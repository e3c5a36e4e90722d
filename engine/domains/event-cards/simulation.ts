/**
 * The event cards' part of the seeded simulation: listings (some refused: repeated, unpriced, malformed),
 * house funding deposits, price ticks of the cards' constituents with jumps large enough to liquidate
 * leveraged positions, bull buys and sales (whole, partial and tiny fractions), perpetual opens and closes
 * of both sides at every leverage, a short funding interval so that funding runs within a run, and
 * malformed requests. The first commands price the constituents, list the cards and fund the house, so
 * that most trades find a card. The generator sees no results: it numbers the positions it expects the
 * engine to open (valid opens, in order) and sells and closes those, mostly as their owner; refusals it did
 * not foresee (a cap, a liquidation) shift or void some numbers, which then name closed, foreign or
 * unknown positions and are refused, as some requests are meant to be.
 */
import { CommandKind, type Command } from '../../core/commands.ts';
import { domainCommand } from '../../core/domain.ts';
import { domainUserId } from '../../core/limits.ts';
import type { DomainCommandGenerator, Prng } from '../../core/sim/generator.ts';
import { PricesCommandType, PriceSource, type PostPriceTicks } from '../prices/commands.ts';
import {
  EventCardsAccount,
  EventCardsCommandType,
  eventCardsDomainId,
  fractionScale,
  leverageMax,
  type BuyBull,
  type ClosePerp,
  type ConfigureEventCards,
  type ListCard,
  type OpenPerp,
  type SellBull,
} from './commands.ts';

/** The simulated cards: over assets the prices simulation ticks too, and two of their own. */
const cards: readonly ListCard[] = [
  { slug: 'sim-majors', name: 'Majors', description: 'BTC and ETH', symbols: ['BTC', 'ETH'], weightsBps: [6000, 4000], baseIndexE8: 100_000_000_000 },
  { slug: 'sim-tech', name: 'Tech', description: 'Chips and index', symbols: ['NVDA', 'AAPL', 'SPY'], weightsBps: [5000, 3000, 2000], baseIndexE8: 50_000_000_000 },
  { slug: 'sim-wild', name: 'Wild', description: 'Volatile pair', symbols: ['SIMX', 'SIMY'], weightsBps: [7000, 3000], baseIndexE8: 10_000_000_000 },
];
const walkSymbols = ['BTC', 'ETH', 'NVDA', 'AAPL', 'SPY', 'SIMX', 'SIMY'] as const;
const walkStartE8 = [9_700_000_000_000, 300_000_000_000, 14_000_000_000, 23_000_000_000, 60_000_000_000, 1_000_000_000, 50_000_000];
const usdcAssetId = 1;

const copyCard = (card: ListCard): ListCard => ({ ...card, symbols: [...card.symbols], weightsBps: [...card.weightsBps] });
/**
 * The stream's own users, funded by its own deposits: apart from the exchange's users (1 to 12), so that
 * card trades never change the balances the exchange's part of the simulation trades with.
 */
const firstUser = 101;
const users = 12;
const userFundAtoms = 10_000_000 * 1_000_000;

export class EventCardsSimulation implements DomainCommandGenerator {
  private readonly pricesE8 = [...walkStartE8];
  /** Positions the engine should have opened, by expected number (index + 1). */
  private readonly expected: Array<{ userId: number; mode: number; cardNo: number; bull: boolean }> = [];
  private setupStep = 0;

  next(random: Prng, nowMs: number): Command {
    void nowMs;
    const setup = this.setup(random);
    if (setup !== null) return setup;
    const roll = random.next();
    if (roll < 0.03) return this.list(random);
    if (roll < 0.07) return this.fundHouse(random);
    if (roll < 0.25) return this.ticks(random);
    if (roll < 0.4) return this.buy(random);
    if (roll < 0.52) return this.sell(random);
    if (roll < 0.72) return this.open(random);
    if (roll < 0.9) return this.close(random);
    if (roll < 0.93) return this.configure(random);
    return this.malformed(random);
  }

  /** Prices every constituent, lists the cards, funds both houses and every user in both modes, one command per call. */
  private setup(random: Prng): Command | null {
    const step = this.setupStep++;
    if (step === 0) return this.ticks(random, true);
    if (step <= cards.length) return domainCommand(EventCardsCommandType.listCard, copyCard(cards[step - 1]!));
    if (step <= cards.length + 2) return this.fundHouse(random, step - cards.length - 1);
    const funded = step - cards.length - 3;
    if (funded < users * 2) {
      return { kind: CommandKind.deposit, seq: 0, ts: 0, userId: firstUser + (funded >> 1), mode: (funded & 1) as 0 | 1, assetId: usdcAssetId, amountAtoms: userFundAtoms };
    }
    return null;
  }

  private user(random: Prng): number {
    return firstUser + random.int(0, users - 1);
  }

  private list(random: Prng): Command {
    return domainCommand(EventCardsCommandType.listCard, copyCard(random.pick(cards)));
  }

  private fundHouse(random: Prng, mode = random.chance(0.5) ? 0 : 1): Command {
    const userId = domainUserId(eventCardsDomainId, EventCardsAccount.house);
    return { kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode: mode as 0 | 1, assetId: usdcAssetId, amountAtoms: random.int(1, 500_000) * 1_000_000 };
  }

  private ticks(random: Prng, all = false): Command {
    const body: PostPriceTicks = { source: PriceSource.sim, symbols: [], pricesE8: [] };
    for (let index = 0; index < walkSymbols.length; index++) {
      if (!all && !random.chance(0.6)) continue;
      // Mostly steps of up to ±2 %, now and then a jump of up to ±15 % (a gap that liquidates).
      const step = random.chance(0.15) ? random.int(-1500, 1500) : random.int(-200, 200);
      const price = this.pricesE8[index]!;
      const next = Math.max(1000, price + Math.round((price * step) / 10_000));
      this.pricesE8[index] = next;
      body.symbols.push(walkSymbols[index]!);
      body.pricesE8.push(next);
    }
    if (body.symbols.length === 0) {
      body.symbols.push(walkSymbols[5]!);
      body.pricesE8.push(this.pricesE8[5]!);
    }
    return domainCommand(PricesCommandType.postPriceTicks, body);
  }

  private cardNo(random: Prng): number {
    return random.chance(0.97) ? random.int(1, cards.length) : random.pick([0, 9]);
  }

  private amount(random: Prng): number {
    return random.pick([1, 10, 100, 1_000]) * random.int(1, 20) * 1_000_000;
  }

  /** An expected position to sell or close: mostly as its owner, sometimes as someone else or a number never opened. */
  private target(random: Prng, bull: boolean): { userId: number; mode: number; cardNo: number; positionNo: number } {
    const candidates = this.expected.length;
    if (candidates === 0 || random.chance(0.1)) return { userId: this.user(random), mode: 0, cardNo: this.cardNo(random), positionNo: random.int(1, candidates + 5) };
    let positionNo = random.int(1, candidates);
    // Prefer a recent position of the right kind (older ones are likelier closed or liquidated).
    for (let tries = 0; tries < 4 && this.expected[positionNo - 1]!.bull !== bull; tries++) positionNo = random.int(Math.max(1, candidates - 30), candidates);
    const owner = this.expected[positionNo - 1]!;
    const userId = random.chance(0.9) ? owner.userId : this.user(random);
    return { userId, mode: owner.mode, cardNo: owner.cardNo, positionNo };
  }

  private buy(random: Prng): Command {
    const body: BuyBull = { userId: this.user(random), mode: random.chance(0.7) ? 0 : 1, cardNo: this.cardNo(random), amountAtoms: this.amount(random) };
    if (body.cardNo >= 1 && body.cardNo <= cards.length) this.expected.push({ userId: body.userId, mode: body.mode, cardNo: body.cardNo, bull: true });
    return domainCommand(EventCardsCommandType.buyBull, body);
  }

  private sell(random: Prng): Command {
    const fractionPpm = random.pick([fractionScale, fractionScale, 500_000, random.int(1, fractionScale), 1]);
    const body: SellBull = { ...this.target(random, true), fractionPpm };
    return domainCommand(EventCardsCommandType.sellBull, body);
  }

  private open(random: Prng): Command {
    const body: OpenPerp = {
      userId: this.user(random),
      mode: random.chance(0.7) ? 0 : 1,
      cardNo: this.cardNo(random),
      side: random.chance(0.6) ? 0 : 1,
      marginAtoms: this.amount(random),
      leverage: random.chance(0.3) ? leverageMax : random.int(1, leverageMax),
    };
    if (body.cardNo >= 1 && body.cardNo <= cards.length) this.expected.push({ userId: body.userId, mode: body.mode, cardNo: body.cardNo, bull: false });
    return domainCommand(EventCardsCommandType.openPerp, body);
  }

  private close(random: Prng): Command {
    const body: ClosePerp = this.target(random, false);
    return domainCommand(EventCardsCommandType.closePerp, body);
  }

  private configure(random: Prng): Command {
    const body: ConfigureEventCards = { fundingIntervalMs: random.chance(0.9) ? random.int(1_000, 3_000) : random.pick([0, 999, 10 ** 12]) };
    return domainCommand(EventCardsCommandType.configure, body);
  }

  private malformed(random: Prng): Command {
    switch (random.int(0, 4)) {
      case 0:
        return domainCommand(EventCardsCommandType.buyBull, { userId: this.user(random), mode: 0, cardNo: 1, amountAtoms: random.pick([0, 999_999, 10 ** 13]) } satisfies BuyBull);
      case 1:
        return domainCommand(EventCardsCommandType.openPerp, { userId: firstUser, mode: 0, cardNo: 1, side: 0, marginAtoms: 10_000_000, leverage: random.pick([0, leverageMax + 1]) } satisfies OpenPerp);
      case 2:
        return domainCommand(EventCardsCommandType.sellBull, { userId: firstUser, mode: 0, cardNo: 1, positionNo: 1, fractionPpm: random.pick([0, fractionScale + 1]) } satisfies SellBull);
      case 3:
        return domainCommand(EventCardsCommandType.openPerp, { userId: firstUser, mode: 2, cardNo: 1, side: 3, marginAtoms: 10_000_000, leverage: 2 } satisfies OpenPerp);
      default:
        return domainCommand(EventCardsCommandType.listCard, { slug: 'Bad Slug', name: '', description: '', symbols: ['BTC'], weightsBps: [9999], baseIndexE8: 1 } satisfies ListCard);
    }
  }
}
