/**
 * The perpetual prediction markets' shell module: the durable view and the routes on it, and at start the
 * journaled setup the settings ask for: the house treasury (domainUserId(3, 0)) topped up to
 * PERPETUAL_HOUSE_FUND_PRED in each mode by a core Deposit, then a ConfigurePerpetual when the journaled
 * configuration differs from PERPETUAL_EPOCH_MS, PERPETUAL_SEED_PRED and the platform's six markets.
 */
import { CommandKind, type Command } from '../../engine/core/commands.ts';
import { domainCommand } from '../../engine/core/domain.ts';
import { noAccount } from '../../engine/core/ledger.ts';
import { Result, resultCode } from '../../engine/core/results.ts';
import { amountToAtoms, type Asset } from '../../engine/core/units.ts';
import { PerpetualCommandType, collateralSymbol, seedAtomsMax, type ConfigurePerpetual } from '../../engine/domains/perpetual/commands.ts';
import { houseUserId, perpetualOf } from '../../engine/domains/perpetual/perpetual.ts';
import type { ShellContext } from '../context.ts';
import type { ShellModule } from '../shell-module.ts';
import { perpetualRoutes } from './routes.ts';
import { PerpetualHistory } from './history.ts';
import { PerpetualView } from './view.ts';

/** The markets the API specification lists: four crypto assets and the two platform tokens. */
export const perpetualSymbols = ['BTC', 'ETH', 'SOL', 'DOGE', 'PLAT', 'PRED'] as const;

/** A PRED setting in atoms; throws naming the variable, at start. */
function settingAtoms(name: string, text: string, asset: Asset, max: number): number {
  if (text.trim() === '0') return 0;
  const atoms = amountToAtoms(text, asset);
  if (atoms.code !== Result.ok || atoms.value > max) throw new Error(`${name} must be an amount of ${asset.symbol} from 0 to ${max / 10 ** asset.decimals} with at most ${asset.decimals} decimals`);
  return atoms.value;
}

/** Submits one command and resolves once it is durable; a refusal or failure rejects, naming the command. */
function submit(context: ShellContext, command: Command, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    context.durable.enqueue(command, (outcome) => {
      if (outcome.error !== null) return reject(outcome.error);
      if (outcome.result !== Result.ok) return reject(new Error(`${what} was refused: ${resultCode(outcome.result)}`));
      resolve();
    });
  });
}

/** The configuration the settings ask for: the journaled markets first, in their order, then the missing ones. */
export function wantedConfiguration(journaled: readonly string[], epochMs: number, seedAtoms: number): ConfigurePerpetual {
  return { epochMs, seedAtoms, symbols: [...journaled, ...perpetualSymbols.filter((symbol) => !journaled.includes(symbol))] };
}

export const perpetualModule: ShellModule = {
  name: 'perpetual',
  create(context) {
    const collateral = context.markets.assetBySymbol(collateralSymbol);
    if (collateral === undefined) throw new Error(`perpetual markets need the ${collateralSymbol} asset in the markets fixture`);
    const { config } = context;
    const seedAtoms = settingAtoms('PERPETUAL_SEED_PRED', config.perpetualSeedPred, collateral, seedAtomsMax);
    const fundAtoms = settingAtoms('PERPETUAL_HOUSE_FUND_PRED', config.perpetualHouseFundPred, collateral, Number.MAX_SAFE_INTEGER);
    const engine = context.durable.engine;
    const history = new PerpetualHistory(config.dataDir);
    const view = new PerpetualView(engine, history);

    const start = async (): Promise<void> => {
      const ledger = engine.ledger;
      for (const mode of [0, 1] as const) {
        const account = ledger.find(houseUserId, mode);
        const balance = account === noAccount ? 0 : ledger.availableAtoms(account, collateral.index) + ledger.heldAtoms(account, collateral.index);
        if (balance >= fundAtoms) continue;
        const deposit: Command = { kind: CommandKind.deposit, seq: 0, ts: 0, userId: houseUserId, mode, assetId: collateral.id, amountAtoms: fundAtoms - balance };
        await submit(context, deposit, 'the perpetual house deposit');
      }
      const perpetual = perpetualOf(engine);
      const journaled = perpetual.markets.map((market) => market.symbol);
      const wanted = wantedConfiguration(journaled, config.perpetualEpochMs, seedAtoms);
      if (perpetual.epochMs !== wanted.epochMs || perpetual.seedAtoms !== wanted.seedAtoms || wanted.symbols.length !== journaled.length) {
        await submit(context, domainCommand(PerpetualCommandType.configure, wanted), 'ConfigurePerpetual');
        // The configuration set the module's timers (epoch ends, the price look of waiting markets).
        context.timers.poke();
      }
    };

    return {
      routes: perpetualRoutes({ context, view, collateral }),
      onDurable: (batch) => view.onBatch(batch),
      start,
      close: () => history.close(),
    };
  },
};
