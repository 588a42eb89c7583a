"""The settings files: where they are, how they merge, what an untrusted project loses, and
how a bad file is reported while the rest still loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ink_ls.core.local_rules import LocalRulesError, add_local_rule
from ink_ls.core.settings_files import load_settings, user_settings_path


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / "config")}


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_user_file_path(home: dict[str, str], tmp_path: Path) -> None:
    assert user_settings_path(home) == tmp_path / "config" / "ink-ls" / "settings.json"


def test_merge_order_rules_from_every_file_and_later_mode_wins(
    home: dict[str, str], tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    user = _write(
        user_settings_path(home),
        {"permissions": {"allow": ["Bash(npm test:*)"], "defaultMode": "ask"}},
    )
    _write(ws / ".claude/settings.json", {"permissions": {"deny": ["Bash(rm:*)"]}, "model": "x"})
    _write(ws / ".ink/settings.json", {"permissions": {"ask": ["Bash(git push:*)"]}})
    _write(ws / ".ink/settings.local.json", {"permissions": {"defaultMode": "auto"}})
    settings = load_settings(
        ws, trusted=True, editor={"permissions": {"deny": ["Read(./.env)"]}}, env=home
    )
    assert [(r.kind, r.text, r.where) for r in settings.rules] == [
        ("allow", "Bash(npm test:*)", "permissions.allow[0]"),
        ("deny", "Read(./.env)", "permissions.deny[0]"),
        ("deny", "Bash(rm:*)", "permissions.deny[0]"),
        ("ask", "Bash(git push:*)", "permissions.ask[0]"),
    ]
    assert settings.rules[0].source.path == str(user)
    assert settings.rules[1].source.scope == "editor"
    assert settings.default_mode == "auto"
    assert settings.default_mode_source is not None
    assert settings.default_mode_source.path.endswith(".ink/settings.local.json")
    assert not settings.problems and not settings.ignored


def test_untrusted_project_keeps_deny_and_ask_only(home: dict[str, str], tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _write(
        ws / ".ink/settings.json",
        {
            "permissions": {
                "allow": ["Bash"],
                "deny": ["Bash(rm:*)"],
                "ask": ["Edit"],
                "defaultMode": "auto",
            },
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "true"}]}]},
            "env": {"PATH": "/evil"},
            "sandbox": {"enabled": True, "network": True, "writable": ["/"]},
        },
    )
    _write(ws / ".ink/settings.local.json", {"permissions": {"allow": ["Write"]}})
    settings = load_settings(ws, trusted=False, env=home)
    assert [(r.kind, r.text) for r in settings.rules] == [("deny", "Bash(rm:*)"), ("ask", "Edit")]
    assert settings.default_mode is None and settings.hooks == () and settings.env == {}
    assert settings.sandbox.enabled and not settings.sandbox.network
    assert settings.sandbox.writable == ()
    assert len(settings.ignored) == 7
    trusted = load_settings(ws, trusted=True, env=home)
    assert {r.text for r in trusted.rules} == {"Bash", "Bash(rm:*)", "Edit", "Write"}
    assert trusted.default_mode == "auto" and trusted.env == {"PATH": "/evil"}
    assert [(h.event, h.matcher, h.command) for h in trusted.hooks] == [
        ("PreToolUse", "Bash", "true")
    ]
    assert trusted.sandbox.network and trusted.sandbox.writable == ("/",)


def test_user_file_widens_without_trust(home: dict[str, str], tmp_path: Path) -> None:
    _write(
        user_settings_path(home),
        {
            "permissions": {"allow": ["Bash(ls)"], "defaultMode": "readonly"},
            "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 5}]}]},
        },
    )
    settings = load_settings(tmp_path, trusted=False, env=home)
    assert settings.default_mode == "readonly" and settings.rules[0].text == "Bash(ls)"
    assert settings.hooks[0].timeout == 5 and settings.hooks[0].matcher == ""


def test_bad_json_names_file_and_position_and_the_rest_loads(
    home: dict[str, str], tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    bad = _write(ws / ".ink/settings.json", '{"permissions": {"deny": ["Bash(rm:*)"],}}')
    _write(ws / ".ink/settings.local.json", {"permissions": {"deny": ["Read(.env)"]}})
    settings = load_settings(ws, trusted=True, env=home)
    assert [str(p) for p in settings.problems] == [
        f"invalid settings in {bad}: not valid JSON (line 1, column 41): "
        "Expecting property name enclosed in double quotes"
    ]
    assert [r.text for r in settings.rules] == ["Read(.env)"]


def test_bad_section_names_json_path_and_other_sections_load(
    home: dict[str, str], tmp_path: Path
) -> None:
    bad = _write(
        tmp_path / ".ink/settings.json",
        {
            "permissions": {"deny": ["Bash(rm:*)", 7], "defaultMode": "yolo"},
            "hooks": {"PreToolUse": [{"hooks": [{"command": ""}]}], "OnLunch": []},
            "sandbox": {"enabled": True},
        },
    )
    settings = load_settings(tmp_path, trusted=True, env=home)
    assert [str(p) for p in settings.problems] == [
        f"invalid settings in {bad} at permissions.deny[1]: a rule must be a string",
        f"invalid settings in {bad} at permissions.defaultMode: must be one of ask, auto, "
        "readonly, plan",
        f"invalid settings in {bad} at hooks.PreToolUse[0].hooks[0].command: String should "
        "have at least 1 character",
        f"invalid settings in {bad} at hooks.OnLunch: unknown event; one of PreToolUse, "
        "PostToolUse, UserPromptSubmit, Stop, SessionStart, PreCompact",
    ]
    assert [r.text for r in settings.rules] == ["Bash(rm:*)"] and settings.sandbox.enabled


def test_add_local_rule_creates_file_and_git_exclude(tmp_path: Path) -> None:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("# git ls-files --others\n*.swp")
    path = add_local_rule(tmp_path, "Bash(npm test)")
    add_local_rule(tmp_path, "Bash(npm test)")
    add_local_rule(tmp_path, "Edit(src/a.py)")
    assert json.loads(path.read_text()) == {
        "permissions": {"allow": ["Bash(npm test)", "Edit(src/a.py)"]}
    }
    exclude = (tmp_path / ".git" / "info" / "exclude").read_text()
    assert exclude == "# git ls-files --others\n*.swp\n/.ink/settings.local.json\n"


def test_add_local_rule_keeps_other_keys_and_refuses_a_broken_file(tmp_path: Path) -> None:
    path = _write(tmp_path / ".ink/settings.local.json", {"env": {"A": "1"}})
    add_local_rule(tmp_path, "mcp__git")
    assert json.loads(path.read_text()) == {
        "env": {"A": "1"},
        "permissions": {"allow": ["mcp__git"]},
    }
    path.write_text("{oops")
    with pytest.raises(LocalRulesError, match="not valid JSON"):
        add_local_rule(tmp_path, "Bash(ls)")
    assert path.read_text() == "{oops"
