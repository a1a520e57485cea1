"""``pitboard teach tokens``: learn the hazard tokens' colour from the camera.

The owner lays a few tokens (3-8, apart or touching, flat) in one token zone, keeps the other zones
bare and hands away, and takes a frame.  ``vision.tokens.teach_look`` learns the tokens' colour after
white balance from the corner tags (so the light of that evening does not matter later) and the bare
mat of the other zones; with ``--count`` the new look must read that many tokens there before it is
saved.  The look is kept in the data folder's ``table_tokens.npz`` (``device.token_files``), next to the
calibration it belongs to; ``pitboard calibrate`` refreshes its mats.  ``--forget`` goes back to the
default golden token (the mats learned at calibration stay).

Also here: ``learn_mats_at_calibration``, what ``pitboard calibrate`` calls after a new calibration.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any


def _user_error(msg: str) -> Exception:
    from device.cli import UserError

    return UserError(msg)


def register_teach(groups: dict[str, Any]) -> None:
    p = groups["teach"].add_parser("tokens", help="learn the hazard tokens' colour from a frame with tokens in "
                                   "one zone")
    p.add_argument("--image", default=None, help="a frame from the calibrated camera: 3-8 tokens flat in ZONE, the "
                   "other zones bare, no hands over the mat")
    p.add_argument("--zone", default="p1", help="the token zone the tokens lie in (default p1)")
    p.add_argument("--count", type=int, default=None, help="how many tokens lie there: the learned look must "
                   "read exactly that many before it is saved (recommended)")
    p.add_argument("--calibration", default=None, help="calibration JSON (default: the owner's)")
    p.add_argument("--config", default=None, help="table config TOML (default: the owner's, else shipped defaults)")
    p.add_argument("--out", default=None, help="token look file (default: the data folder's table_tokens.npz)")
    p.add_argument("--forget", action="store_true", help="forget the taught colour (back to golden tokens)")
    p.set_defaults(func=cmd_teach_tokens)


def _load(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    from device import table_files as tf
    from device.token_files import TokenFileError, load_token_look

    try:
        cfg = tf.load_table_config(args.config)
        cal = tf.load_calibration(args.calibration)
        look = load_token_look(cfg.tokens, args.out)
    except (tf.TableFileError, TokenFileError) as exc:
        raise _user_error(str(exc)) from exc
    return cfg, cal, look


def cmd_teach_tokens(args: argparse.Namespace) -> int:
    from device import table_files as tf
    from device.token_files import TokenFileError, save_token_look, tokens_path
    from vision.tokens import TokenLookError, count_tokens, teach_look

    if args.forget:
        if args.image or args.count is not None:
            raise _user_error("--forget goes back to golden tokens on its own; give no --image or --count")
        cfg, _, look = _load(args)
        try:
            path = save_token_look(replace(look, colour=cfg.tokens.colour, taught=False, seen_diameter_mm=None), args.out)
        except TokenFileError as exc:
            raise _user_error(str(exc)) from exc
        print(f"forgot the taught token colour (golden tokens assumed again); saved to {path}")
        return 0
    if not args.image:
        raise _user_error("give --image FRAME: a frame with 3-8 tokens flat in the zone (see `pitboard teach tokens "
                          "--help`)")
    if args.count is not None and not 1 <= args.count <= 40:
        raise _user_error("--count is the number of tokens in the zone: 1 to 40 (3-8 teach best)")
    cfg, cal, look = _load(args)
    try:
        img = tf.read_image(args.image)
    except tf.TableFileError as exc:
        raise _user_error(str(exc)) from exc
    if (img.shape[1], img.shape[0]) != tuple(cal.image_size):
        raise _user_error(f"{args.image} is {img.shape[1]}x{img.shape[0]} but the calibration was made at "
                          f"{cal.image_size[0]}x{cal.image_size[1]}; take the frame with the calibrated camera")
    try:
        taught = teach_look(img, cal, look, args.zone, args.count)
    except TokenLookError as exc:
        raise _user_error(f"{args.image}: {exc}") from exc
    # what was learned must count the zone it was learned from: else it is not saved (the previous look stays)
    counts = count_tokens(img, cal, taught)
    read = counts.get(args.zone)
    if read is None or (args.count is not None and read != args.count):
        said = "cannot count it" if read is None else f"counts {read} there, not {args.count}"
        raise _user_error(f"{args.image}: the look learned from zone {args.zone} {said} in this very frame, so it "
                          "was not saved (the token look in use is unchanged); lay the tokens flat and apart in the "
                          "zone, no hand over the mat, and teach again" + ("" if args.count is not None else
                                                                           " with --count N (how many lie there)"))
    try:
        path = save_token_look(taught, args.out)
    except TokenFileError as exc:
        raise _user_error(str(exc)) from exc
    c = taught.colour
    shown = ", ".join(f"{z} {'cannot count' if n is None else n}" for z, n in counts.items())
    if taught.seen_diameter_mm is None and taught.size_source == "area agrees":
        size = (f"size {taught.diameter_mm:g} mm as configured: no token lay alone to measure, and the "
                f"{args.count} tokens' area agrees")
    elif taught.seen_diameter_mm is None:
        size = (f"size not measured (no token lay alone): {taught.diameter_mm:g} mm assumed, so a pile of tokens "
                "of another size may be miscounted; teach again with the tokens apart" + (
                    "" if args.count is not None else " and --count"))
    elif taught.size_source == "area":
        size = (f"size {taught.seen_diameter_mm:.1f} mm as the camera sees it, from the {args.count} tokens' area "
                "(none lay alone; tokens resting on another make it small: teach again with them apart if any did)")
    else:
        size = f"size {taught.seen_diameter_mm:.1f} mm as the camera sees it"
    print(f"taught the token colour from zone {args.zone} (chromaticity r {c.r:.3f} g {c.g:.3f}, lightness "
          f"{c.lightness:.2f}; {size}); this frame reads: {shown}; saved to {path}")
    if str(Path(path)) != str(tokens_path(None)):
        print("note: the appliance reads the data folder's table_tokens.npz; copy the file there to use it")
    return 0


def learn_mats_at_calibration(img: Any, cal: Any, cfg: Any, path: str | Path | None = None) -> tuple[Path | None, str]:
    """After ``pitboard calibrate``: learn the bare mat of every token zone from the calibration frame and
    save it with the taught colour (if any).  Returns (file written or None, one sentence for the owner)."""
    from device.token_files import (REDO, NotATokenFile, TokenFileError, keep_aside, load_token_look,
                                    save_token_look, with_mats)
    from vision.tokens import learn_mats

    try:
        look = load_token_look(cfg.tokens, path)
    except NotATokenFile as exc:  # another file named as the token look: never written over
        return None, f"the bare mat was not learned: {exc} (give --tokens a token look file, or a new file name)"
    except TokenFileError as exc:
        # a damaged look is set aside, not written over, and this frame starts a new one (its advice was to run
        # the very calibrate that said it)
        damage = str(exc).removesuffix(f"; {REDO}")
        try:
            kept = keep_aside(path)
        except TokenFileError as aside:
            return None, f"the bare mat was not learned: {damage}, and {aside}"
        look = cfg.tokens
        note = f" (the old token look could not be read: {damage}; it is kept as {kept})"
    else:
        note = ""
    mats, why = learn_mats(img, cal, look)
    try:
        written = save_token_look(with_mats(look, mats), path)
    except TokenFileError as exc:
        return None, f"the bare mat could not be saved: {exc}"
    said = f"bare mat learned under zones {', '.join(sorted(mats)) or 'none'}"
    if why:
        said += "; not under " + "; ".join(f"{z} ({w})" for z, w in sorted(why.items())) + \
            " - clear those zones and calibrate again"
    if not look.taught:
        said += "; token colour not taught yet: `pitboard teach tokens --image FRAME --zone p1 --count N`"
    return written, said + note
