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
  to the target), so the link stays a link;
- a write meant for the workspace stays in it (`within`): the target is checked after
  resolving links, and the temp file and the rename work on the directory that was checked
  (a descriptor), so a link swapped in meanwhile cannot redirect them.

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


class NotReadError(OSError):
    """A workspace file that is not read for context; `strerror` says why in a few words."""


def _temp_name(target: Path) -> str:
    base = os.fsencode(target.name)[:_NAME_BYTES].decode(errors="ignore")
    return f".{base}.ink-{secrets.token_hex(8)}.tmp"


def resolve_target(path: Path) -> Path:
    """The file a write to `path` must replace: symlinks resolved (the link stays a link)."""
    return Path(os.path.realpath(path))


def inside(path: Path, root: Path) -> bool:
    """Whether `path` is `root` or below it (both taken as they are: resolve first)."""
    return path == root or root in path.parents


def meant_inside(path: Path, workspace: Path) -> bool:
    """Whether `path`, as named (links not resolved), lies in `workspace`."""
    named = Path(os.path.abspath(path))
    return any(
        inside(named, Path(root))
        for root in {os.path.abspath(workspace), os.path.realpath(workspace)}
    )


def read_workspace_file(path: Path, root: Path, *, limit: int) -> tuple[bytes, int]:
    """The first `limit` bytes of `path` and its size, for context the model gets unasked
    (instruction files, project settings).

    Only a regular file inside `root` (links resolved) is read: a link out of the workspace,
    a FIFO or a device raise `NotReadError`. The file opened is the one checked (no link
    swapped in between), and a FIFO never blocks the open.
    """
    base = Path(os.path.realpath(root))
    real = Path(os.path.realpath(path))
    if not inside(real, base):
        raise NotReadError(errno.EPERM, f"it is a link to {real}, outside the workspace")
    fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotReadError(errno.EINVAL, "it is not a regular file")
        if Path(os.path.realpath(path)) != real:
            raise NotReadError(errno.EPERM, "it changed while it was being opened")
        chunks: list[bytes] = []
        left = min(limit, info.st_size)
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), info.st_size
    finally:
        os.close(fd)


def escape_message(path: Path, target: Path) -> str:
    """The sentence for a write named inside the workspace that would land outside it."""
    return (
        f"{path.name} is a link to {target}, outside the workspace; nothing was written. "
        f"To change that file, name {target} itself (the user is asked about files outside "
        "the workspace)"
    )


def write_in_workspace(path: Path | str, text: str, workspace: Path) -> Path:
    """`atomic_write_text` for a front end's writer: a path named inside `workspace` must be
    written inside it (after resolving links); a path named outside was approved as such."""
    named = Path(path)
    return atomic_write_text(
        named, text, within=workspace if meant_inside(named, workspace) else None
    )


def atomic_write_text(path: Path | str, text: str, *, within: Path | None = None) -> Path:
    """Replace the content of `path` with `text` (UTF-8, newlines as given); returns the file
    actually written (the link's target when `path` is a symlink).

    Parents are created. With `within`, the file written (links resolved) must lie inside that
    directory. Raises `FileWriteError` (an `OSError` whose `strerror` is a whole sentence for
    the model) when nothing was written; the original is then intact and no temp file is left
    behind.
    """
    named = Path(path)
    target = resolve_target(named)
    root = Path(os.path.realpath(within)) if within is not None else None
    if root is not None and not inside(target, root):
        raise FileWriteError(errno.EPERM, escape_message(named, target), str(target))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _error(exc, target, "could not create its directory") from None
    try:
        dfd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise _error(exc, target, "could not open its directory") from None
    try:
        if root is not None:
            _check_directory(dfd, target, root)
        _write_in(dfd, target, text.encode("utf-8"))
    finally:
        os.close(dfd)
    return target


def _check_directory(dfd: int, target: Path, root: Path) -> None:
    """The directory held open is the one inside `root` (no link swapped in since resolving)."""
    real = Path(os.path.realpath(target.parent))
    try:
        same = os.path.samestat(os.fstat(dfd), os.stat(real))
    except OSError:
        same = False
    if not same or not inside(real, root):
        raise FileWriteError(
            errno.EPERM,
            f"the directory of {target.name} changed while it was being written (a link was "
            f"swapped in); {target.name} was left unchanged",
            str(target),
        )


def _write_in(dfd: int, target: Path, data: bytes) -> None:
    name = target.name
    try:
        old = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        old = None
    except OSError as exc:
        raise _error(exc, target, "could not inspect it") from None
    if old is not None and not stat.S_ISREG(old.st_mode):
        code = errno.EISDIR if stat.S_ISDIR(old.st_mode) else errno.EINVAL
        raise FileWriteError(
            code, f"{target} is not a regular file; nothing was written", str(target)
        )
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    # a new file gets the mode `open(path, "w")` would give it (0666 minus the umask)
    tmp = _temp_name(target)
    try:
        fd = os.open(tmp, flags, 0o600 if old is not None else 0o666, dir_fd=dfd)
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
        # the rename happens in the directory held open: the one that was checked
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dfd)
        if isinstance(exc, OSError):
            raise _error(exc, target, None) from None
        raise
    with contextlib.suppress(OSError):  # make the rename durable
        os.fsync(dfd)


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    # owner first: chown may clear set-id bits, the chmod after it restores them
    if (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
        with contextlib.suppress(OSError):  # not ours to give away: keep at least the mode
            os.fchown(fd, old.st_uid, old.st_gid)
    os.fchmod(fd, stat.S_IMODE(old.st_mode))


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
    with contextlib.suppress(OSError):  # the rename made durable; a directory that cannot
        dfd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # be synced is
        try:  # no error
            os.fsync(dfd)
        finally:
            os.close(dfd)
