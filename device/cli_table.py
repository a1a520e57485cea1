"""``pitboard calibrate``, ``pitboard markers``, ``pitboard vision read``, ``pitboard bench table`` and
``pitboard teach template``: the table reader's commands.

The handlers own files and clocks; the reading itself is ``vision.table.read_table``.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np

from vision.calibration import HFOV_RANGE_DEG, MAT_MM_MAX

from device.safe_files import ImageBatch


def _user_error(msg: str) -> Exception:
    from device.cli import UserError

    return UserError(msg)


@contextmanager
def _as_user_error(*kinds: type[BaseException], prefix: str = "") -> Iterator[None]:
    """The errors of ``kinds`` raised inside become a UserError with their message (after ``prefix``)."""
    try:
        yield
    except kinds as exc:
        raise _user_error(f"{prefix}{exc}") from exc


def _parse_mat(text: str) -> tuple[float, float]:
    try:
        w, h = (float(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"mat size {text!r}: write WIDTHxHEIGHT in mm, e.g. 800x450") from None
    if not all(math.isfinite(v) and 1 <= v <= MAT_MM_MAX for v in (w, h)):
        raise argparse.ArgumentTypeError(f"mat size {text!r}: each side is a size in mm from 1 to {MAT_MM_MAX:g} "
                                         "(a Gaslands mat is about 900x900)")
    return w, h


def _parse_points(text: str) -> list[tuple[float, float]]:
    try:
        pts = [tuple(float(v) for v in p.split(",")) for p in text.replace(";", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError("points: write four 'x,y' pixel pairs, e.g. '10,12 1270,8 1275,710 6,715'") from None
    if len(pts) != 4 or any(len(p) != 2 for p in pts):
        raise argparse.ArgumentTypeError("points: exactly four 'x,y' pairs (top-left, top-right, bottom-right, bottom-left)")
    return pts  # type: ignore[return-value]


def _parse_hfov(text: str) -> float:
    low, high = HFOV_RANGE_DEG
    try:
        deg = float(text)
    except ValueError:
        deg = float("nan")
    if not low <= deg <= high:  # also NaN and inf
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a horizontal field of view a camera lens has: give degrees from {low:g} to {high:g} "
            "(a Camera Module 3 is 66, the Wide 102; see the camera's data sheet)")
    return deg


def register(groups: dict) -> None:
    top = groups["top"]
    p = top.add_parser("calibrate", help="calibrate the table from a frame with the four corner tags (or given points)")
    p.add_argument("image", help="a camera frame (PNG/JPEG) showing the whole mat")
    p.add_argument("--mat-mm", type=_parse_mat, default=None, help="mat size WIDTHxHEIGHT in mm (default 800x450, "
                   "or the previous calibration's)")
    p.add_argument("--points", type=_parse_points, default=None,
                   help="four mat corners in pixels 'x,y x,y x,y x,y' (TL TR BR BL) instead of corner tags")
    p.add_argument("--zones", default=None, help="TOML/JSON file with a list 'zones' of {name, kind, polygon}")
    p.add_argument("--hfov", type=_parse_hfov, default=None, help="camera horizontal field of view, deg, "
                   f"{HFOV_RANGE_DEG[0]:g}-{HFOV_RANGE_DEG[1]:g} (default: the previous calibration's, else 66)")
    p.add_argument("--lens", choices=("auto", "none", "k1", "k1k2"), default="auto",
                   help="lens model: auto (from the corner tags, and the token-zone cards when they lie on the mat), "
                   "none (a pinhole), or force k1 / k1k2")
    p.add_argument("--config", default=None, help="table config TOML (default: the owner's, else shipped defaults)")
    p.add_argument("--out", default=None, help="where to save (default: the owner's data folder)")
    p.add_argument("--tokens", default=None, help="token look file the bare mat is learned into (default: the data "
                   "folder's table_tokens.npz)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_calibrate)

    p = top.add_parser("markers", help="print-ready sheet of the corner, car and template tags")
    p.add_argument("--out", required=True, help="output file: .png (one per page) or .pdf")
    p.add_argument("--dpi", type=int, default=300, help="resolution the sheet is drawn at (default 300)")
    p.add_argument("--paper", choices=("a4", "letter"), default="a4", help="paper size (default a4)")
    p.add_argument("--cards", type=int, default=4, help="token-zone cards to print after the tags, one per player "
                   "(0-6: a table seats up to six; default 4)")
    p.add_argument("--config", default=None, help="table config TOML (default: the owner's, else shipped defaults)")
    p.set_defaults(func=cmd_markers)

    if "vision" not in groups:
        vp = top.add_parser("vision", help="read the table from images")
        groups["vision"] = vp.add_subparsers(dest="vision_what", metavar="WHAT")
    p = groups["vision"].add_parser("read", help="read cars, templates and tokens from images")
    p.add_argument("images", nargs="+", help="camera frames (PNG/JPEG) at the calibrated resolution")
    p.add_argument("--calibration", default=None, help="calibration JSON (default: the owner's)")
    p.add_argument("--config", default=None, help="table config TOML (default: the owner's, else shipped defaults)")
    p.add_argument("--tokens", default=None, help="token look file (default: the data folder's table_tokens.npz)")
    p.add_argument("--json", action="store_true", help="one JSON object per image")
    p.set_defaults(func=cmd_read)

    p = groups["bench"].add_parser("table", help="accuracy and speed of the table reader on rendered tables, per "
                                   "condition (mats, light, stacked tokens, blur, a hand, a wide lens ...)")
    p.add_argument("--tables", type=int, default=4, help="tables set up per condition (default 4)")
    p.add_argument("--frames", type=int, default=10, help="play frames per table (default 10)")
    p.add_argument("--condition", action="append", default=None, help="only this condition (repeatable)")
    p.add_argument("--mixed", action="store_true", help="instead: the older mixed bench (random scenes at 720p and "
                   "1080p, untagged templates taught, --scenes per resolution)")
    p.add_argument("--scenes", type=int, default=100, help="with --mixed: scenes per resolution (default 100)")
    p.add_argument("--seed", type=int, default=None, help="default: the report seed (per condition) or 1 (--mixed)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench)

    from device.cli_tokens import register_teach

    register_teach(groups)

    p = groups["teach"].add_parser("template", help="teach the outline of an untagged template")
    p.add_argument("name", help="template: short_straight, medium_straight, long_straight, gentle, turn, hard, "
                   "veer, swerve, hairpin")
    p.add_argument("--image", required=True, help="a frame showing the template alone, its end against the FRONT "
                   "of one tagged car, turning right")
    p.add_argument("--calibration", default=None, help="calibration JSON (default: the owner's)")
    p.add_argument("--config", default=None)
    p.add_argument("--out", default=None, help="outline file (default: the owner's template_outlines.toml)")
    p.set_defaults(func=cmd_teach)


def _files():
    from device import table_files

    return table_files


def _config(path):
    tf = _files()
    with _as_user_error(tf.TableFileError):
        return tf.load_table_config(path)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from vision.calibration import CalibrationError, calibrate_from_points
    from vision.markers import detect_tags

    tf = _files()
    cfg = _config(args.config)
    out = tf.calibration_path(args.out)
    if out.is_dir():  # refused before any work, and in one line (not the writer's traceback)
        named = f"--out {out}" if args.out else f"{out}, where the calibration is saved,"
        raise _user_error(f"{named} is a folder; give the calibration a file name (for example "
                          f"--out {out / tf.CALIBRATION_FILE})")
    with _as_user_error(tf.TableFileError):
        img = tf.read_image(args.image)
        previous = None
        try:
            previous = tf.load_calibration(args.out)
        except (tf.NotCalibrationError, tf.NewerCalibrationError) as exc:  # another file there (a face library,
            # a newer Pitboard's calibration ...): never written over
            raise _user_error(f"{exc}; `pitboard calibrate` would write over it: give --out another file "
                              "name") from None
        except tf.TableFileError as exc:
            previous = None
            if out.exists():  # damaged or refused (a field of view no lens has ...): nothing of it is carried over
                said = str(exc).removesuffix("; move it aside and run `pitboard calibrate` again")
                print(f"warning: the calibration being replaced cannot be read ({said}); its mat size and zones "
                      f"are not carried over{'' if args.mat_mm else ': the mat is taken as 800x450 mm (give --mat-mm)'}",
                      file=sys.stderr)
        zones = tf.load_zones(args.zones) if args.zones else None
    mat = args.mat_mm or (previous.mat_mm if previous else (800.0, 450.0))
    hfov = args.hfov
    if hfov is None:
        hfov = previous.hfov_deg if previous else 66.0  # a stored one is in HFOV_RANGE_DEG (from_dict)
    if zones is None and previous is not None and previous.mat_mm == mat:
        zones = previous.zones
    size = (img.shape[1], img.shape[0])
    if args.points:
        with _as_user_error(CalibrationError):
            cal = calibrate_from_points(args.points, mat, size, zones, hfov)
    else:
        from vision.calibration import calibrate_table

        det = {t.id: t.corners_px for t in detect_tags(img, cfg.dictionary)}
        cal, msg, unseen = calibrate_table(det, cfg.corner_layout(mat), size, zones, hfov, lens=args.lens)
        if cal is None:
            kept = f"; the last good calibration in {tf.calibration_path(args.out)} is kept" if previous else ""
            raise _user_error(f"{msg.replace(' - no calibration yet', '')}{kept}")
        if unseen:  # (said, not saved: of this frame)
            print(f"warning: {unseen}", file=sys.stderr)
    with _as_user_error(tf.TableFileError):
        path = tf.save_calibration(cal, args.out)
    from device.cli_tokens import learn_mats_at_calibration

    tokens_file, tokens_said = learn_mats_at_calibration(img, cal, cfg, args.tokens)
    from device.camera_input import dice_px_at_tray, dice_size_words, tray_region

    die_px = dice_px_at_tray(cal, tray_region(cal), 16.0)
    result = {"saved": str(path), "rms_px": round(cal.rms_px, 3), "rms_mm": round(cal.rms_mm, 3),
              "die_px_16mm": None if die_px is None else round(die_px, 1),
              "mm_per_px": round(cal.mm_per_px(), 3), "image_size": list(cal.image_size), "mat_mm": list(cal.mat_mm),
              "zones": [z.name for z in cal.zones], "source": cal.source, "lens": cal.lens.to_dict(),
              "warning": cal.warning, "tokens_saved": str(tokens_file) if tokens_file else None,
              "tokens": tokens_said}
    if args.json:
        print(json.dumps(result))
    else:
        lens = "" if cal.lens.is_identity() else f"; lens k1 {cal.lens.k1:.3f} k2 {cal.lens.k2:.3f}"
        print(f"calibrated from {cal.source}: reprojection error {cal.rms_px:.2f} px ({cal.rms_mm:.2f} mm), "
              f"{cal.mm_per_px():.2f} mm/px at the mat centre{lens}; zones {', '.join(result['zones'])}; saved to {path}")
        print(f"tokens: {tokens_said}")
        dice_said = dice_size_words(cal)
        if dice_said is not None:
            print(f"dice: {dice_said}")
    if cal.warning:
        print(f"warning: {cal.warning}", file=sys.stderr)
    return 0


def cmd_markers(args: argparse.Namespace) -> int:
    from vision.calibration import ZONE_CARD_IDS, default_zone_cards
    from vision.markers import marker_sheet_layout, table_sheet_entries, zone_card_layout

    tf = _files()
    cfg = _config(args.config)
    if not 0 <= args.cards <= len(ZONE_CARD_IDS):
        raise _user_error(f"--cards is the number of token-zone cards: 0 to {len(ZONE_CARD_IDS)}")
    used = set(cfg.corner_ids) | set(cfg.car_tags) | set(cfg.template_tags)
    cards = default_zone_cards(args.cards)
    clash = sorted(used & {i for c in cards for i in c.ids()})
    if clash:
        raise _user_error(f"tag ids {clash} are both on a token-zone card and in the table config; give the "
                          "cars and templates other ids in table.toml")
    tag_mm = {n: s.tag[2] for n, s in cfg.shapes.items() if s.tag is not None}
    entries = table_sheet_entries(cfg.corner_ids, cfg.corner_size_mm, cfg.car_tags, cfg.car_tag_size_mm,
                                  cfg.template_tags, tag_mm)
    with _as_user_error(ValueError, tf.TableFileError):
        pages = marker_sheet_layout(entries, cfg.dictionary, args.dpi, args.paper).pages
        if cards:
            pages += zone_card_layout(cards, cfg.dictionary, args.dpi, args.paper).pages
        written = tf.write_sheet(pages, args.out, args.dpi)
    print(f"{len(entries)} tags and {len(cards)} token-zone cards on {len(pages)} {args.paper.upper()} page(s) at "
          f"{args.dpi} dpi: {', '.join(str(w) for w in written)}; print at 100% scale and check the 100 mm ruler")
    return 0


def cmd_read(args: argparse.Namespace) -> int:
    import cv2

    from vision.table import read_table

    from device.token_files import TokenFileError, load_token_look

    tf = _files()
    cfg = _config(args.config)
    if args.tokens and not Path(args.tokens).exists():  # (the default look was read without a word)
        link = " (a link that leads nowhere)" if Path(args.tokens).is_symlink() else ""
        raise _user_error(f"--tokens {args.tokens}{link} does not exist: give the token look `pitboard calibrate` and "
                          "`pitboard teach tokens` wrote, or leave --tokens out for the data folder's")
    with _as_user_error(tf.TableFileError, TokenFileError):
        cal = tf.load_calibration(args.calibration)
        cfg = replace(cfg, tokens=load_token_look(cfg.tokens, args.tokens))
    untaught = None
    if any(z.kind == "tokens" for z in cal.zones) and not cfg.tokens.taught:
        # the golden default colour: tokens of another colour answer "cannot count" everywhere, with no why
        untaught = ("the token colour was never taught (golden tokens are assumed); if the zones read null, "
                    "teach it: `pitboard teach tokens --image FRAME --zone p1 --count N`")
        print(f"pitboard: warning: {untaught}", file=sys.stderr)
    cv2.setNumThreads(1)
    batch = ImageBatch(args.images, tf.read_image, (tf.TableFileError,), json_lines=args.json)
    for path, img in batch:
        t0 = time.perf_counter()
        try:
            obs = read_table(img, cal, cfg)
        except ValueError as exc:  # this image only (e.g. not the calibrated frame's size): the batch goes on
            batch.unreadable(path, str(exc))
            continue
        ms = (time.perf_counter() - t0) * 1000
        d = obs.to_dict()
        d["image"] = str(path)
        d["ms"] = round(ms, 2)
        if untaught is not None:
            d["warnings"] = [untaught]
        if args.json:
            print(json.dumps(d))
        else:
            print(f"{path}: {len(obs.cars)} cars, {len(obs.templates)} templates, tokens {d['tokens']} ({ms:.1f} ms)")
            for t in obs.templates:
                where = f"against {t.attached_to}'s {t.edge}" if t.attached_to else "attached to no car"
                print(f"  {t.name} {t.hand or ''} at ({t.centre_mm[0]:.0f}, {t.centre_mm[1]:.0f}) mm "
                      f"heading {t.heading_deg:.0f} deg, {where} [{t.source}]")
            for m in obs.misfits:
                print(f"  not used: {m.describe()}")
    return batch.finish()


def cmd_teach(args: argparse.Namespace) -> int:
    from vision.table import taught_outline

    tf = _files()
    cfg = _config(args.config)
    with _as_user_error(tf.TableFileError):
        cal = tf.load_calibration(args.calibration)
        img = tf.read_image(args.image)
    with _as_user_error(ValueError):
        shape = taught_outline(img, cal, cfg, args.name)
    path = tf.save_outline(shape, args.out)
    print(f"taught {args.name}: outline of {len(shape.outline)} points, {shape.area():.0f} mm^2; saved to {path}")
    return 0


# --------------------------------------------------------------------------------------------------
# Benchmark


def teach_from_synth(rng: np.random.Generator, image_size=(1280, 720)) -> dict:
    """Teach all nine outlines from rendered frames, the way an owner would (template alone against
    the front of one tagged car)."""
    from vision.calibration import CornerLayout, calibrate_from_markers
    from vision.markers import detect_tags
    from vision.synth import CarSpec, SceneSpec, TemplateSpec, render_scene
    from vision.table import default_config, taught_outline
    from vision.templates import TEMPLATE_NAMES

    cfg = default_config()
    outlines = {}
    for name in TEMPLATE_NAMES:
        spec = SceneSpec(image_size=image_size, cars=[CarSpec("car1", 10, 330.0, 150.0, 0.0)],
                         templates=[TemplateSpec(name, "right", attach_to="car1", tagged=False)], tilt_deg=3.0)
        img, _ = render_scene(spec, rng)
        det = {t.id: t.corners_px for t in detect_tags(img)}
        cal = calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm), image_size, spec.zone_list())
        outlines[name] = taught_outline(img, cal, cfg, name)
    return outlines


def _pct(values, q):
    return round(float(np.percentile(values, q)), 3) if len(values) else None


def _hdiff(a, b):
    return abs((a - b + 180.0) % 360.0 - 180.0)


def run_bench(scenes: int, seed: int, sizes=((1280, 720), (1920, 1080)), progress=None) -> dict:
    import cv2

    from vision.calibration import CalibrationError, CornerLayout, calibrate_from_markers
    from vision.markers import detect_tags
    from vision.synth import random_scene, render_scene
    from vision.table import default_config, read_table

    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    outlines = teach_from_synth(np.random.default_rng(seed + 1000))
    cfg = default_config(outlines)
    stats = {k: {"n": 0, "identified": 0, "attach_n": 0, "attached_ok": 0, "pos": [], "head": []}
             for k in ("tagged", "untagged")}
    covered = {"n": 0, "reported": 0, "wrong": 0}
    car_hidden = 0
    false_templates = 0
    empty_scenes = 0
    empty_false = 0
    tok_n = tok_exact = tok_cov_n = tok_cov_honest = 0
    car_n = car_found = 0
    car_pos = []
    calib_fail = 0
    ms = {f"{w}x{h}": [] for w, h in sizes}
    rms = []
    reader_peak: dict[str, float] = {}
    for (w, h) in sizes:
        last = None
        for i in range(scenes):
            spec = random_scene(rng, (w, h))
            img, truth = render_scene(spec, rng)
            det = {t.id: t.corners_px for t in detect_tags(img)}
            try:
                cal = calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm), (w, h), spec.zone_list())
            except CalibrationError:
                # a hand over a corner tag: the table was calibrated earlier, with the mat clear
                calib_fail += 1
                clear, _ = render_scene(replace(spec, hands=[]), np.random.default_rng(i))
                det = {t.id: t.corners_px for t in detect_tags(clear)}
                try:
                    cal = calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm), (w, h), spec.zone_list())
                except CalibrationError:
                    continue
            rms.append(cal.rms_mm)
            t1 = time.perf_counter()
            obs = read_table(img, cal, cfg)
            ms[f"{w}x{h}"].append((time.perf_counter() - t1) * 1000)
            last = (img, cal)
            # cars
            for tc in truth["cars"]:
                car_n += 1
                m = [c for c in obs.cars if c.id == tc["id"]]
                if m:
                    car_found += 1
                    car_pos.append(float(np.hypot(*(np.array(m[0].centre_mm) - tc["centre_mm"]))))
            # templates
            used = set()
            if not truth["templates"]:
                empty_scenes += 1
                if obs.templates:
                    empty_false += 1
            for tt in truth["templates"]:
                cands = [(j, o) for j, o in enumerate(obs.templates) if j not in used
                         and np.hypot(*(np.array(o.centre_mm) - tt["centre_mm"])) < 25]
                if tt["attached_to"] is not None and tt["attached_to"] not in {c.id for c in obs.cars}:
                    car_hidden += 1  # its car's tag is under a hand: the camera cannot know the car
                    used.update(j for j, _ in cands[:1])
                    continue
                if tt["hand_covered"] > 0.02:
                    covered["n"] += 1
                    if cands:
                        j, o = cands[0]
                        used.add(j)
                        covered["reported"] += 1
                        if o.name != tt["name"]:
                            covered["wrong"] += 1
                    continue
                st = stats["tagged" if tt["tagged"] else "untagged"]
                st["n"] += 1
                # With no car to say which end is the entry, left/right of a symmetric curve is a
                # matter of which end one calls "first": loose templates are judged by name.
                match = [(j, o) for j, o in cands if o.name == tt["name"]
                         and (o.hand == tt["hand"] or tt["attached_to"] is None)]
                if not match:
                    used.update(j for j, _ in cands[:1])
                    continue
                j, o = match[0]
                used.add(j)
                st["identified"] += 1
                st["pos"].append(float(np.hypot(*(np.array(o.centre_mm) - tt["centre_mm"]))))
                st["attach_n"] += 1
                if o.attached_to == tt["attached_to"] and o.edge == tt["edge"]:
                    st["attached_ok"] += 1
                if tt["attached_to"] is not None or tt["tagged"]:
                    st["head"].append(_hdiff(o.heading_deg, tt["heading_deg"]))
            false_templates += len(obs.templates) - len(used)
            # tokens
            for z, n in truth["tokens"].items():
                if truth["token_zone_covered"].get(z, 0) > 0:
                    tok_cov_n += 1
                    if obs.tokens.get(z) is None or obs.tokens.get(z) == n:
                        tok_cov_honest += 1
                    continue
                tok_n += 1
                tok_exact += int(obs.tokens.get(z) == n)
            if progress:
                progress(f"{w}x{h} scene {i + 1}/{scenes}")
        if last is not None:
            # Memory of the reader alone (the renderer's big canvases would dominate the process peak):
            # arrays allocated while reading one frame, as traced by Python (NumPy and OpenCV outputs).
            tracemalloc.start()
            read_table(*last, cfg)
            reader_peak[f"{w}x{h}"] = round(tracemalloc.get_traced_memory()[1] / 2 ** 20, 1)
            tracemalloc.stop()

    def summary(st):
        return {
            "templates": st["n"],
            "identification": round(st["identified"] / st["n"], 4) if st["n"] else None,
            "attachment": round(st["attached_ok"] / st["attach_n"], 4) if st["attach_n"] else None,
            "position_error_mm": {"median": _pct(st["pos"], 50), "p95": _pct(st["pos"], 95)},
            "heading_error_deg": {"median": _pct(st["head"], 50), "p95": _pct(st["head"], 95)},
        }

    return {
        "scenes_per_resolution": scenes, "seed": seed,
        "tagged": summary(stats["tagged"]),
        "untagged": summary(stats["untagged"]),
        "false_templates": false_templates,
        "scenes_without_templates": empty_scenes, "templates_reported_in_them": empty_false,
        "hand_covered_templates": covered,
        "templates_whose_car_was_hidden": car_hidden,
        "tokens": {"zones": tok_n, "exact_rate": round(tok_exact / tok_n, 4) if tok_n else None,
                   "hand_covered_zones": tok_cov_n,
                   "hand_covered_none_or_exact": round(tok_cov_honest / tok_cov_n, 4) if tok_cov_n else None},
        "cars": {"seen": car_found, "of": car_n, "position_error_mm_median": _pct(car_pos, 50)},
        "calibration": {"frames_without_all_corners": calib_fail, "rms_mm_median": _pct(rms, 50)},
        "ms_per_frame": {k: {"median": _pct(v, 50), "p95": _pct(v, 95), "frames": len(v)} for k, v in ms.items()},
        "threads": 1,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "peak_rss_note": "whole process, renderer included",
        "reader_peak_traced_mb": reader_peak,
        "wall_s": round(time.perf_counter() - t0, 1),
    }


def cmd_bench(args: argparse.Namespace) -> int:
    progress = None if args.json else (lambda m: print(m, file=sys.stderr, end="\r"))
    if not args.mixed:
        from device.bench_table import REPORT_SEED, format_rows, run_table_bench

        if args.tables < 1 or args.frames < 1:
            raise _user_error("--tables and --frames must be at least 1")
        with _as_user_error(ValueError):
            res = run_table_bench(args.tables, args.frames, REPORT_SEED if args.seed is None else args.seed,
                                  args.condition, progress)
        ref = res["reference_cpu_ms"]
        print(json.dumps(res) if args.json else format_rows(res["conditions"]) + (
            f"\n\nreference work (`device.bench_table.reference_cpu_ms`, the machine's speed): "
            f"{ref['before']} ms before, {ref['after']} ms after"))
        return 0
    if args.scenes < 1:
        raise _user_error("--scenes must be at least 1")
    res = run_bench(args.scenes, 1 if args.seed is None else args.seed, progress=progress)
    if args.json:
        print(json.dumps(res))
    else:
        print(json.dumps(res, indent=2))
    return 0
