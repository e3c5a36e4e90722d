/**
 * The arena module of the shell: the durable arena view, the routes on it, /ws/arena, and the seed. At
 * start, when the arena does not exist yet (and ARENA_AUTO_SEED is on), it funds the house account with a
 * journaled Deposit of ARENA_HOUSE_FUND_USDC (only while the house holds no USDC, so a crash between the
 * two commands never funds it twice) and journals SeedArena from fixtures/arena.json and the ARENA_*
 * settings; POST /api/v1/arena/seed runs the same steps.
 */
import { CommandKind } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { noAccount } from '../../engine/core/ledger.ts';
import { Result, resultCode } from '../../engine/core/results.ts';
import { Arena, ArenaCommandType, ArenaResult, houseUserId, validSeed, type SeedArena } from '../../engine/domains/arena/index.ts';
import type { ShellModule } from '../shell-module.ts';
import { loadArenaTeams } from './fixture.ts';
import { arenaRoutes } from './routes.ts';
import { ArenaStream } from './stream.ts';
import { ArenaView } from './view.ts';

export const arenaModule: ShellModule = {
  name: 'arena',
  create(context) {
    const { config, durable } = context;
    const engine = durable.engine;
    const teams = loadArenaTeams();
    const body: SeedArena = {
      blueSymbols: teams.symbols[0],
      blueWeightsBps: teams.weightsBps[0],
      redSymbols: teams.symbols[1],
      redWeightsBps: teams.weightsBps[1],
      navBaseAtoms: teams.navBaseAtoms,
      epochMs: config.arenaEpochMs,
      mmSpreadBps: config.arenaMmSpreadBps,
      mmSizeLots: config.arenaMmSizeLots,
      mmInventoryMaxLots: config.arenaMmInventoryMaxLots,
    };
    if (!validSeed(body)) throw new Error('fixtures/arena.json and the ARENA_* settings do not make a valid arena');
    const usdc = context.markets.assetBySymbol('USDC');
    if (usdc === undefined) throw new Error('the arena trades in USDC, which fixtures/markets.json does not list');
    const arena = engine.domain(Arena.domainName) as Arena;
    const view = new ArenaView(engine);
    const stream = new ArenaStream({ view, clock: context.clock, backpressureBytes: config.wsBackpressureBytes, connectionsMax: config.wsConnectionsMax });

    const houseUsdcAtoms = (): number => {
      const account = engine.ledger.find(houseUserId, 0);
      return account === noAccount ? 0 : engine.ledger.availableAtoms(account, usdc.index) + engine.ledger.heldAtoms(account, usdc.index);
    };
    const seedOnce = async (): Promise<boolean> => {
      if (arena.seeded) return false;
      if (config.arenaHouseFundUsdc > 0 && houseUsdcAtoms() === 0) {
        const amountAtoms = config.arenaHouseFundUsdc * 10 ** usdc.decimals;
        const funded = await durable.submit({ kind: CommandKind.deposit, seq: 0, ts: 0, userId: houseUserId, mode: 0, assetId: usdc.id, amountAtoms });
        if (funded.result !== Result.ok) throw new Error(`the house deposit was refused: ${resultCode(funded.result)}`);
      }
      const submission = await durable.submit(domainCommand(ArenaCommandType.seedArena, body));
      if (submission.result === ArenaResult.arenaExists) return false;
      if (submission.result !== Result.ok) throw new Error(`the arena seed was refused: ${resultCode(submission.result)}`);
      context.log('arena_seeded', { seq: submission.seq, epoch_ms: body.epochMs });
      return true;
    };
    // One seed at a time: a second caller waits for the first and finds the arena there.
    let seeding: Promise<boolean> | null = null;
    const seed = async (): Promise<boolean> => {
      while (seeding !== null) {
        await seeding.catch(() => false);
      }
      seeding = seedOnce();
      try {
        return await seeding;
      } finally {
        seeding = null;
      }
    };

    return {
      routes: arenaRoutes({ context, view, seed }),
      streams: [stream.stream],
      onDurable: (batch) => stream.onBatch(batch),
      start: async () => {
        if (config.arenaAutoSeed) await seed();
      },
    };
  },
};
