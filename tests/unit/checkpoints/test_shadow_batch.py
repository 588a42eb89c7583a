"""The shadow store's batched reads (one git process for many files) and the rewind's
snapshot of the files it wrote, on a real git store."""

from __future__ import annotations

from pathlib import Path

from ink_ls.checkpoints.shadow import EMPTY_TREE, ShadowRepo


def _repo(tmp_path: Path) -> tuple[Path, ShadowRepo]:
    ws = tmp_path / "ws"
    (ws / "d").mkdir(parents=True)
    (ws / "a.txt").write_text("a\n")
    (ws / "d" / "b[1].txt").write_text("b\n")  # a glob character: names are taken literally
    (ws / "d" / "b1.txt").write_text("other\n")
    return ws, ShadowRepo(ws, tmp_path / "store", max_file_bytes=1 << 20)


def test_blobs_and_contents_in_one_call_each(tmp_path: Path) -> None:
    ws, repo = _repo(tmp_path)
    tree = repo.snapshot().tree
    held = repo.blobs_at(tree, ["a.txt", "d/b[1].txt", "missing.txt"])
    assert sorted(held) == ["a.txt", "d/b[1].txt"]
    assert held["a.txt"] == repo.blob_at(tree, "a.txt")
    data = repo.read_blobs(b.oid for b in held.values())
    assert sorted(data.values()) == [b"a\n", b"b\n"]


def test_missing_trees(tmp_path: Path) -> None:
    _ws, repo = _repo(tmp_path)
    tree = repo.snapshot().tree
    gone = "0" * 40
    assert repo.missing_trees([tree, EMPTY_TREE, gone]) == {gone}


def test_snapshot_of_written_paths_matches_a_full_snapshot(tmp_path: Path) -> None:
    ws, repo = _repo(tmp_path)
    (ws / "big.bin").write_bytes(b"\0binary")
    base = repo.snapshot()
    (ws / "a.txt").write_text("changed\n")
    (ws / "d" / "b1.txt").unlink()
    (ws / "new.txt").write_text("new\n")
    quick = repo.snapshot_paths(base, ["a.txt", "d/b1.txt", "new.txt"])
    full = repo.snapshot()
    assert quick == full
    assert repo.skipped(quick.skipped) == repo.skipped(base.skipped)
