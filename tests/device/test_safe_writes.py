"""``write_atomic``, through which every file Pitboard saves is written: a refusal keeps the old file whole,
leaves no temporary file, and says what to do."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from device.safe_files import FileProblem, write_atomic


@pytest.mark.parametrize("code, said", [
    (errno.EPERM, "give the user running Pitboard write access, or choose a folder it can write to; a file made "
                  "immutable shows an 'i' in `lsattr`"),
    (errno.EROFS, "mounted read-only"),
    (errno.ENOSPC, "the disk is full"),
])
def test_a_write_refused_by_the_system_keeps_the_file_and_says_what_to_do(tmp_path: Path, monkeypatch, code: int,
                                                                        said: str) -> None:
    """An audit: faces.json made immutable (`chattr +i`) gave "cannot write ...: Operation not permitted; nothing
    was changed", and no next step."""
    path = tmp_path / "faces.json"
    path.write_text("old")

    def refuse(src, dst):
        raise OSError(code, os.strerror(code), str(dst))

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(FileProblem) as refused:
        write_atomic(path, b"new")
    assert f"cannot write {path}" in str(refused.value) and "nothing was changed" in str(refused.value)
    assert said in str(refused.value), refused.value
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["faces.json"]


@pytest.mark.parametrize("code, said", [(errno.EROFS, "mounted read-only"), (errno.EACCES, "write access"),
                                        (errno.ENOENT, "choose a folder you can write to")])
def test_a_folder_that_takes_no_new_file_says_what_to_do(tmp_path: Path, monkeypatch, code: int, said: str) -> None:
    """A review: on a read-only card the temporary file already cannot be made, and that refusal said only
    "choose a folder you can write to"."""
    import tempfile

    path = tmp_path / "faces.json"
    path.write_text("old")

    def refuse(*a, **k):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(FileProblem) as refused:
        write_atomic(path, b"new")
    assert "nothing was changed" in str(refused.value) and said in str(refused.value), refused.value
    assert path.read_text() == "old"


def test_a_read_only_file_is_not_written_over_and_a_files_mode_is_kept(tmp_path: Path) -> None:
    """An audit: a faces.json made read-only (0444) was written over by teaching (an atomic rename needs only the
    folder's permission) and came back 0644; a shared library's 0664 became 0644 too."""
    path = tmp_path / "faces.json"
    path.write_text("old")
    path.chmod(0o444)
    with pytest.raises(FileProblem, match=r"it is read-only \(mode 0444\); nothing was changed .*chmod u\+w"):
        write_atomic(path, b"new")
    assert path.read_text() == "old"
    path.chmod(0o664)
    write_atomic(path, b"new")
    assert path.read_text() == "new" and path.stat().st_mode & 0o777 == 0o664
    fresh = tmp_path / "new.json"
    write_atomic(fresh, b"x")
    assert fresh.stat().st_mode & 0o777 == 0o644


def test_a_replaced_file_keeps_no_special_bits_and_a_pipe_is_refused(tmp_path: Path) -> None:
    """A review: a 4755 file kept its setuid bit for the new content; a pipe at the path was replaced by a file."""
    path = tmp_path / "x.toml"
    path.write_text("old")
    path.chmod(0o4755)
    write_atomic(path, b"new")
    assert path.stat().st_mode & 0o7777 == 0o755
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(FileProblem, match="it is not a file"):
        write_atomic(pipe, b"new")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file another group needs root")
def test_a_replaced_file_keeps_its_group(tmp_path: Path) -> None:
    """A review: a 0664 library of a group two tables share came back in the writer's own group; the other
    table's user could no longer write it."""
    path = tmp_path / "faces.json"
    path.write_text("old")
    os.chown(path, -1, 4321)
    path.chmod(0o664)
    write_atomic(path, b"new")
    assert path.stat().st_gid == 4321 and path.stat().st_mode & 0o777 == 0o664
