/**
 * The "Ink: MCP Servers" command: asks the running ink-ls for `ink/mcp/status` and lists each
 * MCP server (connected with its tool count, failed with the reason, not started and why).
 * Pure apart from the two callbacks it is given: no `vscode` import, so node:test covers it.
 * The wire name and shapes come from the generated protocol types (`ink/mcp/status`).
 */

import { MCP_STATUS, type McpServerInfo, type McpStatusResult } from './protocol';

/** One row of the quick pick. */
export interface McpItem {
  label: string;
  description: string;
  detail: string;
}

const ICONS: Record<McpServerInfo['state'], string> = {
  connected: '$(pass)',
  failed: '$(error)',
  starting: '$(loading~spin)',
  stopped: '$(circle-slash)',
  'not started': '$(warning)',
};

/** The quick-pick rows for a status: one per server, then one per configuration problem. */
export function mcpItems(status: McpStatusResult): McpItem[] {
  const items = status.servers.map((s) => {
    const count = `${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}`;
    const state = s.state === 'connected' ? `connected · ${count}` : s.state;
    const notes = [s.error, ...s.skipped.map((k) => `left out: ${k}`)].filter((n) => n !== undefined);
    return {
      label: `${ICONS[s.state]} ${s.name}`,
      description: `${state} · ${s.origin} · ${s.transport}${s.trusted === true ? ' · trusted' : ''}`,
      detail: notes.length > 0 ? notes.join(' — ') : `${s.target}: ${s.tools.join(', ')}`,
    };
  });
  for (const problem of status.problems ?? []) {
    items.push({ label: '$(warning) configuration', description: 'problem', detail: problem });
  }
  return items;
}

/** Runs the command: fetch the status, show it (or say there is nothing to show). */
export async function showMcpServers(
  request: (method: string, params: object) => Promise<McpStatusResult>,
  show: (items: McpItem[], title: string) => PromiseLike<unknown>,
  inform: (message: string) => unknown,
): Promise<void> {
  const status = await request(MCP_STATUS, {});
  const items = mcpItems(status);
  if (items.length === 0) {
    inform('Ink: no MCP servers configured (.mcp.json in the workspace, ~/.config/ink-ls/mcp.json, or ink.mcpServers).');
    return;
  }
  const failed = status.servers.filter((s) => s.state === 'failed').length;
  await show(items, `Ink: MCP Servers (${status.servers.length}${failed > 0 ? `, ${failed} failed` : ''})`);
}
