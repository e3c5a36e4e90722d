/**
 * The second baseline of bench:http: hello-world that answers only once the request is on disk. A bare
 * uWebSockets.js server that reads each request's body, appends it to a file the way the journal appends a
 * batch (one write of everything that arrived since the last one, on libuv's pool, onto zeros written
 * ahead, the file opened with O_DSYNC so that the write returns once the bytes are durable: group commit),
 * and when that write returns answers every request in it with a 201 of an order's size and headers. It
 * does nothing else: no parsing, no auth, no engine, no read models. What it reaches is the ceiling of any
 * server that acknowledges a request only when it is durable, on this machine, with wrk's load.
 *
 * Environment: PORT and HOST as for hello.ts; DURABLE_FILE, the file to write (created, 64 MiB of zeros
 * written and synced before it listens, then written round and round); DURABLE_SYNC `sync` (O_DSYNC, the
 * default) or `none` (plain writes, as JOURNAL_SYNC=none). On SIGTERM it prints one JSON line
 * `{"event":"stopped","writes":…,"requests":…}` before it exits.
 */
import { closeSync, constants, fsyncSync, openSync, write, writeSync } from 'node:fs';
import uWS from 'uWebSockets.js';
import { listenAndAnnounce } from '../listen.ts';
import { GroupCommit, stoppedLine } from './group-commit.ts';

const path = process.env['DURABLE_FILE'];
if (path === undefined || path === '') throw new Error('DURABLE_FILE is required');
const sync = (process.env['DURABLE_SYNC'] ?? 'sync') === 'sync';
const fileBytes = 64 << 20;

// Zeros ahead, synced, so that the timed writes neither grow the file nor change its size on disk.
const zeros = Buffer.alloc(1 << 20);
const setup = openSync(path, 'w');
for (let offset = 0; offset < fileBytes; offset += zeros.length) writeSync(setup, zeros, 0, zeros.length, offset);
fsyncSync(setup);
closeSync(setup);
const fd = openSync(path, constants.O_WRONLY | (sync ? constants.O_DSYNC : 0));

/** An order's 201 as the order server sends it (a post-only sell, no fills): the same bytes to send. */
const answerBody = JSON.stringify({
  order_id: '1',
  client_order_id: 'k1r1n1x1',
  symbol: 'ETH',
  pair: 'ETH/USDC',
  side: 'sell',
  order_type: 'limit',
  time_in_force: 'GTC',
  post_only: true,
  stp: 'cancel_taker',
  quantity: '0.0100',
  price: '3000.01',
  stop_price: null,
  mode: 'live',
  status: 'open',
  filled_quantity: '0.0000',
  average_price: null,
  created_at: '2026-11-29T12:17:00.319Z',
  twap_id: null,
  scale_id: null,
  sim_tx_hash: null,
  fills: [],
});

interface Waiting {
  readonly res: uWS.HttpResponse;
  aborted: boolean;
}

function answer(request: Waiting): void {
  if (request.aborted) return;
  const res = request.res;
  res.cork(() => {
    res.writeStatus('201 Created');
    res.writeHeader('Content-Type', 'application/json');
    res.writeHeader('X-RateLimit-Limit', '600000');
    res.writeHeader('X-RateLimit-Remaining', '599999');
    res.writeHeader('X-RateLimit-Reset', '1795954680');
    res.end(answerBody);
  });
}

// Round and round the file, one write at a time (group-commit.ts).
let offset = 0;
const commits = new GroupCommit<Waiting>((bytes, done) => {
  if (offset + bytes.length > fileBytes) offset = 0;
  const at = offset;
  offset += bytes.length;
  write(fd, bytes, 0, bytes.length, at, (error) => {
    if (error !== null) throw error;
    done();
  });
}, answer);

const app = uWS.App().any('/*', (res) => {
  const request: Waiting = { res, aborted: false };
  res.onAborted(() => {
    request.aborted = true;
  });
  const parts: Buffer[] = [];
  res.onData((chunk, last) => {
    // uWS reuses the chunk's memory after this call: copy it.
    parts.push(Buffer.from(new Uint8Array(chunk)));
    if (!last) return;
    commits.take(request, parts.length === 1 ? parts[0]! : Buffer.concat(parts));
  });
});
process.once('SIGTERM', () => {
  process.stdout.write(stoppedLine(commits));
});
listenAndAnnounce(app);
