"""Path rules on every tool that touches a path, tool-name rules, precedence, rule problems and
the rules an answer "always in this project" saves."""

from __future__ import annotations

from pathlib import Path

import pytest

from ink_ls.core.settings_files import RuleEntry, SettingsSource
from ink_ls.core.tool import Access
from ink_ls.rules.policy import Policy


def _policy(cwd: Path, **rules: list[str]) -> Policy:
    p = Policy()
    for kind, texts in rules.items():
        for text in texts:
            p.add(kind, text, cwd)  # type: ignore[arg-type]
    return p


def reads(*paths: Path) -> Access:
    return Access(reads=frozenset(paths))


def writes(*paths: Path) -> Access:
    return Access(reads=frozenset(paths), writes=frozenset(paths))


def test_read_deny_applies_to_every_tool_touching_the_path(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    p = _policy(tmp_path, deny=["Read(./secrets/**)"])
    for tool in ("read", "grep", "find", "ls"):
        assert p.decide(tool, reads(tmp_path / "secrets" / "k"), None, tmp_path).kind == "deny"
    # a listing or search of the directory itself reads what is inside
    assert p.decide("ls", reads(tmp_path / "secrets"), None, tmp_path).kind == "deny"
    assert p.decide("read", reads(tmp_path / "src" / "a.py"), None, tmp_path).kind is None


def test_read_deny_sees_through_a_symlink(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "k").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "secrets" / "k")
    p = _policy(tmp_path, deny=["Read(./secrets/**)"])
    assert p.decide("read", reads(tmp_path / "link"), None, tmp_path).kind == "deny"


def test_edit_rules_cover_edit_and_write_and_precedence(tmp_path: Path) -> None:
    p = _policy(
        tmp_path,
        allow=["Edit(src/**)"],
        ask=["Edit(src/config/**)"],
        deny=["Write(src/config/prod.json)"],
    )
    src = tmp_path / "src"
    assert p.decide("edit", writes(src / "a.py"), None, tmp_path).kind == "allow"
    assert p.decide("write", writes(src / "a.py"), None, tmp_path).kind == "allow"
    assert p.decide("edit", writes(src / "config" / "dev.json"), None, tmp_path).kind == "ask"
    assert p.decide("write", writes(src / "config" / "prod.json"), None, tmp_path).kind == "deny"
    assert p.decide("edit", writes(tmp_path / "b.py"), None, tmp_path).kind is None


def test_absolute_and_home_paths(tmp_path: Path) -> None:
    p = _policy(tmp_path, allow=[f"Read(/{tmp_path}/docs/**)"], deny=["Read(~/.ssh/**)"])
    assert p.decide("read", reads(tmp_path / "docs" / "x"), None, tmp_path).kind == "allow"
    ssh = Path.home() / ".ssh" / "id_ed25519"
    assert p.decide("read", reads(ssh), None, tmp_path).kind == "deny"
    assert p.decide("bash", None, "cat ~/.ssh/id_ed25519", tmp_path).kind == "deny"


def test_tool_names_and_mcp(tmp_path: Path) -> None:
    p = _policy(tmp_path, allow=["mcp__time", "Bash"], deny=["mcp__git__git_push", "Grep"])
    assert p.decide("mcp__time__now", None, None, tmp_path).kind == "allow"
    assert p.decide("mcp__git__git_push", None, None, tmp_path).kind == "deny"
    assert p.decide("mcp__git__git_log", None, None, tmp_path).kind is None
    assert p.decide("mcp__timer__x", None, None, tmp_path).kind is None
    assert p.decide("bash", None, "anything | at all", tmp_path).kind == "allow"
    assert p.decide("grep", reads(tmp_path), None, tmp_path).kind == "deny"


def test_bad_rules_are_problems_with_file_and_path(tmp_path: Path) -> None:
    source = SettingsSource("/w/.ink/settings.json", "project")
    entries = [
        RuleEntry("deny", "Bash(rm:*)", source, "permissions.deny[0]"),
        RuleEntry("deny", "Frobnicate(x)", source, "permissions.deny[1]"),
        RuleEntry("deny", "Bash(rm 'x:*)", source, "permissions.deny[2]"),
        RuleEntry("allow", "Grep(x)", source, "permissions.allow[0]"),
    ]
    p = Policy.from_entries(entries, tmp_path)
    assert [r.text for r in p.rules] == ["Bash(rm:*)"]
    assert [str(x) for x in p.problems] == [
        "invalid settings in /w/.ink/settings.json at permissions.deny[1]: "
        "\"Frobnicate(x)\": unknown tool 'Frobnicate' (one of Bash, Read, Edit, Write, Grep, "
        "Glob, LS, Task, TodoWrite, mcp__<server>)",
        "invalid settings in /w/.ink/settings.json at permissions.deny[2]: the command "
        "cannot be split into words: No closing quotation",
        "invalid settings in /w/.ink/settings.json at permissions.allow[0]: "
        '"Grep(x)": Grep rules take no specifier',
    ]
    decision = p.decide("bash", None, "rm x", tmp_path)
    assert decision.reason() == (
        'deny rule "Bash(rm:*)" (permissions.deny[0] in /w/.ink/settings.json) matches `rm x`'
    )


@pytest.mark.parametrize(
    ("command", "rules"),
    [
        ("npm test", ["Bash(npm test)"]),
        ("git status && npm run build --prod", ["Bash(npm run build --prod)"]),
        ("echo 'a b' > notes.txt", ["Bash(echo 'a b')", "Edit(./notes.txt)"]),
        ("$CMD", []),
    ],
)
def test_suggested_project_rules(tmp_path: Path, command: str, rules: list[str]) -> None:
    p = _policy(tmp_path, allow=["Bash(git status)"])
    assert p.suggest("bash", None, command, tmp_path) == rules
    for rule in rules:
        p.add("allow", rule, tmp_path)
    if rules:
        assert p.decide("bash", None, command, tmp_path).kind == "allow"


def test_suggested_rules_for_files_and_mcp(tmp_path: Path) -> None:
    p = Policy()
    assert p.suggest("edit", writes(tmp_path / "a.py"), None, tmp_path) == ["Edit(./a.py)"]
    assert p.suggest("read", reads(Path("/etc/hosts")), None, tmp_path) == ["Read(//etc/hosts)"]
    assert p.suggest("mcp__git__git_log", None, None, tmp_path) == ["mcp__git__git_log"]
