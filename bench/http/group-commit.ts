/**
 * The durable hello-world's group commit (bench/http/durable-hello.ts), apart from uWS and the file so that
 * it can be tested: requests are taken with their bodies; while no write is in flight, everything taken
 * since the last write goes out in one write of the bodies concatenated in arrival order; when a write
 * returns, each of its requests is answered, in order, and whatever arrived meanwhile is written next. So
 * no request is answered before a write holding its body has returned, and one write is in flight at most,
 * as the journal writes its batches.
 */
/** What a group commit did, as the durable hello-world prints it on stop: one JSON line. */
export interface StoppedCounts {
  readonly writes: number;
  readonly requests: number;
}

export function stoppedLine(commits: StoppedCounts): string {
  return JSON.stringify({ event: 'stopped', writes: commits.writes, requests: commits.requests }) + '\n';
}

/** The counts of every `stoppedLine` in a process's output. */
export function stoppedCounts(output: readonly string[]): StoppedCounts[] {
  return output
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{"event":"stopped"'))
    .map((line) => JSON.parse(line) as StoppedCounts);
}

export class GroupCommit<Request> {
  private waiting: Request[] = [];
  private bodies: Buffer[] = [];
  private bodyBytes = 0;
  private writing = false;
  /** Writes that returned, and the requests they answered. */
  writes = 0;
  requests = 0;

  constructor(
    /** Writes `bytes`; calls `done` once they are durable. */
    private readonly write: (bytes: Buffer, done: () => void) => void,
    private readonly answer: (request: Request) => void,
  ) {}

  take(request: Request, body: Buffer): void {
    this.waiting.push(request);
    this.bodies.push(body);
    this.bodyBytes += body.length;
    if (!this.writing) this.writeWaiting();
  }

  private writeWaiting(): void {
    this.writing = true;
    const batch = this.waiting;
    const bytes = Buffer.concat(this.bodies, this.bodyBytes);
    this.waiting = [];
    this.bodies = [];
    this.bodyBytes = 0;
    this.write(bytes, () => {
      this.writes++;
      this.requests += batch.length;
      for (const request of batch) this.answer(request);
      this.writing = false;
      if (this.waiting.length > 0) this.writeWaiting();
    });
  }
}
