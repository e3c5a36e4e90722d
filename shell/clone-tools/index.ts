/**
 * The clone tools' shell module: the data adapter the settings choose (the fictional sample or a file),
 * our own platform's durable flow (fees, AMM fills), and the routes on them.
 */
import type { ShellModule } from '../shell-module.ts';
import { FileData, SampleData } from './data.ts';
import { PlatformFlow } from './platform.ts';
import { cloneToolsRoutes } from './routes.ts';
import { cloneToolsSettings } from './settings.ts';

export const cloneToolsModule: ShellModule = {
  name: 'clone-tools',
  create(context) {
    const settings = cloneToolsSettings(context.config.env);
    const data = settings.dataFile === '' ? new SampleData(settings.sampleSeed, context.clock()) : new FileData(settings.dataFile);
    const quote = context.markets.assetBySymbol('USDC');
    if (quote === undefined) throw new Error('the clone tools need the USDC asset in the markets fixture');
    const flow = new PlatformFlow(context.clock());
    return {
      routes: cloneToolsRoutes({ context, data, flow, solanaDown: settings.solanaDown, quote }),
      onDurable: (batch) => flow.onBatch(batch),
    };
  },
};
