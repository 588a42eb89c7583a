"""The one way ink-ls replaces a file's content on disk: `atomic_write_text`.

Every writer (the tools' default `DiskWriter`, `ink-ls run`'s approving writer, the editor
writer's disk path) goes through it, so the guarantees hold for every front end:

- the original is never destroyed: the new text goes to a temp file in the same directory,
  is flushed and fsynced, then renamed over the target; on any error (a full disk, a
  read-only directory) the original is untouched and the temp file is removed;
- no planted link is followed: the temp file has a random name and is created exclusively
  (`O_CREAT | O_EXCL | O_NOFOLLOW`), so a symlink or file placed at a guessed name fails the
  create instead of redirecting the write;
- what the user set is kept: permission bits (0755 stays executable, 0600 stays private) and,
  where allowed, owner and group; writing through a symlink replaces the link's target (next
  to the target), so the link stays a link.

It lives in `core` (not `tools`) because `core.tool.DiskWriter`, the default writer of every
tool call, needs it and `core` imports nothing above it. Hard links of the target are not
kept (the rename gives the path a new inode), nor are extended attributes; a file whose
directory does not let us create the temp file (or a bind-mounted single file) is refused
rather than overwritten in place.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

_NAME_BYTES = 180
"""How much of the target's name the temp name keeps (names are limited to 255 bytes)."""


class FileWriteError(OSError):
    """A write that did not happen; the message says why and that the file is unchanged."""


def _temp_name(target: Path) -> str:
    base = os.fsencode(target.name)[:_NAME_BYTES].decode(errors="ignore")
    return f".{base}.ink-{secrets.token_hex(8)}.tmp"


def resolve_target(path: Path) -> Path:
    """The file a write to `path` must replace: symlinks resolved (the link stays a link)."""
    return Path(os.path.realpath(path))


def atomic_write_text(path: Path | str, text: str) -> Path:
    """Replace the content of `path` with `text` (UTF-8, newlines as given); returns the file
    actually written (the link's target when `path` is a symlink).

    Parents are created. Raises `FileWriteError` (an `OSError` whose `strerror` is a whole
    sentence for the model) when nothing was written; the original is then intact and no
    temp file is left behind.
    """
    target = resolve_target(Path(path))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _error(exc, target, "could not create its directory") from None
    try:
        old = os.stat(target)
    except FileNotFoundError:
        old = None
    except OSError as exc:
        raise _error(exc, target, "could not inspect it") from None
    if old is not None and not stat.S_ISREG(old.st_mode):
        code = errno.EISDIR if stat.S_ISDIR(old.st_mode) else errno.EINVAL
        raise FileWriteError(
            code, f"{target} is not a regular file; nothing was written", str(target)
        )
    data = text.encode("utf-8")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    # a new file gets the mode `open(path, "w")` would give it (0666 minus the umask)
    tmp = target.parent / _temp_name(target)
    try:
        fd = os.open(tmp, flags, 0o600 if old is not None else 0o666)
    except OSError as exc:
        raise _error(exc, target, "could not create a temporary file next to it") from None
    try:
        try:
            if old is not None:
                _keep_owner_and_mode(fd, old)
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _error(exc, target, None) from None
        raise
    _sync_dir(target.parent)
    return target


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    # owner first: chown may clear set-id bits, the chmod after it restores them
    if (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
        with contextlib.suppress(OSError):  # not ours to give away: keep at least the mode
            os.fchown(fd, old.st_uid, old.st_gid)
    os.fchmod(fd, stat.S_IMODE(old.st_mode))


def _sync_dir(directory: Path) -> None:
    """Make the rename durable; a directory that cannot be opened or synced is no error."""
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _error(exc: OSError, target: Path, what: str | None) -> FileWriteError:
    reason = exc.strerror or str(exc)
    if what:
        reason += f" ({what})"
    return FileWriteError(
        exc.errno or 0, f"{reason}; {target.name} was left unchanged", str(target)
    )


def atomic_replace(
    path: Path, data: bytes, *, mode: int, link: bool = False, temp_dir: Path | None = None
) -> None:
    """Put exactly `data` at `path` with permission bits `mode` (a symlink to `data` when
    `link`), replacing whatever is there — a link at `path` is replaced, not followed: this
    restores a file as it was, where `atomic_write_text` edits one.

    The temp file is made in `temp_dir` (e.g. the state directory: nothing of ours ever
    appears in the workspace) when it is on the same filesystem as the target, else next to
    the target (a rename cannot cross filesystems, and a copy-then-delete would not be
    atomic). Either way the target is the old file or the new one, never a part: the data
    is fsynced before the rename. Parents are created. Raises `FileWriteError`.
    """
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _error(exc, path, "could not create its directory") from None
    where = parent
    if temp_dir is not None:
        with contextlib.suppress(OSError):
            if os.stat(temp_dir).st_dev == os.stat(parent).st_dev:
                where = temp_dir
    tmp = where / _temp_name(path)
    try:
        if link:
            os.symlink(os.fsdecode(data), tmp)
        else:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(tmp, flags, 0o600)
            try:
                os.fchmod(fd, stat.S_IMODE(mode))
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.errno == errno.EXDEV and where != parent:
            atomic_replace(path, data, mode=mode, link=link, temp_dir=None)
            return
        if isinstance(exc, OSError):
            raise _error(exc, path, None) from None
        raise
    _sync_dir(parent)
