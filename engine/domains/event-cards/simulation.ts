/**
 * The event cards' part of the seeded simulation: listings (some refused: repeated, unpriced, malformed),
 * house funding deposits, price ticks of the cards' constituents with jumps large enough to liquidate
 * leveraged positions, bull buys and sales (whole, partial and tiny fractions), perpetual opens and closes
 * of both sides at every leverage, a short funding interval so that funding runs within a run, and
 * malformed requests. Position numbers are guessed from how many positions the stream tried to open, so
 * some name closed, foreign or unknown positions and are refused.
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
const users = 12;

export class EventCardsSimulation implements DomainCommandGenerator {
  private readonly pricesE8 = [...walkStartE8];
  /** Positions the stream tried to open (an upper bound of the engine's position numbers). */
  private opened = 0;

  next(random: Prng, nowMs: number): Command {
    void nowMs;
    const roll = random.next();
    if (roll < 0.05) return this.list(random);
    if (roll < 0.09) return this.fundHouse(random);
    if (roll < 0.27) return this.ticks(random);
    if (roll < 0.4) return this.buy(random);
    if (roll < 0.52) return this.sell(random);
    if (roll < 0.74) return this.open(random);
    if (roll < 0.9) return this.close(random);
    if (roll < 0.93) return this.configure(random);
    return this.malformed(random);
  }

  private list(random: Prng): Command {
    const card = random.pick(cards);
    return domainCommand(EventCardsCommandType.listCard, { ...card, symbols: [...card.symbols], weightsBps: [...card.weightsBps] });
  }

  private fundHouse(random: Prng): Command {
    const userId = domainUserId(eventCardsDomainId, EventCardsAccount.house);
    return { kind: CommandKind.deposit, seq: 0, ts: 0, userId, mode: random.chance(0.5) ? 0 : 1, assetId: usdcAssetId, amountAtoms: random.int(1, 500_000) * 1_000_000 };
  }

  private ticks(random: Prng): Command {
    const body: PostPriceTicks = { source: PriceSource.sim, symbols: [], pricesE8: [] };
    for (let index = 0; index < walkSymbols.length; index++) {
      if (!random.chance(0.6)) continue;
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
    return random.pick([1, 10, 100, 1_000, 20_000]) * random.int(1, 50) * 1_000_000;
  }

  private buy(random: Prng): Command {
    this.opened++;
    const body: BuyBull = { userId: random.int(1, users), mode: random.chance(0.7) ? 0 : 1, cardNo: this.cardNo(random), amountAtoms: this.amount(random) };
    return domainCommand(EventCardsCommandType.buyBull, body);
  }

  private positionNo(random: Prng): number {
    return random.int(1, Math.max(1, this.opened));
  }

  private sell(random: Prng): Command {
    const fractionPpm = random.pick([fractionScale, fractionScale, 500_000, random.int(1, fractionScale), 1]);
    const body: SellBull = { userId: random.int(1, users), mode: random.chance(0.7) ? 0 : 1, cardNo: this.cardNo(random), positionNo: this.positionNo(random), fractionPpm };
    return domainCommand(EventCardsCommandType.sellBull, body);
  }

  private open(random: Prng): Command {
    this.opened++;
    const body: OpenPerp = {
      userId: random.int(1, users),
      mode: random.chance(0.7) ? 0 : 1,
      cardNo: this.cardNo(random),
      side: random.chance(0.6) ? 0 : 1,
      marginAtoms: this.amount(random),
      leverage: random.chance(0.5) ? leverageMax : random.int(1, leverageMax),
    };
    return domainCommand(EventCardsCommandType.openPerp, body);
  }

  private close(random: Prng): Command {
    const body: ClosePerp = { userId: random.int(1, users), mode: random.chance(0.7) ? 0 : 1, cardNo: this.cardNo(random), positionNo: this.positionNo(random) };
    return domainCommand(EventCardsCommandType.closePerp, body);
  }

  private configure(random: Prng): Command {
    const body: ConfigureEventCards = { fundingIntervalMs: random.chance(0.9) ? random.int(1_000, 3_000) : random.pick([0, 999, 10 ** 12]) };
    return domainCommand(EventCardsCommandType.configure, body);
  }

  private malformed(random: Prng): Command {
    switch (random.int(0, 4)) {
      case 0:
        return domainCommand(EventCardsCommandType.buyBull, { userId: random.int(1, users), mode: 0, cardNo: 1, amountAtoms: random.pick([0, 999_999, 10 ** 13]) } satisfies BuyBull);
      case 1:
        return domainCommand(EventCardsCommandType.openPerp, { userId: 1, mode: 0, cardNo: 1, side: 0, marginAtoms: 10_000_000, leverage: random.pick([0, leverageMax + 1]) } satisfies OpenPerp);
      case 2:
        return domainCommand(EventCardsCommandType.sellBull, { userId: 1, mode: 0, cardNo: 1, positionNo: 1, fractionPpm: random.pick([0, fractionScale + 1]) } satisfies SellBull);
      case 3:
        return domainCommand(EventCardsCommandType.openPerp, { userId: 1, mode: 2, cardNo: 1, side: 3, marginAtoms: 10_000_000, leverage: 2 } satisfies OpenPerp);
      default:
        return domainCommand(EventCardsCommandType.listCard, { slug: 'Bad Slug', name: '', description: '', symbols: ['BTC'], weightsBps: [9999], baseIndexE8: 1 } satisfies ListCard);
    }
  }
}
