"""The shadow store: a bare git repository per workspace under the state directory, driven
with our own `GIT_DIR`, `GIT_WORK_TREE` and `GIT_INDEX_FILE`.

It never reads or writes the user's `.git` (nor their index, stash or hooks): git is told
where our repository and index are, the user's and system git configuration are not loaded
(no filters, no fsmonitor, no hooks), and `info/attributes` turns off every conversion so a
blob is the file's exact bytes. The workspace's `.gitignore` files are honoured. A snapshot
refreshes the index from file stats, so an unchanged workspace costs a stat walk and no
hashing. Files larger than the cap, and binary files, are left out and named as skipped.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import shutil
import stat
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""git's id of the tree with nothing in it (the state of an empty workspace)."""
BINARY_PROBE = 8000
"""Bytes read to tell a binary file (a NUL among them), as git itself decides."""
BULK_FILES = 256
"""More new files than this in one snapshot go straight into a pack."""
PATHS_PER_CALL = 1000
"""Paths named on one git command line (far below any argument-length limit)."""
_ATTRIBUTES = "* -text -filter -ident -working-tree-encoding\n"


class ShadowError(Exception):
    """The shadow store failed (git missing, a damaged repository); a sentence for the user."""


@dataclass(frozen=True)
class Snapshot:
    """The workspace at one moment: the tree of every restorable file, and the files left
    out (`path → "binary"` or `"larger than N bytes"`), stored as a blob (`skipped`)."""

    tree: str
    skipped: str | None = None


@dataclass(frozen=True)
class FileChange:
    """One file that differs between two snapshots; `added`/`removed` are line counts (None
    for a binary change, which is not restorable)."""

    path: str
    status: str
    """"added", "modified" or "deleted"."""
    added: int | None
    removed: int | None


@dataclass(frozen=True)
class Blob:
    """A file as a tree holds it: its git mode (`100644`, `100755`, `120000`) and object."""

    mode: str
    oid: str


_GIT: dict[str | None, str] = {}
"""PATH → the git found on it (every turn of every session opens the store: a PATH search
each time cost more than the rest of opening it)."""


def _git_binary() -> str:
    path = os.environ.get("PATH")
    found = _GIT.get(path) or shutil.which("git")
    if found is None:
        raise ShadowError("checkpoints need git on PATH (it drives the shadow store)")
    _GIT[path] = found
    return found


@functools.lru_cache(maxsize=64)
def _real(workspace: Path) -> str:
    """The workspace root with its links resolved, once per process: every turn opens its
    store, and a root does not move while it is served (a deep path cost a dozen lstats)."""
    return os.path.realpath(workspace)


def store_for(workspace: Path, state: Path) -> Path:
    """The repository directory of `workspace` under `state`: `<name>-<hash of its path>`."""
    real = _real(workspace)
    digest = hashlib.sha256(real.encode()).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "._-" else "_" for c in Path(real).name)[:40]
    return state / "checkpoints" / f"{name or 'root'}-{digest}"


class ShadowRepo:
    """The shadow store of one workspace. Methods block (run them off the event loop); one
    process at a time changes the shared index (`locked`)."""

    def __init__(self, workspace: Path, root: Path, *, max_file_bytes: int) -> None:
        self.workspace = Path(_real(workspace))
        self.root = root
        self.git_dir = root / "git"
        self.index = root / "index"
        self.temp_dir = root / "tmp"
        """Where restores make their temp files (same filesystem as the state directory)."""
        self.max_file_bytes = max_file_bytes
        self._git = _git_binary()

    # ---- plumbing --------------------------------------------------------------------------

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            GIT_DIR=str(self.git_dir),
            GIT_WORK_TREE=str(self.workspace),
            GIT_INDEX_FILE=str(self.index),
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_TERMINAL_PROMPT="0",
            GIT_OPTIONAL_LOCKS="0",
            GIT_AUTHOR_NAME="ink-ls",
            GIT_AUTHOR_EMAIL="ink-ls@localhost",
            GIT_COMMITTER_NAME="ink-ls",
            GIT_COMMITTER_EMAIL="ink-ls@localhost",
            LC_ALL="C",
        )
        return env

    def run(self, *args: str, data: bytes | None = None, ok: tuple[int, ...] = (0,)) -> bytes:
        """Run git on our repository; `ShadowError` with git's message on failure."""
        env = self._env()
        if "init" in args[:1]:  # git refuses a work tree while it creates a bare repository
            del env["GIT_WORK_TREE"], env["GIT_DIR"]
        proc = subprocess.run(
            [self._git, *args],
            input=data,
            capture_output=True,
            env=env,
            cwd=self.workspace,
            check=False,
        )
        if proc.returncode not in ok:
            message = proc.stderr.decode(errors="replace").strip().splitlines()
            raise ShadowError(
                f"git {args[0]} failed: {message[-1] if message else proc.returncode}"
            )
        return proc.stdout

    def ensure(self) -> None:
        """Create the bare repository and our settings once."""
        if (self.git_dir / "HEAD").is_file():
            return
        self.root.mkdir(parents=True, exist_ok=True)
        self.temp_dir.mkdir(exist_ok=True)
        # No template: git's sample hooks and description are ~25 files the store never uses
        # (and on a nearly full disk they are what fails first).
        self.run("init", "-q", "--bare", "--template=", str(self.git_dir))
        for key, value in (
            ("core.bare", "false"),
            ("core.fileMode", "true"),
            ("core.symlinks", "true"),
            ("core.autocrlf", "false"),
            ("core.quotePath", "false"),
            ("gc.auto", "0"),
        ):
            self.run("config", key, value)
        (self.git_dir / "info").mkdir(exist_ok=True)
        (self.git_dir / "info" / "attributes").write_text(_ATTRIBUTES)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the store's lock (another process or session of this workspace waits)."""
        self.ensure()
        with open(self.root / "lock", "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    # ---- snapshots -------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """Record the workspace now. Cheap when little changed: only files whose stat differs
        from the index are read."""
        with self.locked():
            self.run("update-index", "-q", "--refresh", ok=(0, 1))
            listed = self.run("ls-files", "-z", "-m", "-o", "-d", "--exclude-standard")
            adds: list[str] = []
            removes: list[str] = []
            skipped: dict[str, list[str | int]] = {}
            for raw in sorted(set(listed.split(b"\0"))):
                name = raw.decode("utf-8", "surrogateescape")
                if not name or name.endswith("/"):  # a nested repository: not ours to record
                    continue
                path = self.workspace / name
                reason = self._why_skipped(path)
                if reason == "gone":
                    removes.append(name)
                elif reason is None:
                    adds.append(name)
                else:  # the size and time tell a later snapshot whether it changed
                    info = path.lstat()
                    skipped[name] = [reason, info.st_size, info.st_mtime_ns]
                    removes.append(name)
            if adds:
                # many new files (the first snapshot of a workspace): stream them into one
                # pack instead of a loose object each (one file written, not thousands)
                bulk = ("-c", "core.bigFileThreshold=1") if len(adds) > BULK_FILES else ()
                self.run(*bulk, "update-index", "--add", "--remove", "-z", "--stdin", data=_z(adds))
            if removes:
                self.run("update-index", "--force-remove", "-z", "--stdin", data=_z(removes))
            tree = self.run("write-tree").decode().strip()
            blob = None
            if skipped:
                text = json.dumps(skipped, sort_keys=True, ensure_ascii=False).encode()
                blob = self.run("hash-object", "-w", "--stdin", data=text).decode().strip()
            return Snapshot(tree, blob)

    def snapshot_paths(self, base: Snapshot, paths: Iterable[str]) -> Snapshot:
        """`base` with `paths` recorded as they are now (a rewind's result: it knows which
        files it wrote), without walking the rest of the workspace."""
        names = sorted(set(paths))
        if not names:
            return base
        with self.locked():
            self.run("update-index", "--add", "--remove", "-z", "--stdin", data=_z(names))
            tree = self.run("write-tree").decode().strip()
            skipped = self.skipped(base.skipped)
            if not skipped.keys() & set(names):
                return Snapshot(tree, base.skipped)
            for name in names:  # written from the store: restorable now
                skipped.pop(name, None)
            if not skipped:
                return Snapshot(tree, None)
            text = json.dumps(skipped, sort_keys=True, ensure_ascii=False).encode()
            return Snapshot(
                tree, self.run("hash-object", "-w", "--stdin", data=text).decode().strip()
            )

    def _why_skipped(self, path: Path) -> str | None:
        """None for a restorable file, "gone", or why it is left out."""
        try:
            info = path.lstat()
        except FileNotFoundError:
            return "gone"
        except OSError as exc:
            return f"unreadable ({exc.strerror})"
        if stat.S_ISLNK(info.st_mode):
            return None
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if info.st_size > self.max_file_bytes:
            return f"larger than {self.max_file_bytes} bytes"
        try:
            with open(path, "rb") as fh:
                if b"\0" in fh.read(BINARY_PROBE):
                    return "binary"
        except OSError as exc:
            return f"unreadable ({exc.strerror})"
        return None

    def skipped(self, blob: str | None) -> dict[str, list[str | int]]:
        """The files a snapshot left out: path → [why, size, mtime_ns]."""
        if blob is None:
            return {}
        loaded: dict[str, list[str | int]] = json.loads(self.run("cat-file", "blob", blob))
        return loaded

    def skipped_changes(self, a: str | None, b: str | None) -> dict[str, str]:
        """Files left out of either snapshot that differ between them: path → why."""
        if a == b:
            return {}
        old, new = self.skipped(a), self.skipped(b)
        return {
            path: str((new.get(path) or old[path])[0])
            for path in sorted(old.keys() | new.keys())
            if old.get(path) != new.get(path)
        }

    # ---- reading ---------------------------------------------------------------------------

    def changes(self, a: str, b: str) -> list[FileChange]:
        """The files that differ from tree `a` to tree `b`, with line counts, by path."""
        if a == b:
            return []
        out = self.run("diff-tree", "-r", "-z", "--no-renames", "--numstat", a, b)
        counts: dict[str, tuple[int | None, int | None]] = {}
        for record in out.split(b"\0"):
            if not record:
                continue
            added, removed, name = record.decode("utf-8", "surrogateescape").split("\t", 2)
            counts[name] = (
                int(added) if added != "-" else None,
                int(removed) if removed != "-" else None,
            )
        status = self.run("diff-tree", "-r", "-z", "--no-renames", "--name-status", a, b)
        parts = [p.decode("utf-8", "surrogateescape") for p in status.split(b"\0") if p]
        result = []
        for code, name in zip(parts[0::2], parts[1::2], strict=True):
            word = {"A": "added", "D": "deleted"}.get(code[0], "modified")
            plus, minus = counts.get(name, (None, None))
            result.append(FileChange(name, word, plus, minus))
        return sorted(result, key=lambda c: c.path)

    def changed_paths(self, a: str, b: str) -> set[str]:
        """The paths that differ from tree `a` to tree `b`."""
        if a == b:
            return set()
        out = self.run("diff-tree", "-r", "-z", "--no-renames", "--name-only", a, b)
        return {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}

    def blob_at(self, tree: str, path: str) -> Blob | None:
        """The file `path` as `tree` holds it, or None when the tree has no such file."""
        out = self.run("ls-tree", "-z", tree, "--", path)
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, name = record.split(b"\t", 1)
            mode, kind, oid = meta.decode().split()
            if kind == "blob" and name.decode("utf-8", "surrogateescape") == path:
                return Blob(mode, oid)
        return None

    def blobs_at(self, tree: str, paths: Iterable[str]) -> dict[str, Blob]:
        """The files of `paths` that `tree` holds (one `ls-tree` per thousand paths)."""
        wanted = sorted(set(paths))
        found: dict[str, Blob] = {}
        for start in range(0, len(wanted), PATHS_PER_CALL):
            chunk = wanted[start : start + PATHS_PER_CALL]
            out = self.run("--literal-pathspecs", "ls-tree", "-r", "-z", tree, "--", *chunk)
            names = set(chunk)
            for record in out.split(b"\0"):
                if not record:
                    continue
                meta, raw = record.split(b"\t", 1)
                mode, kind, oid = meta.decode().split()
                name = raw.decode("utf-8", "surrogateescape")
                if kind == "blob" and name in names:
                    found[name] = Blob(mode, oid)
        return found

    def read_blob(self, oid: str) -> bytes:
        return self.run("cat-file", "blob", oid)

    def read_blobs(self, oids: Iterable[str]) -> dict[str, bytes]:
        """The contents of many blobs in one `cat-file --batch`."""
        wanted = sorted(set(oids))
        if not wanted:
            return {}
        out = self.run("cat-file", "--batch", data="".join(f"{o}\n" for o in wanted).encode())
        found: dict[str, bytes] = {}
        at = 0
        for oid in wanted:
            end = out.index(b"\n", at)
            header = out[at:end].decode().split()
            if len(header) != 3:  # "<oid> missing"
                raise ShadowError(f"the store has lost object {oid}")
            size = int(header[2])
            found[oid] = out[end + 1 : end + 1 + size]
            at = end + 1 + size + 1  # the content is followed by a newline
        return found

    def diff_text(self, a: str, b: str, paths: list[str] | None = None, *, color: bool) -> str:
        """A unified diff from tree `a` to tree `b` (of `paths`, when given)."""
        args = [
            "diff-tree",
            "-r",
            "-p",
            "--no-renames",
            f"--color={'always' if color else 'never'}",
        ]
        out = self.run(*args, a, b, "--", *(paths or []))
        return out.decode("utf-8", "replace")

    # ---- keeping and pruning -----------------------------------------------------------------

    def keep(self, ref: str, tree: str, *, message: str) -> None:
        """Keep `tree` (a commit under `ref`, so its time is known to pruning)."""
        commit = self.run("commit-tree", tree, "-m", message).decode().strip()
        self.run("update-ref", ref, commit)

    def unkeep(self, ref: str) -> None:
        """Stop keeping one ref (its objects go with the next pruning)."""
        self.run("update-ref", "-d", ref)

    def refs(self, prefix: str = "refs/ink/") -> list[tuple[str, int]]:
        """Our refs under `prefix` with their commit times (seconds), oldest first."""
        out = self.run("for-each-ref", "--format=%(refname) %(committerdate:unix)", prefix).decode()
        pairs = []
        for line in out.splitlines():
            name, _, when = line.rpartition(" ")
            pairs.append((name, int(when or 0)))
        return sorted(pairs, key=lambda p: (p[1], p[0]))

    def drop(self, refs: list[str], *, expire: str = "1.hour.ago") -> None:
        """Delete `refs` and the objects nothing else keeps that are older than `expire`
        (the default spares what a snapshot running elsewhere has just written and not yet
        kept under a ref; pruning by size says "now")."""
        if not refs:
            return
        with self.locked():
            commands = "".join(f"delete {r}\n" for r in refs).encode()
            self.run("update-ref", "--stdin", data=commands)
            self.run("reflog", "expire", "--expire=now", "--all")
            self.run("prune", f"--expire={expire}")

    def missing_trees(self, trees: Iterable[str]) -> set[str]:
        """Which of `trees` are no longer stored (one `cat-file --batch-check`)."""
        wanted = sorted(set(trees))
        if not wanted:
            return set()
        lines = "".join(f"{t}^{{tree}}\n" for t in wanted).encode()
        out = self.run("cat-file", "--batch-check", data=lines).decode().splitlines()
        return {t for t, line in zip(wanted, out, strict=True) if line.endswith(" missing")}

    def has_tree(self, tree: str) -> bool:
        """Whether the tree is still stored (pruning removes old ones)."""
        try:
            self.run("cat-file", "-e", f"{tree}^{{tree}}")
        except ShadowError:
            return False
        return True

    def tidy(self) -> None:
        """Pack loose objects and merge small packs when they pile up (cheap otherwise)."""
        packs = len(list((self.git_dir / "objects" / "pack").glob("*.pack")))
        counts = self.run("count-objects", "-v").decode().split()
        loose = int(counts[counts.index("count:") + 1]) if "count:" in counts else 0
        if loose > 2000 or packs > 30:
            with self.locked():
                self.run("repack", "-a", "-d", "-q")

    def disk_bytes(self) -> int:
        """The bytes the store takes on disk."""
        total = 0
        for base, _dirs, files in os.walk(self.root):
            for name in files:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(base, name)).st_blocks * 512
        return total


def _z(names: list[str]) -> bytes:
    return b"".join(n.encode("utf-8", "surrogateescape") + b"\0" for n in names)
