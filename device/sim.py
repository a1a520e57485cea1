"""``pitboard sim``: the appliance in a terminal — keys are the buttons, the screens are drawn as text.

It is the real loop (:class:`device.app.App`), the real rules, the real store and the real dashboards;
only the edges of the box are swapped: :class:`device.buttons.KeyboardButtons` for the gpiozero panel,
terminal screens for the OLEDs, and for the camera either nothing (dice typed) or a folder of dice images
shown one per ``r`` key (``--dice-images``), read by ``vision.dice`` exactly as frames from the tray.

Keys (one character each; upper case = a long press):

    n / N   NEXT  (advance; long: skip the rest of the phase, then OK to confirm)
    b / B   BACK  (undo; long: undo several steps)
    s / S   SELECT (cycle the choice or the die face; long: back one)
    o / O   OK    (send the choice — one that needs dice opens their entry — or keep the die face)
    ! @ # $ % ^   the player buttons p1..p6
    1-6     type a die: the face at that position of the die (skid: 1-3 SHIFT 4 HAZARD 5 SLIDE 6 SPIN)
    Enter . send the typed dice as the roll          0   roll no dice
    r       put the next image of --dice-images on the tray
    ?       help              q   quit

The keys come from any iterable of characters (:meth:`Sim.feed`), so a test drives the simulator with a
string and no tty; at a terminal, keys are read one at a time without Enter.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from device.app import App, VisionReader, open_match, setup_options
from device.buttons import KeyboardButtons
from device.camera import FRAME_SUFFIXES, Camera, StillBackend
from device.store import Store
from games import game_package

HELP = __doc__.split("Keys (one character each; upper case = a long press):", 1)[1].split("The keys come", 1)[0]
FIRST_FRAME_MARK = "PITBOARD-FIRST-FRAME"


class TerminalBank:
    """The simulator's screens: the latest frame per player, drawn as text on demand."""

    def __init__(self, players: Iterable[str], style: str = "braille") -> None:
        self.players = tuple(players)
        self.style = style
        self.frames: dict[str, Any] = {}
        self.shown = 0

    def show(self, player: str, image: Any) -> bool:
        self.frames[player] = image.copy()
        self.shown += 1
        return True

    def text(self) -> str:
        frames = {p: self.frames[p] for p in self.players if p in self.frames}
        try:
            from device.displays.render import compose_terminal
        except ImportError:  # pragma: no cover - the displays package ships with the device
            return "\n".join(f"[{p}]" for p in frames)
        return compose_terminal(frames, style=self.style, columns=2 if self.style == "braille" else 1)


class Sim:
    """One simulator session; :meth:`feed` takes keystrokes, :attr:`out` gets the screens and messages."""

    def __init__(self, game: str = "gaslands", *, setup: str | Path | None = None, db: str | Path | None = None,
                 dice_images: str | Path | None = None, out: TextIO | None = None, style: str = "braille",
                 clock: Callable[[], float] = time.monotonic, reader: Any = None) -> None:
        self.module = game_package(game)
        self.options = setup_options(self.module, setup)
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if db is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="pitboard-sim-")
            db = Path(self._tmp.name) / "sim.sqlite"
        self.store = Store(db)
        self.game_id, match, self.resumed = open_match(self.store, self.module, self.options)
        self.out = out if out is not None else sys.stdout
        self.clock = clock
        self.keys = KeyboardButtons(players=len(match.views()))
        players = [str(getattr(v, "player", "")) for v in match.views()]
        self.bank = TerminalBank(players, style)
        self.images: list[Path] = []
        self.tray: StillBackend | None = None
        camera = None
        if dice_images is not None:
            folder = Path(dice_images)
            if not folder.is_dir():
                raise ValueError(f"--dice-images {folder} is not a folder of dice photos")
            self.images = sorted(p for p in folder.iterdir() if p.suffix.lower() in FRAME_SUFFIXES)
            if not self.images:
                raise ValueError(f"--dice-images {folder} holds no images ({', '.join(FRAME_SUFFIXES)})")
            self.tray = StillBackend(np.full((480, 640, 3), 200, np.uint8))  # an empty tray until `r`
            camera = Camera(self.tray, clock=clock, fps=0)
            if reader is None:
                try:
                    from vision.dice import read_dice  # type: ignore[attr-defined]  # noqa: F401
                except ImportError as exc:
                    raise ValueError(f"--dice-images needs vision.dice.read_dice, which is not installed ({exc})") from None
                reader = VisionReader()
        self.app = App(self.module, match, buttons=self.keys, displays=self.bank, clock=clock, camera=camera,
                       reader=reader, on_finished=lambda: self.store.finish(self.game_id))
        self.next_image = 0
        self.typed: list[int] = []
        self.quit = False
        self._said = 0
        self._last_state: Any = None

    # -- input ------------------------------------------------------------------------------------
    def feed(self, keys: Iterable[str]) -> None:
        """Handle keystrokes, one step of the loop per key; draws after each key that changed a screen."""
        for key in keys:
            if self.quit:
                return
            self.key(key)

    def key(self, key: str) -> None:
        if key == "q":
            self.quit = True
            return
        if key == "?":
            self.out.write(HELP + "\n")
            return
        if key.isdigit() and key != "0":
            self.type_digit(int(key))
        elif key == "0":
            self.typed = []
            self.app.type_faces([])
        elif key in "\n\r.":
            if self.typed:
                self.send_typed()
        elif key == "r":
            self.roll_image()
        elif key in " \t":
            pass
        else:
            self.keys.push(key)
        self.step()
        for other in self.keys.unhandled():
            self.out.write(f"key {other!r} does nothing (? for help)\n")

    def type_digit(self, digit: int) -> None:
        prompt = self.app.prompt()
        entry = self.app.entry
        if entry is not None and entry.prompt is not None:
            prompt = entry.prompt  # dice a choice asked for (a bump re-roll, a Road die)
        if prompt.die is None:
            self.out.write("no dice are awaited now\n")
            return
        faces = list(getattr(self.module, "DIE_TYPES", {}).get(prompt.die, range(1, 7)))
        if digit > len(faces):
            self.out.write(f"a {prompt.die} die has {len(faces)} faces: type 1-{len(faces)}\n")
            return
        self.typed.append(faces[digit - 1])
        self.out.write(f"typed: {' '.join(map(str, self.typed))} (Enter sends)\n")

    def send_typed(self) -> None:
        faces, self.typed = self.typed, []
        self.app.type_faces(faces)

    def roll_image(self) -> None:
        if self.tray is None:
            self.out.write("no --dice-images folder: type the dice instead (digits, then Enter)\n")
            return
        import cv2

        path = self.images[self.next_image % len(self.images)]
        self.next_image += 1
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            self.out.write(f"{path} is not an image\n")
            return
        self.tray.show(image)
        self.out.write(f"tray: {path.name}\n")
        for _ in range(self.app.settle_frames + 2):  # the same still frame until the tray counts as settled
            self.step()

    # -- output -----------------------------------------------------------------------------------
    def step(self) -> None:
        before = self.bank.shown
        self.app.step()
        for applied in self.app.history[self._said:]:
            c = applied.command.to_json()
            verdict = "ok" if applied.outcome.accepted else f"REFUSED: {applied.outcome.reason}"
            self.out.write(f"[{applied.source}] {c} -> {verdict}\n")
        self._said = len(self.app.history)
        state = (self.app.status_text(), tuple(self.app.notices), self.app.prompt().text)
        if self.bank.shown != before:
            self.draw()
        elif state != self._last_state:
            self.say()
        self._last_state = state

    def draw(self) -> None:
        self.out.write(self.bank.text() + "\n")
        self.say()

    def say(self) -> None:
        prompt = self.app.prompt()
        status = self.app.status_text()
        self.out.write(f"> {prompt.text}\n")
        if status:
            self.out.write(f"  {status}\n")
        for notice in self.app.notices:
            who = f"{notice.player}: " if notice.player else ""
            self.out.write(f"  ! {who}{notice.text}\n")
        self.out.flush()

    def close(self) -> None:
        self.store.close()
        if self._tmp is not None:
            self._tmp.cleanup()


def terminal_keys(stream: TextIO) -> Iterator[str]:
    """Characters from ``stream``: one at a time without Enter at a terminal, else as they come."""
    if stream.isatty():
        import termios
        import tty

        fd = stream.fileno()
        saved = termios.tcgetattr(fd)
        try:
            tty.setcbreak(fd)
            while True:
                ch = stream.read(1)
                if not ch:
                    return
                yield ch
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    else:
        while True:
            ch = stream.read(1)
            if not ch:
                return
            yield ch
