"""Suite-wide settings: property tests have no per-example deadline, since a deadline measures
the machine's load (2 shared cores under `stress`), not the code under test; and no test
inherits CI's `CI=true` unless it sets it."""

import pytest
from hypothesis import settings

settings.register_profile("ink", deadline=None)
settings.load_profile("ink")


@pytest.fixture(autouse=True)
def _not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """CI runs this suite with `CI=true`, which ink-ls reads as "nobody can be asked" (no
    workspace-trust question): tests see a person's environment unless they set CI."""
    monkeypatch.delenv("CI", raising=False)
