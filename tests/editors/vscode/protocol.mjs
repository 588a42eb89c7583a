// The protocol layer the VS Code extension relies on, checked with the JSON-RPC library VS Code
// itself uses (vscode-languageserver-protocol) against the real ink-ls over stdio. The model is
// the pytest wrapper's FakeModelServer (INK_TEST_MODEL_URL), scripted by the [tags] in prompts.
// Prints `PASS <case>` / `FAIL <case>: <why>` per case; the wrapper checks every PASS line.

import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { repoRoot, extensionDir } from './harness.mjs';

const require = createRequire(path.join(extensionDir, 'package.json'));
const rpc = require('vscode-languageserver-protocol/node');
const protocol = await import(pathToFileURL(path.join(extensionDir, 'out', 'src', 'protocol.js')).href);
const edits = await import(pathToFileURL(path.join(extensionDir, 'out', 'src', 'edits.js')).href);
const approval = await import(pathToFileURL(path.join(extensionDir, 'out', 'src', 'approval.js')).href);

const workspace = process.env.INK_TEST_WORKSPACE;
const modelUrl = process.env.INK_TEST_MODEL_URL;
const serverPath = process.env.INK_TEST_SERVER ?? path.join(repoRoot, '.venv', 'bin', 'ink-ls');

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms))),
  ]);
}

const server = spawn(serverPath, ['--stdio'], { cwd: workspace, stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';
server.stderr.on('data', (c) => (stderr += c.toString()));
const connection = rpc.createProtocolConnection(
  new rpc.StreamMessageReader(server.stdout),
  new rpc.StreamMessageWriter(server.stdin),
);

// What the server sent, recorded for the cases to inspect.
const updates = [];
const progress = new Map();
const shownMessages = [];
let onApplyEdit = async () => ({ applied: false, failureReason: 'unexpected edit' });
let onShowMessageRequest = async () => null;

connection.onNotification(protocol.SESSION_UPDATE, (params) => {
  updates.push(params);
});
// Each waiter returns true once it saw what it waits for, and is then dropped.
let progressWaiters = [];
for (const token of ['ink-proto-1', 'ink-proto-2', 'ink-proto-3']) {
  connection.onProgress(rpc.WorkDoneProgress.type, token, (v) => {
    progress.set(token, [...(progress.get(token) ?? []), v]);
    progressWaiters = progressWaiters.filter((w) => !w(token, v));
  });
}
connection.onRequest(rpc.ApplyWorkspaceEditRequest.type, (params, token) => onApplyEdit(params, token));
connection.onRequest(rpc.ShowMessageRequest.type, (params) => onShowMessageRequest(params));
connection.onRequest(rpc.WorkDoneProgressCreateRequest.type, () => null);
connection.onNotification(rpc.ShowMessageNotification.type, (p) => shownMessages.push(p));
connection.onNotification(rpc.LogMessageNotification.type, () => {});
connection.listen();


const cases = [];
const test = (name, fn) => cases.push({ name, fn });

// The capabilities VS Code's client sends, trimmed to what ink-ls reads, plus ours.
const capabilities = {
  workspace: {
    applyEdit: true,
    workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'], changeAnnotationSupport: { groupsOnLabel: true } },
    configuration: true,
  },
  window: { workDoneProgress: true, showMessage: { messageActionItem: { additionalPropertiesSupport: true } } },
  general: { positionEncodings: ['utf-16'] },
  experimental: { ink: { reviewsApplyEdit: true } },
};

test('initialize', async () => {
  const result = await connection.sendRequest(rpc.InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(workspace).href,
    workspaceFolders: [{ uri: pathToFileURL(workspace).href, name: 'ws' }],
    capabilities,
    initializationOptions: { ink: { model: { baseUrl: modelUrl, model: 'fake-model', apiKeyEnv: 'INK_TEST_KEY' }, approval: 'ask' } },
  });
  await connection.sendNotification(rpc.InitializedNotification.type, {});
  const ink = result.capabilities.experimental.ink;
  assert.equal(ink.version, protocol.PROTOCOL_VERSION);
  for (const m of [protocol.SESSION_PROMPT, protocol.SESSION_CANCEL, protocol.SESSION_LIST, protocol.SESSION_CLOSE, protocol.TOOLS]) {
    assert.ok(ink.methods.includes(m), `methods lack ${m}: ${JSON.stringify(ink.methods)}`);
  }
  assert.equal(result.serverInfo.name, 'ink-ls');
});

let sessionId;

test('prompt streams the answer and reports progress on our token', async () => {
  const result = await connection.sendRequest(protocol.SESSION_PROMPT, {
    prompt: '[hello] what is the answer?',
    workDoneToken: 'ink-proto-1',
  });
  assert.equal(result.stopReason, 'end_turn');
  assert.equal(result.turnId, 't1');
  assert.equal(result.text, 'The answer is 42. Hello from Ink!');
  sessionId = result.sessionId;
  const mine = updates.filter((u) => u.sessionId === sessionId);
  const streamed = mine
    .filter((u) => u.update.sessionUpdate === 'agent_message_chunk')
    .map((u) => u.update.content.text)
    .join('');
  assert.equal(streamed, result.text);
  assert.equal(mine.at(-1).update.sessionUpdate, 'turn_end');
  assert.equal(mine.at(-1).update.stopReason, 'end_turn');
  const kinds = (progress.get('ink-proto-1') ?? []).map((v) => v.kind);
  assert.equal(kinds[0], 'begin');
  assert.equal(kinds.at(-1), 'end');
  assert.equal(progress.get('ink-proto-1')[0].cancellable, true);
  assert.equal(progress.get('ink-proto-1').at(-1).message, 'done');
});

test('rejected edit: applyEdit shape, applied:false reaches the model, file unchanged', async () => {
  let seen;
  onApplyEdit = async (params) => {
    seen = params;
    return { applied: false, failureReason: 'the user rejected this edit in the diff view' };
  };
  const result = await connection.sendRequest(protocol.SESSION_PROMPT, { sessionId, prompt: '[edit-reject] change keep.txt' });
  assert.equal(result.stopReason, 'end_turn');
  assert.match(seen.label, /^ink: edit keep\.txt \(call_\d+\)$/);
  const change = seen.edit.documentChanges[0];
  assert.equal(change.textDocument.uri, pathToFileURL(path.join(workspace, 'keep.txt')).href);
  assert.equal(change.edits[0].newText, 'Keep me as I am, please.\n');
  assert.equal(fs.readFileSync(path.join(workspace, 'keep.txt'), 'utf8'), 'Keep me as I am.\n');
  assert.match(result.text, /the user rejected this edit in the diff view/);
  const delivered = updates.find((u) => u.update.sessionUpdate === 'tool_call_update' && u.update.phase === 'delivered' && u.turnId === result.turnId);
  assert.equal(delivered.update.status, 'failed');
});

test('accepted edit: applied:true and the file on disk holds the new text', async () => {
  onApplyEdit = async () => ({ applied: true });
  const result = await connection.sendRequest(protocol.SESSION_PROMPT, { sessionId, prompt: '[edit-accept] change greet.txt' });
  assert.equal(result.stopReason, 'end_turn');
  assert.equal(fs.readFileSync(path.join(workspace, 'greet.txt'), 'utf8'), 'Goodbye, world!\n');
  const tool = updates.find((u) => u.update.sessionUpdate === 'tool_call' && u.turnId === result.turnId);
  assert.equal(tool.update.kind, 'edit');
  assert.equal(tool.update.title, 'edit greet.txt');
});

test('withdrawn edit review: a cancel sends $/cancelRequest and the reviewer closes the review', async () => {
  // The extension's own review queue (approval.js), fed the request's real CancellationToken.
  const queue = new approval.ReviewQueue();
  let review;
  const asked = new Promise((resolve) => {
    onApplyEdit = (params, token) => {
      review = queue.enqueue(params.label);
      approval.rejectWhenWithdrawn(queue, review.id, token);
      resolve();
      return review.outcome.then((o) => ({ applied: false, failureReason: o.reason }));
    };
  });
  const pending = connection.sendRequest(protocol.SESSION_PROMPT, { sessionId, prompt: '[edit-cancel] change keep.txt' });
  await withTimeout(asked, 10000, 'the edit review request');
  assert.equal(queue.size, 1, 'the review is waiting for the user');
  assert.equal(await connection.sendRequest(protocol.SESSION_CANCEL, { sessionId }), null);
  const outcome = await withTimeout(review.outcome, 10000, 'the review withdrawn by $/cancelRequest');
  assert.deepEqual(outcome, { accepted: false, reason: approval.WITHDRAWN_REASON });
  assert.equal(queue.current, undefined, 'no review left on screen');
  const result = await withTimeout(pending, 15000, 'cancelled prompt result');
  assert.equal(result.stopReason, 'cancelled');
  assert.equal(fs.readFileSync(path.join(workspace, 'keep.txt'), 'utf8'), 'Keep me as I am.\n');
});

test('command approval: showMessageRequest with four options, allow_once runs it', async () => {
  let seen;
  onShowMessageRequest = async (params) => {
    seen = params;
    return params.actions.find((a) => a.optionId === 'allow_once');
  };
  const result = await connection.sendRequest(protocol.SESSION_PROMPT, { sessionId, prompt: '[command] run it' });
  assert.equal(result.stopReason, 'end_turn');
  assert.equal(seen.type, 2);
  assert.ok(seen.message.startsWith('Ink wants to run a command:\necho ran > ran.txt && echo command ran'));
  assert.deepEqual(
    seen.actions.map((a) => [a.title, a.optionId]),
    [['Allow once', 'allow_once'], ['Always allow', 'allow_always'], ['Always in this project', 'allow_project'], ['Reject', 'reject_once']],
  );
  assert.equal(fs.readFileSync(path.join(workspace, 'ran.txt'), 'utf8'), 'ran\n');
  const tool = updates.find((u) => u.update.sessionUpdate === 'tool_call' && u.turnId === result.turnId);
  assert.equal(tool.update.kind, 'execute');
});

test('busy session and cancel: -32002 while running, ink/session/cancel ends the turn', async () => {
  // The model hangs after its first event; the turn is running once its progress began.
  const began = new Promise((r) => progressWaiters.push((token, v) => token === 'ink-proto-2' && v.kind === 'begin' && (r(), true)));
  const pending = connection.sendRequest(protocol.SESSION_PROMPT, { sessionId, prompt: '[hang] think forever', workDoneToken: 'ink-proto-2' });
  await withTimeout(began, 10000, 'progress begin of the hanging turn');
  await assert.rejects(
    connection.sendRequest(protocol.SESSION_PROMPT, { sessionId, prompt: '[hello] again' }),
    (err) => err.code === protocol.InkErrorCode.SessionBusy,
  );
  assert.equal(await connection.sendRequest(protocol.SESSION_CANCEL, { sessionId }), null);
  const result = await withTimeout(pending, 15000, 'cancelled prompt result');
  assert.equal(result.stopReason, 'cancelled');
});

test('$/cancelRequest of a new session\'s prompt answers cancelled', async () => {
  // What the extension does when Cancel comes before the new session's id is known.
  const began = new Promise((r) => progressWaiters.push((token, v) => token === 'ink-proto-3' && v.kind === 'begin' && (r(), true)));
  const source = new rpc.CancellationTokenSource();
  const pending = connection.sendRequest(protocol.SESSION_PROMPT, { prompt: '[hang] new session', workDoneToken: 'ink-proto-3' }, source.token);
  await withTimeout(began, 10000, 'progress begin of the new session');
  source.cancel();
  const result = await withTimeout(pending, 15000, 'cancelled prompt result');
  assert.equal(result.stopReason, 'cancelled');
  assert.notEqual(result.sessionId, sessionId);
});

test('didChangeConfiguration: readonly refuses the edit without asking', async () => {
  let asked = false;
  onApplyEdit = async () => {
    asked = true;
    return { applied: true };
  };
  await connection.sendNotification(rpc.DidChangeConfigurationNotification.type, {
    settings: { ink: { model: { baseUrl: modelUrl, model: 'fake-model', apiKeyEnv: 'INK_TEST_KEY' }, approval: 'readonly' } },
  });
  const result = await connection.sendRequest(protocol.SESSION_PROMPT, { sessionId, prompt: '[edit-reject] change keep.txt again' });
  assert.equal(result.stopReason, 'end_turn');
  assert.equal(asked, false);
  assert.equal(fs.readFileSync(path.join(workspace, 'keep.txt'), 'utf8'), 'Keep me as I am.\n');
});

test('auto: an open document with unsaved text gets a pre-approved applyEdit, nothing asked', async () => {
  const file = path.join(workspace, 'auto.txt');
  const uri = pathToFileURL(file).href;
  let seen;
  let asked = false;
  onShowMessageRequest = async () => {
    asked = true;
    return null;
  };
  onApplyEdit = async (params) => {
    seen = params;
    // what the extension does for a pre-approved edit: apply to the buffer, then save
    fs.writeFileSync(file, params.edit.documentChanges[0].edits[0].newText);
    return { applied: true };
  };
  await connection.sendNotification(rpc.DidChangeConfigurationNotification.type, {
    settings: { ink: { model: { baseUrl: modelUrl, model: 'fake-model', apiKeyEnv: 'INK_TEST_KEY' }, approval: 'auto' } },
  });
  await connection.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'plaintext', version: 1, text: 'A draft.\n' },
  });
  await connection.sendNotification(rpc.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: [{ text: 'Note: A draft.\n' }],
  });
  const result = await connection.sendRequest(protocol.SESSION_PROMPT, { sessionId, prompt: '[auto-edit] finish auto.txt' });
  assert.equal(result.stopReason, 'end_turn');
  assert.equal(asked, false);
  assert.ok(edits.isPreApproved(seen), `not marked pre-approved: ${JSON.stringify(seen)}`);
  assert.match(seen.label, /^ink: edit auto\.txt \(call_\d+\)$/);
  const change = seen.edit.documentChanges[0];
  assert.deepEqual(change.textDocument, { uri, version: 2 });
  assert.equal(change.edits[0].newText, 'Note: A final.\n');
  assert.equal(seen.edit.changeAnnotations[change.edits[0].annotationId].needsConfirmation, false);
  assert.equal(fs.readFileSync(file, 'utf8'), 'Note: A final.\n');
  await connection.sendNotification(rpc.DidCloseTextDocumentNotification.type, { textDocument: { uri } });
});

test('unknown session: -32001', async () => {
  await assert.rejects(
    connection.sendRequest(protocol.SESSION_CANCEL, { sessionId: 's-does-not-exist' }),
    (err) => err.code === protocol.InkErrorCode.SessionNotFound,
  );
});

test('shutdown and exit', async () => {
  await connection.sendRequest(rpc.ShutdownRequest.type);
  const exited = new Promise((r) => server.on('exit', (code) => r(code)));
  await connection.sendNotification(rpc.ExitNotification.type);
  assert.equal(await withTimeout(exited, 10000, 'server exit'), 0);
});

let failed = 0;
for (const c of cases) {
  try {
    await withTimeout(c.fn(), 30000, c.name);
    console.log(`PASS ${c.name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${c.name}: ${err instanceof Error ? err.stack : err}`);
  }
}
if (failed > 0) {
  console.log(`server stderr:\n${stderr.slice(-4000)}`);
}
connection.dispose();
server.kill('SIGKILL');
process.exit(failed > 0 ? 1 : 0);
