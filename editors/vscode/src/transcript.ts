/**
 * Update routing for the transcript: turns prompts, `ink/session/update` notifications and
 * prompt results into the text appended to the transcript, and tracks which session this
 * window is talking to. Pure: no `vscode` import; it writes through a `(text) => void` sink.
 */

import type {
  SessionPromptResult,
  SessionUpdate,
  SessionUpdateParams,
  StopReason,
  ToolKind,
} from './protocol';

const RULE = '─'.repeat(8);

/** What a tool call looks like in the transcript while and after it runs. */
interface ToolLine {
  title: string;
  kind: ToolKind;
  /** Whether its ✓/✗ line was written (a call blocked before running is never `settled`). */
  finished: boolean;
  /** Leading spaces of its lines: a `task` sub-agent's calls sit one level under their task. */
  indent: string;
}

const INDENT = '  ';

/** A sub-agent's call (it carries `parentToolCallId`) is indented one level deeper. */
function indentOf(update: { parentToolCallId?: string }): string {
  return update.parentToolCallId === undefined ? INDENT : INDENT + INDENT;
}

const OUTCOME: Record<StopReason, string> = {
  end_turn: 'done',
  max_tokens: 'stopped: output-token limit',
  max_turn_requests: 'stopped: turn limit',
  cancelled: 'cancelled',
  error: 'failed',
};

/** Formats the conversation as plain text for an output channel (append-only). */
export class Transcript {
  private readonly tools = new Map<string, ToolLine>();
  private atLineStart = true;
  private streamed = false;
  private usage: { inputTokens: number; outputTokens: number } | undefined;

  constructor(private readonly sink: (text: string) => void) {}

  /** The user's prompt, starting a turn. */
  prompt(text: string, context?: string): void {
    this.streamed = false;
    this.usage = undefined;
    this.tools.clear();
    this.line('');
    this.line(`${RULE} You ${RULE}`);
    this.line(text);
    if (context !== undefined) {
      this.line(`(about ${context})`);
    }
    this.line(`${RULE} Ink ${RULE}`);
  }

  /** One `ink/session/update`. */
  update(update: SessionUpdate): void {
    switch (update.sessionUpdate) {
      case 'user_message_chunk':
        this.prompt(update.content.text, update.context?.path);
        return;
      case 'agent_message_chunk':
        if (update.content.type === 'text' && update.content.text !== '') {
          this.write(update.content.text);
          this.streamed = true;
        }
        return;
      case 'tool_call': {
        const indent = indentOf(update);
        this.tools.set(update.toolCallId, { title: update.title, kind: update.kind, finished: false, indent });
        this.line(`${indent}… ${update.title}`);
        return;
      }
      case 'tool_call_update': {
        const tool = this.tools.get(update.toolCallId);
        const title = tool?.title ?? update.toolCallId;
        const indent = tool?.indent ?? indentOf(update);
        const finish = (durationMs?: number): void => {
          const ms = durationMs === undefined ? '' : ` (${formatMs(durationMs)})`;
          const mark = update.status === 'failed' ? '✗' : update.status === 'cancelled' ? '■' : '✓';
          const note = update.status === 'failed' || update.status === 'cancelled' ? ` — ${update.status}` : '';
          this.line(`${indent}${mark} ${title}${note}${ms}`);
          if (tool !== undefined) {
            tool.finished = true;
          }
        };
        if (update.phase === 'settled') {
          finish(update.durationMs);
        } else if (update.phase === 'delivered') {
          if (tool !== undefined && !tool.finished) {
            finish();
          }
          if (update.status !== 'failed') {
            return;
          }
          const text = update.rawOutput?.text ?? '';
          const first = text.split('\n').find((l) => l.trim() !== '');
          if (first !== undefined) {
            this.line(`${indent}  ${first.trim()}`);
          }
        }
        return;
      }
      case 'usage_update':
        this.usage = { inputTokens: update.inputTokens, outputTokens: update.outputTokens };
        return;
      case 'compaction':
        if (update.phase === 'end') {
          this.line(`[compacted the conversation: ${update.tokensBefore} → ${update.tokensAfter ?? '?'} tokens]`);
        } else if (update.phase === 'failed') {
          this.line(`[compaction failed: ${update.error ?? 'unknown error'}]`);
        } else {
          this.line('[compacting the conversation…]');
        }
        return;
      case 'instructions_loaded':
        this.line(`[instructions: ${update.paths.join(', ')}${update.truncated === true ? ' (cut at 32 KiB)' : ''}]`);
        return;
      case 'error':
        this.line(`[error] ${update.message}`);
        return;
      case 'warning':
        this.line(`[warning] ${update.message}`);
        return;
      case 'turn_end':
        return;
    }
  }

  /** The prompt's result: the answer (when it was not streamed) and the outcome line. */
  result(result: SessionPromptResult): void {
    if (!this.streamed && result.text !== '') {
      this.write(result.text);
    }
    let outcome = OUTCOME[result.stopReason] ?? result.stopReason;
    if (result.stopReason === 'error' && result.error !== undefined) {
      outcome = `failed: ${result.error}`;
    }
    const usage = this.usage === undefined ? '' : ` · ${this.usage.inputTokens} in / ${this.usage.outputTokens} out tokens`;
    this.line('');
    this.line(`[${outcome} · turn ${result.turnId}${usage}]`);
  }

  /** A prompt request that failed (busy, not configured, server down or crashed). */
  failure(message: string): void {
    this.line(`[failed: ${message}]`);
  }

  /** A visible break when the user starts a new session. */
  newSession(): void {
    this.line('');
    this.line(`${RULE} new session ${RULE}`);
  }

  private write(text: string): void {
    this.sink(text);
    this.atLineStart = text.endsWith('\n');
  }

  private line(text: string): void {
    this.sink(`${this.atLineStart ? '' : '\n'}${text}\n`);
    this.atLineStart = true;
  }
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Which session this window talks to, and whether a prompt is in flight. A prompt without a
 * session id makes the server create one; its id arrives with the first update of the turn
 * (or with the result), so the turn can be cancelled before the result comes back.
 */
export class SessionState {
  private current: string | undefined;
  private inFlight = false;

  get sessionId(): string | undefined {
    return this.current;
  }

  get running(): boolean {
    return this.inFlight;
  }

  /** Marks a prompt as sent; false when one is already running in this window. */
  begin(): boolean {
    if (this.inFlight) {
      return false;
    }
    this.inFlight = true;
    return true;
  }

  /**
   * Whether `params` belongs to this window's conversation. While a prompt of a new session
   * is in flight, the first update's session is adopted.
   */
  accepts(params: SessionUpdateParams): boolean {
    if (this.current === undefined && this.inFlight) {
      this.current = params.sessionId;
    }
    return params.sessionId === this.current;
  }

  /** The prompt finished (result, or failure when `sessionId` is undefined). */
  end(sessionId?: string): void {
    this.inFlight = false;
    if (sessionId !== undefined) {
      this.current = sessionId;
    }
  }

  /** Talk to `sessionId` from now on (a session resumed from the list). */
  adopt(sessionId: string): void {
    this.current = sessionId;
  }

  /** Forget the session: the next prompt starts a new one. */
  reset(): void {
    this.current = undefined;
  }
}
