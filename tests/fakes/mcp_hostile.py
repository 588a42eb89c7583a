"""A misbehaving MCP server (stdio, on the SDK's low-level `Server`) for tests.

`python -m tests.fakes.mcp_hostile [--fail-start [--stderr TEXT]] [--banner] [--log FILE]`
serves tools that crash the process mid-call (once per marker file), send an invalid input
schema, a giant result (many lines, or N MB), colliding and odd names, ignore cancellation,
report progress, change the tool list, fail with raw text (escape sequences), return images
that are not images, and sleep-and-report timestamps (to see overlap). `--banner` writes junk on
stdout before serving, as careless servers do. Every notable thing it sees goes to `--log`
as one JSON line (`{"event": "cancelled", ...}`), so tests can check what the server was told.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.stdio import stdio_server

OBJECT: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
READ = types.ToolAnnotations(read_only_hint=True)
WRITE = types.ToolAnnotations(read_only_hint=False, destructive_hint=True)


def _tool(
    name: str, schema: dict[str, Any], annotations: types.ToolAnnotations, description: str = ""
) -> types.Tool:
    return types.Tool(
        name=name, description=description or name, input_schema=schema, annotations=annotations
    )


def _schema(**props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


TOOLS = [
    _tool("wait", _schema(seconds={"type": "number"}), READ, "sleep, report start/end times"),
    _tool("echo", _schema(text={"type": "string", "maxLength": 50}), READ),
    _tool(
        "crash_once",
        _schema(marker={"type": "string"}),
        WRITE,
        "exit the process mid-call unless MARKER exists (creates it)",
    ),
    _tool("giant", _schema(lines={"type": "integer", "minimum": 1}), READ),
    _tool("stubborn", _schema(seconds={"type": "number"}), READ, "ignores cancellation"),
    _tool("long", _schema(seconds={"type": "number"}), READ, "progress every 0.1s"),
    _tool("destroy", _schema(path={"type": "string"}), WRITE, "writes PATH"),
    _tool("bad_schema", {"type": "object", "properties": {"x": {"type": "no-such-type"}}}, READ),
    _tool("hello world", OBJECT, READ),
    _tool("hello_world", OBJECT, READ),
    _tool("x" * 80, OBJECT, READ),
    _tool("grow", OBJECT, WRITE, "adds tool `extra` and announces tools/list_changed"),
    _tool("shout", _schema(text={"type": "string"}), READ, "fails with TEXT (raw) as its error"),
    _tool("huge", _schema(megabytes={"type": "number"}), READ, "one text block of N MB"),
    _tool("bad_image", OBJECT, READ, "an image block whose data is not an image"),
]
EXTRA = _tool("extra", OBJECT, READ, "appears after grow")


class State:
    def __init__(self, log: Path | None) -> None:
        self.log = log
        self.tools = list(TOOLS)

    def note(self, **fields: Any) -> None:
        if self.log is not None:
            with self.log.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({**fields, "pid": os.getpid(), "t": time.time()}) + "\n")


def _text(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def build(state: State) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=state.tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, args = params.name, dict(params.arguments or {})
        state.note(event="call", tool=name)
        if name == "wait":
            start = time.time()
            await anyio.sleep(float(args["seconds"]))
            return _text(json.dumps({"start": start, "end": time.time()}))
        if name == "echo":
            return _text(f"echo: {args['text']}")
        if name == "crash_once":
            marker = Path(args["marker"])
            if not marker.exists():
                marker.write_text("crashed")
                sys.stderr.write("hostile: crashing on purpose\n")
                sys.stderr.flush()
                os._exit(3)
            return _text("survived")
        if name == "giant":
            return _text("\n".join(f"line {i}" for i in range(int(args["lines"]))))
        if name in ("stubborn", "long"):
            meta = ctx.meta or {}
            token = meta.get("progress_token", meta.get("progressToken"))
            steps = max(1, int(float(args["seconds"]) / 0.1))
            try:
                with anyio.CancelScope(shield=name == "stubborn"):
                    for i in range(steps):
                        if token is not None:
                            await ctx.session.send_progress_notification(
                                token, i + 1, steps, f"step {i + 1}"
                            )
                        await anyio.sleep(0.1)
            except anyio.get_cancelled_exc_class():
                state.note(event="cancelled", tool=name)
                raise
            state.note(event="finished", tool=name)
            return _text("finished")
        if name == "destroy":
            Path(args["path"]).write_text("destroyed")
            return _text(f"wrote {args['path']}")
        if name == "grow":
            if EXTRA not in state.tools:
                state.tools.append(EXTRA)
            await ctx.session.send_tool_list_changed()
            return _text("grew")
        if name == "shout":
            sys.stderr.write(f"hostile stderr: {args['text']}\n")
            sys.stderr.flush()
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=args["text"])], is_error=True
            )
        if name == "huge":
            size = int(float(args["megabytes"]) * 1024 * 1024)
            line = "0123456789abcdef" * 4 + "\n"
            return _text((line * (size // len(line) + 1))[:size])
        if name == "bad_image":
            return types.CallToolResult(
                content=[
                    types.TextContent(type="text", text="here is the chart"),
                    types.ImageContent(type="image", data="not*base64!", mime_type="image/png"),
                    types.ImageContent(
                        type="image",
                        data=base64.b64encode(b"GIF89a junk").decode(),
                        mime_type="image/png",
                    ),
                ]
            )
        if name == "extra":
            return _text("extra tool here")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"no {name}")], is_error=True
        )

    return Server("hostile", on_list_tools=list_tools, on_call_tool=call_tool)


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fail-start", action="store_true")
    parser.add_argument("--stderr", default="", help="written to stderr before --fail-start")
    parser.add_argument("--log", type=Path)
    parser.add_argument(
        "--banner",
        action="store_true",
        help="print a banner and a malformed notification on stdout before serving",
    )
    parser.add_argument(
        "--linger",
        action="store_true",
        help="keep running after stdin closes (ignores SIGTERM too)",
    )
    args = parser.parse_args(argv)
    if args.fail_start:
        sys.stderr.write(args.stderr)
        sys.stderr.write("hostile: cannot open the database at /nowhere\n")
        raise SystemExit(1)
    if args.banner:
        sys.stdout.buffer.write(b"hostile banner: starting up \x1b]0;banner-title\x07\n")
        bad = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"x": 1}}
        sys.stdout.buffer.write(json.dumps(bad).encode() + b"\n")
        sys.stdout.buffer.flush()
    state = State(args.log)
    server = build(state)
    async with stdio_server() as (read, write):
        options = server.create_initialization_options(NotificationOptions(tools_changed=True))
        await server.run(read, write, options)
    if args.linger:  # a server that does not exit when its client goes away
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        state.note(event="lingering")
        while True:
            time.sleep(60)


if __name__ == "__main__":
    anyio.run(main)
