"""What real tables bring, one named condition at a time, for ``pitboard bench table``.

A *table* is what stays the same from set-up to play: the camera (tilt, yaw), the mat (its style and its
texture, by ``mat_seed``) and the light.  ``table_spec`` draws one for a condition; ``play_spec`` lays a
random game scene (``random_scene``) on it; ``setup_spec`` is the same table with nothing on the zones
(the calibration frame, from which the bare mat is learned) and ``teach_spec`` the frame an owner takes
for ``pitboard teach tokens`` (tokens in one zone, the other zones bare).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from vision.synth.random_scene import random_scene
from vision.synth.scene import HandSpec, SceneSpec

Modifier = Callable[[SceneSpec, np.random.Generator], SceneSpec]

WARM = (1.0, 0.80, 0.55)  # ~3000 K tungsten / warm LED, camera white balance fixed at daylight
COOL = (0.82, 0.95, 1.12)  # ~6500 K overcast daylight


def _lens_available() -> bool:
    try:
        from vision.synth import lens  # noqa: F401
    except ImportError:
        return False
    return hasattr(lens, "distort_image")


@dataclass(frozen=True)
class Condition:
    """A named way a real table differs from the plain synthetic one."""

    name: str
    describe: str
    table: Modifier  # applied to the table (set-up, teach and play frames alike)
    play: Modifier | None = None  # applied to play frames only (a hand, a shadow that comes and goes)
    image_size: tuple[int, int] = (1280, 720)


def _set(**kw: Any) -> Modifier:
    return lambda spec, rng: replace(spec, **kw)


def _mat(style: str) -> Modifier:
    return lambda spec, rng: replace(spec, mat=style)


def _hand_over_zone(spec: SceneSpec, rng: np.random.Generator) -> SceneSpec:
    zones = [z for z in spec.zone_list() if z.kind == "tokens"]
    z = zones[int(rng.integers(len(zones)))]
    poly = np.array(z.polygon)
    c = poly.mean(axis=0) + rng.uniform(-40, 40, 2)
    # the arm reaches in from the nearer long side of the mat
    heading = 90.0 if c[1] < spec.mat_mm[1] / 2 else 270.0
    heading += float(rng.uniform(-35, 35))
    sleeve: tuple[int, int, int] | None = None
    if rng.random() >= 0.5:
        b, g, r = (int(v) for v in rng.choice([(40, 40, 40), (150, 60, 30), (200, 200, 200), (40, 40, 150),
                                               (60, 110, 60)]))
        sleeve = (b, g, r)
    hand = HandSpec(float(c[0]), float(c[1]), heading, float(rng.uniform(0.9, 1.15)),
                    float(rng.uniform(25, 70)), arm=True, sleeve=sleeve)
    return replace(spec, hands=[hand])


def _steep(spec: SceneSpec, rng: np.random.Generator) -> SceneSpec:
    # every table's templates are 3 mm acrylic (the renderer's default); a steep camera is where the
    # tag's height above the mat matters most
    return replace(spec, template_thickness_mm=3.0, tilt_deg=float(rng.uniform(15.0, 22.0)))


def _warm_grey(spec: SceneSpec, rng: np.random.Generator) -> SceneSpec:
    return replace(spec, light_rgb=WARM, mat=("felt", "asphalt")[int(rng.integers(2))])


CONDITIONS: tuple[Condition, ...] = (
    Condition("plain", "the plain synthetic table (grey asphalt print, daylight)", _set()),
    Condition("wood", "an oak table as the mat", _mat("wood")),
    Condition("tan", "a tan desert-print mat", _mat("tan")),
    Condition("printed", "a printed play mat with coloured artwork", _mat("printed")),
    Condition("cloth", "green / blue / purple cloth", _mat("cloth")),
    Condition("warm_light", "grey felt or asphalt under warm light (~3000 K)", _warm_grey),
    Condition("warm_wood", "an oak table under warm light", _set(mat="wood", light_rgb=WARM)),
    Condition("cool_light", "tan mat under cool daylight", _set(mat="tan", light_rgb=COOL)),
    Condition("uneven_shadow", "strong uneven light and a soft shadow band across the table",
              _set(light=0.45), play=_set(shadow_band=0.45)),
    Condition("stacked", "tokens resting on other tokens (each partly visible)", _set(token_stacked=0.35)),
    Condition("thick_templates", "3 mm templates seen by a camera tilted 15-22 degrees (their tags 3 mm up)",
              _steep),
    Condition("noise_jpeg60", "strong sensor noise and JPEG quality 60", _set(noise=6.0, jpeg_quality=60)),
    Condition("motion_blur", "4 px motion blur (a nudged camera arm)", _set(motion_blur_px=4.0)),
    Condition("defocus", "defocus blur, 2 px disc", _set(defocus_px=2.0)),
    Condition("hand_over_zone", "a hand and forearm over a token zone", _set(), play=_hand_over_zone),
    Condition("wide_lens_1080p", "barrel distortion of a wide lens at 1920x1080", _set(lens_k1=-0.18),
              image_size=(1920, 1080)),
    # last, so that the conditions before it draw the same frames as before it was added (2026-12-03)
    Condition("hand_over_tan", "a hand and forearm over a token zone of a tan mat (skin nearly the mat's colour)",
              _mat("tan"), play=_hand_over_zone),
    Condition("light_change", "an oak table set up under cool light and played under warm light (a lamp goes "
              "on after set-up)", _set(mat="wood", light_rgb=COOL), play=_set(light_rgb=WARM)),
)


def conditions(names: list[str] | None = None) -> list[Condition]:
    """The conditions by name (all when None); the wide-lens one only where the lens model exists."""
    out = [c for c in CONDITIONS if c.name != "wide_lens_1080p" or _lens_available()]
    if names:
        known = {c.name: c for c in CONDITIONS}
        bad = [n for n in names if n not in known]
        if bad:
            raise ValueError(f"unknown condition(s) {', '.join(bad)}; conditions are {', '.join(known)}")
        out = [known[n] for n in names]
    return out


def table_spec(cond: Condition, rng: np.random.Generator) -> SceneSpec:
    """A table for ``cond``: camera, mat and light fixed; nothing on it yet."""
    base = random_scene(rng, cond.image_size, hand_probability=0.0)
    spec = SceneSpec(image_size=cond.image_size, mat_mm=base.mat_mm, zones=base.zones, tilt_deg=base.tilt_deg,
                     tilt_azimuth_deg=base.tilt_azimuth_deg, yaw_deg=base.yaw_deg, light=base.light,
                     noise=base.noise, blur=base.blur, mat_seed=int(rng.integers(2 ** 31)),
                     light_seed=int(rng.integers(2 ** 31)))
    return cond.table(spec, rng)


def setup_spec(table: SceneSpec) -> SceneSpec:
    return replace(table, cars=[], templates=[], tokens={}, dice=[], hands=[])


def teach_spec(table: SceneSpec, zone: str, count: int) -> SceneSpec:
    return replace(setup_spec(table), tokens={zone: count}, token_stacked=0.0)


def play_spec(cond: Condition, table: SceneSpec, rng: np.random.Generator) -> SceneSpec:
    """A random game scene on ``table`` (cars, templates, 0-8 tokens a zone, dice, maybe a hand)."""
    s = random_scene(rng, table.image_size)
    spec = replace(table, cars=s.cars, templates=s.templates, tokens=s.tokens, dice=s.dice, hands=s.hands)
    return cond.play(spec, rng) if cond.play is not None else spec
