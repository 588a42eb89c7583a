"""Handlers for LSP clients without an ink plugin: `textDocument/codeAction` offers the Ink
actions, `workspace/executeCommand` runs `ink.ask` (answered at once, the turn runs in the
background) and `ink.cancel`. Thin: the logic is in `ink_ls.editor.commands`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from ink_ls.handlers._errors import guarded, validate
from ink_ls.handlers.state import ServerState
from ink_ls.protocol import lsp, methods
from ink_ls.protocol.errors import INVALID_PARAMS

if TYPE_CHECKING:
    from ink_ls.editor.commands import CommandTurns
    from ink_ls.protocol.models import AskCommandArgs


def _ask_args(args: tuple[Any, ...]) -> AskCommandArgs:
    """`ink.ask` takes one argument: an object, or the prompt as a plain string (Helix)."""
    from ink_ls.protocol.models import AskCommandArgs

    if len(args) != 1:
        raise JsonRpcException(
            f"invalid params: {methods.COMMAND_ASK} takes one argument (an object with prompt, "
            f"uri, range; or the prompt as a string), got {len(args)}",
            INVALID_PARAMS,
        )
    first = args[0]
    return validate(AskCommandArgs, {"prompt": first} if isinstance(first, str) else first)


def register(server: LanguageServer, state: ServerState) -> None:
    """Register the code actions and the `ink.*` commands on `server`."""
    turns: dict[str, CommandTurns] = {}

    def commands() -> CommandTurns:
        from ink_ls.editor.commands import CommandTurns  # the agent: not on the start-up path

        host = state.require_host()
        current = turns.get("current")
        if current is None or current.host is not host:
            current = turns["current"] = CommandTurns(host)
        return current

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
        from ink_ls.editor.commands import code_actions

        uri = params.text_document.uri
        rng = lsp.to_json(params.range)
        diagnostics = [lsp.to_json(d) for d in params.context.diagnostics]
        return [
            types.CodeAction(
                title=spec.title,
                kind=spec.kind,
                diagnostics=[lsp.from_json(d, types.Diagnostic) for d in spec.diagnostics] or None,
                command=types.Command(
                    title=spec.title, command=methods.COMMAND_ASK, arguments=[spec.arguments]
                ),
            )
            for spec in code_actions(uri, rng, diagnostics)
        ]

    @server.command(methods.COMMAND_ASK)
    @guarded
    async def ask(*args: Any) -> dict[str, Any]:
        return commands().ask(_ask_args(args)).dump()

    @server.command(methods.COMMAND_CANCEL)
    @guarded
    async def cancel(*args: Any) -> dict[str, Any]:
        return commands().cancel().dump()
