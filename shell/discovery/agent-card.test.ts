/**
 * The served agent card against the A2A SDK: it is the SDK's own JSON form of the typed card (read back and
 * written again by the SDK it is unchanged, and it equals the SDK's writing of `agentCard`), every field the
 * SDK's `AgentCard` type requires is there and filled, the MCP endpoint is its interface, and it lists a
 * skill for every domain tag.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentCard } from '@a2a-js/sdk';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { agentCard, agentCardVersion } from './agent-card.ts';
import { isPublic, tagDescriptionOf, tagsOf } from './openapi.ts';

/** The keys the SDK's AgentCard type requires (a value that may not be undefined). */
type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];
// Listing them as a record makes the compiler reject this file when the SDK's type requires another field.
const requiredKeys: Record<RequiredKeys<AgentCard>, true> = {
  name: true,
  description: true,
  supportedInterfaces: true,
  version: true,
  securitySchemes: true,
  securityRequirements: true,
  defaultInputModes: true,
  defaultOutputModes: true,
  skills: true,
  signatures: true,
};

test('GET /.well-known/agent-card.json is an A2A agent card in the SDK\'s JSON form, naming the MCP endpoint', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-card-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir, PUBLIC_BASE_URL: 'https://trade.example.com/' }), silentLog);
  try {
    const response = await fetch(`http://127.0.0.1:${server.port}/.well-known/agent-card.json`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const served = (await response.json()) as Record<string, unknown>;

    const card = AgentCard.fromJSON(served);
    assert.deepEqual(AgentCard.toJSON(card), served, 'the SDK reads and writes it back unchanged');
    const tags = [...new Set(server.table.routes.filter(isPublic).flatMap((route) => tagsOf(route)))];
    assert.deepEqual(AgentCard.toJSON(agentCard('https://trade.example.com', tags, (tag) => tagDescriptionOf(server.table, tag))), served, 'the SDK writes the typed card as served');

    for (const key of Object.keys(requiredKeys) as Array<keyof typeof requiredKeys>) {
      if (key === 'signatures') continue; // An unsigned card: the SDK writes no empty list.
      assert.ok(key in served, `${key} is served`);
    }
    assert.ok(card.name.length > 0 && card.description.length > 0);
    assert.equal(card.version, agentCardVersion);
    assert.equal(card.version, '1.0.0');
    assert.deepEqual(card.provider, { url: 'https://trade.example.com', organization: card.name });
    assert.deepEqual(
      card.supportedInterfaces.map((entry) => [entry.url, entry.protocolBinding]),
      [['https://trade.example.com/mcp/v1', 'MCP']],
    );
    assert.ok(card.supportedInterfaces[0]!.protocolVersion.length > 0);
    assert.equal(card.capabilities?.streaming, true);
    assert.deepEqual(Object.keys(card.securitySchemes).sort(), ['apiKey', 'bearer']);
    assert.deepEqual(card.securitySchemes['apiKey']!.scheme, { $case: 'apiKeySecurityScheme', value: { description: card.securitySchemes['apiKey']!.scheme!.value.description, location: 'header', name: 'X-API-Key' } });
    assert.equal(card.securitySchemes['bearer']!.scheme?.$case, 'httpAuthSecurityScheme');
    assert.ok(card.defaultInputModes.includes('application/json') && card.defaultOutputModes.includes('application/json'));
    assert.deepEqual(card.skills.map((skill) => skill.name).sort(), [...tags].sort(), 'a skill per domain tag');
    assert.ok(card.skills.every((skill) => skill.id.length > 0 && skill.description.length > 0 && skill.tags.length > 0));
    assert.equal(new Set(card.skills.map((skill) => skill.id)).size, card.skills.length, 'skill ids are unique');
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
