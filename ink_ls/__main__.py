"""`python -m ink_ls`: the same entry point as the `ink-ls` command."""

from __future__ import annotations

import sys

from ink_ls.cli import main

if __name__ == "__main__":
    sys.exit(main())
