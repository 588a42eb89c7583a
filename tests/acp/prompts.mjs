// Drives `ink-ls --acp` with the official TypeScript ACP SDK through one long session: every
// prompt given in PROMPTS_JSON (a JSON list of strings) in order, in one session, each answered
// before the next is sent. Reads go through this client's fs (the disk). Prints a JSON report:
// the session id, each prompt's stop reason and every session/update received.
//
// Usage: PROMPTS_JSON='["…", …]' node prompts.mjs WORKSPACE -- COMMAND...
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const [workspace, sep, ...command] = process.argv.slice(2);
assert.equal(sep, "--", "usage: node prompts.mjs WORKSPACE -- COMMAND...");
const prompts = JSON.parse(process.env.PROMPTS_JSON ?? "[]");
assert.ok(prompts.length > 0, "PROMPTS_JSON names no prompt");

const updates = [];
const app = client({ name: "ink-acp-ts-long-session" })
  .onNotification(methods.client.session.update, ({ params }) => {
    updates.push(params.update);
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    throw new Error(`unexpected permission request: ${params.toolCall.title}`);
  })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => ({
    content: readFileSync(params.path, "utf8"),
  }));

const child = spawn(command[0], command.slice(1), { cwd: workspace, stdio: ["pipe", "pipe", "inherit"] });
const conn = app.connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
const agent = conn.agent;
await agent.request(methods.agent.initialize, {
  protocolVersion: PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: false },
});
const { sessionId } = await agent.request(methods.agent.session.new, { cwd: workspace, mcpServers: [] });
const stopReasons = [];
for (const text of prompts) {
  const result = await agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text }],
  });
  stopReasons.push(result.stopReason);
}
conn.close();
child.stdin.end();
await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on("exit", resolve)));
process.stdout.write(JSON.stringify({ sessionId, stopReasons, updates }) + "\n");
