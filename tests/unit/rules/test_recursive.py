"""A `Read` deny rule and a command that walks a directory above its path: real directories,
the real shell parser. `grep -r`, `rg`, `find`, `ls -R`, `tar` of a parent are refused; a
command that does not walk (`ls .`, `cat notes.txt`) or walks elsewhere is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from ink_ls.rules.policy import Policy


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "secrets").mkdir(parents=True)
    (root / "secrets" / "key").write_text("k\n")
    (root / "src").mkdir()
    (root / "notes.txt").write_text("n\n")
    return root


def kind(rule: str, command: str, ws: Path) -> str | None:
    policy = Policy()
    policy.add("deny", rule, ws)
    return policy.decide("bash", None, command, ws).kind


@pytest.mark.parametrize(
    ("command", "refused"),
    [
        ("grep -r key .", True),
        ("grep -Rn key", True),
        ("egrep --recursive key .", True),
        ("rg key", True),
        ("rg key src", False),
        ("find . -name '*.txt'", True),
        ("find src -name '*.txt'", False),
        ("ls -R", True),
        ("ls -la .", False),
        ("tar czf /tmp/out.tgz .", True),
        ("cp -r . /tmp/copy", True),
        ("cd /tmp && grep -r key {ws}", True),
        ("cat notes.txt", False),
        ("grep key notes.txt", False),
        ("echo $(rg key)", True),
        ("sudo grep -r key .", True),
    ],
)
def test_walking_a_parent_of_a_denied_path(command: str, refused: bool, ws: Path) -> None:
    got = kind("Read(./secrets/**)", command.format(ws=ws), ws)
    assert (got == "deny") is refused, got


def test_unanchored_and_absolute_rules(ws: Path, tmp_path: Path) -> None:
    assert kind("Read(.env)", "grep -r token src", ws) == "deny"  # `.env` may be anywhere
    assert kind("Read(.env)", "cat notes.txt", ws) is None
    assert kind(f"Read(/{ws}/secrets/**)", "rg key", ws) == "deny"
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert kind("Read(./secrets/**)", f"grep -r key {other}", ws) is None


def test_the_refusal_names_the_directory(ws: Path) -> None:
    policy = Policy()
    policy.add("deny", "Read(./secrets/**)", ws)
    decision = policy.decide("bash", None, "grep -r key .", ws)
    assert decision.reason() == (
        f'deny rule "Read(./secrets/**)" (this session) matches `grep -r key .` (it reads {ws}, '
        "which holds such paths)"
    )
