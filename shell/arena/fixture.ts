/**
 * Loads the arena's teams (fixtures/arena.json), strictly: a bad entry stops the start with its reason.
 * The file sits where the server bundle finds it too: this module is two folders below the project root,
 * as dist/shell/server.mjs is.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Result } from '../../engine/core/results.ts';
import { newConversion, toSteps } from '../../engine/core/units.ts';
import { navBaseAtomsMax, portfolioAssetsMax, teamNames } from '../../engine/domains/arena/commands.ts';
import { usdcStep } from './records.ts';

export const defaultArenaPath = fileURLToPath(new URL('../../fixtures/arena.json', import.meta.url));

export interface ArenaTeams {
  readonly symbols: [string[], string[]];
  readonly weightsBps: [number[], number[]];
  readonly navBaseAtoms: number;
}

export function loadArenaTeams(path = defaultArenaPath): ArenaTeams {
  const document = JSON.parse(readFileSync(path, 'utf8')) as { nav_base?: unknown; teams?: Record<string, unknown> };
  const base = toSteps(document.nav_base, usdcStep, false, Result.tooManyDecimals, newConversion());
  if (base.code !== Result.ok || base.value > navBaseAtomsMax) throw new Error(`${path}: nav_base must be a positive USDC amount of at most 6 decimals`);
  const symbols: [string[], string[]] = [[], []];
  const weights: [number[], number[]] = [[], []];
  teamNames.forEach((name, team) => {
    const portfolio = document.teams?.[name];
    if (typeof portfolio !== 'object' || portfolio === null || Array.isArray(portfolio)) throw new Error(`${path}: teams.${name} must be an object of asset: weight in bps`);
    const entries = Object.entries(portfolio as Record<string, unknown>);
    if (entries.length === 0 || entries.length > portfolioAssetsMax) throw new Error(`${path}: teams.${name} must hold 1 to ${portfolioAssetsMax} assets`);
    let total = 0;
    for (const [symbol, weight] of entries) {
      if (!/^[A-Z0-9]{1,12}$/.test(symbol)) throw new Error(`${path}: teams.${name}.${symbol}: symbols are 1 to 12 of A-Z and 0-9`);
      if (!Number.isInteger(weight) || (weight as number) < 1) throw new Error(`${path}: teams.${name}.${symbol}: the weight must be a positive integer of bps`);
      symbols[team]!.push(symbol);
      weights[team]!.push(weight as number);
      total += weight as number;
    }
    if (total !== 10_000) throw new Error(`${path}: teams.${name}: weights add up to ${total} bps, not 10000`);
  });
  return { symbols, weightsBps: weights, navBaseAtoms: base.value };
}
