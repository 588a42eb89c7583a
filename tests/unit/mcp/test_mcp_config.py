"""MCP configuration: the three sources, `${VAR}` expansion, lenient errors, no secrets shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ink_ls.mcp.config import load_configs, parse_servers, user_config_path
from ink_ls.mcp.tool import check_schema, tool_name

ENV = {"TOKEN": "s3cret-token", "HOME": "/home/u"}


def test_stdio_and_http_entries_with_variables(tmp_path: Path) -> None:
    configs, problems = parse_servers(
        {
            "db": {
                "command": "db-mcp",
                "args": ["--token", "${TOKEN}", "${MISSING:-dflt}"],
                "env": {"KEY": "${TOKEN}"},
                "cwd": "sub",
                "trusted": True,
            },
            "web": {
                "url": "https://mcp.example.com/${MISSING:-mcp}",
                "headers": {"Authorization": "Bearer ${TOKEN}"},
            },
        },
        "user",
        root=tmp_path,
        env=ENV,
    )
    assert problems == []
    db, web = configs
    assert db.args == ("--token", "s3cret-token", "dflt") and db.env == {"KEY": "s3cret-token"}
    assert db.cwd == tmp_path / "sub" and db.trusted and db.transport == "stdio"
    assert web.url == "https://mcp.example.com/mcp"
    assert web.headers == {"Authorization": "Bearer s3cret-token"}
    # what status shows is the text as written, never the expanded secret
    assert "s3cret" not in db.shown + web.shown and "${TOKEN}" in db.shown


def test_bad_entries_are_reported_and_the_rest_load(tmp_path: Path) -> None:
    configs, problems = parse_servers(
        {
            "both": {"command": "x", "url": "http://y"},
            "neither": {"args": []},
            "unset": {"command": "x", "args": ["${NOPE}"]},
            "typo": {"command": "ok", "argz": []},
            "off": {"command": "x", "disabled": True},
            "sse": {"url": "http://y", "type": "sse"},
            "junk": 3,
        },
        "user",
        root=tmp_path,
        env=ENV,
    )
    errors = {c.name: c.error for c in configs}
    assert (
        errors["both"]
        == errors["neither"]
        == ('give either "command" (a program) or "url" (streamable HTTP)')
    )
    assert errors["unset"] == "references ${NOPE}, which is not set"
    assert errors["typo"] is None
    assert errors["sse"] == "type 'sse' is not supported (use stdio or http)"
    assert "off" not in errors
    assert problems == [
        "mcpServers.typo.argz: unknown setting",
        "mcpServers.junk: must be an object",
    ]


def test_sources_merge_later_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    user = user_config_path()
    assert user == tmp_path / "cfg" / "ink-ls" / "mcp.json"
    user.parent.mkdir(parents=True)
    user.write_text(
        json.dumps({"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}}})
    )
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"b": {"command": "ws-b"}, "c": {"command": "ws-c"}}})
    )
    configs, problems = load_configs(ws, {"c": {"command": "editor-c"}})
    assert problems == []
    assert {c.name: (c.origin, c.command) for c in configs} == {
        "a": ("user", "user-a"),
        "b": ("workspace", "ws-b"),
        "c": ("editor", "editor-c"),
    }


def test_broken_file_is_a_problem_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    (tmp_path / ".mcp.json").write_text("{not json")
    configs, problems = load_configs(tmp_path)
    assert configs == [] and len(problems) == 1
    assert problems[0].startswith(f"{tmp_path / '.mcp.json'}: not valid JSON: ")


def test_names_and_schemas() -> None:
    assert tool_name("my server", "do.it/now") == "mcp__my_server__do_it_now"
    assert len(tool_name("s", "x" * 100)) == 64
    assert check_schema({"type": "object", "properties": {}}) is None
    assert check_schema({"type": "array"}) == 'its input schema is not of type "object"'
    assert (check_schema({"type": "object", "properties": {"a": {"type": 5}}}) or "").startswith(
        "its input schema is invalid at properties/a/type: "
    )


def test_a_workspace_file_expands_only_allowed_and_own_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "ink_ls.mcp.config.user_allowed_env", lambda: frozenset({"TRACKER", "INK_API_KEY"})
    )
    env = {"TRACKER": "trk", "GITHUB_TOKEN": "ghp", "INK_API_KEY": "sk", "DB_URL": "pg://"}
    raw = {
        "web": {"url": "https://x/${GITHUB_TOKEN}", "headers": {"A": "${TRACKER}"}},
        "db": {"command": "db", "args": ["${DB_URL}", "${INK_API_KEY}"], "env": {"DB_URL": "x"}},
    }
    (web, db), problems = parse_servers(
        raw, "workspace", root=tmp_path, env=env, secret=("INK_API_KEY",)
    )
    assert web.url == "https://x/${GITHUB_TOKEN}" and web.headers == {"A": "trk"}
    assert db.args == ("pg://", "${INK_API_KEY}")  # its own env's name expands, the key never
    assert problems[0].startswith("mcpServers.web: ${GITHUB_TOKEN} left as written")
    assert problems[1].startswith("mcpServers.db: ${INK_API_KEY} left as written")
    (user,), problems = parse_servers(
        {"u": {"command": "x", "args": ["${GITHUB_TOKEN}", "${INK_API_KEY}"]}},
        "user",
        root=tmp_path,
        env=env,
        secret=("INK_API_KEY",),
    )
    assert user.args == ("ghp", "${INK_API_KEY}")  # the user's own file: anything but the key
    assert problems == [
        "mcpServers.u: ${INK_API_KEY} left as written: the model's API key is never passed on"
    ]


def test_the_trust_question_masks_values(tmp_path: Path) -> None:
    from ink_ls.mcp.config import describe_servers

    servers = {
        "web": {"url": "https://u:pw@h/mcp?key=abc&x", "headers": {"Authorization": "Bearer t"}},
        "git": {"command": "uvx", "args": ["git mcp", "--repo", "."], "env": {"TOKEN": "t"}},
        "off": {"command": "x", "disabled": True},
    }
    lines = describe_servers(tmp_path, {".mcp.json": json.dumps({"mcpServers": servers}).encode()})
    assert lines == [
        "MCP server web: https://u:***@h/mcp?key=***&x (headers: Authorization: ***)",
        "MCP server git: TOKEN=*** uvx 'git mcp' --repo .",
    ]
