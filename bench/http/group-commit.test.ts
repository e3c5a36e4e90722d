import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupCommit } from './group-commit.ts';

/** A group commit over a fake disk whose writes return only when the test says so. */
function fakeDisk(): { commits: GroupCommit<string>; writes: string[]; finish: () => void; answered: string[] } {
  const writes: string[] = [];
  const pending: (() => void)[] = [];
  const answered: string[] = [];
  const commits = new GroupCommit<string>(
    (bytes, done) => {
      writes.push(bytes.toString());
      pending.push(done);
    },
    (request) => answered.push(request),
  );
  return { commits, writes, answered, finish: () => pending.shift()!() };
}

test('nothing is answered before the write holding it returns; one write is in flight at most', () => {
  const { commits, writes, answered, finish } = fakeDisk();
  commits.take('a', Buffer.from('A'));
  assert.deepEqual(writes, ['A'], 'the first request is written at once');
  commits.take('b', Buffer.from('B'));
  commits.take('c', Buffer.from('CC'));
  assert.deepEqual(writes, ['A'], 'no second write while one is in flight');
  assert.deepEqual(answered, [], 'no answer before the write returns');
  finish();
  assert.deepEqual(answered, ['a']);
  assert.deepEqual(writes, ['A', 'BCC'], 'what arrived meanwhile goes out together, in arrival order');
  commits.take('d', Buffer.from('D'));
  assert.deepEqual(writes, ['A', 'BCC'], 'd waits for the write in flight');
  finish();
  assert.deepEqual(answered, ['a', 'b', 'c']);
  assert.deepEqual(writes, ['A', 'BCC', 'D']);
  finish();
  assert.deepEqual(answered, ['a', 'b', 'c', 'd']);
  assert.equal(commits.writes, 3);
  assert.equal(commits.requests, 4);
  commits.take('e', Buffer.from('E'));
  assert.deepEqual(writes, ['A', 'BCC', 'D', 'E'], 'an idle commit writes the next request at once');
});
