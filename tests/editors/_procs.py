"""Process clean-up for the editor tests: everything an editor run started carries a tag in
its environment (`INK_TEST_TAG`), so it can be found and killed even after it left the
editor's process group (the language server runs in its own)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterable

TAG_VAR = "INK_TEST_TAG"


def tagged_pids(tag: str) -> list[int]:
    """Processes whose environment carries `INK_TEST_TAG=<tag>`."""
    found = []
    needle = f"{TAG_VAR}={tag}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle in fh.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def kill_tagged(tag: str, also: Iterable[int] = ()) -> None:
    """SIGKILL every process carrying `tag`, and the pids in `also`."""
    for pid in [*tagged_pids(tag), *also]:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
