"""What a game log's ``-wal`` file holds that SQLite will not read: decisions recorded after a damaged frame.

SQLite reads a write-ahead log frame by frame and stops at the first frame whose checksum fails; every later
frame is ignored, and the next writer's checkpoint deletes the file.  A crash never makes such a WAL — the
frames of a decision cut short fail their own checksums and nothing committed follows them — but a failing SD
card or a copy cut short can: one bad byte in frame 3 of 14 hid the six decisions recorded after it, the
appliance resumed from the earlier ones and deleted the file (an audit).  :func:`scan` counts those
decisions, read-only, so that the log keeps a copy of the file and says so before SQLite opens it.

The file format (sqlite.org/fileformat2.html, "The Write-Ahead Log"): a 32-byte header (magic, version, page
size, checkpoint sequence, two salts, two checksum words) and frames of a 24-byte header (page number, the
database size after a commit frame or 0, the two salts, two checksum words) and one page.  The checksums are a
running sum over 32-bit words in the byte order the magic gives, each frame's from the frame before it; so a frame
after a damaged one is checked from the damaged one's stored checksum, which is what its writer summed from.

Pure: bytes in, counts out.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

MAGIC = (0x377F0682, 0x377F0683)  # little- and big-endian checksums
HEADER = 32
FRAME_HEADER = 24


@dataclass(frozen=True)
class WalScan:
    """``read``: frames SQLite reads (up to its last whole commit before any damage); ``unread_commits``:
    decisions whose commit frame, after the first damaged frame, is whole (written and synced: the decision was
    recorded); ``frames``: the frames of the file's current generation (its salts)."""

    read: int
    unread_commits: int
    frames: int
    #: the file's header is not one SQLite takes (a bad byte in its first 32): SQLite reads none of it, and the
    #: frames and commits are those found without it (:func:`_headless`)
    header_damaged: bool = False


def _checksum(data: bytes, order: str, start: tuple[int, int]) -> tuple[int, int]:
    s1, s2 = start
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s1 = (s1 + words[i] + s2) & 0xFFFFFFFF
        s2 = (s2 + words[i + 1] + s1) & 0xFFFFFFFF
    return s1, s2


def scan(data: bytes) -> WalScan:
    """What SQLite reads of a WAL file's ``data``, and the commits past a damaged frame that it does not."""
    if len(data) < HEADER:
        return WalScan(0, 0, 0)
    magic, _version, page, _seq, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:HEADER])
    order = ">" if magic & 1 else "<"
    if magic not in MAGIC or page < 512 or page > 65536 or page & (page - 1) or \
            _checksum(data[:24], order, (0, 0)) != (c1, c2):
        # not a WAL header SQLite takes: it reads none of the file, and its next checkpoint deletes it (an audit:
        # 32 bad bytes hid 14 decisions, said nowhere); nothing past the header is nothing lost
        # (a file of zeros holds nothing: what a filesystem can leave of a file extended before its power cut)
        return _headless(data) if len(data) > HEADER and data.count(0) != len(data) else WalScan(0, 0, 0)
    size = FRAME_HEADER + page
    previous = (c1, c2)  # the stored checksum the next frame's sum starts from
    read = frames = unread = 0
    damaged = False
    for off in range(HEADER, len(data) - size + 1, size):
        _page_no, commit, s1, s2, f1, f2 = struct.unpack(">6I", data[off:off + FRAME_HEADER])
        if (s1, s2) != (salt1, salt2):
            break  # a frame of an earlier generation of the file: the log's frames end here
        frames += 1
        whole = _checksum(data[off:off + 8] + data[off + FRAME_HEADER:off + size], order, previous) == (f1, f2)
        previous = (f1, f2)
        if not whole:
            damaged = True
        elif commit and not damaged:
            read = frames
        elif commit:
            unread += 1
    return WalScan(read, unread, frames)


def _headless(data: bytes) -> WalScan:
    """The frames of a WAL file whose header is damaged, found without it: every frame of the file's first
    generation carries the first frame's salts, and from the second frame on each one's checksum is summed from the
    stored checksum of the frame before, so the page size and byte order are those under which the most frames
    check.  Commits counted: in the frames that check, and the first frame's (nothing to check it against).  A file
    in which no frame checks (one frame, or no WAL at all) is counted as no commit, but still damaged."""
    best = (0, 0, 0)  # (frames that check, frames, commits)
    for page in (512 << k for k in range(8)):  # 512 .. 65536, the sizes SQLite allows
        size = FRAME_HEADER + page
        if len(data) < HEADER + size:
            break
        salts = data[HEADER + 8:HEADER + 16]
        for order in "<>":
            checked = frames = commits = 0
            previous: tuple[int, int] | None = None
            for off in range(HEADER, len(data) - size + 1, size):
                if data[off + 8:off + 16] != salts:
                    break
                frames += 1
                _page_no, commit, _s1, _s2, f1, f2 = struct.unpack(">6I", data[off:off + FRAME_HEADER])
                ok = previous is not None and _checksum(
                    data[off:off + 8] + data[off + FRAME_HEADER:off + size], order, previous) == (f1, f2)
                checked += ok
                if commit and (ok or previous is None):
                    commits += 1
                previous = (f1, f2)
            best = max(best, (checked, frames, commits))
    checked, frames, commits = best
    return WalScan(0, commits if checked else 0, frames if checked else 0, header_damaged=True)
