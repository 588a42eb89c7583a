"""`WorkspaceTrust`: explicit, remembered, asked once, asked again after a change; never implied
by readonly, CI or a run without a person; the user-settings allow-list of `${VAR}`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ink_ls.core import expansion
from ink_ls.core.trust import Answer, TrustQuestion, TrustStore, WorkspaceTrust


class Asker:
    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.questions: list[TrustQuestion] = []

    async def __call__(self, question: TrustQuestion) -> Answer | None:
        self.questions.append(question)
        return self.answers.pop(0)


def _ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".ink").mkdir(parents=True)
    (root / ".mcp.json").write_text('{"mcpServers": {}}')
    (root / ".ink" / "settings.json").write_text("{}")
    return root


def _trust(root: Path, tmp_path: Path, **kw: object) -> WorkspaceTrust:
    return WorkspaceTrust(
        root,
        describers=[lambda r, c: [f"{name}: {len(data)} bytes" for name, data in c.items()]],
        store=TrustStore(tmp_path / "state" / "trust.json"),
        env={},
        **kw,  # type: ignore[arg-type]
    )


async def test_always_is_remembered_until_a_covered_file_changes(tmp_path: Path) -> None:
    root = _ws(tmp_path)
    asker = Asker("always", "no")
    first = _trust(root, tmp_path)
    assert await first.resolve(asker, mode="auto") == "trusted"
    [question] = asker.questions
    assert question.title == f"Trust the workspace {root}?"
    assert "  .mcp.json: 18 bytes" in question.detail
    assert "Files: .ink/settings.json, .mcp.json" in question.detail
    assert first.covers(".mcp.json", first.files[".mcp.json"])
    assert await _trust(root, tmp_path).resolve(asker, mode="ask") == "trusted"  # remembered
    assert len(asker.questions) == 1
    (root / ".ink" / "settings.json").write_text('{"hooks": {}}')
    again = _trust(root, tmp_path)
    assert await again.resolve(asker, mode="ask") == "untrusted"
    assert await again.resolve(asker, mode="ask") == "untrusted"  # asked once per decision
    assert len(asker.questions) == 2 and again.files == {}


async def test_once_is_not_remembered(tmp_path: Path) -> None:
    root = _ws(tmp_path)
    assert await _trust(root, tmp_path).resolve(Asker("once"), mode="ask") == "trusted"
    assert not (tmp_path / "state" / "trust.json").exists()


@pytest.mark.parametrize(
    ("mode", "env", "interactive", "why"),
    [
        ("readonly", {}, True, "approval mode readonly asks nothing"),
        ("auto", {"CI": "true"}, True, "CI is set"),
        ("auto", {}, False, "no one can be asked"),
    ],
)
async def test_never_trusted_implicitly(
    tmp_path: Path, mode: str, env: dict[str, str], interactive: bool, why: str
) -> None:
    trust = _trust(_ws(tmp_path), tmp_path, interactive=interactive)
    trust.env = env
    asker = Asker()
    assert await trust.resolve(asker, mode=mode) == "untrusted"
    assert asker.questions == [] and why in trust.reason


async def test_explicit_wins_and_no_files_need_no_question(tmp_path: Path) -> None:
    root = _ws(tmp_path)
    asker = Asker()
    yes = _trust(root, tmp_path, explicit=True, interactive=False)
    assert await yes.resolve(asker, mode="readonly") == "trusted"
    no = _trust(root, tmp_path, explicit=False)
    assert await no.resolve(asker, mode="ask") == "untrusted"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert await _trust(empty, tmp_path).resolve(asker, mode="ask") == "trusted"
    assert asker.questions == [] and not (tmp_path / "state").exists()


async def test_a_covered_file_linked_outside_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    secret = tmp_path / "secret.json"
    secret.write_text('{"token": "hunter2"}')
    (root / ".mcp.json").symlink_to(secret)
    asker = Asker("once")
    trust = _trust(root, tmp_path)
    await trust.resolve(asker, mode="ask")
    assert "  .mcp.json: 0 bytes" in asker.questions[0].detail


def test_the_allow_list_comes_from_the_users_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert expansion.user_allowed_env() == frozenset()
    path = tmp_path / "ink-ls" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"allowedEnv": ["A", "B"], "env": {"C": "1"}}))
    assert expansion.user_allowed_env() == frozenset({"A", "B"})
    path.write_text(json.dumps({"allowedEnv": "A"}))
    assert expansion.user_allowed_env() == frozenset()


async def test_a_refusal_by_mode_is_not_remembered_an_answer_is(tmp_path: Path) -> None:
    trust = _trust(_ws(tmp_path), tmp_path)
    asker = Asker("no")
    assert await trust.resolve(asker, mode="readonly") == "untrusted"
    assert trust.check() == "undecided"  # the editor's ink/tools: not asked, waiting
    assert await trust.resolve(asker, mode="ask") == "untrusted"  # asked now
    assert await trust.resolve(asker, mode="ask") == "untrusted"
    assert len(asker.questions) == 1
    trust.explicit = True  # the setting changed
    assert trust.check() == "trusted"
