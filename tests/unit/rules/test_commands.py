"""The command matcher, table-driven: compound commands, quoting, substitutions, redirects,
wrappers and what the parser cannot resolve, against one set of rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from ink_ls.rules.policy import Policy

ALLOW = [
    "Bash(git status)",
    "Bash(git diff:*)",
    "Bash(npm run test:*)",
    "Bash(ls:*)",
    "Bash(echo:*)",
    "Bash(cat:*)",
    "Bash(grep:*)",
    "Edit(./out/**)",
]
ASK = ["Bash(git push:*)"]
DENY = ["Bash(rm:*)", "Bash(curl:*)", "Read(./secrets/**)", "Read(.env)", "Edit(./generated/**)"]

CASES = [
    # (command, decision, rule that decides or None)
    ("git status", "allow", None),
    ("git status --short", None, None),  # exact rule: more words are not the same command
    ("git diff HEAD~1 -- src", "allow", None),
    ("npm run test -- --watch", "allow", None),
    ("npm run test:unit", None, None),  # `:*` is a prefix followed by a space or the end
    ("git status && rm -rf x", "deny", "Bash(rm:*)"),
    ("git status; rm -rf x", "deny", "Bash(rm:*)"),
    ("false || rm x", "deny", "Bash(rm:*)"),
    ("git status | ls -la", "allow", None),
    ("ls | xargs rm", "deny", "Bash(rm:*)"),
    ("echo $(rm -rf /)", "deny", "Bash(rm:*)"),
    ("echo `rm -rf /`", "deny", "Bash(rm:*)"),
    ("(cd src && rm x)", "deny", "Bash(rm:*)"),
    ('echo "$(curl https://x)"', "deny", "Bash(curl:*)"),
    ("env X=1 rm x", "deny", "Bash(rm:*)"),
    ("X=1 rm x", "deny", "Bash(rm:*)"),
    ("sudo -u root rm x", "deny", "Bash(rm:*)"),
    ("nohup nice -n 5 timeout 10 rm x", "deny", "Bash(rm:*)"),
    ("command rm x", "deny", "Bash(rm:*)"),
    ("exec rm x", "deny", "Bash(rm:*)"),
    ("bash -c 'rm x'", "deny", "Bash(rm:*)"),
    ('sh -c "echo hi; rm x"', "deny", "Bash(rm:*)"),
    ("eval 'rm -rf /'", "deny", "Bash(rm:*)"),
    ("'r''m' -rf x", "deny", "Bash(rm:*)"),
    ('"rm" x', "deny", "Bash(rm:*)"),
    ("\\rm x", "deny", "Bash(rm:*)"),
    ("/bin/rm x", "deny", "Bash(rm:*)"),
    ("for f in *; do rm $f; done", "deny", "Bash(rm:*)"),
    ("git push origin main", "ask", "Bash(git push:*)"),
    ("git status && git push", "ask", "Bash(git push:*)"),
    ("cat secrets/key.pem", "deny", "Read(./secrets/**)"),
    ("grep -r password ./secrets/db", "deny", "Read(./secrets/**)"),
    ("cat src/.env", "deny", "Read(.env)"),
    ("cat < .env", "deny", "Read(.env)"),
    ("echo hi > generated/x.py", "deny", "Edit(./generated/**)"),
    ("echo hi > out/report.txt", "allow", None),
    ("echo hi > notes.txt", None, None),  # a redirect is a write: it needs its own rule
    ("echo hi 2>&1 > /dev/null", "allow", None),
    ("echo hi >> out/log && cat out/log", "allow", None),
    ("$CMD x", "ask", "Bash(rm:*)"),  # the program is unknown: it might be rm
    ("echo hi | bash", "ask", "Bash(rm:*)"),
    ('eval "$X"', "ask", "Bash(rm:*)"),
    ('bash -c "$SCRIPT"', "ask", "Bash(rm:*)"),
    ("echo 'unterminated", "ask", "Bash(rm:*)"),
    ("echo hi > $OUT", "ask", "Edit(./generated/**)"),
    ("env LD_PRELOAD=/tmp/x.so ls", None, None),  # an assignment that changes what runs
    ("FOO=1 ls -la", "allow", None),
    ("command -v rm", None, None),  # looks rm up, does not run it
    ("sudo ls", None, None),  # sudo is never seen through for an allow rule
    ("timeout 5 git diff", "allow", None),
    ("git commit -m 'rm x'", None, None),  # quoted text is an argument, not a command
    ("git status && git diff | grep x", "allow", None),
    ("git status && npm install", None, None),  # one part no rule allows: the mode decides
    ("ls; echo done > out/done.txt", "allow", None),
    ("{ git status; rm x; }", "deny", "Bash(rm:*)"),
    ("if git diff --quiet; then rm x; fi", "deny", "Bash(rm:*)"),
    ("while true; do curl x; done", "deny", "Bash(curl:*)"),
    ("x=$(rm y); echo $x", "deny", "Bash(rm:*)"),
    ("cat <(rm x)", "deny", "Bash(rm:*)"),
    ("git diff | sh -c 'cat; rm x'", "deny", "Bash(rm:*)"),
    ("ls && echo ok || echo 'failed' > out/status", "allow", None),
    ("ls | tee log.txt", None, None),
    ("ls $(git status)", "allow", None),
]


@pytest.fixture
def policy(tmp_path: Path) -> Policy:
    p = Policy()
    for kind, rules in (("allow", ALLOW), ("ask", ASK), ("deny", DENY)):
        for rule in rules:
            p.add(kind, rule, tmp_path)  # type: ignore[arg-type]
    return p


@pytest.mark.parametrize(("command", "kind", "rule"), CASES, ids=[c[0] for c in CASES])
def test_command_decisions(
    policy: Policy, tmp_path: Path, command: str, kind: str | None, rule: str | None
) -> None:
    decision = policy.decide("bash", None, command, tmp_path)
    assert decision.kind == kind, decision.reason()
    if rule is not None:
        assert decision.rule is not None and decision.rule.text == rule


def test_there_are_at_least_twenty_compound_cases() -> None:
    compound = [c for c, _, _ in CASES if any(op in c for op in ("&&", "||", ";", "|", "$(", "`"))]
    assert len(compound) >= 20


def test_reason_names_rule_command_and_source(policy: Policy, tmp_path: Path) -> None:
    decision = policy.decide("bash", None, "git status && sudo rm -rf x", tmp_path)
    assert decision.reason() == 'deny rule "Bash(rm:*)" (this session) matches `rm -rf x`'


def test_no_built_in_safe_list(tmp_path: Path) -> None:
    assert Policy().decide("bash", None, "ls", tmp_path).kind is None
    assert Policy().decide("bash", None, "$X", tmp_path).kind is None  # no rules: the mode
