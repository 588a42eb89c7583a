/**
 * The line shown while a prompt's model request waits for the endpoint's request limit
 * (`model_queue` updates, `ink.model.maxConcurrentRequests`).
 */

import type { ModelQueueUpdate } from './protocol.generated';

/** `waiting for the model endpoint (3 ahead)` while queued; what it was once it went out. */
export function queueLine(u: ModelQueueUpdate): string {
  if (u.status === 'running') {
    return 'waited for the model endpoint';
  }
  return `waiting for the model endpoint (${u.ahead ?? 0} ahead)`;
}
