/**
 * The server: recovers the durable engine from DATA_DIR, serves the route table over uWebSockets.js, and
 * shuts down cleanly on SIGTERM/SIGINT (stop accepting, let every accepted command become durable, write a
 * snapshot, close the journal).
 *
 *   npm start            (settings from the environment: see README.md)
 */
import uWS from 'uWebSockets.js';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DurableEngine } from '../engine/runtime/durable-engine.ts';
import type { DurableBatch } from '../engine/runtime/sequencer.ts';
import { defaultMarketsPath, loadMarkets } from '../engine/runtime/markets.ts';
import { loadConfig, type Config } from './config.ts';
import { DataDirLock } from './data-dir-lock.ts';
import { jsonLog, type Log } from './log.ts';
import type { ShellContext, StreamFigures } from './context.ts';
import { RouteTable } from './http/route-table.ts';
import { namedSecret, openDatabase } from './store/database.ts';
import { loadChains } from './funding/chains.ts';
import { AmmManager, defaultAmmSettings, loadPools } from '../engine/runtime/amm-manager.ts';
import { startWorker } from './workers.ts';
import { venueInfoOf } from './market/venue-directory.ts';
import { VenueDirectory } from './market/venue-directory.ts';
import { parsePaperBalances } from './http/paper.ts';
import { WithdrawalAddresses } from './funding/withdrawal-addresses.ts';
import { Tokens } from './auth/tokens.ts';
import { Authenticator } from './auth/authenticator.ts';
import { ApiKeys } from './auth/api-keys.ts';
import { authSettings } from './auth/settings.ts';
import { SignatureGuard } from './auth/signatures.ts';
import { RateLimiter } from './auth/rate-limit.ts';
import { Timers } from '../engine/runtime/timers.ts';
import { dayFigures } from './http/exchange-history.ts';
import { shellModules, type ModuleInstance } from './modules.ts';
import { ReadModels } from './read-models/read-models.ts';
import { Tickers } from './read-models/ticker.ts';
import { discoveryRoutes, type DiscoveryOptions } from './discovery/discovery-routes.ts';
import { TwoFactor } from './auth/two-factor.ts';
import { MarketData } from './market/market-data.ts';
import { ExchangeStream, exchangeStreamPath } from './ws/exchange-stream.ts';
import type { TopicStream } from './ws/topic-stream.ts';
import { PrivateStream, privateStreamPath } from './ws/private-stream.ts';
import { platformDomains } from '../engine/domains/index.ts';
import { McpService } from './mcp/mcp-server.ts';
import type { ServerEdge, ServerReplication } from './cluster/view.ts';
import { edgeSettings, replicationSettings } from './cluster/settings.ts';
import { runClusterNode } from './cluster/node.ts';
import { closeOnSignals } from './shutdown.ts';
import { edgeRoute, positionsJson, runEdge } from './cluster/edge.ts';

export interface RunningServer {
  readonly port: number;
  readonly context: ShellContext;
  readonly table: RouteTable;
  close(): Promise<void>;
}

/** The route table of every module's routes (shell/modules.ts), then the discovery documents made from it and the streams. */
export function buildRouteTable(instances: readonly ModuleInstance[], discovery: DiscoveryOptions): RouteTable {
  const table = new RouteTable();
  for (const instance of instances) {
    table.add(instance.routes);
    if (instance.tags !== undefined) table.describeTags(instance.tags);
  }
  table.add(discoveryRoutes(table, discovery));
  return table;
}

/**
 * `app.listen(host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, cb)`: the native binding takes a host with options
 * and exports the option, its type declarations have neither.
 */
function listenExclusive(app: uWS.TemplatedApp, host: string, port: number, done: (socket: uWS.us_listen_socket | false) => void): void {
  const exclusive = (uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: number }).LIBUS_LISTEN_EXCLUSIVE_PORT;
  const listen = app.listen as unknown as (host: string, port: number, options: number, cb: (socket: uWS.us_listen_socket | false) => void) => uWS.TemplatedApp;
  listen.call(app, host, port, exclusive, done);
}

/**
 * `clock` is the runtime's only clock (milliseconds); tests pass a fixed one. `replication` is given by
 * a replicated node that took the lease; the embedded default has none. `edge` makes the server a stream
 * edge (shell/cluster/edge.ts): its engine follows the journal stream, it serves the public read routes
 * and streams, answers every other route 503 NOT_LEADER, and makes no commands of its own.
 */
export async function startServer(config: Config, log: Log, clock: () => number = Date.now, replication?: ServerReplication, edge?: ServerEdge): Promise<RunningServer> {
  mkdirSync(config.dataDir, { recursive: true });
  // Before anything in DATA_DIR is read or written: a second server there is refused (data-dir-lock.ts).
  const lock = DataDirLock.acquire(config.dataDir);
  try {
    return await startLocked(config, log, clock, lock, replication, edge);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startLocked(config: Config, log: Log, clock: () => number, lock: DataDirLock, replication?: ServerReplication, edge?: ServerEdge): Promise<RunningServer> {
  const marketsPath = defaultMarketsPath;
  const markets = loadMarkets(marketsPath);
  const chains = loadChains(markets);
  const pools = loadPools(markets);
  const venues = new VenueDirectory(chains, pools.map(venueInfoOf));
  const ammChainIds = config.ammChains.map((name) => {
    const chain = chains.byName(name);
    if (chain === undefined) throw new Error(`AMM_CHAINS: unknown chain ${name} (${chains.all.map((known) => known.name).join(', ')})`);
    return chain.id;
  });
  const db = openDatabase(config.dataDir);
  const readModels = new ReadModels({ dataDir: config.dataDir, markets, marketsPath, workerPriority: config.readModelsPriority });
  const tickers = new Tickers(markets, clock);
  // Consumers of durable batches, in order: each sees a batch once its journal write is durable and
  // before any submitter of it is answered, so nothing is shown that a crash could take back. The tickers
  // come before the market data, whose price and market messages carry their 24-hour figures.
  const durableFeeds: Array<(batch: DurableBatch) => void> = [(batch) => readModels.applyBatch(batch), (batch) => tickers.applyBatch(batch)];
  const app = uWS.App();
  const stream = new ExchangeStream(app, {
    markets,
    log,
    backpressureBytes: config.wsBackpressureBytes,
    connectionsMax: config.wsConnectionsMax,
    resumeMessagesMax: edgeSettings(config).resumeMessagesMax,
    retainAll: edge !== undefined,
  });
  const durableOptions = {
    dataDir: config.dataDir,
    engine: { markets, domains: platformDomains },
    syncMode: config.journalSync,
    snapshotEveryCommands: config.snapshotEveryCommands,
    snapshotEveryMs: config.snapshotEveryMs,
    log,
    onDurable: (batch: DurableBatch) => {
      for (const feed of durableFeeds) feed(batch);
    },
    // The read models get again what a crash took from them before the engine takes new commands.
    replayFeed: readModels.replayFeed(),
    // Snapshots are encoded and written off the order thread.
    startWorker,
  };
  const durable =
    edge === undefined
      ? DurableEngine.open({ ...durableOptions, clock, ...(replication === undefined ? {} : { wrapWriter: replication.wrapWriter }) })
      : await edge.openDurable(durableOptions);
  readModels.finishReplay(durable.recovery.lastSeq, durable.engine.orders.liveCount);
  const amm = new AmmManager({
    durable,
    markets,
    pools,
    settings: { ...defaultAmmSettings, chainIds: ammChainIds, flow: config.ammFlow, quoteIntervalMs: config.ammQuoteIntervalMs, seed: config.ammSeed },
    startWorker,
    clock,
    log,
  });
  durableFeeds.push((batch) => amm.onDurable(batch));
  const timers = new Timers({ durable, clock, log });
  tickers.restore(markets, readModels.queries);
  const marketData = new MarketData({ markets, venues, engine: durable.engine, sink: stream, dayFigures: (pair) => dayFigures(pair, tickers.view(pair.id)) });
  stream.attach(marketData, () => durable.sequencer.queueDepth > 0);
  // Through the stream, which may send a batch's messages with the next batch's (one fan-out for both).
  durableFeeds.push((batch) => stream.onDurable(batch));
  const auth = authSettings(config.env);
  const tokens = new Tokens(db, clock, auth);
  const keys = new ApiKeys(db, clock);
  const twoFactor = new TwoFactor(db, clock);
  // Module streams are known once the modules exist; until then (never while serving) they count 0.
  let moduleStreams: readonly TopicStream<unknown>[] = [];
  // The private stream is made once the context exists; it is assigned just below.
  let privateStream: PrivateStream | null = null;
  const streamConnections = (): number =>
    moduleStreams.reduce((sum, moduleStream) => sum + moduleStream.openConnections, stream.openConnections + (privateStream?.openConnections ?? 0));
  const streamFigures = (): StreamFigures[] => [
    { path: exchangeStreamPath, connections: stream.openConnections, sendBacklogBytes: stream.sendBacklogBytes, coalescedBatches: stream.coalescedBatches },
    ...(privateStream === null ? [] : [{ path: privateStreamPath, connections: privateStream.openConnections, sendBacklogBytes: privateStream.sendBacklogBytes, coalescedBatches: 0 }]),
    ...moduleStreams.map((moduleStream) => ({ path: moduleStream.path, connections: moduleStream.openConnections, sendBacklogBytes: moduleStream.sendBacklogBytes, coalescedBatches: 0 })),
  ];
  const paperFunding = parsePaperBalances(config.paperBalances, markets);
  const funding = { chains, addresses: new WithdrawalAddresses(db, chains, clock), depositSecret: namedSecret(db, 'deposit') };
  const context: ShellContext = { config, durable, markets, marketData, readModels, tickers, amm, timers, venues, paperFunding, streamConnections, streamFigures, clock, log, identity: { db, tokens, keys, twoFactor }, funding, ...(replication === undefined ? {} : { cluster: replication.view }), ...(edge === undefined ? {} : { cluster: edge.view }) };
  const authenticator = new Authenticator(tokens, keys, new RateLimiter(clock), config.adminApiKey, new SignatureGuard(auth.signatureWindowMs, clock));
  privateStream = new PrivateStream({
    context,
    authenticator,
    backpressureBytes: config.wsBackpressureBytes,
    connectionsMax: config.wsConnectionsMax,
    snapshotOrdersPerS: config.wsSnapshotOrdersPerS,
  });
  // The private stream needs credentials: an edge serves public streams only.
  if (edge === undefined) privateStream.mount(app);
  const ownStream = privateStream;
  durableFeeds.push((batch) => ownStream.onDurable(batch));
  const instances = shellModules.map((module) => module.create(context));
  for (const instance of instances) {
    const onDurable = instance.onDurable;
    if (onDurable !== undefined) durableFeeds.push(onDurable);
  }
  const streams = instances.flatMap((instance) => instance.streams ?? []);
  for (const moduleStream of streams) moduleStream.mount(app);
  moduleStreams = streams;
  const table = buildRouteTable(edge === undefined ? instances : instances.map((instance) => ({ ...instance, routes: instance.routes.map((route) => edgeRoute(route, edge.view)) })), { env: config.env, streamPatterns: [exchangeStreamPath, privateStreamPath, ...streams.map((moduleStream) => moduleStream.path)] });
  // The MCP endpoint: uWS matches the exact path /mcp/v1 before the table's wildcard (/mcp/v1/register stays a route).
  const mcp = edge === undefined ? McpService.mount(app, table, config.env, config.bodyBytesMax, clock, log) : null;
  table.mount(app, { bodyBytesMax: config.bodyBytesMax, authenticator, log });
  // An edge makes no commands (no AMM quotes, timers, oracle ticks or seeding): it applies the leader's.
  if (edge === undefined) {
    amm.start();
    timers.start();
    for (const instance of instances) await instance.start?.(table);
  } else await edge.follow({ exchange: stream, marketData, topics: streams });
  // A leader puts its stream positions beside its lease, where edges that join read them.
  let positionsTimer: NodeJS.Timeout | null = null;
  if (replication !== undefined) {
    const put = (): void => {
      const json = positionsJson({ epoch: replication.epoch, seq: durable.sequencer.durableSeq, marketData, topics: streams });
      replication.putPositions(json).catch((error: unknown) => log('replication_positions_failed', { error: String(error) }));
    };
    put();
    positionsTimer = setInterval(put, replication.positionsEveryMs);
  }
  const listenSocket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
    // Exclusive: with uWS's default (SO_REUSEPORT) a second server on the port would share its connections.
    listenExclusive(app, config.host, config.port, (socket) =>
      socket === false ? reject(new Error(`cannot listen on ${config.host}:${config.port} (in use?)`)) : resolve(socket),
    );
  });
  const port = uWS.us_socket_local_port(listenSocket as unknown as uWS.us_socket);
  log('listening', { host: config.host, port, data_dir: config.dataDir, journal_sync: config.journalSync, routes: table.routes.length });
  let closing: Promise<void> | null = null;
  return {
    port,
    context,
    table,
    close: () => {
      closing ??= (async () => {
        uWS.us_listen_socket_close(listenSocket);
        if (positionsTimer !== null) clearInterval(positionsTimer);
        await mcp?.close();
        stream.closeAll();
        // Before the sequencer closes: connections with cancel_on_disconnect journal their cancels.
        ownStream.closeAll();
        for (const moduleStream of streams) moduleStream.closeAll();
        for (const instance of instances) await instance.stop?.();
        await amm.close();
        // No RunTimers may be enqueued into a closing sequencer.
        timers.stop();
        if (edge === undefined) await durable.close();
        else await edge.close();
        for (const instance of instances) await instance.close?.();
        await readModels.close();
        db.close();
        const { lastSeq, durableBatches, durableCommands } = durable.sequencer;
        log('stopped', { last_seq: lastSeq, durable_batches: durableBatches, durable_commands: durableCommands });
        lock.release();
      })();
      return closing;
    },
  };
}

async function main(): Promise<void> {
  const log = jsonLog();
  const config = loadConfig();
  // REPLICATION=jetstream (or `npm run standby`): a node of a replicated pair, which serves as this
  // server once it holds the lease (shell/cluster/node.ts). Otherwise the embedded single process.
  // `npm run edge`: a stream edge following the journal stream (shell/cluster/edge.ts).
  if (process.argv.includes('--edge')) return runEdge(config, log, (edge) => startServer(config, log, Date.now, undefined, edge));
  if (process.argv.includes('--standby') || replicationSettings(config) !== null) {
    return runClusterNode(config, log, (replication, clock) => startServer(config, log, clock, replication));
  }
  const server = await startServer(config, log);
  closeOnSignals(log, () => server.close());
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(resolve(entry)).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
