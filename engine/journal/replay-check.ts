/**
 * The check every domain's tests make of a seeded run: its accepted commands, written through the real
 * frame codec and read back, replay into a fresh engine to the live engine's state hash, and a snapshot of
 * the live engine restores to that hash too. One place for it, so each domain's test names only its run.
 */
import type { Command } from '../core/commands.ts';
import type { Engine } from '../core/engine.ts';
import { Result } from '../core/results.ts';
import { restoreSnapshot, takeSnapshot } from '../core/snapshot.ts';
import { stateHash } from '../core/state-hash.ts';
import { FrameDecoder, FrameEncoder, FrameStatus } from './codec.ts';

/** Makes a fresh engine like the live one (same markets and domains). */
export type EngineMaker = () => Engine;

/**
 * Replays `journal` (commands the live engine accepted, in order) through the frame codec into a fresh
 * engine and restores a snapshot of `live` into another; throws unless every command is accepted again and
 * both reach `live`'s state hash. Returns the two engines for the caller's own comparisons.
 */
export function checkReplayAndRestore(live: Engine, journal: readonly Command[], makeEngine: EngineMaker): { replayed: Engine; restored: Engine } {
  const encoder = new FrameEncoder(64);
  for (const command of journal) {
    if (encoder.append(command) <= 0) throw new Error(`command seq ${command.seq} does not fit a journal frame`);
  }
  const decoder = new FrameDecoder(encoder.bytes());
  const replayed = makeEngine();
  let count = 0;
  for (let command = decoder.next(); command !== null; command = decoder.next()) {
    const result = replayed.apply(command);
    if (result !== Result.ok) throw new Error(`replayed command seq ${command.seq} was refused (${result})`);
    count++;
  }
  if (decoder.status !== FrameStatus.ok) throw new Error(`the journal did not decode to its end (status ${decoder.status})`);
  if (count !== journal.length) throw new Error(`decoded ${count} of ${journal.length} commands`);
  const liveHash = stateHash(live);
  if (stateHash(replayed) !== liveHash) throw new Error('the replayed engine does not reach the live state hash');
  const restored = makeEngine();
  restoreSnapshot(restored, takeSnapshot(live));
  if (stateHash(restored) !== liveHash) throw new Error('the restored snapshot does not reach the live state hash');
  return { replayed, restored };
}
