/** What every area of the shell shares: the durable engine, the market tables, the clock and the log. */
import type { Markets } from '../engine/core/units.ts';
import type { DurableEngine } from '../engine/runtime/durable-engine.ts';
import type { Config } from './config.ts';
import type { Log } from './log.ts';
import type { Db } from './store/database.ts';
import type { Tokens } from './auth/tokens.ts';
import type { ApiKeys } from './auth/api-keys.ts';
import type { TwoFactor } from './auth/two-factor.ts';

export interface ShellContext {
  readonly config: Config;
  readonly durable: DurableEngine;
  readonly markets: Markets;
  readonly clock: () => number;
  readonly log: Log;
  readonly identity: { readonly db: Db; readonly tokens: Tokens; readonly keys: ApiKeys; readonly twoFactor: TwoFactor };
}
