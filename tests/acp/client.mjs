// Drives `ink-ls --acp` with the official TypeScript ACP SDK (@agentclientprotocol/sdk 2.x) as
// the client: initialize, new session, a prompt that reads (through this client's buffer),
// edits (permission allowed), writes (permission rejected) and runs a command; cancel during a
// running `sleep 60`; load of the session in a fresh process. Asserts as it goes, prints a JSON
// report on stdout, exits non-zero on the first failed assertion.
//
// Usage: node client.mjs WORKSPACE -- COMMAND...   (the agent command, e.g. python -m ink_ls --acp)
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const WAIT_MS = 30000;
const [workspace, sep, ...command] = process.argv.slice(2);
assert.equal(sep, "--", "usage: node client.mjs WORKSPACE -- COMMAND...");
const appPath = join(workspace, "app.py");
const BUFFER = "print('buffer')\n";

function withTimeout(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function until(pred, what) {
  const deadline = Date.now() + WAIT_MS;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function gone(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** An editor: buffers, recorded updates, scripted permission answers. */
function editor(answers) {
  const state = { updates: [], permissions: [], reads: [], writes: [], buffers: { [appPath]: BUFFER } };
  const app = client({ name: "ink-acp-ts-test" })
    .onNotification(methods.client.session.update, ({ params }) => {
      state.updates.push(params.update);
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      state.permissions.push(params.toolCall);
      const key = Object.keys(answers).find((k) => (params.toolCall.title ?? "").includes(k));
      assert.ok(key, `unexpected permission request: ${params.toolCall.title}`);
      return { outcome: { outcome: "selected", optionId: answers[key] } };
    })
    .onRequest(methods.client.fs.readTextFile, ({ params }) => {
      state.reads.push(params.path);
      return { content: state.buffers[params.path] ?? readFileSync(params.path, "utf8") };
    })
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
      state.writes.push(params.path);
      state.buffers[params.path] = params.content;
      writeFileSync(params.path, params.content);
      return {};
    });
  return { app, state };
}

function start(app) {
  const child = spawn(command[0], command.slice(1), { cwd: workspace, stdio: ["pipe", "pipe", "inherit"] });
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const conn = app.connect(stream);
  return { child, conn, agent: conn.agent };
}

async function stop({ child, conn }) {
  conn.close();
  child.stdin.end();
  await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on("exit", resolve)));
}

const CAPS = { fs: { readTextFile: true, writeTextFile: true }, terminal: false };
const report = {};

// ---- first process: the full turn, then cancel -----------------------------------------------
{
  const { app, state } = editor({ "app.py": "allow_once", "notes.txt": "reject", echo: "allow_once" });
  const proc = start(app);
  const init = await withTimeout(
    proc.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: CAPS }),
    "initialize",
  );
  assert.equal(init.agentCapabilities.loadSession, true);
  assert.equal(init.agentCapabilities.promptCapabilities.image, true);
  assert.equal(init.agentCapabilities.promptCapabilities.embeddedContext, true);
  const session = await proc.agent.request(methods.agent.session.new, { cwd: workspace, mcpServers: [] });
  assert.deepEqual(session.modes.availableModes.map((m) => m.id), ["ask", "auto", "readonly", "plan"]);
  const sessionId = session.sessionId;

  const result = await withTimeout(
    proc.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: "text", text: "make app.py print edited" },
        { type: "resource", resource: { uri: `file://${appPath}`, text: BUFFER, mimeType: "text/x-python" } },
      ],
    }),
    "prompt",
  );
  assert.equal(result.stopReason, "end_turn");
  assert.ok(result.usage && result.usage.totalTokens > 0, "usage reported");

  assert.deepEqual(state.reads, [appPath, appPath], "read and edit read through the client");
  assert.equal(state.permissions.length, 3);
  const [editQ, writeQ, runQ] = state.permissions;
  assert.equal(editQ.kind, "edit");
  assert.equal(editQ.content[0].type, "diff");
  assert.equal(editQ.content[0].oldText, BUFFER);
  assert.equal(editQ.content[0].newText, "print('edited')\n");
  assert.ok(writeQ.title.includes("notes.txt"));
  assert.equal(runQ.kind, "execute");
  assert.equal(readFileSync(appPath, "utf8"), "print('edited')\n");
  assert.equal(existsSync(join(workspace, "notes.txt")), false, "rejected write left no file");

  const starts = new Map(state.updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => [u.toolCallId, u]));
  assert.deepEqual([...starts.values()].map((u) => u.kind), ["read", "edit", "edit", "execute"]);
  const ends = state.updates.filter(
    (u) => u.sessionUpdate === "tool_call_update" && (u.status === "completed" || u.status === "failed"),
  );
  const byKind = (kind, status) => ends.find((u) => starts.get(u.toolCallId).kind === kind && u.status === status);
  assert.ok(byKind("read", "completed"));
  assert.equal(byKind("edit", "completed").content[0].type, "diff");
  assert.ok(byKind("edit", "failed"), "the rejected write failed");
  assert.match(byKind("execute", "completed").content[0].content.text, /ran-42/);
  const answer = state.updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");
  assert.equal(answer, "Done: app.py now prints edited.");

  // cancel during a running `sleep 60`
  await proc.agent.request(methods.agent.session.setMode, { sessionId, modeId: "auto" });
  const running = proc.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "sleep a minute" }],
  });
  const pidFile = join(workspace, "sleep.pid");
  await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", "sleep.pid");
  const pid = Number(readFileSync(pidFile, "utf8"));
  assert.equal(gone(pid), false, "sleep is running");
  await proc.agent.notify(methods.agent.session.cancel, { sessionId });
  const cancelled = await withTimeout(running, "cancelled prompt");
  assert.equal(cancelled.stopReason, "cancelled");
  await until(() => gone(pid), "sleep to die");
  assert.equal(proc.child.exitCode, null, "the agent stays up after a cancel");
  await stop(proc);
  report.sessionId = sessionId;
  report.sleepPid = pid;
  report.toolKinds = [...starts.values()].map((u) => u.kind);
}

// ---- a fresh process loads the session --------------------------------------------------------
{
  const { app, state } = editor({});
  const proc = start(app);
  await proc.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: CAPS });
  const loaded = await withTimeout(
    proc.agent.request(methods.agent.session.load, { sessionId: report.sessionId, cwd: workspace, mcpServers: [] }),
    "session/load",
  );
  assert.equal(loaded.modes.currentModeId, "ask");
  const users = state.updates.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
  assert.equal(users[0], "make app.py print edited");
  assert.ok(users.includes("sleep a minute"));
  const replayed = state.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text);
  assert.ok(replayed.join("").includes("Done: app.py now prints edited."));
  report.replayedKinds = state.updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.kind);
  await stop(proc);
}

process.stdout.write(JSON.stringify(report) + "\n");
