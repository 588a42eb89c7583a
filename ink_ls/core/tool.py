"""The tool contract: what the model sees (name, description, schema) and what the process calls.

Also the two small interfaces through which tools reach the editor: `FileView`
(reads see open buffers) and `FileWriter` (changes go through approval).
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict

from ink_ls.core.fileio import atomic_write_text, write_in_workspace
from ink_ls.core.messages import ContentBlock, ImageBlock, TextBlock
from ink_ls.core.signal import CancelSignal


class ToolError(Exception):
    """Root of tool-system errors."""


class DuplicateToolError(ToolError):
    """Two tools registered under one name."""


class ChangeRejectedError(ToolError):
    """A file change or command was refused (by the user, a policy, a timeout).

    The pipeline turns it into `Tool "<name>" blocked by <source>: <reason>`.
    """

    def __init__(self, source: str, reason: str | None = None) -> None:
        super().__init__(reason or "no reason given")
        self.source = source
        self.reason = reason


class ArgumentsError(ToolError):
    """Arguments that break a tool's own schema (tools that validate without pydantic).

    `errors` are `(JSON pointer, message)` pairs; the pipeline words them like pydantic's.
    """

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{p}: {m}" for p, m in errors))
        self.errors = errors


class ToolParams(BaseModel):
    """Base for tool parameter models: unknown keys are refused."""

    model_config = ConfigDict(extra="forbid")


def aborted_result(tool_name: str, note: str | None = None) -> ToolResult:
    """The one result of a call its cancel stopped: `Error: <tool> aborted by user[; <note>.]`.

    Tools return it (edit and write add that the file was not changed); the pipeline gives it
    to a tool that lets the cancel's `CancelledError` escape."""
    text = f"Error: {tool_name} aborted by user"
    return ToolResult(f"{text}; {note}." if note else text, is_error=True)


ToolKind = Literal["read", "search", "edit", "execute", "think", "other"]
"""What a call does, for front ends choosing an icon (the Agent Client Protocol's vocabulary)."""


@dataclass(frozen=True)
class DiffDisplay:
    """A file change: both texts and a line-numbered unified diff (edit, write)."""

    path: Path
    old_text: str
    new_text: str
    diff: str


@dataclass(frozen=True)
class CommandDisplay:
    """A command that ran (bash): its exit code (None when it did not exit) and full log."""

    command: str
    exit_code: int | None
    log_path: str | None = None


@dataclass(frozen=True)
class TaskDisplay:
    """A delegated job (task): its short description."""

    description: str


Display = DiffDisplay | CommandDisplay | TaskDisplay
"""What a result shows the editor only; never enters history."""


@dataclass
class ToolResult:
    """What `execute` returns. `content`, when given, is what the model gets instead of `output`."""

    output: str = ""
    is_error: bool = False
    content: list[ContentBlock] | None = None
    display: Display | None = None


_DISPLAYS = (DiffDisplay, CommandDisplay, TaskDisplay)


def result_problem(result: object) -> str | None:
    """Why `result` is not a valid `ToolResult` (None when it is). Checked where a result is
    made (the pipeline), so a tool's mistake is an error for that call, never a hung turn."""
    if not isinstance(result, ToolResult):
        return f"it returned {type(result).__name__}, not a ToolResult"
    if not isinstance(result.output, str):
        return f"its output is {type(result.output).__name__}, not text"
    if not isinstance(result.is_error, bool):
        return f"its is_error is {type(result.is_error).__name__}, not a boolean"
    if result.content is not None and not (
        isinstance(result.content, list)
        and all(isinstance(b, TextBlock | ImageBlock) for b in result.content)
    ):
        return "its content is not a list of text and image blocks"
    if result.display is not None and not isinstance(result.display, _DISPLAYS):
        names = ", ".join(d.__name__ for d in _DISPLAYS)
        return f"its display is {type(result.display).__name__}, not one of {names} or None"
    return None


class FileView(Protocol):
    """How tools see files the editor has open. `None` means: not open, read the disk.

    A view that must ask over the wire (ACP's `fs/read_text_file`) also has an async
    `read_document(path)`; tools read through `document_text`, which prefers it.
    """

    def open_document(self, path: Path) -> str | None: ...


async def document_text(files: FileView, path: Path) -> str | None:
    """The editor's text of `path`, or None (read the disk). Awaits `read_document` when the
    view has one (a client that is asked over the wire), else calls `open_document`."""
    read = getattr(files, "read_document", None)
    if read is not None:
        text: str | None = await read(path)
        return text
    return files.open_document(path)


def open_or_disk_text(files: FileView, path: Path) -> str:
    """The editor's text of `path` when it is open, else the disk's ("" when unreadable):
    for questions about a file (diagnostics, positions) where a missing file is no error."""
    text = files.open_document(path)
    if text is not None:
        return text
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


class FileWriter(Protocol):
    """How tools change files. Raises `ChangeRejectedError` when the change is refused."""

    async def write_text(
        self,
        path: Path,
        new_text: str,
        *,
        old_text: str | None,
        tool_name: str,
        tool_call_id: str,
        signal: CancelSignal,
    ) -> str | None:
        """None when `new_text` is what the file now holds; else the text that landed instead
        (the user edited the proposal before accepting it)."""
        ...


@dataclass(frozen=True)
class TextChange:
    """One file of a change that spans several (a rename): its new and its current text."""

    path: Path
    new_text: str
    old_text: str | None


@runtime_checkable
class BatchWriter(Protocol):
    """A `FileWriter` that can make several files' changes under one decision (the user sees
    every file's diff and answers once; nothing is written unless all may be)."""

    async def write_texts(
        self,
        changes: Sequence[TextChange],
        *,
        tool_name: str,
        tool_call_id: str,
        signal: CancelSignal,
    ) -> dict[Path, str]:
        """The files where the user's version landed instead of the proposal (they edited
        it while reviewing): path → the text the file now holds. Empty: all as proposed."""
        ...


class DiskFiles:
    """The default FileView: nothing is open in an editor."""

    def open_document(self, path: Path) -> str | None:
        return None


@dataclass(frozen=True)
class DiskWriter:
    """The default FileWriter: writes to disk at once (creating parents), no approval.

    Atomic and link-safe (`core.fileio.atomic_write_text`): a failed write leaves the file
    as it was and raises `OSError` with a sentence for the model. With `root`, a path named
    inside that workspace is written inside it, links resolved (`write_in_workspace`).
    """

    root: Path | None = None

    async def write_text(
        self,
        path: Path,
        new_text: str,
        *,
        old_text: str | None,
        tool_name: str,
        tool_call_id: str,
        signal: CancelSignal,
    ) -> None:
        if self.root is None:
            atomic_write_text(path, new_text)
        else:
            write_in_workspace(path, new_text, self.root)


SubagentRunner = Callable[[str, CancelSignal], Awaitable[str]]
"""Runs a sub-agent on a prompt under a signal and returns its final answer (for `task`)."""


@dataclass
class ToolContext:
    """Per-call context. The call id comes from the process, never from model arguments."""

    tool_call_id: str
    cwd: Path
    files: FileView = field(default_factory=DiskFiles)
    writer: FileWriter = field(default_factory=DiskWriter)
    subagent: SubagentRunner | None = None
    progress: Callable[[str], None] | None = None
    """Reports one short line on how the call is going (an MCP server's progress)."""
    output: Callable[[str], None] | None = None
    """Takes a running command's output as it comes (front ends show it live)."""


@dataclass(frozen=True)
class Access:
    """The paths one call reads and writes (absolute), for path-aware scheduling (the agent's
    default): calls whose paths do not conflict may overlap."""

    reads: frozenset[Path] = frozenset()
    writes: frozenset[Path] = frozenset()


P = TypeVar("P", bound=ToolParams)


@functools.cache
def _schema_of(params_model: type[ToolParams]) -> dict[str, Any]:
    """Built once per params model (callers get a copy): a schema never changes."""
    schema: dict[str, Any] = _strip_titles(params_model.model_json_schema())
    schema.setdefault("additionalProperties", False)
    return schema


def schema_of(params_model: type[ToolParams]) -> dict[str, Any]:
    """The JSON Schema the model sees for `params_model` (a copy; titles stripped)."""
    copied: dict[str, Any] = json_copy(_schema_of(params_model))
    return copied


@functools.lru_cache(maxsize=4096)
def shared_schema(name: str, description: str, params_model: type[ToolParams]) -> dict[str, Any]:
    """`{name, description, parameters}` of a tool whose schema is `params_model`'s, made once
    per process and shared by every request of every session (a burst of new sessions built
    it again for each request: copies of every schema, then their JSON). Read it, never
    change it: the model clients only place it into request bodies."""
    return {"name": name, "description": description, "parameters": _schema_of(params_model)}


def json_copy(node: Any) -> Any:
    """A deep copy of JSON data (dicts, lists, scalars): about 3x cheaper than `copy.deepcopy`,
    which matters as every model request copies every tool's schema."""
    if isinstance(node, dict):
        return {k: json_copy(v) for k, v in node.items()}
    if isinstance(node, list):
        return [json_copy(v) for v in node]
    return node


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: _strip_titles(v)
            for k, v in node.items()
            if not (k == "title" and isinstance(v, str))
        }
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


def short_line(text: str, limit: int = 80) -> str:
    """The first line of `text`, cut to `limit` characters with an ellipsis."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def text_arg(args: Mapping[str, Any], key: str) -> str:
    """A string argument for a title, "" when absent or not a string (titles never fail)."""
    value = args.get(key)
    return value if isinstance(value, str) else ""


def shown_path(value: str, cwd: Path) -> str:
    """A path as a person reads it in a title: relative to the workspace root when inside."""
    try:
        return str(Path(value).relative_to(cwd)) if Path(value).is_absolute() else value
    except ValueError:
        return value


class Tool(ABC, Generic[P]):
    """One tool. Subclasses set `name`, `description`, `params_model` and implement `execute`.

    `name`, `description` and `concurrency_safe` are usually class attributes; tools made at
    run time (MCP tools) set them per instance and override `parameters` and
    `validate_arguments` to use a raw JSON schema instead of a pydantic model.
    """

    name: str
    description: str
    params_model: ClassVar[type[ToolParams]]
    concurrency_safe: bool = False
    kind: ClassVar[ToolKind] = "other"
    delegates: ClassVar[bool] = False
    """True for tools that only hand work to a sub-agent whose own calls are gated (task)."""

    def parameters(self) -> dict[str, Any]:
        """The JSON Schema the model sees, derived from `params_model` (titles stripped)."""
        copied: dict[str, Any] = json_copy(_schema_of(self.params_model))
        return copied

    def schema(self) -> dict[str, Any]:
        """`{name, description, parameters}` as the model sees it: shared (`shared_schema`),
        so read it, never change it. A tool with a `parameters` of its own gets a fresh one."""
        if type(self).parameters is not Tool.parameters:
            return {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters(),
            }
        return shared_schema(self.name, self.description, self.params_model)

    def validate_arguments(self, data: dict[str, Any]) -> ToolParams:
        """The call's arguments as this tool's params. Raises pydantic's `ValidationError`
        or `ArgumentsError`; both become the model's `invalid arguments` error."""
        return self.params_model.model_validate(data)

    def title(self, args: Mapping[str, Any], cwd: Path) -> str:
        """What a person reads for a call (`read README.md`, `bash: npm test`), from the raw
        arguments: it is shown when the call is registered, before they are validated."""
        return self.name

    def access(self, args: P, cwd: Path) -> Access | None:
        """The paths this call touches; `None` (the default) means it may touch anything."""
        return None

    @abstractmethod
    async def execute(self, args: P, signal: CancelSignal, context: ToolContext) -> ToolResult:
        """Run the call. Raise to report a failure; return `is_error` for an expected one."""


AnyTool = Tool[Any]


class ToolSource(Protocol):
    """Tools that may change while a run goes on (an MCP server announcing a new tool list).

    `version` changes whenever `current_tools()` would return something different.
    """

    @property
    def version(self) -> int: ...

    def current_tools(self) -> list[AnyTool]: ...


class ToolRegistry:
    """The tools of one run: one list feeds the model's schemas and the name → tool map.

    Besides its own tools it may follow `sources`, re-read when their version changes, so
    the next model request sees a changed list; a source's tool whose name is taken is left out.
    """

    def __init__(self, tools: Iterable[AnyTool] = (), sources: Iterable[ToolSource] = ()) -> None:
        self._own: dict[str, AnyTool] = {}
        self._sources = tuple(sources)
        self._seen: tuple[int, ...] | None = None
        self._tools: dict[str, AnyTool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: AnyTool) -> None:
        # without sources the own tools are all there is (no merged copy per registration)
        if tool.name in self._own or (self._sources and tool.name in self._current()):
            raise DuplicateToolError(
                f'a tool named "{tool.name}" is already registered; tool names must be unique'
            )
        self._own[tool.name] = tool
        self._seen = None

    def _current(self) -> dict[str, AnyTool]:
        versions = tuple(s.version for s in self._sources)
        if versions != self._seen:
            merged = dict(self._own)
            for source in self._sources:
                for tool in source.current_tools():
                    merged.setdefault(tool.name, tool)
            self._tools, self._seen = merged, versions
        return self._tools

    def get(self, name: str) -> AnyTool | None:
        return self._current().get(name)

    @property
    def names(self) -> list[str]:
        return list(self._current())

    def __iter__(self) -> Iterator[AnyTool]:
        return iter(list(self._current().values()))

    def __len__(self) -> int:
        return len(self._current())

    def without(self, *names: str) -> ToolRegistry:
        """The same tools and sources, less `names` (own tools only: sources stay whole)."""
        return ToolRegistry((t for t in self._own.values() if t.name not in names), self._sources)

    def schemas(self) -> list[dict[str, Any]]:
        """`{name, description, parameters}` for every tool, in registration order (each
        entry shared: `Tool.schema`; read them, never change them)."""
        return [t.schema() for t in self._current().values()]
