"""One read of the table: cars, templates and hazard tokens from a single frame.

``read_table(image, calibration, config)`` is the entry point.  Order of work, cheapest first and
each step feeding the next: one ArUco pass (cars and tagged templates), a top-down warp of the mat at
``config.mm_per_px`` (2 mm/px: templates are 35 mm wide, so 17 px, plenty for outlines), a saturation
mask of tinted acrylic with everything already explained masked away (car bodies, tagged templates,
dice tray, token zones), outline matching of what is left, then the token zones at 1 mm/px.

Cars stand ~3 cm tall: their roof tags are read on the plane at ``tag_height_mm`` (see
``Calibration.height_px_to_mm``) so a tilted camera does not shift them, and their whole body, as the
camera sees it, is masked out of the template search and ignored when scoring outlines.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vision.calibration import Calibration, CornerLayout, apply_h
from vision.markers import TagSighting, detect_tags, tag_pose
from vision.templates import (
    TEMPLATE_NAMES, CarGeometry, CarObservation, OutlineMatcher, TemplateObservation,
    TemplateShape, builtin_shapes, car_edges, describe, placement_from_tag, polygon_centroid,
)
from vision.tokens import CountMemo, TokenCounter, TokenLook, count_tokens, skin_mask

__all__ = [
    "TableConfig", "TableObservation", "CarObservation", "TemplateObservation", "read_table", "default_config",
    "ConfigError", "config_from_dict",
]


class ConfigError(ValueError):
    """The table configuration is malformed; the message names the key and what to do."""


@dataclass(frozen=True)
class TableConfig:
    """Everything the reader needs to know about this owner's table (all overridable data)."""

    dictionary: str = "4X4_100"
    corner_ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    corner_size_mm: float = 50.0
    car_tag_size_mm: float = 20.0
    car_tags: Mapping[int, str] = field(default_factory=dict)
    template_tags: Mapping[int, tuple[str, str]] = field(default_factory=dict)
    cars: CarGeometry = CarGeometry()
    max_attach_distance_mm: float = 12.0
    max_attach_angle_deg: float = 20.0
    tokens: TokenLook = TokenLook()
    template_sat_min: int = 70
    template_val_min: int = 40
    min_iou: float = 0.80
    shapes: Mapping[str, TemplateShape] = field(default_factory=dict)
    outlines: Mapping[str, TemplateShape] = field(default_factory=dict)
    mm_per_px: float = 2.0

    def corner_layout(self, mat_mm: tuple[float, float]) -> CornerLayout:
        return CornerLayout(self.corner_ids, self.corner_size_mm, mat_mm)

    def with_outlines(self, outlines: Mapping[str, TemplateShape]) -> "TableConfig":
        return replace(self, outlines=dict(outlines))


def _section(d: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    v = d.get(key, {})
    if not isinstance(v, Mapping):
        raise ConfigError(f"[{key}] must be a table")
    return v


def _flag(section: Mapping[str, Any], key: str, default: bool) -> bool:
    v = section.get(key, default)
    if not isinstance(v, bool):
        raise ConfigError(f"tokens.{key} must be true or false, not {v!r}")
    return v


#: The table config schema this code reads (``schema = 1`` in ``vision/data/table_defaults.toml``).
TABLE_SCHEMA = 1


def _dictionary_size(name: str) -> int:
    """How many tags the ArUco dictionary ``name`` has (their ids are 0 to size - 1)."""
    from vision.markers import aruco_dictionary

    try:
        return int(aruco_dictionary(name).bytesList.shape[0])
    except ValueError as exc:
        raise ConfigError(f"tags.dictionary: {exc}") from None


def _tag_id(key: str, where: str, dictionary: str, size: int, example: str) -> int:
    """A tag id written as a key of ``[tags.cars]`` / ``[tags.templates]`` (TOML keys are text)."""
    if not (key.isascii() and key.isdigit()) or int(key) >= size:
        raise ConfigError(f"{where} key {key!r} must be a tag id, a whole number from 0 to {size - 1} (the "
                          f"{dictionary} dictionary has {size} tags); write the number of the tag, e.g. {example}")
    return int(key)


def _number(section: Mapping[str, Any], where: str, key: str, default: float, whole: bool = False) -> float:
    """``section[key]`` as a number (``default`` when absent); anything else names the key: "could not convert
    string to float: 'big'" named none (an audit)."""
    v = section.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (whole and not float(v).is_integer()):
        kind = "a whole number" if whole else "a number"
        raise ConfigError(f"{where}.{key} must be {kind}, got {v!r}; write it without quotes, e.g. {key} = "
                          f"{int(default) if whole else default:g}")
    return float(v)


def config_from_dict(data: Mapping[str, Any], shapes: Mapping[str, TemplateShape] | None = None,
                     outlines: Mapping[str, TemplateShape] | None = None) -> TableConfig:
    """Build a config from a parsed TOML document shaped like ``vision/data/table_defaults.toml``."""
    try:
        schema = data.get("schema", TABLE_SCHEMA)
        if isinstance(schema, bool) or schema != TABLE_SCHEMA:
            raise ConfigError(f"schema must be {TABLE_SCHEMA} (the table config this Pitboard reads), got {schema!r}; "
                              "the file was written for another version: compare with "
                              "vision/data/table_defaults.toml")
        tags = _section(data, "tags")
        cars = _section(data, "cars")
        att = _section(data, "attachment")
        tok = _section(data, "tokens")
        look = _section(data, "templates_look")
        dictionary = str(tags.get("dictionary", "4X4_100"))
        size = _dictionary_size(dictionary)
        car_tags: dict[int, str] = {}
        for k, v in _section(tags, "cars").items():
            tid = _tag_id(k, "tags.cars", dictionary, size, '10 = "car1"')
            if not isinstance(v, str) or not v.strip():
                raise ConfigError(f"tags.cars.{k} must be the car's id as text in quotes, got {v!r}; "
                                  f'e.g. {k} = "car1"')
            car_tags[tid] = v
        template_tags: dict[int, tuple[str, str]] = {}
        for k, v in _section(tags, "templates").items():
            tid = _tag_id(k, "tags.templates", dictionary, size, '33 = ["gentle", "a"]')
            if not isinstance(v, (list, tuple)) or len(v) != 2:
                raise ConfigError(f'tags.templates.{k} must be [template, face], e.g. {k} = ["gentle", "a"], '
                                  f"got {v!r}")
            name, face = str(v[0]), str(v[1])
            if name not in TEMPLATE_NAMES:
                raise ConfigError(f"tag {k}: unknown template {name!r}; names are {', '.join(TEMPLATE_NAMES)}")
            if face not in ("a", "b"):
                raise ConfigError(f"tag {k}: face must be 'a' or 'b', got {face!r}")
            template_tags[tid] = (name, face)
        clash = set(car_tags) & set(template_tags)
        raw_corners = tags.get("corners", (0, 1, 2, 3))
        if isinstance(raw_corners, (str, bytes)) or not all(
                isinstance(i, int) and not isinstance(i, bool) and 0 <= i < size for i in raw_corners):
            raise ConfigError(f"tags.corners must list four tag ids, whole numbers from 0 to {size - 1} (the "
                              f"{dictionary} dictionary has {size} tags), got {raw_corners!r}")
        corners = tuple(int(i) for i in raw_corners)
        clash |= (set(car_tags) | set(template_tags)) & set(corners)
        if clash:
            raise ConfigError(f"tag ids {sorted(clash)} are used for more than one thing; give each tag one job")
        if len(corners) != 4:
            raise ConfigError("tags.corners must list exactly four ids (top-left, top-right, bottom-right, bottom-left)")
        cfg = TableConfig(
            dictionary=dictionary,
            corner_ids=corners,
            corner_size_mm=_number(tags, "tags", "corner_size_mm", 50.0),
            car_tag_size_mm=_number(tags, "tags", "car_size_mm", 20.0),
            car_tags=car_tags,
            template_tags=template_tags,
            cars=CarGeometry(_number(cars, "cars", "length_mm", 70.0), _number(cars, "cars", "width_mm", 32.0),
                             _number(cars, "cars", "tag_height_mm", 28.0)),
            max_attach_distance_mm=_number(att, "attachment", "max_distance_mm", 12.0),
            max_attach_angle_deg=_number(att, "attachment", "max_angle_deg", 20.0),
            tokens=TokenLook(int(_number(tok, "tokens", "hue_min", 20, whole=True)),
                             int(_number(tok, "tokens", "hue_max", 38, whole=True)),
                             int(_number(tok, "tokens", "sat_min", 150, whole=True)),
                             int(_number(tok, "tokens", "val_min", 90, whole=True)),
                             _number(tok, "tokens", "diameter_mm", 20.0), hand_test=_flag(tok, "hand_test", True)),
            template_sat_min=int(_number(look, "templates_look", "sat_min", 70, whole=True)),
            template_val_min=int(_number(look, "templates_look", "val_min", 40, whole=True)),
            min_iou=_number(look, "templates_look", "min_iou", 0.80),
            shapes=dict(shapes) if shapes is not None else builtin_shapes(),
            outlines=dict(outlines or {}),
        )
    except (TypeError, ValueError, IndexError) as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"table config is malformed ({exc}); compare with vision/data/table_defaults.toml") from exc
    sizes = {"tags.corner_size_mm": cfg.corner_size_mm, "tags.car_size_mm": cfg.car_tag_size_mm,
             "tokens.diameter_mm": cfg.tokens.diameter_mm, "cars.length_mm": cfg.cars.length_mm,
             "cars.width_mm": cfg.cars.width_mm}
    for key, mm in sizes.items():
        if not (math.isfinite(mm) and mm > 0):  # a tag of 0 mm would make every tag a misfit, silently
            raise ConfigError(f"{key} must be a size in mm above 0, got {mm}; measure it on the printed sheet "
                              "(or compare with vision/data/table_defaults.toml)")
    dist = cfg.max_attach_distance_mm
    if not (math.isfinite(dist) and dist > 0):  # below 0 no template would ever count as placed
        raise ConfigError(f"attachment.max_distance_mm must be a distance in mm above 0, got {dist}; it is how far "
                          "a template's end may lie from a car's edge and still count as against it (default 12.0)")
    ang = cfg.max_attach_angle_deg
    if not (math.isfinite(ang) and 0 < ang <= 180):
        raise ConfigError(f"attachment.max_angle_deg must be an angle in degrees above 0 and at most 180, got {ang}; "
                          "it is how far a template may turn from a car's edge and still count as against it "
                          "(default 20.0)")
    for tid, (name, _) in cfg.template_tags.items():
        if name in cfg.shapes and cfg.shapes[name].tag is None:
            raise ConfigError(f"tag {tid} names {name!r} but its shape has no tag position; add tag = [u, v, size]")
    return cfg


def default_tables() -> dict[str, Any]:
    """The shipped defaults as a parsed TOML document (package data)."""
    from importlib.resources import files

    return tomllib.loads(files("vision").joinpath("data/table_defaults.toml").read_text("utf-8"))


def merge(base: Mapping[str, Any], override: Mapping[str, Any], _path: tuple[str, ...] = ()) -> dict[str, Any]:
    """Deep-merge an owner's document over the defaults.  The tag maps ``[tags.cars]`` and
    ``[tags.templates]`` are replaced whole, so an owner's mapping is exactly what they wrote; any
    other key the defaults do not have is refused (a typo would otherwise be silently ignored)."""
    out = dict(base)
    for k, v in override.items():
        whole = _path == ("tags",) and k in ("cars", "templates")
        if k not in base and not whole:
            raise ConfigError(f"unknown table config key {'.'.join((*_path, k))!r}{_meant(base, k, _path)}; compare "
                              "with vision/data/table_defaults.toml")
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping) and not whole:
            out[k] = merge(out[k], v, (*_path, k))
        else:
            out[k] = v
    return out


def _meant(base: Mapping[str, Any], key: str, path: tuple[str, ...]) -> str:
    """Where a key the defaults do not have at ``path`` was likely meant: a close spelling there, or the same key
    under another section ("car_size_mm" at the top belongs under [tags]); "" when nothing is close."""
    import difflib

    near = difflib.get_close_matches(key, [str(k) for k in base], n=1)
    if near:
        return f" (did you mean {'.'.join((*path, near[0]))!r}?)"
    homes = [name for name, section in base.items() if isinstance(section, Mapping) and key in section]
    if homes:
        return f" (it belongs under [{'.'.join((*path, homes[0]))}])"
    return ""


def default_config(outlines: Mapping[str, TemplateShape] | None = None) -> TableConfig:
    return config_from_dict(default_tables(), outlines=outlines)


@dataclass(frozen=True)
class MisfitTag:
    """A car's or template's tag that was seen but not used: it measures too far from its printed size
    (a sheet printed "fit to page", a wrong ``car_size_mm`` in the config, or not a tag at all: a die)."""

    tag_id: int
    what: str  # "car <id>" or "template <name>"
    measured_mm: float
    printed_mm: float
    centre_px: tuple[float, float]  # where in the frame (a die in the dice tray is no misprint)
    car_id: str | None = None  # the car it would have been

    def describe(self) -> str:
        return (f"tag {self.tag_id} ({self.what}) measures {self.measured_mm:.0f} mm, not "
                f"{self.printed_mm:.0f} mm: a die read as a tag, or the sheet printed at a different size from "
                "the one in the table config (print the tag sheet at 100%, or fix the tag size in the config)")


@dataclass(frozen=True)
class TableObservation:
    """What one frame showed.  ``tokens``: zone -> count, ``None`` when the zone is not countable;
    ``misfits``: car and template tags seen but not used, for their size."""

    cars: tuple[CarObservation, ...]
    templates: tuple[TemplateObservation, ...]
    tokens: Mapping[str, int | None]
    misfits: tuple[MisfitTag, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "cars": [{"id": c.id, "centre_mm": [round(c.centre_mm[0], 1), round(c.centre_mm[1], 1)],
                      "heading_deg": round(c.heading_deg, 1), "tag_id": c.tag_id} for c in self.cars],
            "templates": [t.to_dict() for t in self.templates],
            "tokens": dict(self.tokens),
            "misfit_tags": [{"tag_id": m.tag_id, "what": m.what, "measured_mm": round(m.measured_mm, 1),
                             "printed_mm": m.printed_mm, "centre_px": [round(m.centre_px[0], 1),
                                                                       round(m.centre_px[1], 1)]}
                            for m in self.misfits],
        }


def _car_hull_px(car: CarObservation, cal: Calibration, geom: CarGeometry, margin: float = 4.0) -> np.ndarray:
    """The car's body (a box) as the camera sees it, projected back onto the mat (mm polygon)."""
    import cv2

    k, rot, t = cal.camera_pose()
    a = math.radians(car.heading_deg)
    d = np.array([math.cos(a), math.sin(a)])
    n = np.array([-d[1], d[0]])
    hl, hw = geom.length_mm / 2 + margin, geom.width_mm / 2 + margin
    c = np.array(car.centre_mm)
    foot = [c + d * hl + n * hw, c + d * hl - n * hw, c - d * hl - n * hw, c - d * hl + n * hw]
    pts3 = [np.array([p[0], p[1], z]) for p in foot for z in (0.0, -(geom.tag_height_mm + 2.0))]
    cam = np.array([rot @ p + t for p in pts3])
    px = (k @ cam.T).T
    px = px[:, :2] / px[:, 2:3]
    mm = apply_h(cal.px_to_mm, px)  # ideal (pinhole) pixels: no lens to undo
    return cv2.convexHull(mm.astype(np.float32)).reshape(-1, 2)


def _fill_mm(mask: np.ndarray, poly_mm: np.ndarray, s: float, value: int = 255) -> None:
    import cv2

    poly = np.asarray(poly_mm, dtype=np.float64)
    if not np.all(np.isfinite(poly)) or np.abs(poly).max(initial=0.0) > 1e6:
        return  # a point the calibration sends to infinity (a damaged file): nothing to mark
    cv2.fillPoly(mask, [np.round(poly / s * 16).astype(np.int32)], value, shift=4)


#: How far a car's or template's tag may measure from its printed size.  On the table bench's tuning seeds
#: (11 and 5, every condition, 4 frames each) the 474 car and template tags measured 0.89-1.01 of it; a
#: black 16 mm die showing five, read as a 25 mm template tag, 0.71 (it passed the 0.3 that stood before).
TAG_SIZE_TOLERANCE = 0.15


def _centre_px(sighting: TagSighting) -> tuple[float, float]:
    x, y = np.asarray(sighting.corners_px, dtype=np.float64).reshape(4, 2).mean(axis=0)
    return float(x), float(y)


def read_cars(sightings: Sequence[TagSighting], calibration: Calibration, config: TableConfig,
              misfits: list[MisfitTag] | None = None) -> list[CarObservation]:
    """The cars whose tags are seen; a car tag of the wrong size is no car, and is added to ``misfits``."""
    cars: dict[str, CarObservation] = {}
    for s in sightings:
        cid = config.car_tags.get(s.id)
        if cid is None:
            continue
        pose = tag_pose(s, calibration, config.cars.tag_height_mm)
        if abs(pose.size_mm - config.car_tag_size_mm) > TAG_SIZE_TOLERANCE * config.car_tag_size_mm:
            if misfits is not None:  # not the car's printed tag (a die read as one, a misprint): no car there
                misfits.append(MisfitTag(s.id, f"car {cid}", pose.size_mm, config.car_tag_size_mm,
                                         _centre_px(s), cid))
            continue
        if cid not in cars:  # a car seen twice: the first sighting stands (duplicates are a setup mistake)
            cars[cid] = CarObservation(cid, pose.centre_mm, pose.heading_deg, s.id)
    return list(cars.values())


_MATCHERS: dict[tuple[int, float, float], OutlineMatcher] = {}


def _matcher(config: TableConfig) -> OutlineMatcher:
    """One matcher per set of outlines (its set-up is a few ms; frames come 10+ a second)."""
    key = (id(config.outlines), config.mm_per_px, config.min_iou)
    m = _MATCHERS.get(key)
    if m is None or m.shapes is not config.outlines:
        if len(_MATCHERS) > 8:
            _MATCHERS.clear()
        m = OutlineMatcher(config.outlines, config.mm_per_px, config.min_iou)
        _MATCHERS[key] = m
    return m


def read_table(image: np.ndarray, calibration: Calibration, config: TableConfig,
               token_counter: TokenCounter | CountMemo | None = None) -> TableObservation:
    """Read cars, templates and tokens from one BGR frame taken by the calibrated camera.

    Tokens are counted on this frame alone unless a ``token_counter`` is given, in which case it decides:
    a ``TokenCounter``'s stillness rule (feed it every frame by calling ``read_table`` on every frame), or
    a ``CountMemo``'s (a zone that has not changed since its last count keeps it)."""
    import cv2

    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("read_table needs a BGR colour image (H x W x 3)")
    h_img, w_img = image.shape[:2]
    if (w_img, h_img) != tuple(calibration.image_size):
        raise ValueError(f"frame is {w_img}x{h_img} but the calibration was made at "
                         f"{calibration.image_size[0]}x{calibration.image_size[1]}; calibrate at this resolution")
    sightings = detect_tags(image, config.dictionary)
    misfits: list[MisfitTag] = []
    cars = read_cars(sightings, calibration, config, misfits)
    geom = config.cars
    dist, ang = config.max_attach_distance_mm, config.max_attach_angle_deg

    templates: list[TemplateObservation] = []
    tagged: list[np.ndarray] = []  # the outlines (mm) of the templates found by their tags
    for sg in sightings:
        entry = config.template_tags.get(sg.id)
        if entry is None:
            continue
        name, face = entry
        shape = config.shapes.get(name)
        if shape is None or shape.tag is None:
            continue
        # the tag lies on the acrylic's upper face, ``thickness_mm`` above the mat (face b: the same
        # piece turned over, so the same height)
        pose = tag_pose(sg, calibration, shape.tag_height_mm)
        if abs(pose.size_mm - shape.tag[2]) > TAG_SIZE_TOLERANCE * shape.tag[2]:
            # a tag of the wrong printed size (or a misread, a die): its pose would be wrong
            misfits.append(MisfitTag(sg.id, f"template {name}", pose.size_mm, shape.tag[2], _centre_px(sg)))
            continue
        pl = placement_from_tag(shape, face, pose.centre_mm, pose.heading_deg)
        templates.append(describe(shape, pl, cars, geom, dist, ang, "tag", 1.0, sg.id))
        tagged.append(pl.world(shape.outline))

    if config.outlines:  # the search for untagged templates, and the masks that serve it
        s = config.mm_per_px
        mw, mh = calibration.mat_mm
        gw, gh = int(math.ceil(mw / s)), int(math.ceil(mh / s))
        ignore = np.zeros((gh, gw), np.uint8)  # says nothing about templates
        blocked = np.zeros((gh, gw), np.uint8)  # explained already: not a template
        for outline in tagged:
            _fill_mm(blocked, outline, s)
        for car in cars:
            _fill_mm(ignore, _car_hull_px(car, calibration, geom), s)
        for z in calibration.zones:
            _fill_mm(blocked, np.array(z.polygon), s)
        if sightings:  # corner markers and any unknown tag: paper, not acrylic (one lens lookup for all)
            quads = calibration.to_mm(np.concatenate([sg.corners_px for sg in sightings])).reshape(-1, 4, 2)
            for quad in quads:
                _fill_mm(blocked, quad, s)
        top = calibration.warp_to_mm(image, s, (gw, gh))
        hsv = cv2.cvtColor(top, cv2.COLOR_BGR2HSV)
        tinted = cv2.inRange(hsv, (0, config.template_sat_min, config.template_val_min), (180, 255, 255))
        tok = config.tokens
        tinted[cv2.inRange(hsv, (tok.hue_min, tok.sat_min, tok.val_min), (tok.hue_max, 255, 255)) > 0] = 0
        # Skin is NOT masked out: orange acrylic over a grey mat passes every skin-colour rule.  A hand
        # over a template merges with it into a blob no taught outline fits, so it is not reported;
        # a hand that does not merge (dark skin is not saturated) is caught by the ring test below.
        skin = skin_mask(top)
        tinted[blocked > 0] = 0
        tinted[ignore > 0] = 0
        # close first: the printed gear strip leaves thin tinted margins that opening alone would cut
        tinted = cv2.morphologyEx(tinted, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        tinted = cv2.morphologyEx(tinted, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        matcher = _matcher(config)
        min_px = 0.4 * matcher.min_area_mm2() / (s * s)
        contours, _ = cv2.findContours(tinted, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for cnt in contours:
            if cv2.contourArea(cnt) < min_px:
                continue
            x, y, w, h = cv2.boundingRect(cnt)
            pad = 12
            x0, y0 = max(0, x - pad), max(0, y - pad)
            x1, y1 = min(gw, x + w + pad), min(gh, y + h + pad)
            blob = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.drawContours(blob, [cnt], -1, 1, thickness=cv2.FILLED, offset=(-x0, -y0))
            ign = ignore[y0:y1, x0:x1].copy()
            # A blob bordered by skin is a template partly under a hand: what shows may look like
            # another template (half a hairpin is a fine Hard turn), so say nothing.
            ring = (cv2.dilate(blob, np.ones((11, 11), np.uint8)) > 0) & (cv2.dilate(blob, np.ones((5, 5), np.uint8)) == 0)
            if ring.any() and np.count_nonzero(skin[y0:y1, x0:x1][ring]) > 0.12 * np.count_nonzero(ring):
                continue
            box = np.array([[x0 * s - 15, y0 * s - 15], [x1 * s + 15, y1 * s + 15]])
            poses = [(float(mid[0]), float(mid[1]), out) for car in cars for _, mid, out in car_edges(car, geom)
                     if np.all(mid >= box[0]) and np.all(mid <= box[1])]
            results = matcher.match(blob, ign, x0, y0, poses)
            if not results:
                continue
            cands = matcher.placements(results)
            v, pl, sc = cands[0]
            shape = config.outlines[v.name]
            templates.append(describe(shape, pl, cars, geom, dist, ang, "outline", sc, None,
                                      alternatives=[c[1] for c in cands[1:]]))

    if token_counter is not None:
        tokens = token_counter.update(image)
    else:
        tokens = count_tokens(image, calibration, config.tokens)
    return TableObservation(tuple(cars), tuple(templates), tokens, tuple(misfits))


#: A printed tag's paper around its black square, as a factor of the square's size: the sheet's white
#: quiet zone is one cell of the 6-cell square on each side (``vision.markers``: 8/6).
TAG_QUIET = 8 / 6
#: The arrow strip the sheet prints above a tag's top edge, mm (at most two lines of text: 7.4 mm).
TAG_STRIP_MM = 7.4


#: Paper in a teaching frame: bright and nearly colourless (HSV value, saturation on OpenCV's scales).
PAPER_VALUE_MIN = 150
PAPER_SAT_MAX = 60


def tag_paper_mm(quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The paper of a cut-out tag (its black square's corners in mm, ArUco order: TL, TR, BR, BL): the
    square with its quiet zone all round, and the arrow strip the sheet prints beyond its top edge."""
    middle = quad.mean(axis=0)
    q = middle + (quad - middle) * TAG_QUIET
    up = (q[0] + q[1]) / 2 - (q[2] + q[3]) / 2
    up = up / max(float(np.hypot(*up)), 1e-9)
    return q, np.array([q[0] + up * TAG_STRIP_MM, q[1] + up * TAG_STRIP_MM, q[1], q[0]])


def taught_outline(image: np.ndarray, calibration: Calibration, config: TableConfig, name: str) -> TemplateShape:
    """Learn a template's outline from a frame showing it alone, placed against the FRONT edge of one
    tagged car, as a right-hand maneuver (left-hand is accepted and mirrored).  The outline is stored
    in the template frame (entry midpoint at the origin, travel along +u).  Raises ``ValueError`` with
    what to fix when the frame does not show exactly that."""
    import cv2

    if name not in TEMPLATE_NAMES:
        raise ValueError(f"unknown template {name!r}; names are {', '.join(TEMPLATE_NAMES)}")
    h_img, w_img = image.shape[:2]
    if (w_img, h_img) != tuple(calibration.image_size):
        # a frame of another size was read through the calibration's pixels: no car fell on the mat, and the
        # owner was told "found 0" tagged cars beside the car in plain view
        raise ValueError(f"the frame is {w_img}x{h_img} but the table was calibrated on "
                         f"{calibration.image_size[0]}x{calibration.image_size[1]} frames: take the frame with the "
                         "calibrated camera at its resolution, or calibrate again at this one")
    sightings = detect_tags(image, config.dictionary)
    cars = read_cars(sightings, calibration, config)
    if len(cars) != 1:
        raise ValueError(f"teaching needs exactly one tagged car on the mat, found {len(cars)}; place the "
                         "template against the front of one tagged car and nothing else")
    s = 0.5  # teaching is a one-off: a fine grid keeps the outline within a quarter millimetre
    mw, mh = calibration.mat_mm
    gw, gh = int(math.ceil(mw / s)), int(math.ceil(mh / s))
    top = calibration.warp_to_mm(image, s, (gw, gh))
    hsv = cv2.cvtColor(top, cv2.COLOR_BGR2HSV)
    tinted = cv2.inRange(hsv, (0, config.template_sat_min, config.template_val_min), (180, 255, 255))
    tok = config.tokens
    tinted[cv2.inRange(hsv, (tok.hue_min, tok.sat_min, tok.val_min), (tok.hue_max, 255, 255)) > 0] = 0
    # A template's own tag is paper on the acrylic, not tinted: with its white margin it cut the outline to
    # less than half (a tagged Gentle taught as 1,790 mm^2 of its 4,111).  It is part of the template.
    # Its arrow strip, when kept, is paper too: filled where it shows paper (a strip cut off leaves the mat).
    paper = cv2.inRange(hsv, (0, 0, PAPER_VALUE_MIN), (180, PAPER_SAT_MAX, 255))
    for sg in sightings:
        if sg.id in config.template_tags:
            quiet, strip = tag_paper_mm(calibration.to_mm(np.asarray(sg.corners_px, dtype=np.float64)))
            _fill_mm(tinted, quiet, s)
            band = np.zeros_like(tinted)
            _fill_mm(band, strip, s)
            tinted[(band > 0) & (paper > 0)] = 255
    block = np.zeros_like(tinted)
    _fill_mm(block, _car_hull_px(cars[0], calibration, config.cars, margin=1.0), s)
    for z in calibration.zones:
        _fill_mm(block, np.array(z.polygon), s)
    tinted[block > 0] = 0
    tinted = cv2.morphologyEx(tinted, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    tinted = cv2.morphologyEx(tinted, cv2.MORPH_OPEN, np.ones((7, 7), np.uint8))
    contours, _ = cv2.findContours(tinted, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contours = sorted(contours, key=cv2.contourArea, reverse=True)
    if not contours or cv2.contourArea(contours[0]) * s * s < 1500:
        raise ValueError("no tinted template found next to the car; check the light and that the template "
                         "touches the car's front edge")
    cnt = contours[0].reshape(-1, 2).astype(np.float64) * s
    car = cars[0]
    a = math.radians(car.heading_deg)
    d = np.array([math.cos(a), math.sin(a)])
    n = np.array([-d[1], d[0]])  # right of travel (table y is down)
    front = np.array(car.centre_mm) + d * config.cars.length_mm / 2
    rel = cnt - front
    uv = np.column_stack([rel @ d, rel @ n])
    if uv[:, 0].min() < -15 or abs(uv[:, 1].mean()) > 400:
        raise ValueError("the template does not start at the car's front edge; place its end squarely "
                         "against the middle of the car's nose")
    # The body of the car hides the first millimetres: extend the entry end back to u = 0.
    umin = float(uv[:, 0].min())
    uv[:, 0] = np.where(uv[:, 0] < umin + 1.5, 0.0, uv[:, 0])
    c = polygon_centroid(uv)
    straight_like = abs(c[1]) < 4.0
    if c[1] < -4.0:
        uv[:, 1] = -uv[:, 1]  # taught as a left hand: store the right-hand form
    approx = cv2.approxPolyDP(uv.astype(np.float32).reshape(-1, 1, 2), 0.8, True).reshape(-1, 2)
    straight = name.endswith("straight")
    if straight != straight_like and straight:
        raise ValueError(f"{name} should run straight ahead of the car but it bends; check the template")
    base = config.shapes.get(name)
    ex = base.exit if base is not None else (float(uv[:, 0].max()), 0.0, 0.0)
    return TemplateShape(name, approx.astype(np.float64), straight, ex, base.tag if base else None)
