/** A batch packed, sent through a real MessageChannel (its buffers transferred) and read back is the same batch. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { Engine } from '../core/engine.ts';
import { CollectingSink, copyEvent, type EngineEvent } from '../core/events.ts';
import { noSlot } from '../core/order-store.ts';
import { CommandGenerator } from '../core/sim/generator.ts';
import { Result } from '../core/results.ts';
import { loadMarkets } from './markets.ts';
import { BatchPacker, PackedBatchView, transferables, type PackedBatch } from './packed-batch.ts';
import { batchOfEvents, type DurableBatch } from './sequencer.ts';
import { platformDomains } from '../domains/index.ts';

interface Seen {
  event: EngineEvent;
  seq: number;
  ts: number;
}

test('packed batches cross a message port and read back event for event, with seqs and times', () => {
  const markets = loadMarkets();
  const collected = new CollectingSink();
  const engine = new Engine({ markets, sink: collected, domains: platformDomains });
  const generator = new CommandGenerator({ seed: 12, markets, oracle: { isLive: (orderId) => engine.slotOf(orderId) !== noSlot, lastOrderId: () => engine.lastOrderId } });
  const packer = new BatchPacker();
  const { port1, port2 } = new MessageChannel();
  const funding = generator.fundingCommands();
  let seq = 0;
  try {
    for (let round = 0; round < 40; round++) {
      const firstSeq = seq + 1;
      const expected: Seen[] = [];
      const commands = 1 + ((round * 53) % 700);
      for (let index = 0; index < commands; index++) {
        const command = funding.shift() ?? generator.next();
        collected.clear();
        if (engine.apply(command) !== Result.ok) continue;
        seq++;
        for (const event of collected.events) expected.push({ event: copyEvent(event), seq, ts: 1_700_000_000_000 + seq * 7 });
      }
      if (seq < firstSeq) continue;
      const batch: DurableBatch = batchOfEvents(firstSeq, seq, (visit) => expected.forEach((entry) => visit(entry.event, entry.seq, entry.ts)));
      // Every third round the batch goes in as three consecutive parts, taken as one.
      const count = seq - firstSeq + 1;
      if (round % 3 === 0 && count >= 3) {
        const bounds = [firstSeq, firstSeq + Math.floor(count / 3), firstSeq + Math.floor((2 * count) / 3), seq + 1];
        for (let part = 0; part < 3; part++) {
          const from = bounds[part]!;
          const to = bounds[part + 1]! - 1;
          const entries = expected.filter((entry) => entry.seq >= from && entry.seq <= to);
          packer.add(batchOfEvents(from, to, (visit) => entries.forEach((entry) => visit(entry.event, entry.seq, entry.ts))));
        }
        assert.throws(() => packer.add(batchOfEvents(seq + 5, seq + 5, () => {})), /does not follow/);
      } else {
        packer.add(batch);
      }
      assert.equal(packer.commands, count, 'commands packed since the last take');
      const packed = packer.take();
      assert.equal(packer.pending, false);
      assert.equal(packer.commands, 0);
      port1.postMessage(packed, transferables(packed));
      assert.equal(packed.numbers.byteLength, 0, 'the tape was transferred, not copied');
      const received = receiveMessageOnPort(port2)!.message as PackedBatch;
      const view = new PackedBatchView(received);
      const read: Seen[] = [];
      view.forEachEvent((event, eventSeq, ts) => read.push({ event: copyEvent(event), seq: eventSeq, ts }));
      assert.deepEqual([view.firstSeq, view.lastSeq], [firstSeq, seq]);
      assert.deepEqual(read, expected, `round ${round}`);
    }
  } finally {
    port1.close();
    port2.close();
  }
  assert.ok(seq > 5_000, `${seq} commands accepted`);
});
