/**
 * The child of the crash test (durable-engine.test.ts): opens a durable engine in the given data
 * directory, submits generated commands as fast as the journal takes them, and prints each acknowledged
 * seq on its own line. The parent kills it with SIGKILL at a random moment.
 *
 *   node --import tsx engine/runtime/crash-child.ts <data dir> <seed>
 */
import { Engine } from '../core/engine.ts';
import { noSlot } from '../core/order-store.ts';
import { CommandGenerator } from '../core/sim/generator.ts';
import { loadMarkets } from './markets.ts';
import { DurableEngine } from './durable-engine.ts';
import { SequencerBusyError } from './sequencer.ts';
import { domainGenerators, platformDomains } from '../domains/index.ts';

const [dataDir, seedText] = process.argv.slice(2);
if (dataDir === undefined || seedText === undefined) {
  console.error('usage: crash-child.ts <data dir> <seed>');
  process.exit(2);
}
const markets = loadMarkets();
// The runtime clock is the time the generator gave the command being submitted, so that the parent can
// regenerate the durable prefix with the same times (venue quotes expire by journaled time).
let commandTs = 0;
const durable = DurableEngine.open({ dataDir, engine: { markets, domains: platformDomains }, snapshotEveryCommands: 3000, clock: () => commandTs });
const engine: Engine = durable.engine;
const generator = new CommandGenerator({ seed: Number(seedText), markets, domains: domainGenerators(), oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
const queue = generator.fundingCommands();
let pendingLines = '';

function next() {
  return queue.length > 0 ? queue.shift()! : generator.next();
}

function pump(): void {
  for (let index = 0; index < 300; index++) {
    const command = next();
    commandTs = command.ts;
    durable.submit(command).then(
      (submission) => {
        if (submission.seq > 0) pendingLines += submission.seq + '\n';
      },
      (error: unknown) => {
        if (!(error instanceof SequencerBusyError)) throw error;
        queue.unshift(command);
      },
    );
  }
  if (pendingLines !== '') {
    process.stdout.write(pendingLines);
    pendingLines = '';
  }
  setImmediate(pump);
}
pump();
