/**
 * Loads the games fixture (fixtures/games.json): the settlement asset, the streak milestones and the
 * recurring tournament schedule, strictly: a bad entry stops the start with its reason. The engine checks
 * the same bounds again when the commands arrive.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Result } from '../../engine/core/results.ts';
import { amountToAtoms, type Asset, type Markets } from '../../engine/core/units.ts';
import {
  entryFeeAtomsMax,
  entryFeeAtomsMin,
  milestoneDaysMax,
  milestonesMax,
  rewardAtomsMax,
  tournamentEntrantsMax,
  tournamentEntrantsMin,
  tournamentWindowMsMax,
  tournamentWindowMsMin,
} from '../../engine/domains/games/commands.ts';

/** Two folders below the project root, as the server bundle (dist/shell/server.mjs) is, so the same URL works from both. */
export const defaultGamesPath = fileURLToPath(new URL('../../fixtures/games.json', import.meta.url));

const hourMs = 3_600_000;
/** Recurring tournaments in one fixture. */
export const schedulesMax = 8;

export interface TournamentSchedule {
  readonly id: string;
  readonly periodMs: number;
  readonly windowMs: number;
  readonly entryFeeAtoms: number;
  readonly capacity: number;
  readonly minEntrants: number;
}

export interface GamesFixture {
  readonly asset: Asset;
  readonly milestoneDays: number[];
  readonly rewardAtoms: number[];
  readonly schedules: TournamentSchedule[];
}

export function loadGamesFixture(markets: Markets, path = defaultGamesPath): GamesFixture {
  const document = JSON.parse(readFileSync(path, 'utf8')) as { asset?: unknown; milestones?: unknown; tournaments?: unknown };
  const asset = typeof document.asset === 'string' ? markets.assetBySymbol(document.asset) : undefined;
  if (asset === undefined) throw new Error(`${path}: asset must be the symbol of a listed asset`);
  const amount = (value: unknown, where: string, low: number, high: number): number => {
    const atoms = amountToAtoms(value, asset);
    if (atoms.code !== Result.ok || atoms.value < low || atoms.value > high) throw new Error(`${where}: must be an amount of ${asset.symbol} from ${low / 10 ** asset.decimals} to ${high / 10 ** asset.decimals}`);
    return atoms.value;
  };
  if (!Array.isArray(document.milestones) || document.milestones.length > milestonesMax) throw new Error(`${path}: milestones must be a list of at most ${milestonesMax}`);
  const milestoneDays: number[] = [];
  const rewardAtoms: number[] = [];
  document.milestones.forEach((entry: Record<string, unknown>, index) => {
    const days = entry['days'];
    if (!Number.isInteger(days) || (days as number) <= (milestoneDays.at(-1) ?? 0) || (days as number) > milestoneDaysMax) {
      throw new Error(`${path}: milestones[${index}].days must be increasing whole days up to ${milestoneDaysMax}`);
    }
    milestoneDays.push(days as number);
    rewardAtoms.push(entry['reward'] === '0' ? 0 : amount(entry['reward'], `${path}: milestones[${index}].reward`, 0, rewardAtomsMax));
  });
  if (!Array.isArray(document.tournaments) || document.tournaments.length > schedulesMax) throw new Error(`${path}: tournaments must be a list of at most ${schedulesMax}`);
  const schedules = document.tournaments.map((entry: Record<string, unknown>, index): TournamentSchedule => {
    const where = `${path}: tournaments[${index}]`;
    const id = entry['id'];
    if (typeof id !== 'string' || !/^[a-z0-9]{1,32}$/.test(id)) throw new Error(`${where}.id must be 1 to 32 of a-z and 0-9`);
    const hours = (name: string): number => {
      const value = entry[name];
      if (!Number.isInteger(value) || (value as number) < 1) throw new Error(`${where}.${name} must be a whole number of hours`);
      return (value as number) * hourMs;
    };
    const periodMs = hours('period_hours');
    const windowMs = hours('window_hours');
    if (windowMs < tournamentWindowMsMin || windowMs > tournamentWindowMsMax) throw new Error(`${where}.window_hours must be 1 to ${tournamentWindowMsMax / hourMs}`);
    const capacity = entry['capacity'];
    const minEntrants = entry['min_entrants'];
    if (!Number.isInteger(capacity) || (capacity as number) < tournamentEntrantsMin || (capacity as number) > tournamentEntrantsMax) {
      throw new Error(`${where}.capacity must be ${tournamentEntrantsMin} to ${tournamentEntrantsMax}`);
    }
    if (!Number.isInteger(minEntrants) || (minEntrants as number) < tournamentEntrantsMin || (minEntrants as number) > (capacity as number)) {
      throw new Error(`${where}.min_entrants must be ${tournamentEntrantsMin} up to the capacity`);
    }
    return { id, periodMs, windowMs, entryFeeAtoms: amount(entry['entry_fee'], `${where}.entry_fee`, entryFeeAtomsMin, entryFeeAtomsMax), capacity: capacity as number, minEntrants: minEntrants as number };
  });
  if (new Set(schedules.map((schedule) => schedule.id)).size !== schedules.length) throw new Error(`${path}: tournament ids must be distinct`);
  return { asset, milestoneDays, rewardAtoms, schedules };
}

/** The next tournament of a schedule after `nowMs`: it starts at the next whole period. */
export function nextOccurrence(schedule: TournamentSchedule, nowMs: number): { key: string; startMs: number; endMs: number } {
  const number = Math.floor(nowMs / schedule.periodMs) + 1;
  const startMs = number * schedule.periodMs;
  return { key: `${schedule.id}-${number}`, startMs, endMs: startMs + schedule.windowMs };
}
