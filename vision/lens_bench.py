"""Bench: table positions through a wide-angle lens, with and without the calibration's lens model.

Each frame is a rendered empty table (``vision.synth.scene``: mat, the four corner tags, light, blur and
noise) at 1920x1080 seen by a camera tilted 0-12 degrees, with the four printed token-zone cards
(``vision.markers.card_image``) laid near the mat's edges.  The same frame is then taken through a
wide lens (``vision.synth.lens``, barrel distortion) and through a perfect pinhole.  For each, the table
is calibrated three ways from the tags the detector finds - no lens model; lens from the corner tags
alone; lens from the corner tags and the cards - and a grid of mat points (15 x 9, 40 mm in from the
edges), taken through the true camera and lens, is read back to millimetres.  Reported per lens and
method: position error median / p95 / max (mm), the corner residual (median of frames) and how many
frames carried the "corner error above 1 mm" warning.

``tag_height_bench`` measures the other half of issue #13's item 2: template tags 3 mm up (the acrylic's
thickness) read flat versus at the thickness the shape data gives.

``python -m vision.lens_bench [frames] [seed]`` prints both tables.  Pure: frames come from an rng seeded
by ``seed``; nothing is read or written.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import cv2
import numpy as np

from vision.calibration import CornerLayout, TagCard, apply_h, calibrate_from_markers, default_zone_cards
from vision.markers import card_image, detect_tags
from vision.synth.lens import distort_image, distort_points
from vision.synth.scene import SceneSpec, render_scene

WIDE_K1, WIDE_K2 = -0.30, 0.06  # about what the outside check saw: ~3 mm corner error, ~10 mm off
METHODS = (("none", False, "no lens model"), ("auto", False, "lens from corner tags"),
           ("auto", True, "lens from corner tags + zone cards"))


@dataclass(frozen=True)
class LensBenchRow:
    lens: str
    method: str
    frames: int
    median_mm: float
    p95_mm: float
    max_mm: float
    corner_rms_mm: float
    warned_frames: int
    failed_frames: int


def card_poses(mat_mm: tuple[float, float], cards: tuple[TagCard, ...], rng: np.random.Generator
               ) -> list[tuple[float, float, float]]:
    """Where the cards lie (tx, ty, angle rad, as ``vision.calibration`` card poses): two along the
    bottom edge, two along the top edge turned round to face the far players, each jittered a few mm
    and degrees, all clear of the corner tags."""
    w, h = mat_mm
    out = []
    for i, card in enumerate(cards):
        cw, ch = card.size_mm
        left = i % 2 == 0
        x = 65.0 if left else w - 65.0 - cw
        top = i >= 2
        y = 6.0 if top else h - 6.0 - ch
        x += float(rng.uniform(-4, 4))
        y += float(rng.uniform(-2, 2))
        a = math.radians(float(rng.uniform(-3, 3)) + (180.0 if top else 0.0))
        # rotate about the card's centre, so the card stays in its box
        cx, cy = x + cw / 2, y + ch / 2
        c, s = math.cos(a), math.sin(a)
        tx = cx - (c * cw / 2 - s * ch / 2)
        ty = cy - (s * cw / 2 + c * ch / 2)
        out.append((tx, ty, a))
    return out


def lay_cards(image: np.ndarray, mm_to_px: np.ndarray, cards: tuple[TagCard, ...],
              poses: list[tuple[float, float, float]], rng: np.random.Generator, px_per_mm: float = 5.0
              ) -> np.ndarray:
    """Paste the printed cards into an ideal (pinhole) frame at their poses, a little dimmer than pure
    white, softened like the renderer's blur and with its sensor noise."""
    out = image.astype(np.float32)
    h, w = image.shape[:2]
    for card, (tx, ty, a) in zip(cards, poses):
        pic: np.ndarray = card_image(card, px_per_mm).astype(np.float32)
        c, s = math.cos(a), math.sin(a)
        card_to_mm = np.array([[c / px_per_mm, -s / px_per_mm, tx], [s / px_per_mm, c / px_per_mm, ty], [0, 0, 1.0]])
        m = mm_to_px @ card_to_mm
        warped = cv2.warpPerspective(pic, m, (w, h), flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(np.ones_like(pic), m, (w, h), flags=cv2.INTER_LINEAR)
        lit = warped * float(rng.uniform(0.80, 0.92)) + 8.0
        paper = cv2.GaussianBlur(lit, (0, 0), 0.6) + rng.normal(0, 2.5, lit.shape).astype(np.float32)
        if out.ndim == 3:
            paper, mask = paper[:, :, None], mask[:, :, None]
        out = out * (1 - mask) + paper * mask
    return np.clip(out, 0, 255).astype(np.uint8)


def probe_points(mat_mm: tuple[float, float]) -> np.ndarray:
    w, h = mat_mm
    return np.stack(np.meshgrid(np.linspace(40, w - 40, 15), np.linspace(40, h - 40, 9)), -1).reshape(-1, 2)


def lens_bench(frames: int = 6, seed: int = 0, k1: float = WIDE_K1, k2: float = WIDE_K2,
               image_size: tuple[int, int] = (1920, 1080)) -> list[LensBenchRow]:
    """Run the bench (see the module doc); rows for lens in (pinhole, wide) x the three methods."""
    rng = np.random.default_rng(seed)
    cards = default_zone_cards(4)
    lenses = (("pinhole", 0.0, 0.0), (f"wide k1={k1:g} k2={k2:g}", k1, k2))
    errs: dict[tuple[str, str], list[np.ndarray]] = {}
    rms: dict[tuple[str, str], list[float]] = {}
    warned: dict[tuple[str, str], int] = {}
    failed: dict[tuple[str, str], int] = {}
    for _ in range(frames):
        spec = SceneSpec(image_size=image_size, tilt_deg=float(rng.uniform(0, 12)),
                         tilt_azimuth_deg=float(rng.uniform(0, 360)), yaw_deg=float(rng.uniform(-3, 3)))
        ideal, truth = render_scene(spec, rng)
        hm = np.array(truth["mm_to_px"])
        ideal = lay_cards(ideal, hm, cards, card_poses(spec.mat_mm, cards, rng), rng)
        probe = probe_points(spec.mat_mm)
        for lens_name, a, b in lenses:
            img = distort_image(ideal, a, b) if (a or b) else ideal
            probe_px = distort_points(apply_h(hm, probe), image_size, a, b)
            det = {t.id: t.corners_px for t in detect_tags(img)}
            for lens_choice, use_cards, method in METHODS:
                key = (lens_name, method)
                try:
                    cal = calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm), image_size,
                                                 cards=cards if use_cards else (), lens=lens_choice)
                except ValueError:
                    failed[key] = failed.get(key, 0) + 1
                    continue
                errs.setdefault(key, []).append(np.linalg.norm(cal.to_mm(probe_px) - probe, axis=1))
                rms.setdefault(key, []).append(cal.rms_mm)
                warned[key] = warned.get(key, 0) + (cal.warning is not None)
    rows = []
    for lens_name, _, _ in lenses:
        for _, _, method in METHODS:
            key = (lens_name, method)
            e = np.concatenate(errs[key]) if key in errs else np.array([np.nan])
            rows.append(LensBenchRow(lens_name, method, frames, round(float(np.median(e)), 2),
                                     round(float(np.percentile(e, 95)), 2), round(float(np.max(e)), 2),
                                     round(float(np.median(rms.get(key, [np.nan]))), 2), warned.get(key, 0),
                                     failed.get(key, 0)))
    return rows


def rows_as_dicts(rows: list[LensBenchRow]) -> list[dict[str, object]]:
    return [asdict(r) for r in rows]


def format_rows(rows: list[LensBenchRow]) -> str:
    """A plain table for a terminal or the README."""
    head = f"{'lens':<22} {'calibration':<36} {'median':>7} {'p95':>7} {'max':>7} {'corner rms':>10} {'warned':>7}"
    lines = [head]
    for r in rows:
        lines.append(f"{r.lens:<22} {r.method:<36} {r.median_mm:>7.2f} {r.p95_mm:>7.2f} {r.max_mm:>7.2f} "
                     f"{r.corner_rms_mm:>10.2f} {r.warned_frames:>3}/{r.frames:<3}")
    return "\n".join(lines)


@dataclass(frozen=True)
class HeightBenchRow:
    read_as: str
    tags: int
    median_mm: float
    p95_mm: float
    max_mm: float


def tag_height_bench(frames: int = 6, seed: int = 0, thickness_mm: float | None = None,
                     image_size: tuple[int, int] = (1280, 720)) -> list[HeightBenchRow]:
    """Template tags on 3 mm acrylic, read as if flat on the mat and at the shape data's thickness.

    Each frame is a rendered empty table (camera tilted 0-20 degrees), calibrated from its corner tags;
    20 tags of 25 mm at random places and turns, ``thickness_mm`` above the mat (default: the shipped
    shape data's), are taken through the frame's true camera and read back with ``tag_pose``."""
    from vision.markers import TagSighting, tag_pose
    from vision.templates import builtin_shapes

    height = float(thickness_mm) if thickness_mm is not None else builtin_shapes()["turn"].tag_height_mm
    rng = np.random.default_rng(seed)
    errs: dict[str, list[float]] = {"flat (height 0)": [], f"at the template thickness ({height:g} mm)": []}
    for _ in range(frames):
        spec = SceneSpec(image_size=image_size, tilt_deg=float(rng.uniform(0, 20)),
                         tilt_azimuth_deg=float(rng.uniform(0, 360)), yaw_deg=float(rng.uniform(-3, 3)))
        img, truth = render_scene(spec, rng)
        det = {t.id: t.corners_px for t in detect_tags(img)}
        cal = calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm), image_size)
        k, r, t = (np.array(truth["camera"][n], dtype=np.float64) for n in ("K", "R", "t"))
        for _ in range(20):
            centre = rng.uniform([80.0, 80.0], [spec.mat_mm[0] - 80.0, spec.mat_mm[1] - 80.0])
            a = rng.uniform(0, 2 * math.pi)
            sq = np.array([[-12.5, -12.5], [12.5, -12.5], [12.5, 12.5], [-12.5, 12.5]])
            sq = sq @ np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]]) + centre
            cam = np.column_stack([sq, np.full(4, -height)]) @ r.T + t
            p = cam @ k.T
            s = TagSighting(99, p[:, :2] / p[:, 2:3])
            for vals, h in zip(errs.values(), (0.0, height)):
                vals.append(float(np.hypot(*(np.array(tag_pose(s, cal, h).centre_mm) - centre))))
    return [HeightBenchRow(name, len(v), round(float(np.median(v)), 2), round(float(np.percentile(v, 95)), 2),
                           round(float(np.max(v)), 2)) for name, v in errs.items()]


def format_height_rows(rows: list[HeightBenchRow]) -> str:
    lines = [f"{'template tag read':<36} {'tags':>5} {'median':>7} {'p95':>7} {'max':>7}"]
    lines += [f"{r.read_as:<36} {r.tags:>5} {r.median_mm:>7.2f} {r.p95_mm:>7.2f} {r.max_mm:>7.2f}" for r in rows]
    return "\n".join(lines)


if __name__ == "__main__":  # python -m vision.lens_bench [frames] [seed]
    import argparse

    ap = argparse.ArgumentParser(prog="python -m vision.lens_bench",
                                 description="positions through a wide lens, with and without the lens model; "
                                             "template tags read flat and at their height")
    ap.add_argument("frames", nargs="?", type=int, default=6, help="rendered frames (default 6)")
    ap.add_argument("seed", nargs="?", type=int, default=0, help="random seed (default 0)")
    args = ap.parse_args()
    n, seed = args.frames, args.seed
    print(format_rows(lens_bench(n, seed)))
    print()
    print(format_height_rows(tag_height_bench(n, seed)))
