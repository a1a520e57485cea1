"""The button panel: NEXT, BACK, SELECT, OK and optionally one button per player.

Three layers, so that the part that decides is a pure function of its inputs:

1. **Edges.**  gpiozero's ``Button`` objects (any pin factory: lgpio on the Pi, ``MockFactory`` in tests)
   call back from gpiozero's own threads.  The callbacks do one thing: put a raw :class:`Edge` (button,
   pressed or released, a timestamp from the injected clock) on ONE thread-safe queue.  Nothing else
   crosses a thread boundary; the main loop owns everything else.
2. **Decisions.**  :class:`PressDecoder` is a plain state machine fed edges and the time.  It debounces
   and tells a short press from a long one.  It is not gpiozero's ``bounce_time``/``hold_time``: those
   run on gpiozero's threads with the wall clock, which cannot be tested step by step, and a long press
   must be decided *while* the button is held (so the table feels it fire) while a short one can only be
   decided on release.
3. **Events.**  :class:`ButtonEvent` (button, SHORT or LONG, time) is what the loop consumes.  The
   keyboard backend of the simulator produces the same events from keystrokes.

Debounce rule: a *press* counts once the contact has read pressed for ``debounce_ms`` without a change
(a glitch or bounce shorter than that is ignored, and costs nothing because a press emits nothing by
itself); a *release* of a counted press is decided once the contact has stayed open ``REGRIP_MS`` (15 ms)
after its first edge, and dated by that edge.  A contact that opens for a moment while the button is held
(a worn switch, a knock) is so the same press going on, which can still become a long one: deciding on the
first edge made a short press of it (BACK: undo one instead of the three held for) and then a second press.
The bounces that follow a release are too short to count as a new press.  The one thing this cannot tell
apart is a real tap shorter than ``debounce_ms`` (30 ms) from a glitch; fingers take 60 ms or more.
Each event says when its press began (:attr:`ButtonEvent.began`), so the loop can drop a press that began
before the step it would act on (the camera moved the game on while the button was down).
"""

from __future__ import annotations

import os
import queue
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

Clock = Callable[[], float]


def lgpio_workdir(env: MutableMapping[str, str] | None = None, cwd: str | None = None) -> str | None:
    """Give lgpio a folder it can write, before gpiozero loads it; returns the folder set, or None.

    lgpio (gpiozero's pin factory on a Pi 5) makes its notification pipes (``.lgd-nfy*``) in the current
    folder, or in ``LG_WD`` when that is set.  Run as the service user from a folder it cannot write (a deploy
    audit: ``sudo -u pitboard pitboard check`` from a Bookworm home folder, mode 0700), lgpio failed and every
    button read "no GPIO on this machine".  When ``LG_WD`` is unset and the current folder is not writable,
    ``LG_WD`` becomes the data folder (``PITBOARD_DATA``) if writable, else the temporary folder.  The service
    itself runs in /var/lib/pitboard (its unit's ``WorkingDirectory``), which is writable."""
    env = os.environ if env is None else env
    if env.get("LG_WD"):
        return None
    here = os.getcwd() if cwd is None else cwd
    if os.access(here, os.W_OK | os.X_OK):
        return None
    data = env.get("PITBOARD_DATA", "")
    folder = data if data and os.path.isdir(data) and os.access(data, os.W_OK | os.X_OK) else tempfile.gettempdir()
    env["LG_WD"] = folder
    return folder


#: The four panel buttons; player buttons are named ``p1`` .. ``p6`` in seat order.
PANEL = ("next", "back", "select", "ok")


class PressKind(str, Enum):
    SHORT = "short"
    LONG = "long"


@dataclass(frozen=True)
class Edge:
    """A raw contact change as gpiozero reported it."""

    button: str
    pressed: bool
    t: float


@dataclass(frozen=True)
class ButtonEvent:
    """A decided press: ``button`` is ``next``/``back``/``select``/``ok``/``p1``.. ; ``t`` when it was decided;
    ``began`` when the finger went down (None: not known, a key or a page's button); ``seen``: a phone's press,
    the :meth:`device.app.App.press_key` its page showed (None: a button, which acts on what its screen shows);
    ``asked``: a phone's BACK whose page asked "Undo …?" first, naming what it undoes (the App does not ask
    again); ``source``: where it was pressed, as the game log says it ("button": the panel, "web": a phone's page)."""

    button: str
    kind: PressKind
    t: float
    began: float | None = field(default=None, compare=False)
    seen: str | None = field(default=None, compare=False)
    asked: bool = field(default=False, compare=False)
    source: str = field(default="button", compare=False)

    @property
    def long(self) -> bool:
        return self.kind is PressKind.LONG


@dataclass
class _KeyState:
    raw: bool = False  # last reported contact level
    raw_since: float = 0.0  # time of the last edge
    pressed: bool = False  # the debounced level
    pressed_at: float = 0.0
    long_fired: bool = False
    releasing: float | None = None  # the first edge of a release not decided yet (REGRIP_MS)


#: A contact that opens for less than this while the button is held is the same press going on.
REGRIP_MS = 15


class PressDecoder:
    """Debounce and short/long decision for any number of buttons; pure (no clock, no threads).

    ``feed(edge)`` and ``tick(now)`` both return the events decided so far.  Call ``tick`` regularly (the
    loop does, every iteration) so that a long press fires while the button is still held.
    """

    def __init__(self, *, long_press_ms: int = 800, debounce_ms: int = 30) -> None:
        if debounce_ms < 0 or long_press_ms <= debounce_ms:
            raise ValueError("long_press_ms must be longer than debounce_ms, and debounce_ms 0 or more")
        self.long_s = long_press_ms / 1000.0
        self.debounce_s = debounce_ms / 1000.0
        self.regrip_s = min(REGRIP_MS, debounce_ms) / 1000.0  # no debounce asked: none here either
        self._keys: dict[str, _KeyState] = {}

    def held(self, button: str) -> bool:
        """Whether ``button`` is (debounced) down now."""
        state = self._keys.get(button)
        return bool(state and state.pressed)

    def feed(self, edge: Edge) -> list[ButtonEvent]:
        out = self._settle(edge.t)
        k = self._keys.setdefault(edge.button, _KeyState(raw_since=edge.t))
        if edge.pressed == k.raw:
            return out  # a repeated level (gpiozero can report one after a missed edge): nothing changes
        k.raw = edge.pressed
        k.raw_since = edge.t
        if not edge.pressed and k.pressed and k.releasing is None:
            k.releasing = edge.t  # decided once the contact stays open REGRIP_MS (see the module docstring)
        elif edge.pressed and k.releasing is not None:
            k.releasing = None  # back within REGRIP_MS (else _settle above decided it): the press goes on
        out.extend(self._settle(edge.t))
        return out

    def tick(self, now: float) -> list[ButtonEvent]:
        return self._settle(now)

    def _settle(self, now: float) -> list[ButtonEvent]:
        out: list[ButtonEvent] = []
        for name, k in self._keys.items():
            if k.releasing is not None and not k.raw and now - k.releasing >= self.regrip_s:
                k.pressed = False
                if not k.long_fired:
                    kind = PressKind.LONG if k.releasing - k.pressed_at >= self.long_s else PressKind.SHORT
                    out.append(ButtonEvent(name, kind, k.releasing, k.pressed_at))
                k.long_fired = False
                k.releasing = None
            if k.raw and not k.pressed and now - k.raw_since >= self.debounce_s:
                k.pressed = True
                k.pressed_at = k.raw_since  # the press began at its last edge, not when it was noticed
                k.long_fired = False
            if k.pressed and k.releasing is None and not k.long_fired and now - k.pressed_at >= self.long_s:
                k.long_fired = True
                out.append(ButtonEvent(name, PressKind.LONG, now, k.pressed_at))
        return out


class ButtonSource(Protocol):
    """What the main loop reads buttons from (the gpiozero panel, the keyboard, a test script)."""

    def poll(self, now: float) -> list[ButtonEvent]:
        ...

    def wait(self, timeout: float) -> None:
        """Block up to ``timeout`` seconds or until an input arrives (the run loop's idle)."""
        ...

    def close(self) -> None:
        ...


class ButtonPanel:
    """gpiozero buttons from config, their edges on one queue, decoded in the caller's thread.

    ``pins`` maps button name → BCM pin (:meth:`device.config.ButtonsConfig.pins`).  ``pin_factory`` is
    passed to every ``gpiozero.Button`` (None: gpiozero's default, lgpio on a Pi 5).  Buttons are wired
    to GND with the internal pull-up, so pressed reads low.  ``bounce_time`` is left off on purpose: the
    debounce is :class:`PressDecoder`'s.
    """

    def __init__(self, pins: Mapping[str, int], *, clock: Clock = time.monotonic, pin_factory: Any = None,
                 long_press_ms: int = 800, debounce_ms: int = 30) -> None:
        lgpio_workdir()
        from gpiozero import Button  # imported here: `pitboard sim` never needs gpiozero's pin probing

        self.clock = clock
        self.edges: queue.SimpleQueue[Edge] = queue.SimpleQueue()
        self._arrived = threading.Event()
        self.decoder = PressDecoder(long_press_ms=long_press_ms, debounce_ms=debounce_ms)
        self.buttons: dict[str, Any] = {}
        try:
            for name, pin in pins.items():
                button = Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                button.when_pressed = self._callback(name, True)
                button.when_released = self._callback(name, False)
                self.buttons[name] = button
        except Exception:
            self.close()
            raise

    def _callback(self, name: str, pressed: bool) -> Callable[[], None]:
        def put() -> None:  # runs on gpiozero's thread: stamp, enqueue and wake the loop, nothing more
            self.edges.put(Edge(name, pressed, self.clock()))
            self._arrived.set()

        return put

    def poll(self, now: float) -> list[ButtonEvent]:
        """Drain the queue into the decoder and return the events decided up to ``now``."""
        out: list[ButtonEvent] = []
        while True:
            try:
                edge = self.edges.get_nowait()
            except queue.Empty:
                break
            out.extend(self.decoder.feed(edge))
        out.extend(self.decoder.tick(now))
        return out

    def wait(self, timeout: float) -> None:
        """Sleep until an edge arrives or ``timeout`` passes; the edges stay queued, in order, for :meth:`poll`
        (taking one off and putting it back let an edge that came meanwhile overtake it: a short press read
        as a long one held)."""
        if timeout <= 0:
            return
        self._arrived.clear()
        if not self.edges.empty():  # one came since the last poll (before the clear)
            return
        self._arrived.wait(timeout)

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.buttons.clear()


#: Simulator keys: lower case = short press, upper case = long press.
KEYMAP: dict[str, tuple[str, PressKind]] = {
    "n": ("next", PressKind.SHORT), "N": ("next", PressKind.LONG),
    "b": ("back", PressKind.SHORT), "B": ("back", PressKind.LONG),
    "s": ("select", PressKind.SHORT), "S": ("select", PressKind.LONG),
    "o": ("ok", PressKind.SHORT), "O": ("ok", PressKind.LONG),
}
#: Player buttons in the simulator: shift+1..6 on a US keyboard.
PLAYER_KEYS = "!@#$%^"


class KeyboardButtons:
    """The simulator's panel: keys in, the same :class:`ButtonEvent` out.

    ``n b s o`` are NEXT, BACK, SELECT, OK (upper case = a long press); ``! @ # $ % ^`` are the player
    buttons p1..p6.  Named keys (the simulator's key decoder turns a terminal's escape sequences into
    names such as ``"Down"``) press a button only when listed in :attr:`NAMED`: the arrows Down and Up are
    SELECT and long SELECT (the next and the previous choice), and nothing else, so a stray arrow or
    PgDn can never take a choice (OK) or undo (BACK).  Other keys are left to the caller (``unhandled``
    returns them), e.g. digits that type a die face.  Keys are pushed with :meth:`push`, so a test feeds a
    string (or a list holding names) and no tty is needed.
    """

    #: Named keys that press a button.
    NAMED: dict[str, tuple[str, PressKind]] = {
        "Down": ("select", PressKind.SHORT),
        "Up": ("select", PressKind.LONG),
    }

    def __init__(self, players: int = 0) -> None:
        self.players = players
        self._pending: list[str] = []
        self._unhandled: list[str] = []

    def push(self, keys: Iterable[str]) -> None:
        """Queue keys: single characters, or key names (``"Down"``) as items of a list."""
        self._pending.extend(keys)

    def button(self, key: str) -> tuple[str, PressKind] | None:
        """The button and press ``key`` stands for, or None."""
        if key in KEYMAP:
            return KEYMAP[key]
        if key in self.NAMED:
            return self.NAMED[key]
        if len(key) == 1 and key in PLAYER_KEYS and PLAYER_KEYS.index(key) < self.players:
            return f"p{PLAYER_KEYS.index(key) + 1}", PressKind.SHORT
        return None

    def poll(self, now: float) -> list[ButtonEvent]:
        out: list[ButtonEvent] = []
        for key in self._pending:
            pressed = self.button(key)
            if pressed is None:
                self._unhandled.append(key)
            else:
                out.append(ButtonEvent(pressed[0], pressed[1], now))
        self._pending.clear()
        return out

    def unhandled(self) -> list[str]:
        keys, self._unhandled = self._unhandled, []
        return keys

    def wait(self, timeout: float) -> None:  # keys arrive from the caller; nothing to wait for
        return

    def close(self) -> None:
        return


class ScriptedButtons:
    """Events queued by a test or a benchmark, returned on the next :meth:`poll`."""

    def __init__(self) -> None:
        self.queued: list[tuple[str, PressKind]] = []

    def press(self, button: str, kind: PressKind = PressKind.SHORT) -> None:
        self.queued.append((button, kind))

    def poll(self, now: float) -> list[ButtonEvent]:
        out = [ButtonEvent(b, k, now) for b, k in self.queued]
        self.queued.clear()
        return out

    def wait(self, timeout: float) -> None:
        return

    def close(self) -> None:
        return
