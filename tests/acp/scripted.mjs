// A scripted ACP client on the official TypeScript SDK (@agentclientprotocol/sdk): initialize
// with the given capabilities, session/new (cwd, mcpServers, _meta), an optional mode, then the
// prompts one after another. Permission requests are answered from `answers` (the first key
// found in the tool call's title → its optionId; none found fails). Prints a JSON report:
// {sessionId, stops, permissions, updates, times} (times: ms since start, one per update).
//
// Usage: node scripted.mjs SCENARIO.json -- COMMAND...   (the agent command)
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const WAIT_MS = 60000;
const [scenarioPath, sep, ...command] = process.argv.slice(2);
assert.equal(sep, "--", "usage: node scripted.mjs SCENARIO.json -- COMMAND...");
const scenario = JSON.parse(readFileSync(scenarioPath, "utf8"));

function withTimeout(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const report = { stops: [], permissions: [], updates: [], times: [] };
const started = Date.now();
const app = client({ name: "ink-acp-scripted-test" })
  .onNotification(methods.client.session.update, ({ params }) => {
    report.updates.push(params.update);
    report.times.push(Date.now() - started);
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    report.permissions.push(params.toolCall);
    const title = params.toolCall.title ?? "";
    const key = Object.keys(scenario.answers ?? {}).find((k) => title.includes(k));
    assert.ok(key, `unexpected permission request: ${title}`);
    return { outcome: { outcome: "selected", optionId: scenario.answers[key] } };
  });

const child = spawn(command[0], command.slice(1), { cwd: scenario.cwd, stdio: ["pipe", "pipe", "inherit"] });
const conn = app.connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
const agent = conn.agent;
await withTimeout(
  agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: scenario.caps ?? { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  }),
  "initialize",
);
const params = { cwd: scenario.cwd, mcpServers: scenario.mcpServers ?? [] };
if (scenario.meta) params._meta = scenario.meta;
const session = await withTimeout(agent.request(methods.agent.session.new, params), "session/new");
report.sessionId = session.sessionId;
if (scenario.mode) {
  await agent.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: scenario.mode });
}
for (const text of scenario.prompts ?? []) {
  const done = await withTimeout(
    agent.request(methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: "text", text }] }),
    `prompt ${text}`,
  );
  report.stops.push(done.stopReason);
}
conn.close();
child.stdin.end();
await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on("exit", resolve)));
process.stdout.write(JSON.stringify(report) + "\n");
