"""`python -m ink_ls.protocol.codegen [--check]`: write (or check) the generated protocol files.

Writes protocol.schema.json, the VS Code extension's protocol.generated.ts and the Neovim
plugin's protocol.lua below the repository root; `--check` writes nothing and exits 1 when a
file differs from what the models give.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ink_ls.protocol.codegen.lua import LUA_PATH, render_lua
from ink_ls.protocol.codegen.schema import SCHEMA_PATH, build_schema
from ink_ls.protocol.codegen.typescript import TS_PATH, render_typescript

ROOT = Path(__file__).resolve().parents[3]


def generated_files() -> dict[str, str]:
    """Every generated file (path relative to the repository root → its text), in memory."""
    schema = build_schema()
    return {
        SCHEMA_PATH: json.dumps(schema, indent=2, ensure_ascii=False) + "\n",
        TS_PATH: render_typescript(schema),
        LUA_PATH: render_lua(schema),
    }


def stale_files(root: Path = ROOT) -> list[str]:
    """The generated files under `root` whose text is not what the models give now."""
    stale = []
    for rel, text in generated_files().items():
        path = root / rel
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(rel)
    return stale


def main(argv: list[str] | None = None) -> int:
    """Write the files (or, with `--check`, report the stale ones); the exit status."""
    parser = argparse.ArgumentParser(prog="gen-protocol", description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; fail when stale")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository root")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_files(args.root)
        for rel in stale:
            print(f"stale: {rel} (run scripts/gen-protocol)", file=sys.stderr)
        return 1 if stale else 0
    for rel, text in generated_files().items():
        path = args.root / rel
        path.write_text(text, encoding="utf-8")
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
