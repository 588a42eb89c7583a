import assert from 'node:assert/strict';
import { test } from 'node:test';

import { type McpItem, mcpItems, showMcpServers } from '../src/mcp';
import { MCP_STATUS, type McpStatusResult } from '../src/protocol';

const status: McpStatusResult = {
  servers: [
    {
      name: 'time', origin: 'user', transport: 'stdio', target: 'uvx mcp-server-time', state: 'connected',
      tools: ['mcp__time__get_current_time', 'mcp__time__convert_time'], skipped: [], trusted: true,
    },
    {
      name: 'db', origin: 'workspace', transport: 'stdio', target: './db-mcp', state: 'failed',
      error: 'the server exited before it was ready; stderr: no db', tools: [], skipped: [], trusted: false,
    },
  ],
  problems: ['mcp.json: mcpServers.x.argz: unknown setting'],
};

test('each server is a row: state, tool count, and the reason of a failure', () => {
  assert.deepEqual(mcpItems(status), [
    {
      label: '$(pass) time',
      description: 'connected · 2 tools · user · stdio · trusted',
      detail: 'uvx mcp-server-time: mcp__time__get_current_time, mcp__time__convert_time',
    },
    {
      label: '$(error) db',
      description: 'failed · workspace · stdio',
      detail: 'the server exited before it was ready; stderr: no db',
    },
    { label: '$(warning) configuration', description: 'problem', detail: 'mcp.json: mcpServers.x.argz: unknown setting' },
  ]);
});

test('the command asks ink/mcp/status and titles the list with the failures', async () => {
  const asked: string[] = [];
  let shown: { items: McpItem[]; title: string } | undefined;
  await showMcpServers(
    (method) => {
      asked.push(method);
      return Promise.resolve(status);
    },
    (items, title) => Promise.resolve((shown = { items, title })),
    () => assert.fail('nothing to inform about'),
  );
  assert.deepEqual(asked, [MCP_STATUS]);
  assert.equal(shown?.title, 'Ink: MCP Servers (2, 1 failed)');
  assert.equal(shown?.items.length, 3);
});

test('no servers: a message instead of an empty list', async () => {
  const said: string[] = [];
  await showMcpServers(
    () => Promise.resolve({ servers: [], problems: [] }),
    () => assert.fail('no list'),
    (m) => said.push(m),
  );
  assert.match(said[0] ?? '', /no MCP servers configured/);
});
