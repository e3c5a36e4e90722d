import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNode, stopProcessAndOutput } from '../lib.ts';
import { stoppedCounts } from './group-commit.ts';

test('the durable hello-world answers 201 with an order\'s headers, has every body in its file, and counts its writes on stop', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'durable-hello-'));
  const file = join(dir, 'durable.bin');
  const server = await startNode('the durable hello-world server', ['--import', 'tsx', fileURLToPath(new URL('./durable-hello.ts', import.meta.url))], {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: '0',
    DURABLE_FILE: file,
    DURABLE_SYNC: 'sync',
  });
  try {
    const bodies = Array.from({ length: 5 }, (_, index) => `{"side":"buy","client_order_id":"durable-${index}-${'x'.repeat(index * 40)}"}`);
    const answers = await Promise.all(
      bodies.map(async (body) => {
        const response = await fetch(`http://127.0.0.1:${server.port}/api/v1/exchange/eth/orders`, { method: 'POST', body });
        return { status: response.status, json: (await response.json()) as { status: string }, headers: response.headers, body };
      }),
    );
    // That none is answered before its write returns is group-commit.test.ts's; here, the wiring.
    const written = readFileSync(file, 'latin1');
    for (const answer of answers) {
      assert.equal(answer.status, 201);
      assert.equal(answer.json.status, 'open');
      assert.equal(answer.headers.get('x-ratelimit-limit'), '600000');
      assert.ok(written.includes(answer.body), `${answer.body} is in the file`);
    }
  } finally {
    await stopProcessAndOutput(server.process);
  }
  const stopped = stoppedCounts(server.output);
  assert.equal(stopped.length, 1, 'one count on stop');
  assert.equal(stopped[0]!.requests, 5);
  assert.ok(stopped[0]!.writes >= 1 && stopped[0]!.writes <= 5);
  rmSync(dir, { recursive: true, force: true });
});
