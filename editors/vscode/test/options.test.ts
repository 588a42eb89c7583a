import assert from 'node:assert/strict';
import { test } from 'node:test';

import { CHECKPOINT_DEFAULTS, INSTALL_HINT, isApprovalMode, type RawSettings, resolveServer, toInkSettings } from '../src/options';

const defaults: RawSettings = {
  serverPath: '',
  legacyServerPath: '',
  baseUrl: '',
  model: '',
  provider: '',
  apiKeyEnv: 'OPENAI_API_KEY',
  vision: false,
  maxTokens: null,
  requestTimeout: 600,
  maxRetries: 3,
  contextWindow: null,
  compactThreshold: 0.8,
  approval: 'ask',
  approvalTimeoutSeconds: 600,
  trustWorkspace: null,
};

test('defaults leave the server its own defaults', () => {
  assert.deepEqual(toInkSettings(defaults), { model: { apiKeyEnv: 'OPENAI_API_KEY' }, approval: 'ask' });
});

test('every setting maps to the initializationOptions.ink shape of protocol.md', () => {
  assert.deepEqual(
    toInkSettings({
      ...defaults,
      baseUrl: ' http://127.0.0.1:8080/v1 ',
      model: 'qwen2.5-coder',
      provider: 'anthropic',
      apiKeyEnv: 'MY_KEY',
      vision: true,
      maxTokens: 4096,
      requestTimeout: 120,
      maxRetries: 0,
      contextWindow: 8192,
      compactThreshold: 0.7,
      approval: 'readonly',
      approvalTimeoutSeconds: 30,
      trustWorkspace: false,
    }),
    {
      model: {
        baseUrl: 'http://127.0.0.1:8080/v1',
        model: 'qwen2.5-coder',
        provider: 'anthropic',
        apiKeyEnv: 'MY_KEY',
        vision: true,
        maxTokens: 4096,
        requestTimeout: 120,
        maxRetries: 0,
        contextWindow: 8192,
        compactThreshold: 0.7,
      },
      approval: 'readonly',
      approvalTimeoutSeconds: 30,
      trustWorkspace: false,
    },
  );
});

test('an unknown approval mode is passed on for the server to name in its warning', () => {
  assert.equal(toInkSettings({ ...defaults, approval: 'yolo' }).approval, 'yolo');
  assert.equal(isApprovalMode('yolo'), false);
  assert.equal(isApprovalMode('auto'), true);
});

const files = (...paths: string[]) => (file: string) => paths.includes(file);

test('the server: ink.server.path, else the deprecated ink.serverPath, else ink-ls on PATH', () => {
  const bin = '/opt/ink/.venv/bin/ink-ls';
  const both = files(bin, '/old/ink-ls', '/usr/local/bin/ink-ls');
  assert.deepEqual(resolveServer({ serverPath: bin, legacyServerPath: '/old/ink-ls' }, both, '/usr/local/bin'), { command: bin });
  assert.deepEqual(resolveServer({ serverPath: ' ', legacyServerPath: '/old/ink-ls' }, both, '/usr/local/bin'), {
    command: '/old/ink-ls',
  });
  assert.deepEqual(resolveServer({ serverPath: '', legacyServerPath: '' }, both, '/usr/bin:/usr/local/bin/'), {
    command: '/usr/local/bin/ink-ls',
  });
});

test('a missing server is an error that names the install command', () => {
  const none = files();
  const onPath = resolveServer({ serverPath: '', legacyServerPath: '' }, none, '/usr/bin:/bin');
  assert.deepEqual(onPath, { error: `ink-ls was not found on PATH. ${INSTALL_HINT}` });
  assert.match(INSTALL_HINT, /pipx install ink-ls/);
  const configured = resolveServer({ serverPath: '/nope/ink-ls', legacyServerPath: '' }, none, '/usr/bin');
  assert.ok('error' in configured && configured.error.startsWith('ink-ls was not found at /nope/ink-ls'));
});

test('ink.checkpoints.*: only the keys set away from the defaults reach the server', () => {
  assert.equal(toInkSettings({ ...defaults, checkpoints: { ...CHECKPOINT_DEFAULTS } }).checkpoints, undefined);
  assert.deepEqual(
    toInkSettings({ ...defaults, checkpoints: { ...CHECKPOINT_DEFAULTS, enabled: false, maxAgeDays: 7 } }).checkpoints,
    { enabled: false, maxAgeDays: 7 },
  );
});
