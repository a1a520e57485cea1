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
