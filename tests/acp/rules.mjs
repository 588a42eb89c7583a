// Permission rules and plan mode through `ink-ls --acp`, with the official TypeScript ACP SDK as
// the client: the user's allow rule runs a command unasked, the project's deny rule refuses one
// unasked, an unruled command is asked with "Always in this project" (chosen: the rule is saved),
// and in Plan mode nothing changes until "Approve and continue in Auto", which goes on in the
// same prompt. Asserts as it goes, prints a JSON report on stdout.
//
// Usage: node rules.mjs WORKSPACE -- COMMAND...
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const WAIT_MS = 30000;
const [workspace, sep, ...command] = process.argv.slice(2);
assert.equal(sep, "--", "usage: node rules.mjs WORKSPACE -- COMMAND...");
const appPath = join(workspace, "app.py");

function withTimeout(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const state = { updates: [], permissions: [], appAtPlan: null };
const app = client({ name: "ink-acp-rules-test" })
  .onNotification(methods.client.session.update, ({ params }) => {
    state.updates.push(params.update);
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    const ids = params.options.map((o) => o.optionId);
    state.permissions.push({ title: params.toolCall.title, options: ids });
    if (params.toolCall.toolCallId === "ink-plan") {
      state.appAtPlan = readFileSync(appPath, "utf8");
      return { outcome: { outcome: "selected", optionId: "plan_auto" } };
    }
    if ((params.toolCall.title ?? "").startsWith("Trust the workspace")) {
      // the saved rule changed the project's files: trust is asked again (and refused)
      return { outcome: { outcome: "selected", optionId: "reject" } };
    }
    return { outcome: { outcome: "selected", optionId: "allow_project" } };
  });

const child = spawn(command[0], command.slice(1), { cwd: workspace, stdio: ["pipe", "pipe", "inherit"] });
const conn = app.connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
const agent = conn.agent;
await withTimeout(
  agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { terminal: false } }),
  "initialize",
);
const session = await agent.request(methods.agent.session.new, { cwd: workspace, mcpServers: [] });
const sessionId = session.sessionId;
assert.ok(session.modes.availableModes.some((m) => m.id === "plan" && m.name === "Plan"));

// ---- ask mode: allowed, denied, asked ----------------------------------------------------------
const first = await withTimeout(
  agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "go" }] }),
  "rules prompt",
);
assert.equal(first.stopReason, "end_turn");
assert.deepEqual(
  state.permissions.map((p) => p.title),
  ["Run command: touch asked.txt"],
  "only the command no rule decides is asked",
);
assert.deepEqual(state.permissions[0].options, ["allow_once", "allow_always", "allow_project", "reject"]);
assert.ok(existsSync(join(workspace, "user-allowed.txt")), "the user's allow rule ran it");
assert.ok(existsSync(join(workspace, "asked.txt")));
assert.ok(existsSync(join(workspace, "keep.txt")), "the project's deny rule refused rm");
const local = JSON.parse(readFileSync(join(workspace, ".ink/settings.local.json"), "utf8"));
assert.deepEqual(local, { permissions: { allow: ["Bash(touch asked.txt)"] } });

// ---- plan mode --------------------------------------------------------------------------------
await agent.request(methods.agent.session.setMode, { sessionId, modeId: "plan" });
const planned = await withTimeout(
  agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "say bye" }] }),
  "plan prompt",
);
assert.equal(planned.stopReason, "end_turn");
assert.equal(state.appAtPlan, "print('disk')\n", "nothing changed before the approval");
assert.equal(readFileSync(appPath, "utf8"), "print('bye')\n", "after it, the same prompt changed it");
const plan = state.permissions.at(-1);
assert.equal(plan.title, "Approve the plan?");
assert.deepEqual(plan.options, ["plan_ask", "plan_auto", "plan_reject"]);
const modes = state.updates.filter((u) => u.sessionUpdate === "current_mode_update").map((u) => u.currentModeId);
assert.deepEqual(modes, ["plan", "auto"]);
const todos = state.updates.filter((u) => u.sessionUpdate === "plan");
assert.deepEqual(todos.at(-1).entries.map((e) => [e.content, e.status]), [["change app.py", "pending"]]);

conn.close();
child.stdin.end();
await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on("exit", resolve)));
process.stdout.write(JSON.stringify({ permissions: state.permissions.map((p) => p.title) }) + "\n");
