"""Random but plausible Gaslands tables for tests and the benchmark."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.calibration import default_zones
from vision.synth.scene import (
    SKID_FACES, CarSpec, DieSpec, HandSpec, SceneSpec, TemplateSpec, _transform, template_outlines,
)

TEMPLATE_NAMES = ("short_straight", "medium_straight", "long_straight", "gentle", "turn", "hard", "veer", "swerve",
                  "hairpin")


class _Occupancy:
    """Coarse occupancy grid of the mat (5 mm cells) to keep things from overlapping."""

    def __init__(self, mat_mm: tuple[float, float], cell: float = 5.0) -> None:
        self.cell = cell
        self.mat = mat_mm
        self.grid = np.zeros((int(mat_mm[1] / cell) + 1, int(mat_mm[0] / cell) + 1), np.uint8)

    def _mask(self, poly: np.ndarray, pad: float) -> np.ndarray:
        m: np.ndarray = np.zeros_like(self.grid)
        cv2.fillPoly(m, [np.round(poly / self.cell * 16).astype(np.int32)], 1, shift=4)
        if pad > 0:
            k = int(math.ceil(pad / self.cell)) * 2 + 1
            m = cv2.dilate(m, np.ones((k, k), np.uint8))
        return m

    def inside(self, poly: np.ndarray, margin: float) -> bool:
        return bool(np.all(poly >= margin) and np.all(poly[:, 0] <= self.mat[0] - margin)
                    and np.all(poly[:, 1] <= self.mat[1] - margin))

    def free(self, poly: np.ndarray, pad: float = 0.0) -> bool:
        return not np.any(self._mask(poly, pad) & self.grid)

    def take(self, poly: np.ndarray, pad: float = 0.0) -> None:
        self.grid |= self._mask(poly, pad)


def _car_poly(x: float, y: float, h: float, length: float = 70.0, width: float = 32.0) -> np.ndarray:
    return _transform(np.array([[-length / 2, -width / 2], [length / 2, -width / 2], [length / 2, width / 2],
                                [-length / 2, width / 2]]), x, y, h, False)


def random_scene(rng: np.random.Generator, image_size: tuple[int, int] = (1280, 720), *,
                 untagged_fraction: float = 0.5, hand_probability: float = 0.25, empty_probability: float = 0.1,
                 rear_probability: float = 0.2, max_tilt_deg: float = 20.0) -> SceneSpec:
    """A scene with 2-4 cars, usually a template against one of them (sometimes reversing), sometimes
    a loose template, 0-8 tokens per player zone, dice in the tray and maybe a hand."""
    mat = (800.0, 450.0)
    zones = default_zones(mat)
    occ = _Occupancy(mat)
    for z in zones:
        occ.take(np.array(z.polygon), pad=10)
    for cx, cy in ((0, 0), (mat[0], 0), (mat[0], mat[1]), (0, mat[1])):
        occ.take(np.array([[cx - 75, cy - 75], [cx + 75, cy - 75], [cx + 75, cy + 75], [cx - 75, cy + 75]]))
    shapes = template_outlines()
    cars: list[CarSpec] = []
    templates: list[TemplateSpec] = []
    n_cars = int(rng.integers(2, 5))
    want_template = [rng.random() > empty_probability] + [rng.random() < 0.3 for _ in range(n_cars - 1)]
    for i in range(n_cars):
        for _ in range(300):
            x, y = rng.uniform(60, mat[0] - 60), rng.uniform(60, mat[1] - 60)
            h = float(rng.uniform(0, 360))
            car = _car_poly(x, y, h)
            if not occ.inside(car, 10) or not occ.free(car, pad=12):
                continue
            tspec = None
            tpoly = None
            if want_template[i]:
                name = TEMPLATE_NAMES[int(rng.integers(len(TEMPLATE_NAMES)))]
                hand = "left" if rng.random() < 0.5 else "right"
                edge = "rear" if rng.random() < rear_probability else "front"
                a = math.radians(h)
                d = np.array([math.cos(a), math.sin(a)])
                ex, ey = (np.array([x, y]) + d * 35.0) if edge == "front" else (np.array([x, y]) - d * 35.0)
                th = h if edge == "front" else h + 180.0
                sh = shapes[name]
                tpoly = _transform(sh["outline"], ex, ey, th, hand == "left" and not sh["straight"])
                if not occ.inside(tpoly, 8) or not occ.free(tpoly, pad=12):
                    continue
                tspec = TemplateSpec(name, None if sh["straight"] else hand, attach_to=f"car{i + 1}", edge=edge,
                                     tagged=rng.random() >= untagged_fraction, jitter_mm=0.8, jitter_deg=1.0)
            occ.take(car, pad=12)
            if tpoly is not None:
                occ.take(tpoly, pad=12)
            if tspec is not None:  # set exactly when tpoly is
                templates.append(tspec)
            cars.append(CarSpec(f"car{i + 1}", 10 + i, x, y, h))
            break
    if rng.random() < 0.2:  # a loose template, away from every car
        for _ in range(200):
            name = TEMPLATE_NAMES[int(rng.integers(len(TEMPLATE_NAMES)))]
            x, y, h = rng.uniform(60, mat[0] - 60), rng.uniform(60, mat[1] - 60), float(rng.uniform(0, 360))
            sh = shapes[name]
            hand = "left" if rng.random() < 0.5 else "right"
            poly = _transform(sh["outline"], x, y, h, hand == "left" and not sh["straight"])
            if occ.inside(poly, 8) and occ.free(poly, pad=30):
                occ.take(poly, pad=12)
                templates.append(TemplateSpec(name, None if sh["straight"] else hand, x=x, y=y, heading_deg=h,
                                              tagged=rng.random() >= untagged_fraction))
                break
    tokens = {z.name: int(rng.integers(0, 9)) for z in zones if z.kind == "tokens"}
    dice = []
    for _ in range(int(rng.integers(0, 5))):
        if rng.random() < 0.5:
            dice.append(DieSpec("d6", int(rng.integers(1, 7))))
        else:
            dice.append(DieSpec("skid", SKID_FACES[int(rng.integers(4))]))
    hands = []
    if rng.random() < hand_probability:
        hands.append(HandSpec(float(rng.uniform(80, mat[0] - 80)), float(rng.uniform(80, mat[1] - 80)),
                              float(rng.uniform(0, 360)), float(rng.uniform(0.9, 1.15))))
    return SceneSpec(image_size=image_size, mat_mm=mat, cars=cars, templates=templates, tokens=tokens, dice=dice,
                     hands=hands, zones=zones, tilt_deg=float(rng.uniform(0, max_tilt_deg)),
                     tilt_azimuth_deg=float(rng.uniform(0, 360)), yaw_deg=float(rng.uniform(-6, 6)),
                     light=float(rng.uniform(0.1, 0.35)), noise=float(rng.uniform(1.5, 4.0)),
                     blur=float(rng.uniform(0.3, 0.9)))
