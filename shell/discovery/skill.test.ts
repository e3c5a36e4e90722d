/**
 * SKILL.md: served as written (text/markdown), with YAML front matter naming it and describing it, and
 * every example in it run against a started server in order. An `http` block is a request (request line,
 * headers, a blank line, a body) and the line under it, `→ `201` with `api_key` ...`, says the status and
 * the fields of the answer; `{{name}}` in a request is the value of field `name` in an earlier answer. A
 * `ws` block is a stream path and the frames to send, and `→ messages `a`, `b`` the types of the first
 * messages that come back, in order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { loadConfig } from '../config.ts';
import { silentLog } from '../log.ts';
import { startServer } from '../server.ts';
import { checkResponse } from '../http/test-client.ts';
import { markdownType, skillPath } from './discovery-routes.ts';

interface Example {
  readonly kind: 'http' | 'ws';
  readonly lines: string[];
  readonly expectation: string;
}

function frontMatter(text: string): Record<string, string> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  assert.ok(match !== null, 'SKILL.md opens with YAML front matter');
  return Object.fromEntries(
    match[1]!.split('\n').map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
    }),
  );
}

function examples(text: string): Example[] {
  const found = [...text.matchAll(/```(http|ws)\n([\s\S]*?)```\n\n→ ([^\n]+)/g)].map((match) => ({
    kind: match[1] as 'http' | 'ws',
    lines: match[2]!.replace(/\n$/, '').split('\n'),
    expectation: match[3]!,
  }));
  assert.equal(found.length, [...text.matchAll(/```(http|ws)\n/g)].length, 'every example is followed by what it answers');
  return found;
}

/** The backticked words of an expectation line. */
function quoted(line: string): string[] {
  return [...line.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
}

function wsMessages(port: number, path: string, frames: readonly string[], count: number): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`);
    const received: Array<Record<string, unknown>> = [];
    socket.on('open', () => {
      for (const frame of frames) socket.send(frame);
    });
    socket.on('message', (data) => {
      received.push(JSON.parse(String(data)) as Record<string, unknown>);
      if (received.length === count) {
        socket.close();
        resolve(received);
      }
    });
    socket.on('error', reject);
  });
}

test('SKILL.md is served with its front matter, and every example in it answers as the text says', async () => {
  const text = readFileSync(skillPath, 'utf8');
  const meta = frontMatter(text);
  assert.match(meta['name'] ?? '', /^[a-z0-9]+(-[a-z0-9]+)*$/, 'name: lowercase words joined by hyphens');
  assert.ok((meta['description'] ?? '').length > 20 && (meta['description'] ?? '').length <= 1024, 'a description');
  for (const topic of ['/mcp/v1/register', 'X-API-Key', 'Authorization: Bearer', '/mcp/v1', '/asyncapi.json', '/openapi-public.json']) assert.ok(text.includes(topic), topic);

  const dataDir = mkdtempSync(join(tmpdir(), 'skill-'));
  const server = await startServer(loadConfig({ PORT: '0', AMM_CHAINS: '', DATA_DIR: dataDir }), silentLog);
  try {
    const served = await fetch(`http://127.0.0.1:${server.port}/.well-known/skills/default/SKILL.md`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), markdownType);
    assert.equal(await served.text(), text);

    const found = examples(text);
    assert.ok(found.filter((example) => example.kind === 'http').length >= 8 && found.some((example) => example.kind === 'ws'), 'requests and streams are shown');
    const values = new Map<string, string>();
    const fill = (line: string) =>
      line.replace(/\{\{([a-z_]+)\}\}/g, (_all, name: string) => {
        const value = values.get(name);
        assert.ok(value !== undefined, `{{${name}}} comes from an earlier answer`);
        return value;
      });
    for (const example of found) {
      const [method, path] = fill(example.lines[0]!).split(' ') as [string, string];
      const words = quoted(example.expectation);
      if (example.kind === 'ws') {
        assert.equal(method, 'GET');
        const frames = example.lines.slice(1).map(fill);
        const messages = await wsMessages(server.port, path, frames, words.length);
        assert.deepEqual(messages.map((message) => message['type']), words, `${path}: the messages it shows`);
        continue;
      }
      const blank = example.lines.indexOf('');
      const headerLines = example.lines.slice(1, blank < 0 ? undefined : blank).map(fill);
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
      const body = blank < 0 ? undefined : fill(example.lines.slice(blank + 1).join('\n'));
      const response = await fetch(`http://127.0.0.1:${server.port}${path}`, { method, headers, body });
      const answer = (await response.json()) as Record<string, unknown>;
      const [status, ...fields] = words;
      assert.equal(String(response.status), status, `${method} ${path}: ${JSON.stringify(answer)}`);
      checkResponse(server, method, path, response.status, answer);
      for (const field of fields) assert.ok(field in answer, `${method} ${path}: the answer has ${field}`);
      for (const [name, value] of Object.entries(answer)) if (typeof value === 'string' || typeof value === 'number') values.set(name, String(value));
    }
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
