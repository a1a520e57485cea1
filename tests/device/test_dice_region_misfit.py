"""A ``[camera] dice_region`` set for another camera.  The shipped pitboard.toml is for the Pi camera's
2304x1296 frames; a USB webcam gives 1280x720, where the region [864, 796, 576, 480] starts below the
picture.  The appliance crashed with an OpenCV traceback at the first roll (under systemd: a restart loop)
while ``pitboard check`` said OK.  The brief: bad input gets a clear message naming what is wrong and what
to do, on the player's screen; the game goes on with the buttons."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
from test_app_camera_dice import Clock, Screens, road_app_on_still

from device.app import App, VisionReader, open_match
from device.buttons import ScriptedButtons
from device.camera import Camera, StillBackend
from device.cli_device import probe_camera
from device.config import CameraBackend, CameraConfig, PitboardConfig, Region
from device.store import Store
from games import game_package
from tools.dice_training.render import render_scene
from vision.dice import FaceLibrary


def test_region_misfit_names_the_frame_it_misses() -> None:
    r = Region(864, 796, 576, 480)
    assert r.misfit(2304, 1296) is None
    assert r.misfit(1280, 720) == ("[864, 796, 576, 480] runs past the 1280x720 frame the camera gives "
                                   "(it needs 1440x1276)")


def test_a_tray_below_the_picture_is_said_on_the_screens_and_the_game_goes_on(tmp_path: Path) -> None:
    module = game_package("thunder_road")
    with Store(tmp_path / "tr.sqlite") as store:
        _, match, _ = open_match(store, module, tomllib.loads(module.EXAMPLE_SETUP))
        assert match.prompt().awaits == "dice"
        image, _ = render_scene([3, 5, 1, 6], np.random.default_rng(4))  # a 1280x720-ish webcam picture
        h, w = image.shape[:2]
        clock = Clock()
        app = App(module, match, buttons=ScriptedButtons(), displays=Screens(), clock=clock,
                  camera=Camera(StillBackend(image), clock=clock, fps=10), reader=VisionReader(faces=FaceLibrary()),
                  settle_frames=3, dice_region=Region(w + 10, h + 10, 576, 480))
        for _ in range(10):
            clock.now += 0.1
            app.step(clock.now)  # no traceback
        said = [n.text for n in app.notices if n.kind == "vision"]
        assert said and said[-1].startswith("dice tray not in the picture: [camera] dice_region ")
        assert f"runs past the {w}x{h} frame" in said[-1] and "enter the dice with the buttons" in said[-1]
        assert not app.history  # nothing was read, nothing was made up


def test_check_fails_a_dice_region_that_misses_the_cameras_frames() -> None:
    picture = np.zeros((720, 1280, 3), np.uint8)
    shipped = PitboardConfig(camera=CameraConfig(backend=CameraBackend.REPLAY, dice_region=Region(864, 796, 576, 480)))
    line = probe_camera(shipped, backend=StillBackend(picture))
    assert line.status == "FAIL"
    assert "gives 1280x720 frames, but [camera] dice_region [864, 796, 576, 480] runs past" in line.detail
    fits = PitboardConfig(camera=CameraConfig(backend=CameraBackend.REPLAY, dice_region=Region(300, 200, 576, 480)))
    assert probe_camera(fits, backend=StillBackend(picture)).status == "OK"


def test_a_tray_partly_outside_the_picture_is_said_from_the_first_frame(tmp_path: Path) -> None:
    """An audit: a dice_region running past the webcam's frame by part of it read the dice in the part it
    saw, missed the others, and nothing said so at start (only a region wholly off the frame was told, and
    only once a roll was awaited)."""
    image = np.full((720, 1280, 3), 90, np.uint8)
    with road_app_on_still(tmp_path, image, VisionReader(faces=FaceLibrary()),
                           dice_region=Region(1000, 400, 576, 480)) as (app, clock):
        clock.now += 0.1
        app.step(clock.now)
        said = [(n.text, n.player) for n in app.notices if n.kind == "dice_region"]
        assert said == [("dice tray partly outside the picture: [camera] dice_region [1000, 400, 576, 480] runs "
                         "past the 1280x720 frame the camera gives (it needs 1576x880); set it in pitboard.toml "
                         "(pitboard check names it)", None)]


def test_check_says_what_a_region_partly_outside_the_frame_loses() -> None:
    picture = np.zeros((720, 1280, 3), np.uint8)
    partly = PitboardConfig(camera=CameraConfig(backend=CameraBackend.REPLAY, dice_region=Region(1000, 400, 576, 480)))
    line = probe_camera(partly, backend=StillBackend(picture))
    assert line.status == "FAIL" and line.detail.endswith("until then dice beyond the frame's edge are not seen")
    off = PitboardConfig(camera=CameraConfig(backend=CameraBackend.REPLAY, dice_region=Region(864, 796, 576, 480)))
    assert probe_camera(off, backend=StillBackend(picture)).detail.endswith("until then no die is read")


def test_check_fails_a_calibration_made_at_another_size_than_the_cameras_frames(tmp_path: Path) -> None:
    """An audit: with a replay folder or a webcam giving 1920x1080 and a calibration made at 1280x720, check said
    OK for both while every frame at the table was refused ("table not read")."""
    from device.table_files import save_calibration
    from device.config import VisionConfig
    from vision.calibration import Calibration

    cal = save_calibration(Calibration(px_to_mm=np.diag([0.5, 0.5, 1.0]), image_size=(1280, 720),
                                       mat_mm=(640.0, 360.0)), tmp_path / "cal.json")
    config = PitboardConfig(camera=CameraConfig(backend=CameraBackend.REPLAY), vision=VisionConfig(calibration=cal))
    line = probe_camera(config, backend=StillBackend(np.zeros((1080, 1920, 3), np.uint8)))
    assert line.status == "FAIL", line
    assert line.detail.startswith(f"gives 1920x1080 frames, but {cal} is for 1280x720 frames: the table is not read")
    assert probe_camera(config, backend=StillBackend(np.zeros((720, 1280, 3), np.uint8))).status == "OK"


# -- no dice_region: the calibration's tray zone -------------------------------------------------------------


def _table(tmp_path: Path):
    """A rendered table with hazard tokens in the players' zones and four dice in the tray, calibrated from its
    corner tags as `pitboard calibrate` does: (frame, calibration, the dice's centres in the frame)."""
    from vision.calibration import CornerLayout, calibrate_from_markers
    from vision.markers import detect_tags
    from vision.synth import SceneSpec, render_scene as render_table
    from vision.synth.scene import DieSpec
    from vision.synth.dice_frames import placed_dice

    spec = SceneSpec(tokens={"p1": 3, "p2": 4}, dice=[DieSpec("d6", v) for v in (2, 3, 5, 6)])
    img, truth = render_table(spec, np.random.default_rng(12))
    det = {t.id: t.corners_px for t in detect_tags(img)}
    cal = calibrate_from_markers(det, CornerLayout(mat_mm=spec.mat_mm), spec.image_size, spec.zone_list())
    return img, cal, [(face, x, y) for face, (x, y), _side in placed_dice(truth)]


def test_without_a_dice_region_the_dice_are_read_in_the_calibrations_tray_zone(tmp_path: Path) -> None:
    """An audit: with no [camera] dice_region the whole frame was read, and the table's hazard tokens, tag
    cells and mat cracks came back as dice the camera cannot read (~7 a 1280x720 frame): every roll was held,
    "camera: ? ? ? ? 5 2 ? ? ? 2 6 - can't read 7 dice".  The calibration names where the tray stands."""
    import cv2
    import json

    from gpiozero.pins.mock import MockFactory

    from device.camera import ReplayBackend
    from device.camera_input import tray_region
    from device.config import parse_config

    img, cal, dice = _table(tmp_path)
    region = tray_region(cal)
    assert region is not None
    for _face, x, y in dice:  # every die of the tray inside it, the token zones outside it
        assert region.x <= x <= region.x + region.width and region.y <= y <= region.y + region.height
    for zone in ("p1", "p2"):
        cx, cy = cal.to_px(np.array([np.mean(cal.zone(zone).polygon, axis=0)]))[0]
        assert not (region.x <= cx <= region.x + region.width and region.y <= cy <= region.y + region.height)
    from vision.dice import read_dice

    tray = img[region.y:region.y + region.height, region.x:region.x + region.width]
    assert sorted(r.value for r in read_dice(tray)) == [2, 3, 5, 6]  # the roll, and nothing of the table
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "f0.png"), img)
    (tmp_path / "cal.json").write_text(json.dumps(cal.to_dict()))
    config = parse_config({"game": {"name": "thunder_road"}, "screens": [{"player": "Ana"}],
                           "camera": {"backend": "replay", "device": str(frames), "width": 1280, "height": 720},
                           "store": {"path": str(tmp_path / "games.sqlite")},
                           "vision": {"calibration": str(tmp_path / "cal.json"), "faces": str(tmp_path / "f.json")}},
                          source="pitboard.toml")
    from device.cli_device import build_appliance as build

    factory = MockFactory()
    appliance = build(config, pin_factory=factory, screen_backend="recording", log=lambda s: None,
                      camera_backend=ReplayBackend(frames))
    try:
        assert appliance.app.vision.dice_region == region
    finally:
        appliance.close()
        factory.reset()
    from device.cli_device import probe_vision_files

    (line,) = [x for x in probe_vision_files(config) if x.part == "dice region"]
    assert line.status == "WARN" and (f"read from the calibration's tray zone, [{region.x}, {region.y}, "
                                      f"{region.width}, {region.height}] (pixels, with a margin)") in line.detail


def test_the_tray_zone_is_not_used_on_frames_of_another_size_and_follows_a_new_calibration(tmp_path: Path) -> None:
    """A review: the tray zone's box is in the calibration's pixels; on frames of another size it points at no
    tray (no die was read, nothing said why): the whole frame is read then, as before.  Calibrated again from
    the phone (the reader's calibration swapped), the box follows."""
    import dataclasses

    from device.camera_input import CameraInput, tray_region

    img, cal, _dice = _table(tmp_path)
    reader = VisionReader(calibration=cal, faces=FaceLibrary())
    vision = CameraInput(reader)
    assert vision.dice_region == tray_region(cal)
    vision.frame_size = (1920, 1080)
    assert vision.dice_region is None
    vision.frame_size = (1280, 720)
    moved = dataclasses.replace(cal, zones=tuple(dataclasses.replace(z, polygon=tuple((x + 40.0, y) for x, y in
                                                                                       z.polygon))
                                                 for z in cal.zones))
    reader.calibration = moved
    assert vision.dice_region == tray_region(moved) != tray_region(cal)


def test_check_warns_of_a_dice_region_apart_from_the_calibrations_tray_zone(tmp_path: Path) -> None:
    """An audit: a dice_region over a corner tag (inside the frame) passed check, and at the table the roller was
    told "camera: ? - can't read the die: lay it flat" of a die that was not there."""
    from device.cli_device import probe_vision_files
    from device.config import VisionConfig
    from device.camera_input import tray_region
    from device.table_files import save_calibration

    import dataclasses

    _img, default_cal, _dice = _table(tmp_path)
    # the owner placed the tray zone (a zone card, --zones): 20 mm right of the default one
    cal = dataclasses.replace(default_cal, zones=tuple(
        dataclasses.replace(z, polygon=tuple((x + 20.0, y) for x, y in z.polygon)) if z.kind == "dice_tray" else z
        for z in default_cal.zones))
    tray = tray_region(cal)
    assert tray is not None

    def region_lines(region: Region, calibration=cal) -> list:
        path = save_calibration(calibration, tmp_path / "cal.json")
        config = PitboardConfig(camera=CameraConfig(backend=CameraBackend.REPLAY, dice_region=region),
                                vision=VisionConfig(calibration=path, faces=tmp_path / "faces.json"))
        return [x for x in probe_vision_files(config) if x.part == "dice region"]

    (line,) = region_lines(Region(40, 40, 296, 201))
    assert line.status == "WARN" and line.detail.startswith(
        f"[camera] dice_region [40, 40, 296, 201] lies apart from the calibration's tray zone, [{tray.x}, {tray.y}, "
        f"{tray.width}, {tray.height}] (pixels, with a margin): if the dice tray stands in the tray zone, no die is read")
    assert line.detail.endswith("move the tray zone (its zone card, or `pitboard calibrate IMAGE --zones FILE`)")
    assert region_lines(Region(tray.x + 10, tray.y + 10, 100, 80)) == []  # over the tray: nothing to say
    # a sliver in common is no agreement (a review: one pixel was)
    assert len(region_lines(Region(tray.x + tray.width - 2, tray.y, 296, 201))) == 1
    # the default tray zone was placed by no one: a region elsewhere (a tray beside the mat) is the owner's word
    assert region_lines(Region(40, 40, 296, 201), default_cal) == []


def test_check_warns_of_the_whole_frame_read_when_the_calibration_cannot_be_used(tmp_path: Path) -> None:
    """An audit: with no dice_region and a calibration damaged (or of another size than the frames), the dice are
    read from the whole frame, and a fifth "die" held a roll of four; check's dice-region WARN came only with a
    calibration it could read.  (With no calibration made at all, a camera over the tray alone, nothing is said.)"""
    from device.cli_device import probe_vision_files
    from device.config import VisionConfig

    damaged = tmp_path / "cal.json"
    damaged.write_text('{"px_to_mm": [[0.5, 0, 0], ')
    config = PitboardConfig(camera=CameraConfig(backend=CameraBackend.REPLAY),
                            vision=VisionConfig(calibration=damaged, faces=tmp_path / "faces.json"))
    (line,) = [x for x in probe_vision_files(config) if x.part == "dice region"]
    assert line.status == "WARN" and line.detail.startswith(
        "no [camera] dice_region: the dice are read from the whole frame (the calibration above cannot be used, so "
        "neither can its tray zone), where the table's tokens, tags and templates can be taken for dice")
    _img, cal, _dice = _table(tmp_path)
    from device.table_files import save_calibration

    other = save_calibration(cal, tmp_path / "other.json")  # 1280x720, the Pi camera asked for 2304x1296
    config = PitboardConfig(camera=CameraConfig(backend=CameraBackend.PICAMERA2, width=2304, height=1296),
                            vision=VisionConfig(calibration=other, faces=tmp_path / "faces.json"))
    (line,) = [x for x in probe_vision_files(config) if x.part == "dice region"]
    assert "read from the whole frame (the calibration above cannot be used" in line.detail


def test_check_does_not_say_the_calibration_is_read_above_the_cameras_fail(tmp_path: Path, monkeypatch) -> None:
    """A replay folder or a webcam giving 1920x1080 frames and a calibration made at 1280x720: the calibration's
    line said "OK ... the table is read" above the camera's FAIL (it could not know the frames)."""
    import io

    from device.cli_device import run_check
    from device.config import VisionConfig
    from device.table_files import save_calibration
    from vision.calibration import Calibration

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    cal = save_calibration(Calibration(px_to_mm=np.diag([0.5, 0.5, 1.0]), image_size=(1280, 720),
                                       mat_mm=(640.0, 360.0)), tmp_path / "cal.json")
    config = PitboardConfig(camera=CameraConfig(backend=CameraBackend.REPLAY), vision=VisionConfig(calibration=cal))

    def check(h: int, w: int) -> list[str]:
        out = io.StringIO()
        run_check(config, out=out, camera_backend=StillBackend(np.zeros((h, w, 3), np.uint8)))
        return [line for line in out.getvalue().splitlines() if " calibration: " in line]

    assert check(1080, 1920) == [f"FAIL  calibration: {cal} is for 1280x720 frames, but the camera gives 1920x1080: "
                                 "the table is not read until they agree: calibrate again from a frame of this "
                                 "camera (`pitboard check --interactive` saves one; or the phone's Calibrate page)"]
    assert check(720, 1280) == [f"OK    calibration: {cal}: the table is read (640x360 mm mat)"]
