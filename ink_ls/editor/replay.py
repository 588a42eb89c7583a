"""`ink/session/load`: a session's history replayed to the editor as `ink/session/update`s.

The editor rebuilds its conversation view from the same update kinds a live turn sends: a
`user_message_chunk` per prompt (the context suffix taken off again, its document kept), an
`agent_message_chunk` per assistant text, and per tool call a `tool_call` then one
`tool_call_update` with phase `delivered`, in history order; then a `usage_update` with the
session's token totals. All carry the turn id `replay`. Diffs are not in history, so replayed
edits show their result text only; a sub-agent's own calls are not in history either.
"""

from __future__ import annotations

from pathlib import Path

from ink_ls.agent.pipeline import decode_arguments, start_event
from ink_ls.core.messages import (
    AssistantMessage,
    ImageBlock,
    Message,
    TextBlock,
    ToolResultMessage,
    Usage,
    UserMessage,
    text_of,
)
from ink_ls.core.tool import ToolRegistry
from ink_ls.editor.client import EditorClient
from ink_ls.editor.context import split_context
from ink_ls.editor.sessions import LiveSession
from ink_ls.protocol.methods import REPLAY_TURN, SESSION_UPDATE
from ink_ls.protocol.models import (
    AgentMessageChunk,
    ContentItem,
    ImageContent,
    PromptContext,
    RawOutput,
    SessionLoadResult,
    SessionUpdateBody,
    SessionUpdateParams,
    TextContent,
    ThinkingChunk,
    ToolCallContent,
    ToolCallRegistered,
    ToolCallUpdate,
    UsageUpdate,
    UserMessageChunk,
)


def replay_updates(
    messages: list[Message], cwd: Path, tools: ToolRegistry
) -> list[SessionUpdateBody]:
    """The updates that rebuild a conversation view of `messages`, in history order; calls
    are titled and kinded by their tools, as in a live turn."""
    out: list[SessionUpdateBody] = []
    usage = Usage()
    for message in messages:
        if isinstance(message, UserMessage):
            asked = split_context(text_of(message.content))
            context = None
            if asked.path is not None:
                context = PromptContext(
                    path=asked.path, first_line=asked.first_line, last_line=asked.last_line
                )
            out.append(UserMessageChunk(content=TextContent(text=asked.prompt), context=context))
        elif isinstance(message, AssistantMessage):
            usage = usage.add(message.usage)
            if message.thinking:
                out.append(ThinkingChunk(content=TextContent(text=message.thinking)))
            if message.text:
                out.append(AgentMessageChunk(content=TextContent(text=message.text)))
            for call in message.tool_calls:
                start = start_event(call, tools, decode_arguments(call.arguments), cwd)
                out.append(
                    ToolCallRegistered(
                        tool_call_id=call.id,
                        title=start.title,
                        kind=start.kind,
                        raw_input=start.arguments or {},
                    )
                )
        elif isinstance(message, ToolResultMessage):
            for result in message.results:
                items: list[ToolCallContent] = []
                for block in result.content:
                    if isinstance(block, TextBlock):
                        items.append(ContentItem(content=TextContent(text=block.text)))
                    elif isinstance(block, ImageBlock):
                        items.append(
                            ContentItem(
                                content=ImageContent(data=block.data, mime_type=block.mime_type)
                            )
                        )
                out.append(
                    ToolCallUpdate(
                        tool_call_id=result.tool_call_id,
                        status="failed" if result.is_error else "completed",
                        phase="delivered",
                        content=items,
                        raw_output=RawOutput(
                            is_error=result.is_error, text=text_of(result.content)
                        ),
                    )
                )
    if usage.input_tokens or usage.output_tokens:
        out.append(UsageUpdate(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens))
    return out


def replay(
    client: EditorClient, session: LiveSession, cwd: Path, tools: ToolRegistry
) -> SessionLoadResult:
    """Send the session's history as updates (turn id `replay`); its summary for the answer."""
    for update in replay_updates(session.messages, cwd, tools):
        params = SessionUpdateParams(
            session_id=session.session_id, turn_id=REPLAY_TURN, update=update
        )
        client.notify(SESSION_UPDATE, params.dump())
    return SessionLoadResult(
        session_id=session.session_id,
        title=session.title,
        message_count=len(session.messages),
    )
