"""What a shell command line runs, from a real parser (tree-sitter-bash): every simple command
of a compound one, seen through wrappers, and the files its redirects write or read.

Words are resolved as far as the text alone allows (quotes removed); a word built from an
expansion is `None` (unknown). What cannot be resolved at all is listed in `unresolved`.
"""

from __future__ import annotations

import functools
import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when the first command is parsed: not on the start-up path
    from tree_sitter import Node, Parser

Word = str | None
"""A word after quote removal; None when it depends on an expansion."""

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})
_NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
# options of wrappers that take a value (the next word)
_VALUE_OPTIONS = {
    "env": {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"},
    "sudo": {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R"},
    "nice": {"-n", "--adjustment"},
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "exec": {"-a"},
    "xargs": {"-I", "-i", "-n", "-P", "-d", "-E", "-e", "-L", "-l", "-s", "-a", "--delimiter"},
    "nohup": set(),
    "command": set(),
}
WRAPPERS = frozenset(_VALUE_OPTIONS)


@dataclass(frozen=True)
class SimpleCommand:
    """One command that runs: its assignment prefixes and words, and what it wraps."""

    assignments: tuple[str, ...]
    words: tuple[Word, ...]
    text: str
    wrapper: str | None = None
    """Set on the command a wrapper (`sudo`, `env`, `sh -c`, …) runs: the wrapper's name."""
    inner: tuple[SimpleCommand, ...] = ()
    """The commands this one runs in turn (`sudo rm x` → `rm x`; `sh -c 'a; b'` → a, b)."""

    @property
    def program(self) -> Word:
        return self.words[0] if self.words else None


@dataclass
class ParsedCommand:
    """Every simple command of a command line, with its redirections and what is unknown."""

    commands: list[SimpleCommand] = field(default_factory=list)
    writes: list[Word] = field(default_factory=list)
    reads: list[Word] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)

    def all_commands(self) -> list[SimpleCommand]:
        """Every command, wrappers and what they wrap, depth first."""
        out: list[SimpleCommand] = []

        def walk(c: SimpleCommand) -> None:
            out.append(c)
            for i in c.inner:
                walk(i)

        for c in self.commands:
            walk(c)
        return out


@functools.cache
def _parser() -> Parser:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


_ESCAPES_IN_DOUBLE = {'"', "\\", "$", "`"}


def _unescape(text: str, in_double: bool) -> str:
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "\n":
                i += 2
                continue
            if not in_double or nxt in _ESCAPES_IN_DOUBLE:
                out.append(nxt)
                i += 2
                continue
        out.append(ch)
        i += 1
    return "".join(out)


class _Walker:
    def __init__(self, parsed: ParsedCommand, depth: int) -> None:
        self.parsed = parsed
        self.depth = depth

    def word(self, node: Node) -> Word:
        """A word node's value after quote removal; None when it depends on an expansion.
        Commands inside substitutions are collected on the way."""
        kind = node.type
        if kind in ("word", "number", "test_operator", "file_descriptor", "regex"):
            return _unescape(_text(node), in_double=False)
        if kind == "raw_string":
            return _text(node)[1:-1]
        if kind == "string":
            parts: list[str] = []
            known = True
            for child in node.children:
                if child.type == '"':
                    continue
                if child.type == "string_content":
                    parts.append(_unescape(_text(child), in_double=True))
                else:
                    self.collect(child)
                    known = False
            return "".join(parts) if known else None
        if kind == "concatenation":
            values = [self.word(c) for c in node.children]
            return None if any(v is None for v in values) else "".join(v or "" for v in values)
        self.collect(node)  # expansions and substitutions: unknown, but run what they run
        return None

    def collect(self, node: Node) -> None:
        """Walk any node: commands anywhere in it are added to the parsed result."""
        kind = node.type
        if kind == "command":
            self.parsed.commands.append(self.command(node))
            return
        if kind == "file_redirect":
            self.redirect(node)
            return
        if kind in ("heredoc_body", "comment"):
            return
        for child in node.named_children:
            self.collect(child)

    def redirect(self, node: Node) -> None:
        op = next((c.type for c in node.children if not c.is_named), "")
        dest = node.child_by_field_name("destination")
        targets = [dest] if dest is not None else node.named_children[-1:]
        for target in targets:
            if target.type == "file_descriptor" or (op.endswith("&") and target.type == "number"):
                continue  # 2>&1: another descriptor, not a file
            value = self.word(target)
            if op in _WRITE_OPS or op == ">&":
                if value not in _NOT_FILES:
                    self.parsed.writes.append(value)
            elif op == "<":
                self.parsed.reads.append(value)

    def command(self, node: Node) -> SimpleCommand:
        assignments: list[str] = []
        words: list[Word] = []
        for child in node.named_children:
            if child.type == "variable_assignment":
                assignments.append(_text(child))
                for value in child.named_children[1:]:
                    self.word(value)  # collect substitutions in the value
            elif child.type == "command_name":
                words.append(self.word(child.named_children[0]) if child.named_children else None)
            elif child.type == "file_redirect":
                self.redirect(child)
            elif child.type == "herestring_redirect":
                for value in child.named_children:
                    self.word(value)
            else:
                words.append(self.word(child))
        return self.unwrap(SimpleCommand(tuple(assignments), tuple(words), _text(node)))

    def unwrap(self, cmd: SimpleCommand) -> SimpleCommand:
        """`cmd` with the commands it runs (wrappers, `sh -c`, `eval`) as `inner`."""
        program = cmd.program
        if program is None:
            if cmd.words:
                self.parsed.unresolved.append(f"the command name of `{cmd.text}` is not literal")
            return cmd
        name = posixpath.basename(program)
        args = list(cmd.words[1:])
        inner: list[SimpleCommand] = []
        if name in WRAPPERS:
            rest = _after_options(name, args)
            assigned: list[str] = []
            if name == "command" and any(a in ("-v", "-V") for a in args[:1]):
                rest = []  # `command -v x` looks x up, it does not run it
            elif name == "env":
                while rest and rest[0] is not None and "=" in rest[0]:
                    assigned.append(rest[0])
                    rest = rest[1:]
            elif name == "timeout" and rest:
                rest = rest[1:]  # the duration
            elif name == "xargs" and not rest:
                rest = ["echo"]
            if rest:
                text = _join(rest)
                inner.append(self.unwrap(SimpleCommand(tuple(assigned), tuple(rest), text, name)))
        elif name in SHELLS:
            inner += self.shell(cmd, args, name)
        elif name == "eval":
            if any(a is None for a in args):
                self.parsed.unresolved.append(
                    f"`{cmd.text}` evaluates a string that is not literal"
                )
            elif args:
                inner += self.nested(" ".join(a or "" for a in args), "eval")
        return SimpleCommand(cmd.assignments, cmd.words, cmd.text, cmd.wrapper, tuple(inner))

    def shell(self, cmd: SimpleCommand, args: list[Word], name: str) -> list[SimpleCommand]:
        for n, arg in enumerate(args):
            if arg is None:
                break
            if arg.startswith("-") and "c" in arg.lstrip("-") and not arg.startswith("--"):
                script = args[n + 1] if n + 1 < len(args) else None
                if script is None:
                    break
                return self.nested(script, f"{name} -c")
            if not arg.startswith("-"):
                return []  # `bash script.sh`: a program of its own, matched as written
        self.parsed.unresolved.append(f"`{cmd.text}` runs commands that are not literal")
        return []

    def nested(self, script: str, wrapper: str) -> list[SimpleCommand]:
        if self.depth >= 8:
            self.parsed.unresolved.append("commands nested too deeply")
            return []
        inner = parse_command(script, _depth=self.depth + 1)
        self.parsed.writes += inner.writes
        self.parsed.reads += inner.reads
        self.parsed.unresolved += inner.unresolved
        return [
            SimpleCommand(c.assignments, c.words, c.text, wrapper, c.inner) for c in inner.commands
        ]


def _after_options(name: str, args: list[Word]) -> list[Word]:
    takes_value = _VALUE_OPTIONS[name]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg is None or not arg.startswith("-") or arg == "-":
            break
        if arg == "--":
            i += 1
            break
        if name == "nice" and arg[1:].isdigit():  # nice -10
            i += 1
            continue
        i += 2 if arg in takes_value else 1
    return args[i:]


def _join(words: list[Word]) -> str:
    return " ".join(w if w is not None else "$…" for w in words)


def parse_command(command: str, *, _depth: int = 0) -> ParsedCommand:
    """Parse a command line as bash does (tree-sitter-bash)."""
    parsed = ParsedCommand()
    tree = _parser().parse(command.encode("utf-8"))
    if tree.root_node.has_error:
        parsed.unresolved.append("the command could not be parsed")
    _Walker(parsed, _depth).collect(tree.root_node)
    return parsed
