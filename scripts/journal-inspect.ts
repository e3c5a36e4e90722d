/**
 * Prints the frames of a journal segment, one line each (seq, ts, kind, summary), for debugging:
 *   npm run journal:inspect -- <segment file> [--limit N]
 * Stops at the first bad frame and says where and why.
 */
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { CommandKind, type Command } from '../engine/core/commands.ts';
import { domainRegistry } from '../engine/domains/index.ts';
import { FrameDecoder, FrameStatus, decodeSegmentHeader, segmentHeaderBytes } from '../engine/journal/codec.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { limit: { type: 'string' } } });
const file = positionals[0];
const limit = values.limit === undefined ? Number.MAX_SAFE_INTEGER : Number(values.limit);
if (file === undefined || !Number.isSafeInteger(limit)) {
  console.error('usage: npm run journal:inspect -- <segment file> [--limit N]');
  process.exit(2);
}

const kindNames = Object.fromEntries(Object.entries(CommandKind).map(([name, kind]) => [kind, name]));

function summary(command: Command): string {
  switch (command.kind) {
    case CommandKind.placeOrder:
      return `order=${command.orderId} user=${command.userId} mode=${command.mode} pair=${command.pairId} side=${command.side} type=${command.orderType} tif=${command.timeInForce} price=${command.priceTicks} stop=${command.stopPriceTicks} lots=${command.quantityLots}${command.postOnly ? ' post_only' : ''} stp=${command.selfTradePrevention}${command.clientOrderId ? ` cid=${command.clientOrderId}` : ''}`;
    case CommandKind.cancelOrder:
      return `user=${command.userId} mode=${command.mode} order=${command.orderId}${command.clientOrderId ? ` cid=${command.clientOrderId}` : ''}`;
    case CommandKind.cancelAll:
      return `user=${command.userId} mode=${command.mode} pair=${command.pairId}`;
    case CommandKind.amendOrder:
      return `user=${command.userId} mode=${command.mode} order=${command.orderId} price=${command.priceTicks} lots=${command.quantityLots}`;
    case CommandKind.deposit:
    case CommandKind.withdraw:
      return `user=${command.userId} mode=${command.mode} asset=${command.assetId} atoms=${command.amountAtoms}`;
    case CommandKind.placeBatch:
      return `orders=${command.orders.map((order) => order.orderId).join(',')}`;
    case CommandKind.cancelBatch:
      return `user=${command.userId} mode=${command.mode} orders=${command.orderIds.join(',')}`;
    case CommandKind.withdrawTo:
      return `user=${command.userId} asset=${command.assetId} atoms=${command.amountAtoms} chain=${command.chainId} address=${command.address}${command.reference ? ` ref=${JSON.stringify(command.reference)}` : ''}`;
    case CommandKind.quoteVenue:
      return `pair=${command.pairId} pool=${command.poolId} chain=${command.chainId} version=${command.version} bids=${command.bidPriceTicks.length} best_bid=${command.bidPriceTicks[0] ?? '-'} asks=${command.askPriceTicks.length} best_ask=${command.askPriceTicks[0] ?? '-'}`;
    case CommandKind.openPaperAccount:
      return `user=${command.userId} assets=${command.assetIds.join(',')} atoms=${command.amountsAtoms.join(',')}`;
    case CommandKind.expireVenues:
    case CommandKind.runTimers:
      return '';
    case CommandKind.startTwap:
      return `twap=${command.twapId} user=${command.userId} mode=${command.mode} pair=${command.pairId} side=${command.side} lots=${command.quantityLots} limit=${command.limitPriceTicks} duration_ms=${command.durationMs} interval_ms=${command.intervalMs}`;
    case CommandKind.cancelTwap:
      return `twap=${command.twapId} user=${command.userId} mode=${command.mode}`;
    case CommandKind.placeScale: {
      const first = command.orders[0];
      const rungs = command.orders.map((order) => `${order.orderId}:${order.priceTicks}x${order.quantityLots}`).join(',');
      return `scale=${command.scaleId} user=${first?.userId ?? '-'} mode=${first?.mode ?? '-'} pair=${first?.pairId ?? '-'} side=${first?.side ?? '-'} orders=${rungs}`;
    }
    case CommandKind.domain:
      return `${domainRegistry.commandName(command.type)} ${JSON.stringify(command.body)}`;
  }
}

const bytes = readFileSync(file);
const firstSeq = decodeSegmentHeader(bytes, basename(file));
console.log(`# ${basename(file)}: first seq ${firstSeq}, ${bytes.length} bytes`);
const decoder = new FrameDecoder(bytes, segmentHeaderBytes);
let printed = 0;
for (let command = decoder.next(); command !== null && printed < limit; command = decoder.next(), printed++) {
  console.log(`${command.seq}\t${command.ts}\t${kindNames[command.kind]}\t${summary(command)}`);
}
// A synced segment is kept filled with zeros ahead of its frames: nothing but zeros is its end, not damage.
const zeroTail = decoder.status !== FrameStatus.ok && bytes.subarray(decoder.offset).every((byte) => byte === 0);
if (zeroTail) console.log(`# frames end at offset ${decoder.offset}; ${bytes.length - decoder.offset} bytes of zeros follow (written ahead of the frames)`);
if (decoder.status !== FrameStatus.ok && !zeroTail) {
  console.log(`# stopped at offset ${decoder.offset}: ${decoder.problem}`);
  process.exit(1);
}
