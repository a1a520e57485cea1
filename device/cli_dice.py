"""``pitboard dice read``, ``pitboard bench dice`` and ``pitboard teach dice``.

* ``dice read IMAGE... [--die NAME] [--json]``: one JSON object per image, one a line:
  ``{"image": PATH, "ms": FLOAT, "dice": [{"value", "box", "center", "confidence"}, ...]}``.
* ``bench dice --data DIR [--json]``: reads a folder in the format of ``../shared/data/dice-real``
  (``images/`` + ``labels.csv``) and prints the figures of :mod:`vision.dice.scoring` overall, per file
  name prefix (``nell_``, ``matteo_``) and on the held-out split.  Timing runs with OpenCV on one thread
  (``cv2.setNumThreads(1)``, and the networks' onnxruntime sessions on one thread), the one-core figure
  the issue asks for.  ``--review CSV`` also scores against labels a person has reviewed (each change
  one row, with a note; see vision/dice/README.md), never instead of the labels as given;
  ``--disagreements DIR`` saves a crop of each disagreement to review.  Wall-clock ms (``median_ms``,
  ``p95_ms``) are what the issue asks for; the thread's
  CPU ms (``median_cpu_ms``) are printed too because on a shared machine wall time includes waiting for a
  core, and the load average at the end of the run is reported with them.  Peak memory is measured in a second
  pass with ``tracemalloc`` (so tracing does not slow the timed pass), plus the process's peak RSS.
* ``teach dice --die NAME --face FACE IMAGE...`` (or ``--faces A,B,C`` naming each die in reading order;
  ``--camera [DEVICE]`` for one live frame from the appliance's camera stack, picamera2 first): crops to
  the dice region (``--box`` or the config's ``camera.dice_region``), refuses an image with more dice than
  faces named or with no die (nothing in it stands out from the table), warns when an example disagrees
  with the face's taught examples or when the whole crop was taken as one die, and adds the examples to
  the owner's face library (the config's ``[vision] faces``, else ``<data folder>/faces.json``) only when
  every image passed.  ``teach dice
  --undo`` takes back the last teaching.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import time
import tracemalloc
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from device.dice_library_files import (PIP_REFUSAL, face_names_problem, library_path, load_library,
                                       load_library_to_teach, misnamed_dice_words, save_library, teach_command,
                                       undo_command)
from device.safe_files import FileProblem, ImageBatch, read_image
from vision.dice import D6, MIN_IMAGE_SIDE, ModelError, net, read_dice
from vision.dice.faces import plan_teaching
from vision.dice.scale import READABLE_PX
from vision.dice.scoring import Label, Tally, is_held_out

PREFIXES = ("nell_", "matteo_")


def _user_error(message: str) -> Exception:
    from device.cli import UserError

    return UserError(message)


def _load_image(path: Path) -> np.ndarray:
    try:
        return read_image(path, what="image")
    except FileProblem as exc:
        raise _user_error(str(exc)) from None


def _warm_up(die: str, library) -> None:
    """Open the networks and read a blank image first, so the first timed image does not pay for lazy
    initialisation."""
    if die == D6:
        try:
            net.load()
        except ModelError as exc:
            raise _user_error(str(exc)) from None
    try:
        read_dice(np.full((64, 64, 3), 128, np.uint8), die=die, library=library)
    except (ValueError, KeyError):
        pass


def cmd_read(args: argparse.Namespace) -> int:
    if args.die.strip().lower() == D6:
        args.die = D6
    library = None
    if args.die != D6:
        _, faces_file, offered = _library_place(args)  # the library `pitboard run` and `teach dice` use
        library = load_library(faces_file, config=offered)
        if args.die not in library.examples:
            known = ", ".join(library.dice()) or "none yet"
            misnamed = misnamed_dice_words(library)  # ("skidd" in the file: renamed by hand)
            problem = face_names_problem(args.die, []) or (f"the file {misnamed}" if misnamed else None)
            todo = problem if problem else f"teach it with `{teach_command(args.die, config=offered)}`"
            raise _user_error(f"no die called {args.die!r} in the face library {faces_file} (taught: {known}); {todo}")
    _warm_up(args.die, library)
    batch = ImageBatch([Path(n) for n in args.images], read_image, json_lines=args.json)
    for path, img in batch:
        t0 = time.perf_counter()
        try:
            readings = read_dice(img, die=args.die, library=library)
        except ModelError as exc:  # the install, not this image: nothing else can be read either
            raise _user_error(str(exc)) from None
        except (ValueError, KeyError) as exc:  # this image only (e.g. too small): the batch goes on
            batch.unreadable(path, str(exc).strip("'\""))
            continue
        ms = (time.perf_counter() - t0) * 1000
        note = _blank_note(img) if not readings else _small_note(readings)
        if args.json:
            line = {"image": str(path), "ms": round(ms, 2), "dice": [r.to_json() for r in readings]}
            print(json.dumps({**line, "note": note} if note else line))
        else:
            vals = ", ".join("?" if r.value is None else str(r.value) for r in readings) or "no dice"
            print(f"{path}: {vals}{f' ({note})' if note else ''}  ({ms:.1f} ms)")
    return batch.finish()


def _small_note(readings: list) -> str:
    """Dice read at a size the reader reads poorly (under ``READABLE_PX``: 14 px read 0.87, 10 px 0.43): said beside
    the values, as the appliance and ``pitboard check`` say it of the camera (an audit: a photo at a quarter size,
    dice of ~9 px, read "2" for five dice without a word)."""
    from device.camera_input import small_in_picture

    side = small_in_picture(readings)  # as the appliance measures it (the reader's box is ~0.85 of the die's side)
    if side is None:
        return ""
    return (f"dice of about {side:.0f} px: under {READABLE_PX[0]:.0f} px some are missed or misread; photograph them "
            "closer or at a larger size")


def _blank_note(img: np.ndarray) -> str:
    """Why "no dice" may not be an empty tray: a picture that is all black or all white (the appliance does not
    take such a picture for an empty tray either)."""
    from device.camera_input import blank_look, tray_look

    look = tray_look(img)
    if not blank_look(look):
        return ""
    shade = "black" if int(look.max()) < 128 else "white"
    return f"the picture is all {shade}: a lens covered or capped, or the light, not an empty tray?"


def _csv_rows(path: Path) -> list[tuple[int, dict[str, str]]]:
    """The rows of a labels or review CSV with their line numbers.  utf-8-sig: a spreadsheet's "CSV UTF-8"
    starts with a byte-order mark, which made the first column "\ufeffimage" and every line "not image,x_min,..."
    (labels.csv ended in a KeyError)."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            return list(enumerate(csv.DictReader(fh), start=2))
    except UnicodeDecodeError as exc:
        raise _user_error(f"{path} is not UTF-8 text (byte {exc.start}); save it as CSV UTF-8") from None


def load_labels(data: Path) -> dict[str, list[Label]]:
    """``labels.csv`` of a dice folder: image name -> labelled boxes."""
    csv_path = data / "labels.csv"
    if not (data / "images").is_dir() or not csv_path.is_file():
        raise _user_error(f"{data} is not a labelled dice folder: it needs images/ and labels.csv "
                          f"(image,x_min,y_min,x_max,y_max,value)")
    out: dict[str, list[Label]] = {}
    for n, row in _csv_rows(csv_path):
        try:
            image = row["image"].strip()
            box = (int(row["x_min"]), int(row["y_min"]), int(row["x_max"]), int(row["y_max"]))
            value = int(row["value"])
        except (KeyError, TypeError, ValueError, AttributeError):
            raise _user_error(f"{csv_path} line {n} is not image,x_min,y_min,x_max,y_max,value") from None
        if not image:
            raise _user_error(f"{csv_path} line {n} names no image (image,x_min,y_min,x_max,y_max,value)")
        if not 0 <= value <= 6:
            raise _user_error(f"{csv_path} line {n}: a d6 value is 1..6, or 0 for a die whose honest reading is "
                              f"null (leaning, half hidden, moving), not {value}")
        out.setdefault(image, []).append(Label(box, value))
    if not out:
        raise _user_error(f"{csv_path} labels no image: give a line image,x_min,y_min,x_max,y_max,value for each "
                          "die of each image in images/")
    return out


def _unlabelled(data: Path, labels: dict[str, list[Label]]) -> int:
    """How many files in ``data``'s images/ labels.csv does not name (not read: said, not skipped silently)."""
    try:
        return sum(1 for f in (data / "images").iterdir() if f.name not in labels and not f.name.startswith("."))
    except OSError:
        return 0


def _bench_images(data: Path, names: list[str], scales: list[float]) -> None:
    """Every labelled image is read before any is timed: one that cannot be read (missing, damaged, too small
    at a scale asked) would leave figures that are not the folder's, and stopping at the first after minutes
    of reading named none of the others.  Raises a ``UserError`` naming each, and what to do."""
    bad: list[str] = []
    for n in names:
        path = data / "images" / n
        try:
            h, w = read_image(path, what="image").shape[:2]
        except FileProblem as exc:
            bad.append(str(exc))
            continue
        small = [sc for sc in scales if min(round(h * sc), round(w * sc)) < MIN_IMAGE_SIDE]
        if small:
            at = "" if small == [1.0] else f" at --scales {','.join(f'{sc:g}' for sc in small)}"
            bad.append(f"image {path} of {w}x{h} pixels is too small to read dice from{at} ({MIN_IMAGE_SIDE} "
                       "pixels a side at least)")
    if bad:
        lines = "\n  ".join(bad)
        raise _user_error(f"{len(bad)} of the {len(names)} labelled images cannot be read, so no figures were "
                          f"measured:\n  {lines}\nreplace them, or remove them and their lines from "
                          f"{data / 'labels.csv'}")


def load_review(path: Path, labels: dict[str, list[Label]]) -> tuple[dict[str, list[Label]], dict]:
    """The labels with a review applied: a CSV ``image,x_min,y_min,x_max,y_max,value,note`` whose rows
    each correct the value of the label with exactly that box, add a die that has no label (no label with
    that box), or remove the label with that box (empty value).  Returns the reviewed labels and counts."""
    if not path.is_file():
        raise _user_error(f"review file {path} does not exist")
    out = {k: list(v) for k, v in labels.items()}
    counts = {"corrected": 0, "added": 0, "removed": 0}
    for n, row in _csv_rows(path):
        try:
            box = (int(row["x_min"]), int(row["y_min"]), int(row["x_max"]), int(row["y_max"]))
            value = int(row["value"]) if row["value"].strip() else None
            name = row["image"].strip()
        except (KeyError, TypeError, ValueError, AttributeError):
            raise _user_error(f"{path} line {n} is not image,x_min,y_min,x_max,y_max,value,note") from None
        if value is not None and not 1 <= value <= 6:
            raise _user_error(f"{path} line {n}: a d6 value is 1..6 (or empty to remove a label), not {value}")
        if name not in out:
            raise _user_error(f"{path} line {n}: no image {name!r} in the labels")
        same = [i for i, lab in enumerate(out[name]) if lab.box == box]
        if same and value is None:
            del out[name][same[0]]
            counts["removed"] += 1
        elif same:
            out[name][same[0]] = Label(box, value)
            counts["corrected"] += 1
        elif value is not None:
            out[name].append(Label(box, value))
            counts["added"] += 1
        else:
            raise _user_error(f"{path} line {n}: removes a label {box} that {name} does not have")
    return out, counts


def _save_disagreements(folder: Path, name: str, img: np.ndarray, labels: list[Label], readings: list) -> None:
    """Crops of every reading that is wrong or matches no label, and of every label with no reading, for
    a person to look at (is the reader wrong, or the label?)."""
    folder.mkdir(parents=True, exist_ok=True)
    h, w = img.shape[:2]

    def save(kind: str, cx: float, cy: float, side: float, text: str) -> None:
        r = int(max(24, 1.5 * side))
        x0, y0 = max(0, int(cx) - r), max(0, int(cy) - r)
        piece = img[y0:min(h, int(cy) + r), x0:min(w, int(cx) + r)]
        if piece.size == 0:  # a label box outside the image
            return
        crop = cv2.resize(piece, (192, 192))
        cv2.putText(crop, text, (3, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 255), 1)
        cv2.imwrite(str(folder / f"{Path(name).stem}_{int(cx)}_{int(cy)}_{kind}.png"), crop)

    matched: set[int] = set()
    for r in readings:
        cx, cy = r.center
        side = r.box[2] - r.box[0]
        inside = [i for i, lab in enumerate(labels) if lab.box[0] <= cx <= lab.box[2] and lab.box[1] <= cy <= lab.box[3]]
        if not inside:
            save("false", cx, cy, side, f"no label, read {r.value}")
            continue
        matched.update(inside)
        if r.value is not None and all(labels[i].value != r.value for i in inside):
            save("wrong", cx, cy, side, f"label {labels[inside[0]].value}, read {r.value}")
    for i, lab in enumerate(labels):
        if i not in matched:
            x0, y0, x1, y1 = lab.box
            save("missed", (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0), f"label {lab.value}, not found")


def run_bench(data: Path, *, limit: int | None = None, threads: int = 1, review: Path | None = None,
              disagreements: Path | None = None, dev_only: bool = False) -> dict:
    """The bench over every labelled photo in ``data`` (``dev_only``: the held-out split is not read, for
    choices that must not look at it)."""
    labels = load_labels(data)
    names = sorted(n for n in labels if not (dev_only and is_held_out(n)))
    if limit:
        names = names[:limit]
    if threads:
        cv2.setNumThreads(threads)
    images = [(n, data / "images" / n) for n in names]
    # the review read first: a bad line in it, found after the timed and memory passes, lost their minutes
    reviewed, counts = load_review(review, labels) if review is not None else (None, {})
    _bench_images(data, names, [1.0])
    _warm_up(D6, None)
    results: list[tuple[str, list, float, float]] = []
    for n, p in images:
        img = _load_image(p)
        t0, c0 = time.perf_counter(), time.thread_time()
        readings = read_dice(img)
        ms = (time.perf_counter() - t0) * 1000
        cpu = (time.thread_time() - c0) * 1000
        results.append((n, readings, ms, cpu))
    # second pass: memory (tracemalloc slows the reader, so it is not on during the timed pass)
    peaks: dict[str, int] = {}
    tracemalloc.start()
    for n, p in images:
        img = _load_image(p)
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        read_dice(img)
        peaks[n] = tracemalloc.get_traced_memory()[1] - base
        del img
    tracemalloc.stop()
    groups: dict[str, Tally] = {"overall": Tally(), "held_out": Tally(), "dev": Tally()}
    for pre in PREFIXES:
        groups[pre] = Tally()
    for n, readings, ms, cpu in results:
        keys = ["overall", "held_out" if is_held_out(n) else "dev"] + [p for p in PREFIXES if n.startswith(p)]
        for k in keys:
            groups[k].add_image(labels[n], readings, ms, peaks[n], cpu)
            if reviewed is not None:
                groups.setdefault("reviewed_" + k, Tally()).add_image(reviewed[n], readings, ms, peaks[n], cpu)
        if disagreements is not None:
            img = _load_image(data / "images" / n)
            _save_disagreements(disagreements, n, img, (reviewed or labels)[n], readings)
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = groups["overall"].figures()
    out["per_prefix"] = {p: groups[p].figures() for p in PREFIXES if groups[p].images}
    out["held_out"] = groups["held_out"].figures()
    out["dev"] = groups["dev"].figures()
    out["process_peak_rss_mb"] = round(rss_kb / 1024, 1)
    out["opencv_threads"] = cv2.getNumThreads()
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    out["split"] = "held_out = crc32(image file name) % 5 == 0"
    out["data"] = str(data)
    out["images_without_labels"] = _unlabelled(data, labels)
    if reviewed is not None:
        out["reviewed"] = {"review": str(review), **counts, "overall": groups["reviewed_overall"].figures(),
                           "per_prefix": {p: groups["reviewed_" + p].figures() for p in PREFIXES
                                          if "reviewed_" + p in groups},
                           "held_out": groups.get("reviewed_held_out", Tally()).figures()}
    return out


def parse_scales(text: str) -> list[float]:
    try:
        scales = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        scales = []
    if not scales or any(not 0.1 <= v <= 8 for v in scales):
        raise _user_error(f"--scales {text!r} is not a list of factors between 0.1 and 8, e.g. --scales 0.5,1,2,3")
    return scales


def run_bench_scales(data: Path, scales: list[float], *, limit: int | None = None, threads: int = 1) -> dict:
    """The same photos read at each scale (resized, labels scaled with them): accuracy must not depend
    on the dice's size in pixels.  Figures overall and on the held-out split, per scale."""
    labels = load_labels(data)
    names = sorted(labels)[:limit] if limit else sorted(labels)
    if threads:
        cv2.setNumThreads(threads)
    _bench_images(data, names, scales)
    _warm_up(D6, None)
    per: dict[str, dict] = {}
    for sc in scales:
        groups = {k: Tally(floor_px=READABLE_PX[0]) for k in ("overall", "held_out", "dev")}
        for n in names:
            img = _load_image(data / "images" / n)
            if sc != 1:
                img = cv2.resize(img, None, fx=sc, fy=sc, interpolation=cv2.INTER_AREA if sc < 1 else cv2.INTER_LINEAR)
            scaled = [Label(tuple(int(round(v * sc)) for v in lab.box), lab.value) for lab in labels[n]]
            t0, c0 = time.perf_counter(), time.thread_time()
            readings = read_dice(img)
            ms, cpu = (time.perf_counter() - t0) * 1000, (time.thread_time() - c0) * 1000
            for k in ("overall", "held_out" if is_held_out(n) else "dev"):
                groups[k].add_image(scaled, readings, ms, 0, cpu)
        per[f"{sc:g}"] = {"image_size": "x" + f"{sc:g}", **_scale_figures(groups["overall"]),
                          "held_out": _scale_figures(groups["held_out"]), "dev": _scale_figures(groups["dev"])}
    return {"scales": per, "data": str(data), "split": "held_out = crc32(image file name) % 5 == 0",
            "images_without_labels": _unlabelled(data, labels), "load_average": [round(x, 2) for x in os.getloadavg()]}


def _scale_figures(tally: Tally) -> dict:
    """A scale's figures: the memory is not traced at each scale (not 0 MB), and a group with no photo (a folder
    with no held-out photo) is only its count (not an accuracy of 0)."""
    if not tally.images:
        return {"images": 0}
    figures = tally.figures()
    del figures["peak_memory_mb"]
    return figures


def _bench_line(name: str, f: dict, *, scaled: bool) -> str:
    """One group's figures on a line (``scaled``: a size of ``--scales``, with its duplicates and CPU time); a
    group with no photo (e.g. no held-out photo in the folder) has no figure, not an accuracy of 0."""
    if not f["images"]:
        return f"{name} images    0"
    head = (f"{name} images {f['images']:4d}  dice {f['labelled_dice']:5d}  acc {f['accuracy']:.3f}  prec "
            f"{f['precision']:.3f}  recall {f['recall']:.3f}  null {f['unreadable']:4d}  false {f['false_dice']:4d}  ")
    if scaled:
        floor = f.get("size_floor")
        under = (f"  under {floor['floor_px']:g} px {floor['dice_under']} dice (acc {floor['accuracy_under']:.3f}), "
                 f"the rest acc {floor['accuracy_at_least']:.3f}" if floor and floor["dice_under"]
                 and floor["accuracy_at_least"] is not None else "")
        return (head + f"dup {f['duplicates']:3d}  median {f['median_ms']:.1f} ms (cpu {f.get('median_cpu_ms', 0):.1f})"
                + under)
    return head + f"median {f['median_ms']:.1f} ms  p95 {f['p95_ms']:.1f} ms"


def cmd_bench(args: argparse.Namespace) -> int:
    data = Path(args.data)
    if not data.exists():
        raise _user_error(f"data folder {data} does not exist")
    if args.limit is not None and args.limit < 1:
        raise _user_error(f"--limit {args.limit}: give the number of images to read, 1 or more (without --limit, "
                          "every image)")
    if args.scales is not None and not args.scales.strip():
        raise _user_error("--scales is empty: give the factors to resize the photos by, e.g. --scales 0.5,1,2,3")
    if args.scales and (args.review or args.disagreements):
        given = " and ".join(o for o, v in (("--review", args.review), ("--disagreements", args.disagreements)) if v)
        raise _user_error(f"--scales reads the photos at each size and scores them against the labels only; {given} "
                          "works without --scales: run the two benches apart")
    if args.scales:
        figures = run_bench_scales(data, parse_scales(args.scales), limit=args.limit, threads=args.threads)
        if args.json:
            print(json.dumps(figures))
        else:
            for sc, f in figures["scales"].items():
                for name, g in (("all", f), ("held-out", f["held_out"])):
                    print(_bench_line(f"x{sc:4s} {name:9s}", g, scaled=True))
            _say_unlabelled(figures, data)
        return 0
    figures = run_bench(data, limit=args.limit, threads=args.threads,
                        review=Path(args.review) if args.review else None,
                        disagreements=Path(args.disagreements) if args.disagreements else None)
    if args.json:
        print(json.dumps(figures))
    else:
        def line(name: str, f: dict) -> str:
            return _bench_line(f"{name:10s}", f, scaled=False)

        print(line("overall", figures))
        for p, f in figures["per_prefix"].items():
            print(line(p, f))
        print(line("held-out", figures["held_out"]))
        if "reviewed" in figures:
            rv = figures["reviewed"]
            print(f"against the reviewed labels ({rv['review']}: {rv['corrected']} corrected, {rv['added']} added, "
                  f"{rv['removed']} removed):")
            print(line("overall", rv["overall"]))
            for p, f in rv["per_prefix"].items():
                print(line(p, f))
            print(line("held-out", rv["held_out"]))
        print(f"peak traced memory per image {figures['peak_memory_mb']} MB, process peak RSS "
              f"{figures['process_peak_rss_mb']} MB")
        _say_unlabelled(figures, data)
    return 0


def _say_unlabelled(figures: dict, data: Path) -> None:
    if figures["images_without_labels"]:
        print(f"not read: {figures['images_without_labels']} file(s) in {data / 'images'} that labels.csv does not "
              "name")


def _parse_box(text: str) -> tuple[int, int, int, int]:
    try:
        x, y, w, h = (int(v) for v in text.split(","))
    except ValueError:
        raise _user_error(f"--box {text!r} is not X,Y,WIDTH,HEIGHT in pixels (e.g. --box 400,300,640,480)") from None
    if x < 0 or y < 0 or w < 16 or h < 16:
        raise _user_error(f"--box {text!r}: X and Y must be >= 0 and the box at least 16x16 pixels")
    return x, y, w, h


def _appliance_config(args: argparse.Namespace):
    """The appliance's config when one is given (--config) or installed at the default place, else None."""
    from device.config import DEFAULT_PATH, ConfigError, load_config

    path = Path(args.config) if args.config else DEFAULT_PATH
    if not args.config and not path.exists():
        return None
    try:
        return load_config(path)
    except ConfigError as exc:
        raise _user_error(str(exc)) from None


def _library_place(args: argparse.Namespace) -> tuple[Any, Path, str | None]:
    """The appliance's config (or None), the face library it reads, and the ``--config`` the commands offered to
    the owner carry: the config's absolute path unless it is the default (as the appliance offers them), so an
    offered command works from any folder."""
    config = _appliance_config(args)
    return config, _faces_file(config), (config.config_option() if config is not None else None)


def _crop(name: str, img: np.ndarray, box: tuple[int, int, int, int] | None, config, *,
          frame: bool) -> tuple[np.ndarray, str, tuple[int, int]]:
    """The dice region of a teaching image: ``--box``; else the config's ``camera.dice_region`` for a
    camera frame, or for a file of the camera's frame size; else the whole image.  Also the image's name
    for messages, with the region cut (``img.jpg (box 0,0,40,40)``), and the region's top-left corner (the
    warnings say where a die lies in the image, not in the region)."""
    h, w = img.shape[:2]
    what, whole = "box", name
    if box is None and config is not None and config.camera.dice_region is not None:
        r = config.camera.dice_region
        if frame or (w, h) == (config.camera.width, config.camera.height):
            box, what = (r.x, r.y, r.width, r.height), "dice_region"
        elif w >= r.width and h >= r.height:  # it could hold the region (not a crop of one die): say it was not cut,
            # or a refusal of the whole table's "dice" left the owner wondering why
            whole = (f"{name} (the whole image: the config's dice_region is for {config.camera.width}x"
                     f"{config.camera.height} camera frames and this image is {w}x{h}; --box X,Y,WIDTH,HEIGHT cuts "
                     "its dice region)")
    if box is None:
        return img, whole, (0, 0)
    x, y, bw, bh = box
    if x + bw > w or y + bh > h:
        raise _user_error(f"{name}: the dice region {x},{y},{bw},{bh} reaches outside the {w}x{h} image; give "
                          "--box inside it (X,Y,WIDTH,HEIGHT)")
    return img[y:y + bh, x:x + bw], f"{name} ({what} {x},{y},{bw},{bh})", (x, y)


def _teaching_images(names: list[str], faces_file: Path) -> list[tuple[str, np.ndarray, bool]]:
    """Every image to teach from, read before any is taught: each that cannot be read is named (stopping at the
    first hid the others), and a picture given twice is refused (it would be two examples of one look)."""
    out: list[tuple[str, np.ndarray, bool]] = []
    bad: list[str] = []
    seen: dict[str, str] = {}
    for n in names:
        key = os.path.realpath(n)
        if key in seen:
            bad.append(f"{n} is given twice (as {seen[key]} too): each picture is one example of the face; give "
                       "it once")
            continue
        seen[key] = n
        try:
            out.append((n, read_image(Path(n), what="image"), False))
        except FileProblem as exc:
            bad.append(str(exc))
    if bad:
        raise _user_error("\n".join(bad) + f"\nNothing was taught; {faces_file} is unchanged")
    return out


def _camera_frame(device: str | None, config) -> np.ndarray:
    """One frame from the appliance's camera stack: DEVICE (a webcam index or video file, OpenCV) when
    given; else the configured backend; else the Pi camera (picamera2) first, then webcam 0."""
    from device.camera import OpenCVBackend, Picamera2Backend, backend_from_config, first_frame

    if device:
        backends = [OpenCVBackend(int(device) if device.isascii() and device.isdigit() else device)]
    elif config is not None and backend_from_config(config.camera) is not None:
        backends = [backend_from_config(config.camera)]
    else:
        backends = [Picamera2Backend(), OpenCVBackend(0)]
    problems = []
    for backend in backends:
        try:
            image, last = first_frame(backend, wait_s=0.0)
        except Exception as exc:  # any backend failure is something the owner can fix (plug in, index)
            problems.append(f"{backend.name}: {exc}")
            continue
        if image is not None:
            return image
        problems.append(f"{backend.name}: {last or 'gave no frame'}")
    raise _user_error("cannot take a frame from the camera (" + "; ".join(problems) + "); check the camera, or "
                      "give --camera DEVICE (a webcam index) or IMAGE files")


def _faces_file(config) -> Path:
    """The face library the appliance reads: the config's ``[vision] faces``, else the data folder's."""
    return Path(config.vision.faces) if config is not None and config.vision.faces else library_path()


def cmd_teach(args: argparse.Namespace) -> int:
    if args.undo:
        if args.images or args.camera is not None or args.face is not None or args.faces is not None or args.box:
            raise _user_error("--undo takes back a teaching on its own: give no IMAGE, --camera, --face or --box "
                              "(--die DIE takes back that die's last teaching; without it, the last teaching)")
        _, faces_file, offered = _library_place(args)
        library, mends = load_library_to_teach(faces_file, config=offered)
        if mends:  # an undo after a record was dropped would take back a teaching the owner did not mean
            path = save_library(library, faces_file)
            for note in mends:
                print(f"mended {path}: {note}")
            print(f"nothing was undone: the library needed mending first; to take back its last teaching now, run "
                  f"`{undo_command(args.die, offered)}` again")
            return 0
        try:
            removed = library.undo(args.die.strip() if args.die else None)
        except ValueError as exc:
            raise _user_error(f"{faces_file}: {exc}") from None
        path = save_library(library, faces_file)
        for die, face, n in removed:
            left = len(library.examples.get(die, {}).get(face, []))
            print(f"removed {n} example(s) of {die} {face} ({left} left)")
        print(f"saved {path}")
        return 0
    if args.die is None:
        raise _user_error("give --die NAME (e.g. --die skid)")
    if args.die.strip().lower() == D6:
        raise _user_error(PIP_REFUSAL)
    if args.face is not None and args.faces is not None:
        raise _user_error(f"give --face or --faces, not both (--face {args.face} --faces {args.faces}): --face FACE "
                          "when every image shows one die, --faces A,B,C for each die's face of a roll")
    if args.face is None and args.faces is None:
        raise _user_error("give --face FACE (every image shows one die) or --faces A,B,C (each die's face, in "
                          "reading order: rows from the top, left to right)")
    faces = [args.face.strip()] if args.face is not None else [f.strip() for f in args.faces.split(",")]
    if not all(faces):
        given = f"--face {args.face!r} is" if args.face is not None else f"--faces {args.faces!r} has"
        raise _user_error(f"{given} an empty name; e.g. --face SHIFT, or --faces SHIFT,HAZARD,SHIFT")
    problem = face_names_problem(args.die, faces)
    if problem:
        raise _user_error(f"{problem}. Nothing was taught")
    if not args.images and args.camera is None:
        raise _user_error("give IMAGE files showing the face, or --camera to take one frame")
    box = _parse_box(args.box) if args.box else None
    config, faces_file, offered = _library_place(args)  # the file `pitboard run` reads with this config
    library, mends = load_library_to_teach(faces_file, config=offered)  # a damaged file stops here, untouched
    sources = _teaching_images(args.images, faces_file)
    if args.camera is not None:
        sources.append(("camera frame", _camera_frame(args.camera or None, config), True))
    # Every image is checked before anything is added: one refusal keeps the library as it was.
    examples: list[tuple[str, np.ndarray]] = []
    blank: tuple[bool, ...] = ()  # per example, whether its die was blank inside
    warnings: list[str] = []
    for name, img, frame in sources:
        crop, where, origin = _crop(name, img, box, config, frame=frame)
        try:
            plan = plan_teaching(library, args.die, faces, crop, origin=origin)
        except ValueError as exc:
            raise _user_error(f"{where}: {exc}. Nothing was taught; {faces_file} is unchanged") from None
        examples += plan.examples
        blank += plan.blank
        warnings += [f"{where}: {w}" for w in plan.warnings]
        print(f"{name}: {len(plan.examples)} example(s): " + ", ".join(f for f, _ in plan.examples))
    library.add(args.die, examples, blank=blank)
    path = save_library(library, faces_file)
    for note in mends:
        print(f"mended {path}: {note}")
    for w in warnings:
        print(f"warning: {w}; if that die was not showing the face named, take it back with "
              f"`{undo_command(args.die, offered)}`")
    counts = ", ".join(f"{f} {len(library.examples[args.die.strip()][f])}" for f in dict.fromkeys(faces))
    print(f"saved {path}: {args.die} now has {counts} example(s) (+{len(examples)}; undo with "
          f"`{undo_command(args.die, offered)}`)")
    return 0


def register(groups: dict[str, argparse._SubParsersAction]) -> None:
    dice = groups["top"].add_parser("dice", help="read dice in photos")
    dice_sub = dice.add_subparsers(dest="dice_what", metavar="WHAT")
    rd = dice_sub.add_parser("read", help="read the dice in images; one JSON line per image with --json")
    rd.add_argument("images", nargs="+", metavar="IMAGE")
    rd.add_argument("--die", default=D6, help="d6 (pips, default) or the name of a taught custom die")
    rd.add_argument("--json", action="store_true", help="one JSON object per image, one a line")
    rd.add_argument("--config", default=None, metavar="FILE",
                    help="pitboard.toml whose face library ([vision] faces) custom dice are read with, as `teach dice` "
                         "and the appliance use it (default /etc/pitboard/pitboard.toml)")
    rd.set_defaults(func=cmd_read)

    bd = groups["bench"].add_parser("dice", help="accuracy and speed of the dice reader on a labelled folder")
    bd.add_argument("--data", required=True, help="folder with images/ and labels.csv")
    bd.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    bd.add_argument("--limit", type=int, default=None, help="only the first N images (by name)")
    bd.add_argument("--threads", type=int, default=1, help="OpenCV threads while timing (default 1: one core)")
    bd.add_argument("--review", default=None, metavar="CSV",
                    help="also score against the labels with this review applied (image,x_min,y_min,x_max,y_max,"
                         "value,note: a corrected value, a die with no label, or an empty value to remove a label)")
    bd.add_argument("--scales", default=None, metavar="S,S,..",
                    help="read the same photos resized by each factor (e.g. 0.5,1,2,3): figures per scale")
    bd.add_argument("--disagreements", default=None, metavar="DIR",
                    help="save a crop of every wrong value, false die and missed die here, to look at")
    bd.set_defaults(func=cmd_bench)

    td = groups["teach"].add_parser("dice", help="teach the camera a custom die face")
    td.add_argument("--die", default=None, help="name of the die, e.g. skid")
    td.add_argument("--face", default=None, help="name of the face shown, when each image shows one die")
    td.add_argument("--faces", default=None, metavar="A,B,..",
                    help="each die's face, in reading order (rows from the top, left to right)")
    td.add_argument("images", nargs="*", metavar="IMAGE", help="photos showing that face up (or crops)")
    td.add_argument("--camera", nargs="?", const="", default=None, metavar="DEVICE",
                    help="take one frame: from the configured camera (picamera2 first), or from webcam DEVICE")
    td.add_argument("--box", default=None, metavar="X,Y,W,H",
                    help="the dice region of the images (default: camera.dice_region of the config)")
    td.add_argument("--config", default=None, metavar="FILE",
                    help="pitboard.toml for the camera, its dice region and the face library ([vision] faces) "
                         "(default /etc/pitboard/pitboard.toml)")
    td.add_argument("--undo", action="store_true",
                    help="take back the last teaching (with --die: that die's last teaching) of the library")
    td.set_defaults(func=cmd_teach)
