"""The lens bench runs end to end and shows the lens model doing its job on one frame."""

from __future__ import annotations

from vision.lens_bench import format_rows, lens_bench


def test_lens_bench_one_frame():
    rows = {(r.lens.split()[0], r.method): r for r in lens_bench(frames=1, seed=12345)}
    assert len(rows) == 6 and all(r.failed_frames == 0 for r in rows.values())
    assert rows[("wide", "no lens model")].p95_mm > 3.0
    assert rows[("wide", "no lens model")].warned_frames == 1
    for method in ("lens from corner tags", "lens from corner tags + zone cards"):
        assert rows[("wide", method)].p95_mm < 2.0
        assert rows[("wide", method)].warned_frames == 0
        assert rows[("pinhole", method)].p95_mm < 1.0
    assert "zone cards" in format_rows(list(rows.values()))


def test_height_bench_one_frame():
    from vision.lens_bench import format_height_rows, tag_height_bench

    flat, lifted = tag_height_bench(frames=1, seed=777)
    assert flat.tags == lifted.tags == 20
    assert lifted.p95_mm < 0.3 < flat.max_mm
    assert "thickness" in format_height_rows([flat, lifted])
