/**
 * A durable batch packed for another thread. A DurableBatch can be read only during the call that hands it
 * over, and only on the thread that made it; a consumer on a worker thread (the read models) gets this
 * instead: the batch's events on a tape of numbers (whose buffer is transferred, not copied) and, for each
 * command that made events, its seq, its timestamp and where its events end.
 */
import type { DomainEvent, EngineEvent } from '../core/events.ts';
import { EventTape, TapeReader } from './event-tape.ts';
import { visitDomainEvents, type DurableBatch } from './sequencer.ts';

export interface PackedBatch {
  readonly firstSeq: number;
  readonly lastSeq: number;
  /** The tape's numbers, exactly `length` of them. */
  readonly numbers: Float64Array<ArrayBuffer>;
  readonly strings: string[];
  /** Domain events (plain data: structured-cloned across threads). */
  readonly objects: DomainEvent[];
  /** Per command with events, in seq order: its seq, its timestamp, and the tape position after its events. */
  readonly seqs: Float64Array<ArrayBuffer>;
  readonly timestamps: Float64Array<ArrayBuffer>;
  readonly ends: Float64Array<ArrayBuffer>;
}

/**
 * Packs batches. Several consecutive batches may be added before one `take` (a consumer that is still busy
 * gets the next ones together); the packer is reused, so its tape grows once and then stays.
 */
export class BatchPacker {
  private readonly tape = new EventTape();
  private readonly seqs: number[] = [];
  private readonly timestamps: number[] = [];
  private readonly ends: number[] = [];
  private firstSeq = 0;
  private lastSeq = 0;
  private lastEventSeq = 0;
  private readonly visit = (event: EngineEvent, seq: number, ts: number): void => {
    if (seq !== this.lastEventSeq) {
      if (this.seqs.length > 0) this.ends.push(this.tape.length);
      this.seqs.push(seq);
      this.timestamps.push(ts);
      this.lastEventSeq = seq;
    }
    this.tape.onEvent(event);
  };

  /** Whether batches were added since the last `take`. */
  get pending(): boolean {
    return this.lastSeq !== 0;
  }

  /** Commands in the batches added since the last `take`. */
  get commands(): number {
    return this.lastSeq === 0 ? 0 : this.lastSeq - this.firstSeq + 1;
  }

  /** Adds a batch; it must follow the last one added without a gap. */
  add(batch: DurableBatch): void {
    if (this.lastSeq === 0) this.firstSeq = batch.firstSeq;
    else if (batch.firstSeq !== this.lastSeq + 1) throw new Error(`batch ${batch.firstSeq}..${batch.lastSeq} does not follow seq ${this.lastSeq}`);
    this.lastSeq = batch.lastSeq;
    batch.forEachEvent(this.visit);
  }

  /** Everything added since the last take, as one packed batch; then the packer is empty again. */
  take(): PackedBatch {
    if (this.lastSeq === 0) throw new Error('nothing to take');
    if (this.seqs.length > 0) this.ends.push(this.tape.length);
    const packed: PackedBatch = {
      firstSeq: this.firstSeq,
      lastSeq: this.lastSeq,
      numbers: this.tape.numbers.slice(0, this.tape.length),
      strings: this.tape.strings.slice(),
      objects: this.tape.objects.slice(),
      seqs: Float64Array.from(this.seqs),
      timestamps: Float64Array.from(this.timestamps),
      ends: Float64Array.from(this.ends),
    };
    this.tape.reset();
    this.seqs.length = 0;
    this.timestamps.length = 0;
    this.ends.length = 0;
    this.firstSeq = 0;
    this.lastSeq = 0;
    this.lastEventSeq = 0;
    return packed;
  }

  /** Packs one batch on its own. */
  pack(batch: DurableBatch): PackedBatch {
    this.add(batch);
    return this.take();
  }
}

/** What to list in postMessage's transfer list: the packed batch's buffers change owner instead of being copied. */
export function transferables(packed: PackedBatch): ArrayBuffer[] {
  return [packed.numbers.buffer, packed.seqs.buffer, packed.timestamps.buffer, packed.ends.buffer];
}

/** A packed batch read back as a DurableBatch, on whichever thread received it. */
export class PackedBatchView implements DurableBatch {
  readonly firstSeq: number;
  readonly lastSeq: number;
  private readonly tape: EventTape;
  private readonly reader = new TapeReader();

  constructor(private readonly packed: PackedBatch) {
    this.firstSeq = packed.firstSeq;
    this.lastSeq = packed.lastSeq;
    this.tape = EventTape.of(packed.numbers, packed.strings, packed.objects);
  }

  forEachDomainEvent(visit: (event: DomainEvent, seq: number, ts: number) => void): void {
    visitDomainEvents(this, visit);
  }

  forEachEvent(visit: (event: EngineEvent, seq: number, ts: number) => void): void {
    const { seqs, timestamps, ends } = this.packed;
    let start = 0;
    for (let index = 0; index < seqs.length; index++) {
      const seq = seqs[index]!;
      const ts = timestamps[index]!;
      const end = ends[index]!;
      this.reader.read(this.tape, start, end, (event) => visit(event, seq, ts));
      start = end;
    }
  }
}
