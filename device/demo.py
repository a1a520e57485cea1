"""``pitboard demo``: a scripted table session through the real pipeline, with no hardware.

Gaslands (the default): ``vision.synth`` renders the camera's view of the table for each moment of the
scripted round in :mod:`games.gaslands.demo` — the cars with their roof tags, the template a player lays
against a car, the skid dice and d6 in the tray, the hazard tokens in each player's zone.  Those frames go
through the same :class:`device.app.App` loop the Pi runs: the camera's settled dice reading becomes the
skid roll, the template seen against the active car becomes the pick, the token counts are compared with
the log; NEXT, SELECT and OK are pressed on a scripted button panel.  The rules decide, the SQLite log
records, the dashboards draw on capture screens.

Nothing is scripted on the output side: if the vision misreads a die, the demo says so and stops.

Written to ``out/demo/``: one animated GIF per player screen, the annotated camera frames, the event log
(JSON lines) and the SQLite log itself.  Other games (``pitboard demo thunder_road`` ...) play their
scripted commands through the same loop, store and screens, with no camera.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from device.app import App, Applied, VisionReader, car_tags_from_options
from device.buttons import PressKind, ScriptedButtons
from device.camera import Camera, StillBackend
from device.config import Region
from device.displays import ScreenSpec, build_bank, write_captures
from device.store import Store
from games.core import Command

Log = Callable[[str], None]


class FakeClock:
    """The demo's time: a tenth of a second per loop iteration (the camera runs at 10 frames a second)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def tick(self, seconds: float = 0.1) -> float:
        self.now += seconds
        return self.now


#: The camera's frame for the demo: 720p, the resolution the table reader is benchmarked at.
FRAME_SIZE = (1280, 720)

#: Paint for the model cars, one per car in setup order (the camera tells them apart by their roof tags).
CAR_COLOURS = ((200, 40, 30), (40, 150, 60), (40, 80, 200), (220, 180, 30), (120, 40, 160), (20, 20, 20))


class DemoFailure(RuntimeError):
    """The pipeline did not do what the script expected (a misread die, a template not seen)."""


@dataclass
class Table:
    """Where the physical things are, in mm on the mat: what the synthetic camera will show."""

    cars: dict[str, tuple[float, float, float]] = field(default_factory=dict)  # id -> x, y, heading
    tags: dict[str, int] = field(default_factory=dict)


class DemoOutError(ValueError):
    """``--out`` is not a folder the demo may empty: what is wrong and what to do."""


_LOG = "game.sqlite"
_LOG_FILES = (_LOG, f"{_LOG}-wal", f"{_LOG}-shm", f"{_LOG}-journal")


def _demo_log(out: Path) -> bool:
    """Whether ``out``'s game log is the demo's own: one game, and (when the demo got as far as writing it)
    exactly the events of its ``events.jsonl``.  A log an owner played on with ``--db`` (another game, or
    moves after the demo's) is theirs, and so is one that cannot be read."""
    from device.store import Store, StoreError

    log, wal = out / _LOG, out / f"{_LOG}-wal"
    if log.stat().st_size == 0 and not (wal.is_file() and wal.stat().st_size > 0):
        return True  # a demo stopped before its first game was written: nothing in it to keep
    try:
        with Store(log, read_only=True) as store:
            games = store.games()
            if len(games) != 1:
                return False
            exported = out / "events.jsonl"
            if not exported.is_file():
                return True  # a demo cut short before its export
            return list(store.export_jsonl(games[0].id)) == exported.read_text(encoding="utf-8").splitlines()
    except (StoreError, OSError, UnicodeDecodeError):
        return False


def _demo_wrote(entry: Path, log_is_demo: bool) -> bool:
    """Whether a file or folder is one the demo writes: the screens' GIFs, the frames, the logs."""
    name = entry.name
    if entry.is_dir():
        return name == "frames" and all(f.is_file() and f.suffix == ".jpg" for f in entry.iterdir())
    if name in _LOG_FILES:
        return log_is_demo
    return name.endswith(".gif") or name == "events.jsonl"


def _fresh(out: Path) -> None:
    """Empty ``out`` for a new demo: only a folder that holds nothing but what a demo writes (its GIFs,
    frames and logs) is emptied; anything else there is the owner's, and the demo refuses to touch it."""
    if out.exists() and not out.is_dir():
        raise DemoOutError(f"--out {out} is a file, not a folder: give the demo a folder for its GIFs, frames and log")
    if out.exists():
        here = Path.cwd().resolve()
        where = out.resolve()
        if where == here or where in here.parents:
            raise DemoOutError(f"--out {out} is the folder you are in (or holds it); the demo empties its folder "
                               "first, so give it a folder of its own, e.g. --out out/demo")
        has_log = any((out / n).exists() for n in _LOG_FILES)
        log_is_demo = has_log and (out / _LOG).is_file() and _demo_log(out)
        foreign = sorted(e.name for e in out.iterdir() if not _demo_wrote(e, log_is_demo))
        if foreign:
            shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
            played = (f"; its {_LOG} holds games or moves the demo did not write (played on with --db?)"
                      if has_log and not log_is_demo else "")
            raise DemoOutError(f"--out {out} holds files the demo did not write ({shown}){played}; the demo empties "
                               "its folder first, so give it a new or empty folder, or move those files away")
        shutil.rmtree(out)
    out.mkdir(parents=True)


def _screens(players: list[str]) -> list[ScreenSpec]:
    return [ScreenSpec(player=p, address=0x3C + (i % 2), mux_address=0x70 if i >= 2 else None,
                       mux_channel=i if i >= 2 else None) for i, p in enumerate(players)]


def _describe(applied: Applied) -> str:
    c = applied.command
    args = " ".join(f"{k}={v}" for k, v in c.args.items())
    verdict = "ok" if applied.outcome.accepted else f"REFUSED: {applied.outcome.reason}"
    return f"[{applied.source:6s}] {c.type} {args} -> {verdict}"


# ======================================================================================================
# Gaslands through the camera
# ======================================================================================================


class GaslandsDemo:
    #: the plain-d6 stand-in for skid dice (1 HAZARD, 2 SPIN, 3 SLIDE, 4-6 SHIFT): one d6 value per face
    D6_FOR = {"HAZARD": 1, "SPIN": 2, "SLIDE": 3, "SHIFT": 4}

    def __init__(self, out: Path, *, seed: int, log: Log, skid_dice: str = "skid") -> None:
        from games import gaslands
        from games.gaslands.demo import demo_script
        from vision.synth.scene import CarSpec, DieSpec, SceneSpec, TemplateSpec, render_scene

        self._CarSpec, self._DieSpec, self._SceneSpec, self._TemplateSpec = CarSpec, DieSpec, SceneSpec, TemplateSpec
        self._render = render_scene
        self.out = out
        self.log = log
        self.rng = np.random.default_rng(seed)
        setup_text, self.commands = demo_script()
        self.options = tomllib.loads(setup_text)
        self.skid_dice = skid_dice
        self.options.setdefault("scenario", {})["skid_dice"] = skid_dice
        self.module = gaslands
        self.clock = FakeClock()
        self.table = Table()
        self.frame_no = 0
        self.token_offset: dict[str, int] = {}  # zone -> tokens missing on the table (a player forgot one)
        self.tokens_shown: dict[str, int] = {}  # what the camera's current frame shows
        self.annotations: list[Path] = []
        for i, player in enumerate(self.options["players"]):
            for v in player["vehicles"]:
                self.table.cars[v["id"]] = (150.0, 170.0 + 120.0 * i, 0.0)
                self.table.tags[v["id"]] = v["tag"]

    # -- the camera's view ----------------------------------------------------------------------------
    def scene(self, *, template: dict[str, Any] | None = None, dice: list[tuple[str, Any]] = ()) -> np.ndarray:
        cars = [self._CarSpec(vid, self.table.tags[vid], x, y, h, colour=CAR_COLOURS[i % len(CAR_COLOURS)])
                for i, (vid, (x, y, h)) in enumerate(self.table.cars.items())]
        templates = []
        if template is not None:
            templates.append(self._TemplateSpec(template["template"], template.get("hand", "left"),
                                                attach_to=template["vehicle"], edge=template.get("edge", "front")))
        state = self.match.state if hasattr(self, "match") else None
        tokens = {}
        if state is not None:
            for seat, player in enumerate(state.players, start=1):
                zone = f"p{seat}"
                logged = sum(v.hazards for v in state.vehicles if v.owner == player)
                tokens[zone] = max(0, min(8, logged - self.token_offset.get(zone, 0)))
        self.tokens_shown = dict(tokens)
        spec = self._SceneSpec(image_size=FRAME_SIZE, cars=cars, templates=templates, tokens=tokens,
                               dice=[self._DieSpec(kind, face) for kind, face in dice], tilt_deg=6.0,
                               tilt_azimuth_deg=30.0)
        image, _truth = self._render(spec, self.rng)
        return image

    def calibrate(self) -> None:
        from vision.calibration import calibrate_from_markers
        from vision.markers import detect_tags
        from vision.table import default_config

        config = default_config()
        self.table_config = dataclasses.replace(config, car_tags=car_tags_from_options(self.options, self.module))
        image = self.scene()
        sightings = detect_tags(image, self.table_config.dictionary)
        self.calibration = calibrate_from_markers(
            {s.id: s.corners_px for s in sightings}, self.table_config.corner_layout((800.0, 450.0)),
            (image.shape[1], image.shape[0]))
        tray = self.calibration.to_px(np.array(self.calibration.zone("tray").polygon, dtype=float))
        x0, y0 = np.floor(tray.min(axis=0)).astype(int)
        x1, y1 = np.ceil(tray.max(axis=0)).astype(int)
        self.region = Region(int(x0), int(y0), int(x1 - x0), int(y1 - y0))
        self.log(f"calibrated from the four corner tags: reprojection error {self.calibration.rms_mm:.2f} mm")

    def teach_skid_dice(self) -> Any:
        """The owner shows each skid-die face to the camera once: here, rendered dice in the tray."""
        from vision.dice import FaceLibrary, read_dice

        library = FaceLibrary()
        for face in ("SHIFT", "HAZARD", "SLIDE", "SPIN"):
            for _ in range(2):  # each face shown twice, three dice at a time, wherever they fall
                image = self.scene(dice=[("skid", face.lower())] * 3)
                crop = image[self.region.y:self.region.y + self.region.height,
                             self.region.x:self.region.x + self.region.width]
                library.teach("skid", face, crop)
        # check the lesson on a fresh roll before the game relies on it
        check = self.scene(dice=[("skid", "spin"), ("skid", "shift"), ("skid", "slide")])
        crop = check[self.region.y:self.region.y + self.region.height, self.region.x:self.region.x + self.region.width]
        seen = sorted(str(r.value) for r in read_dice(crop, die="skid", library=library))
        if seen != ["SHIFT", "SLIDE", "SPIN"]:
            raise DemoFailure(f"the taught skid faces read a check roll as {seen}")
        self.log("taught the skid-die faces from the camera (SHIFT, HAZARD, SLIDE, SPIN) and checked them")
        return library

    # -- driving the loop -------------------------------------------------------------------------------
    def build(self, store: Store) -> None:
        from device.app import open_match
        from device.camera_input import dice_px_at_tray
        from vision.synth.dice_frames import DIE_MM

        self.calibrate()
        library = self.teach_skid_dice() if self.skid_dice == "skid" else None
        (self.out / "frames").mkdir(exist_ok=True)
        self.game_id, self.match, _ = open_match(store, self.module, self.options)
        players = [p["name"] for p in self.options["players"]]
        self.bank = build_bank(_screens(players), backend="capture", clock=self.clock)
        self.bank.open()
        self.camera_backend = StillBackend(self.scene())
        self.buttons = ScriptedButtons()
        self.app = App(
            self.module, self.match, buttons=self.buttons, displays=self.bank, clock=self.clock,
            camera=Camera(self.camera_backend, clock=self.clock, fps=10),
            # the dice's size at the tray as the appliance takes it (the calibration's scale, the renderer's 16 mm
            # dice): the demo shows the appliance's known-size reading, not the reader's search of a photo
            reader=VisionReader(calibration=self.calibration, table_config=self.table_config, faces=library,
                                die_px=dice_px_at_tray(self.calibration, self.region, DIE_MM)),
            dice_region=self.region, settle_frames=3, table_every=2,
        )

    def run_until(self, done: Callable[[], bool], what: str, limit: int = 40) -> None:
        for _ in range(limit):
            self.app.step(self.clock.tick())
            if done():
                self.settle()
                return
        raise DemoFailure(f"{what}: nothing happened after {limit} frames (prompt: {self.app.prompt().text})")

    def show(self, image: np.ndarray, label: str) -> None:
        self.camera_backend.show(image)
        self.frame_no += 1
        self.annotations.append(self.annotate(image, f"{self.frame_no:02d}_{label}"))

    def annotate(self, image: np.ndarray, name: str) -> Path:
        """The frame as the camera saw it, with what vision read drawn on it."""
        import cv2

        from vision.dice import read_dice
        from vision.table import read_table

        canvas = image.copy()
        table = read_table(image, self.calibration, self.table_config)
        for car in table.cars:
            x, y = self.calibration.to_px(np.array([car.centre_mm], dtype=float))[0]
            cv2.circle(canvas, (int(x), int(y)), 6, (0, 255, 255), 2)
            cv2.putText(canvas, car.id, (int(x) + 8, int(y) - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 255, 255), 2)
        for t in table.templates:
            x, y = self.calibration.to_px(np.array([t.centre_mm], dtype=float))[0]
            label = f"{t.name} {t.hand or ''} -> {t.attached_to or '?'} {t.edge or ''}"
            cv2.putText(canvas, label, (int(x) - 60, int(y) - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 80, 255), 2)
        prompt = self.app.prompt() if hasattr(self, "app") else None
        request = self.app.menu().dice if hasattr(self, "app") else None
        die = request.die if request is not None else None
        r = self.region
        crop = image[r.y:r.y + r.height, r.x:r.x + r.width]
        cv2.rectangle(canvas, (r.x, r.y), (r.x + r.width, r.y + r.height), (255, 255, 0), 1)
        if die is not None:
            library = self.app.reader.faces if die != "d6" else None  # type: ignore[union-attr]
            for d in read_dice(crop, die=die, library=library):
                x0, y0, x1, y1 = d.box
                cv2.rectangle(canvas, (r.x + x0, r.y + y0), (r.x + x1, r.y + y1), (0, 255, 0), 2)
                cv2.putText(canvas, str(d.value), (r.x + x0, r.y + y0 - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                            (0, 255, 0), 2)
        for zone, count in table.tokens.items():
            z = self.calibration.zone(zone)
            x, y = self.calibration.to_px(np.array([z.polygon[0]], dtype=float))[0]
            cv2.putText(canvas, f"{zone}: {count} tokens", (int(x) + 4, int(y) + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.55,
                        (0, 200, 255), 2)
        if prompt is not None:
            cv2.rectangle(canvas, (0, 0), (canvas.shape[1], 30), (20, 20, 20), -1)
            cv2.putText(canvas, f"{name[3:]}: {prompt.text}"[:110], (8, 21), cv2.FONT_HERSHEY_SIMPLEX, 0.55,
                        (255, 255, 255), 1, cv2.LINE_AA)
        path = self.out / "frames" / f"{name}.jpg"
        cv2.imwrite(str(path), canvas, [cv2.IMWRITE_JPEG_QUALITY, 85])
        return path

    def press(self, button: str, kind: PressKind = PressKind.SHORT) -> None:
        self.buttons.press(button, kind)
        self.app.step(self.clock.tick())
        self.settle()

    def settle(self, frames: int = 4) -> None:
        """After a command: the players take the hazard tokens the rules gave, then the table is watched
        for a few frames (the screens show the result for a moment)."""
        self.take_tokens()
        for _ in range(frames):
            self.app.step(self.clock.tick())

    def choose(self, command: Command) -> None:
        """Walk the menu to the choice that sends ``command`` and take it: what a player does (the presses
        are the ones the player's screen shows, from where the cursor is)."""
        from games.core.table_input import find_leaf


        leaf = find_leaf(self.app.menu(), command)
        keys = self.app.plan(leaf.path) if leaf is not None else None
        if keys is None:
            raise DemoFailure(f"{command.to_json()} is not in the menu of '{self.app.prompt().text}'")
        self.press_keys(keys)

    def press_keys(self, keys: list[str]) -> None:
        """The presses :meth:`App.plan` gives, made on the buttons."""
        for key in keys:
            if key == "select_long":
                self.press("select", PressKind.LONG)
            else:
                self.press(key)

    def active_vehicle(self) -> str:
        prompt = self.app.prompt()
        assert prompt.vehicle is not None, prompt.text
        return prompt.vehicle

    def roll_from_menu(self, command: Command) -> None:
        """An attack or a smash attack as the table makes one: the player opens its dice from the menu (the
        presses the screen shows), rolls, and the camera reads the dice into the entry; the target's evade
        dice next, the same way. What the rules were sent is checked against the dice the scenes show."""
        from device.scripted import button_route, find_same

        # the choice that records the command's own events (the route the other demos and the menu bench press)
        steps = button_route(self.app.module, self.app.match.state, command, self.app.die_types)
        if not steps or steps[0][0].choice.dice is None:
            raise DemoFailure(f"{command.to_json()}: no roll for it in the menu of '{self.app.prompt().text}'")
        keys = self.app.plan(find_same(self.app.menu(), steps[0][0]).path)
        if keys is None:
            raise DemoFailure(f"{command.to_json()}: its roll cannot be reached from '{self.app.prompt().text}'")
        self.press_keys(keys)
        history = len(self.app.history)
        dice, evade = list(command.args["dice"]), list(command.args["evade"])
        entry = self.app.entry
        if entry is None or not dice:
            raise DemoFailure(f"{command.type}: its dice entry did not open, or the script rolls no dice")
        self.log(f"  [buttons] {' '.join(keys)}: the entry '{entry.request.label}' opens; the camera reads the roll")
        self.show(self.scene(dice=[("d6", f) for f in dice]), f"{command.type}_dice")
        self.run_until(lambda: self.app.entry is not entry or len(self.app.history) > history, f"{command.type} dice")
        self.show(self.scene(), "tray_cleared")  # the attack dice picked up before the evade dice are rolled
        self.settle()
        if len(self.app.history) == history:  # the evade entry is open (no hits: the command went at once)
            evading = self.app.entry
            if evade:
                self.show(self.scene(dice=[("d6", f) for f in evade]), "evade_dice")
                self.run_until(lambda: len(self.app.history) > history or (
                    evading is not None and evading.unusual_asked is not None), "evade dice")
            if len(self.app.history) == history:  # none rolled, or fewer than the target's gear: NEXT sends them
                self.press_keys(["next"] * (1 if evade else 2))
        if len(self.app.history) == history:
            raise DemoFailure(f"{command.type}: the evade dice {evade} were not sent (prompt: {self.app.prompt().text})")
        applied = self.app.history[history]
        sent = applied.command
        if sent.type != command.type or sorted(sent.args.get("dice", [])) != sorted(dice) or \
                sorted(sent.args.get("evade", [])) != sorted(evade):
            raise DemoFailure(f"{command.type}: the camera read {sent.to_json()}, the dice show {dice} and {evade}")
        if not applied.outcome.accepted:
            raise DemoFailure(f"{command.type} {sent.to_json()}: refused: {applied.outcome.reason}")
        self.camera_backend.show(self.scene())

    def play(self, command: dict[str, Any]) -> None:
        kind = command["type"]
        history = len(self.app.history)
        if kind == "choose_template":
            vehicle = self.active_vehicle()
            self.show(self.scene(template={**command, "vehicle": vehicle}), f"template_{command['template']}")
            self.run_until(lambda: len(self.app.history) > history, f"template {command['template']}")
        elif kind == "skid_roll":
            if self.skid_dice == "d6":
                faces = [("d6", self.D6_FOR[f] + (i % 3 if f == "SHIFT" else 0)) for i, f in enumerate(command["faces"])]
            else:
                faces = [("skid", f.lower()) for f in command["faces"]]
            self.show(self.scene(dice=faces), "skid_" + "_".join(f.lower() for f in command["faces"]))
            self.run_until(lambda: len(self.app.history) > history, "skid roll")
        elif kind == "flip_check":
            self.show(self.scene(dice=[("d6", command["die"])]), f"flip_check_{command['die']}")
            self.run_until(lambda: len(self.app.history) > history, "flip check")
        elif kind in ("attack", "smash"):  # opened from the menu; the camera reads its dice, then the evade dice
            self.roll_from_menu(Command.from_json(command))
            self.settle(50 if kind == "smash" else 4)  # a smash's news read on the screens before the next roll: on the
            # roller's own after the camera's "camera: 3 6" (4 s)
        elif kind == "collision":
            self.choose(Command.from_json(command))
            self.settle(30)  # the crash's news on every screen before the smash dice are rolled
        elif kind in ("shift", "place_template", "confirm", "end_shifts"):
            self.choose(Command.from_json(command))
        else:
            self.app.apply(Command.from_json(command), source="script", now=self.clock.tick())
        new = self.app.history[history:]
        if not new:
            raise DemoFailure(f"{kind}: no command reached the rules")
        for applied in new:
            self.log("  " + _describe(applied))
        if kind == "confirm" or kind == "choose_template":
            self.after_move()

    def take_tokens(self) -> None:
        """The players take (or hand back) hazard tokens as the rules say: the table follows the log, so
        the camera's count agrees again once the new frame is read."""
        state = self.match.state
        wanted = {f"p{seat}": sum(v.hazards for v in state.vehicles if v.owner == player)
                  for seat, player in enumerate(state.players, start=1)}
        if any(self.tokens_shown.get(z) != min(8, n) for z, n in wanted.items()):
            self.camera_backend.show(self.scene())

    def after_move(self) -> None:
        """Move the car that just finished its movement step along the mat (the players do this)."""
        act = self.match.state.activation
        if act is None or not act.step.value.startswith(("2", "3")):
            return
        x, y, h = self.table.cars[act.vehicle]
        self.table.cars[act.vehicle] = (x + 110.0 if x < 560 else 150.0, y, h)
        self.camera_backend.show(self.scene())

    def run(self) -> dict[str, Any]:
        started = time.perf_counter()
        with Store(self.out / "game.sqlite") as store:
            self.build(store)
            self.run_until(lambda: self.app.frames_drawn > 0, "first screen", limit=5)
            last_header = None
            for n, command in enumerate(self.commands):
                state = self.match.state
                header = f"round {state.round}, gear phase {state.phase}"
                if header != last_header:
                    self.log(header)
                    last_header = header
                if n == 29:  # before the touch-move moment: a player forgot to take a token
                    self.token_offset["p1"] = 1
                    self.camera_backend.show(self.scene())
                    self.run_until(lambda: bool(self.app.mismatches), "hazard count")
                    m = self.app.mismatches[0]
                    self.log(f"  [camera] hazard tokens in Alice's zone: {m.table} seen, log {m.log} -> alert "
                             "on her screen (not applied)")
                    self.show(self.scene(), "token_mismatch")
                    self.token_offset.clear()
                    self.camera_backend.show(self.scene())
                    self.run_until(lambda: not self.app.mismatches, "hazard count put right")
                    self.log("  [camera] the token is back on the table: the alert clears")
                self.play(command)
            for _ in range(10):
                self.app.step(self.clock.tick())
            gifs = write_captures(self.bank, self.out)
            (self.out / "events.jsonl").write_text("\n".join(store.export_jsonl(self.game_id)) + "\n")
            refused = [a for a in self.app.history if not a.outcome.accepted]
            return {
                "game": "gaslands",
                "commands": len(self.app.history),
                "from_camera": sum(1 for a in self.app.history if a.source == "camera"),
                "refused": [a.outcome.reason for a in refused],
                "events": len(store.records(self.game_id)),
                "gifs": [str(p) for p in gifs],
                "frames": len(self.annotations),
                "seconds": round(time.perf_counter() - started, 1),
            }


# ======================================================================================================
# Other games: their scripted commands through the same loop, store and screens
# ======================================================================================================


def run_script_demo(game: str, out: Path, *, log: Log) -> dict[str, Any]:
    import importlib

    from device.app import open_match

    module = importlib.import_module(f"games.{game}")
    demo = importlib.import_module(f"games.{game}.demo")
    setup_text, commands = demo.demo_script()
    options = tomllib.loads(setup_text)
    clock = FakeClock()
    started = time.perf_counter()
    with Store(out / "game.sqlite") as store:
        game_id, match, _ = open_match(store, module, options)
        players = [v.player for v in match.views()]
        bank = build_bank(_screens(players), backend="capture", clock=clock)
        bank.open()
        buttons = ScriptedButtons()
        app = App(module, match, buttons=buttons, displays=bank, clock=clock)
        for _ in range(3):
            app.step(clock.tick())

        def press(button: str, long: bool = False) -> None:
            buttons.press(button, PressKind.LONG if long else PressKind.SHORT)
            for _ in range(3):  # each press stays on the screens for a moment in the GIFs
                app.step(clock.tick())

        for command in commands:
            before = len(app.history)
            _press_script_command(app, Command.from_json(command), press, clock)
            for applied in app.history[before:]:
                log("  " + _describe(applied))
            for _ in range(8):
                app.step(clock.tick())
        for _ in range(10):
            app.step(clock.tick())
        gifs = write_captures(bank, out)
        (out / "events.jsonl").write_text("\n".join(store.export_jsonl(game_id)) + "\n")
        return {
            "game": game,
            "commands": len(app.history),
            "refused": [a.outcome.reason for a in app.history if not a.outcome.accepted],
            "events": len(store.records(game_id)),
            "gifs": [str(p) for p in gifs],
            "seconds": round(time.perf_counter() - started, 1),
        }


def _press_script_command(app: App, command: Command, press: Callable[..., None], clock: Any) -> None:
    """A scripted command entered as a player would: the menu choices that have its effect, pressed one
    by one (the screens show each press), the faces of a roll entered with SELECT and OK; a command no
    choice offers (the script's deliberate mistakes, refused by the rules) is sent as it is."""
    from device.scripted import button_route, find_same
    from games.core.table_input import route

    steps = button_route(app.module, app.match.state, command, app.die_types)
    if steps is None:
        app.apply(command, source="script", now=clock.tick())
        return
    for leaf, rolls in steps:
        keys = app.plan(find_same(app.menu(), leaf).path) or []
        for key in keys:
            if key == "select_long":
                press("select", True)
            else:
                press(key)
        for faces in rolls:
            entry = app.entry
            if entry is None:
                break
            for face in faces:
                for key in route(entry.cursor % len(entry.faces), list(entry.faces).index(face), len(entry.faces)):
                    press("select", key == "select_long")
                press("ok")
            press("next")


def run_demo(game: str = "gaslands", out: Path = Path("out/demo"), *, seed: int = 7, log: Log = print,
             skid_dice: str = "skid") -> dict[str, Any]:
    _fresh(out)
    if game == "gaslands":
        log("Pitboard demo: one round of Gaslands, seen by the (synthetic) camera, marshalled by the rules")
        return GaslandsDemo(out, seed=seed, log=log, skid_dice=skid_dice).run()
    log(f"Pitboard demo: a scripted session of {game}")
    return run_script_demo(game, out, log=log)
