import assert from 'node:assert/strict';
import { test } from 'node:test';

import { isApprovalMode, type RawSettings, serverCommand, toInkSettings } from '../src/options';

const defaults: RawSettings = {
  serverPath: 'ink-ls',
  baseUrl: '',
  model: '',
  apiKeyEnv: 'OPENAI_API_KEY',
  vision: false,
  maxTokens: null,
  requestTimeout: 600,
  maxRetries: 3,
  contextWindow: null,
  compactThreshold: 0.8,
  approval: 'ask',
  approvalTimeoutSeconds: 600,
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
      apiKeyEnv: 'MY_KEY',
      vision: true,
      maxTokens: 4096,
      requestTimeout: 120,
      maxRetries: 0,
      contextWindow: 8192,
      compactThreshold: 0.7,
      approval: 'readonly',
      approvalTimeoutSeconds: 30,
    }),
    {
      model: {
        baseUrl: 'http://127.0.0.1:8080/v1',
        model: 'qwen2.5-coder',
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
    },
  );
});

test('an unknown approval mode is passed on for the server to name in its warning', () => {
  assert.equal(toInkSettings({ ...defaults, approval: 'yolo' }).approval, 'yolo');
  assert.equal(isApprovalMode('yolo'), false);
  assert.equal(isApprovalMode('auto'), true);
});

test('the server command: the configured path, else ink-ls on PATH', () => {
  assert.equal(serverCommand({ serverPath: '/opt/ink/.venv/bin/ink-ls' }), '/opt/ink/.venv/bin/ink-ls');
  assert.equal(serverCommand({ serverPath: '  ' }), 'ink-ls');
});
