/**
 * The official MCP conformance suite against a started server (as `npm run conformance` runs it): every
 * server scenario, checked against conformance-baseline.yaml (the scenarios that ask for the suite's own
 * fixture tools and prompts, or for capabilities the platform does not offer), and the ones the platform
 * must pass named here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { baselinePath, runConformance } from './conformance.ts';

const required = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'resources-read-text', 'dns-rebinding-protection', 'prompts-list', 'completion-complete', 'server-sse-multiple-streams'];

test('the MCP conformance suite passes its applicable server scenarios', async () => {
  const run = await runConformance(['--suite', 'all', '--expected-failures', baselinePath]);
  for (const scenario of required) assert.equal(run.passed.get(scenario), true, `${scenario} passes\n${run.output}`);
  assert.equal(run.status, 0, `no failure outside the baseline, and no baseline entry passing\n${run.output}`);
});
