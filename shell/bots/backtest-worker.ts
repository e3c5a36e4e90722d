/**
 * The backtest worker thread (started by shell/bots/backtests.ts through shell/workers.ts): runs one
 * backtest per message, a pure function of the message's input, so the server's thread never computes
 * one and the same input always gives the same result.
 */
import { parentPort } from 'node:worker_threads';
import { runBacktest, type BacktestInput } from './strategy.ts';

export interface BacktestRequest {
  readonly runId: string;
  readonly input: BacktestInput;
}

export type BacktestReply = { readonly runId: string; readonly result: unknown } | { readonly runId: string; readonly error: string };

parentPort!.on('message', (request: BacktestRequest) => {
  let reply: BacktestReply;
  try {
    if (request.input.closesE8.length < 2) throw new Error('the oracle has fewer than 2 daily closes of this asset');
    reply = { runId: request.runId, result: runBacktest(request.input) };
  } catch (error) {
    reply = { runId: request.runId, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
