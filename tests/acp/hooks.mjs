// Hook runs through `ink-ls --acp`, with the official TypeScript ACP SDK as the client: each run
// of a hook of the user's settings arrives as a tool call of kind `execute` ("hook PreToolUse:
// …", in progress) and ends completed, or failed with the blocking hook's message as content.
// Prints every session update it got as one JSON line on stdout (the test asserts on them).
//
// Usage: node hooks.mjs WORKSPACE -- COMMAND...
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const WAIT_MS = 60000;
const [workspace, sep, ...command] = process.argv.slice(2);
assert.equal(sep, "--", "usage: node hooks.mjs WORKSPACE -- COMMAND...");

function withTimeout(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const updates = [];
const app = client({ name: "ink-acp-hooks-test" })
  .onNotification(methods.client.session.update, ({ params }) => {
    updates.push(params.update);
  })
  .onRequest(methods.client.session.requestPermission, () => ({
    outcome: { outcome: "selected", optionId: "allow_once" },
  }));

const child = spawn(command[0], command.slice(1), { cwd: workspace, stdio: ["pipe", "pipe", "inherit"] });
const conn = app.connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
const agent = conn.agent;
await withTimeout(
  agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { terminal: false } }),
  "initialize",
);
const session = await agent.request(methods.agent.session.new, { cwd: workspace, mcpServers: [] });
const done = await withTimeout(
  agent.request(methods.agent.session.prompt, {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text: "delete data.txt" }],
  }),
  "prompt",
);
assert.equal(done.stopReason, "end_turn");
conn.close();
child.stdin.end();
await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on("exit", resolve)));
process.stdout.write(JSON.stringify({ updates }) + "\n");
