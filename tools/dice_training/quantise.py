"""Int8 static quantisation of the d6 networks (onnxruntime), and how they compare with fp32.

Needs ``onnx`` (not a run-time dependency), in a venv with ``pip install onnx onnxruntime numpy
opencv-python-headless`` and this repository on ``PYTHONPATH``::

    python -m tools.dice_training.quantise --data ../shared/data/dice-real --out /tmp/dice-int8

writes ``detector.onnx``, ``reader.onnx`` and ``reader2.onnx`` (QDQ, int8 weights per channel, uint8
activations) into ``--out``, from the fp32 networks in ``--source`` (default: the shipped ones in
``vision/dice/``; the shipped first reader is int8 since round 20, so its fp32 source is the one
``train_net.py`` writes); ``--only reader`` quantises that network alone.  Calibration data: detector
inputs and reader crops of the **dev split only** (``fold(name) != 0``; every fourth photo, seeded
order), never the held-out photos; the same inputs give the same bytes.  Then::

    python -m tools.dice_training.quantise compare --data ../shared/data/dice-real --int8 /tmp/dice-int8

reads every photo with the fp32 networks (``--source``; else the shipped ones, whose first reader is int8
since round 20) and with the int8 ones (project venv is enough) and prints both figures and the ms per
image on one core (a network missing from ``--int8`` or ``--source`` is read from the shipped ones).  ``--dev-only`` leaves the held-out photos unread
(the choice "ship int8 or not" is made on the dev photos); ``--data`` may also be a rendered tray folder
(``python -m tools.dice_training.tray``), which is where int8 must hold too.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.dice import net as N
from vision.dice.scoring import fold

SEED = 14


def _dev_photos(data: Path, every: int = 4, *, any_fold: bool = False) -> list[tuple[np.ndarray, list[tuple[float, float, float]]]]:
    rows: dict[str, list[tuple[float, float, float]]] = {}
    with (data / "labels.csv").open(newline="") as fh:
        for r in csv.DictReader(fh):
            x0, y0, x1, y1 = (float(r[k]) for k in ("x_min", "y_min", "x_max", "y_max"))
            rows.setdefault(r["image"], []).append(((x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0)))
    names = sorted(n for n in rows if any_fold or fold(n) != 0)  # (a rendered folder has no held-out photos)
    rng = np.random.default_rng(SEED)
    rng.shuffle(names)
    out = []
    for n in names[::every]:
        img = cv2.imread(str(data / "images" / n))
        if img is not None:
            out.append((img, rows[n]))
    return out


class _Reader:
    """onnxruntime's CalibrationDataReader over a list of input dicts."""

    def __init__(self, name: str, arrays: list[np.ndarray]) -> None:
        self.items = iter([{name: a} for a in arrays])

    def get_next(self):
        return next(self.items, None)


#: The networks by the names ``--only`` takes.
ROLES = {"detector": "DETECTOR", "reader": "READER", "reader2": "SECOND_READER"}


def _networks(folder: Path | None, option: str = "--source") -> dict[str, Path]:
    """Each role's weights: in ``folder`` when it holds that file, else the shipped one.  A folder that does not
    exist or holds none of the three is refused (a mistyped one gave the shipped networks under its name)."""
    shipped = {role: getattr(N, attr) for role, attr in ROLES.items()}
    if folder is None:
        return shipped
    if not folder.is_dir():
        raise SystemExit(f"{option} {folder}: no such folder")
    nets = {role: folder / path.name if (folder / path.name).is_file() else path for role, path in shipped.items()}
    if nets == shipped:
        raise SystemExit(f"{option} {folder}: none of {', '.join(p.name for p in shipped.values())} is there")
    return nets


def quantise(data: Path, out: Path, trays: Path | None = None, *, source: Path | None = None,
             only: tuple[str, ...] = tuple(ROLES)) -> None:
    nets = _networks(source)
    if source is not None and (missing := [r for r in only if nets[r].parent != source]):
        raise SystemExit(f"--source {source}: no {', '.join(nets[r].name for r in missing)} there to quantise "
                         f"(--only {','.join(only)}); the shipped one may be int8 already")
    import onnx
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    for role in only:  # an int8 network quantised again is not the one measured: its fp32 source is wanted
        if any(node.op_type in ("QuantizeLinear", "DequantizeLinear") for node in onnx.load(str(nets[role])).graph.node):
            raise SystemExit(f"{nets[role]} is int8 already: give the fp32 {nets[role].name} train_net.py wrote "
                             "with --source DIR")

    photos = _dev_photos(data)
    if trays is not None:  # rendered trays too: activations the photos never reach (round 7's collapsed there)
        photos += _dev_photos(trays, any_fold=True)
    det_inputs = [N.detector_input(img)[0] for img, _ in photos]
    crops = [N.reader_input(np.stack([N.reader_crop(img, (x, y), s) for x, y, s in boxes]))
             for img, boxes in photos]
    out.mkdir(parents=True, exist_ok=True)
    for role, inputs in (("detector", det_inputs), ("reader", crops), ("reader2", crops)):
        if role not in only:
            continue
        src = nets[role]
        pre = out / (src.stem + ".pre.onnx")
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        import onnxruntime as ort

        name = ort.InferenceSession(str(src), providers=["CPUExecutionProvider"]).get_inputs()[0].name
        quantize_static(str(pre), str(out / src.name), _Reader(name, inputs), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.MinMax)
        pre.unlink()
        mb = (out / src.name).stat().st_size / 1e6
        print(f"{out / src.name}: {mb:.2f} MB (fp32 {src.stat().st_size / 1e6:.2f} MB)")


def compare(data: Path, int8: Path, *, dev_only: bool = False, source: Path | None = None) -> dict:
    """Bench figures with the fp32 networks (``source``, else the shipped ones) and with those in ``int8``,
    each network missing there the shipped one (same photos, one thread; ``dev_only``: the held-out photos
    are not read, so the choice does not look at them)."""
    from device.cli_dice import run_bench

    cv2.setNumThreads(1)
    sets = {"fp32": _networks(source), "int8": _networks(int8, "--int8")}
    out = {}
    for label, nets in sets.items():
        print(f"{label}: " + ", ".join(str(nets[role]) for role in ROLES), file=sys.stderr)
        for role, attr in ROLES.items():
            setattr(N, attr, nets[role])
        N.REQUIRED = (N.DETECTOR, N.READER, N.SECOND_READER)
        N._sessions.clear()
        t0 = time.perf_counter()
        f = run_bench(data, dev_only=dev_only)
        out[label] = {k: f[k] for k in ("accuracy", "precision", "recall", "wrong", "unreadable", "false_dice",
                                        "median_ms", "p95_ms", "median_cpu_ms")}
        if not dev_only:
            out[label]["held_out"] = {k: f["held_out"][k] for k in ("accuracy", "precision", "false_dice")}
        out[label]["dev"] = {k: f["dev"][k] for k in ("accuracy", "precision", "false_dice")}
        out[label]["run_s"] = round(time.perf_counter() - t0, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", nargs="?", choices=["quantise", "compare"], default="quantise")
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--out", type=Path, default=Path("/tmp/dice-int8"))
    ap.add_argument("--int8", type=Path, default=None)
    ap.add_argument("--dev-only", action="store_true", help="compare: leave the held-out photos unread")
    ap.add_argument("--trays", type=Path, default=None,
                    help="quantise: calibrate on every fourth frame of this rendered tray folder as well")
    ap.add_argument("--source", type=Path, default=None,
                    help="the fp32 networks (a folder; each file missing there: the shipped one)")
    ap.add_argument("--only", default=",".join(ROLES),
                    help="quantise: the networks to quantise, of " + ", ".join(ROLES) + " (default: all)")
    args = ap.parse_args(argv)
    only = tuple(r.strip() for r in args.only.split(",") if r.strip())
    if not only or any(r not in ROLES for r in only):
        ap.error(f"--only {args.only!r}: give networks of {', '.join(ROLES)}, separated by commas")
    if args.what == "quantise":
        quantise(args.data, args.out, args.trays, source=args.source, only=only)
    else:
        print(json.dumps(compare(args.data, args.int8 or args.out, dev_only=args.dev_only, source=args.source),
                         indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
