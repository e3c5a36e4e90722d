/**
 * The golden journal in fixtures/ guards the format and the rules: it must replay to its recorded state
 * hash, and re-encoding its commands must give back its exact bytes. Its bytes never change: written in
 * format version 1, it also proves that a build writing a newer version still reads the older one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Command } from '../core/commands.ts';
import { Engine } from '../core/engine.ts';
import { Result } from '../core/results.ts';
import { stateHash } from '../core/state-hash.ts';
import { loadMarkets } from '../runtime/markets.ts';
import { FrameEncoder, encodeSegmentHeader, journalFormatVersion } from './codec.ts';
import { readJournal } from './reader.ts';
import { useRulesOf } from './rules.ts';
import { listSegments } from './segments.ts';
import { platformDomains } from '../domains/index.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/journals/', import.meta.url));
const golden = JSON.parse(readFileSync(join(fixtures, 'golden.json'), 'utf8')) as {
  journal: string;
  format_version: number;
  commands: number;
  state_hash: string;
};

test('the golden journal replays to its recorded state hash', () => {
  assert.ok(golden.format_version <= journalFormatVersion, 'this build reads the golden journal s format version');
  const engine = new Engine({ markets: loadMarkets(), domains: platformDomains });
  const summary = readJournal(join(fixtures, golden.journal), (command, formatVersion) => {
    useRulesOf(engine, formatVersion);
    assert.equal(engine.apply(command), Result.ok);
  });
  assert.equal(summary.commands, golden.commands);
  assert.equal(stateHash(engine), golden.state_hash);
});

const goldenDomains = JSON.parse(readFileSync(join(fixtures, 'golden-domains.json'), 'utf8')) as typeof golden;

test('the golden domain journal (the simulated commands of every domain) replays to its recorded state hash', () => {
  const engine = new Engine({ markets: loadMarkets(), domains: platformDomains });
  let refused = 0;
  const summary = readJournal(join(fixtures, goldenDomains.journal), (command, formatVersion) => {
    useRulesOf(engine, formatVersion);
    // The generator journals refusals too (its simulations test them), so a refusal is not a failure here.
    if (engine.apply(command) !== Result.ok) refused++;
  });
  assert.equal(summary.commands, goldenDomains.commands);
  assert.ok(refused < summary.commands / 2, `${refused} refusals`);
  assert.equal(stateHash(engine), goldenDomains.state_hash);
});

test('re-encoding the golden journal gives back its exact bytes', () => {
  const segments = listSegments(join(fixtures, golden.journal));
  assert.equal(segments.length, 1);
  const commands: Command[] = [];
  readJournal(segments, (command) => commands.push(command));
  const encoder = new FrameEncoder();
  for (const command of commands) assert.ok(encoder.append(command) > 0);
  const rebuilt = Buffer.concat([encodeSegmentHeader(1, golden.format_version), encoder.bytes()]);
  assert.ok(rebuilt.equals(readFileSync(segments[0]!.path)));
});
