"""The one meeting point of the loop's thread and the web server's thread.

The loop never waits for the web: after each redraw pass it hands a :class:`Snapshot` (PNG bytes of the
screens as drawn, the prompt, the last refusal, the status line) to :meth:`WebHub.publish`, which only
swaps a reference under a lock and wakes the page's streams with ``call_soon_threadsafe``.  The web never
touches the game: a press on the page is queued (:meth:`WebHub.press`) and the loop picks it up through
:class:`WebButtons`, a button source wrapped round the real one, so a press from a phone goes down the
same path as a press on the panel (menus, rules, the store).  Work the web needs done on the loop's
thread (showing the pairing code on player 1's screen) is queued the same way (:meth:`WebHub.call_in_loop`).
"""

from __future__ import annotations

import asyncio
import base64
import io
import queue
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from device.buttons import ButtonEvent, ButtonSource, PressKind

#: The buttons a page may press: the panel's four and the player buttons.
WEB_BUTTONS: tuple[str, ...] = ("next", "back", "select", "ok", "p1", "p2", "p3", "p4", "p5", "p6")
#: Refusals and commands kept for the page (the newest last).
HISTORY_KEPT = 50


def png_bytes(image: Any) -> bytes:
    """A screen's mode "1" image as a PNG (a 128×64 frame is a few hundred bytes)."""
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


@dataclass(frozen=True)
class DiceOffer:
    """The roll the page can enter: the dice awaited now (an open dice entry's, else the step's), its faces as
    the screens name them.  The page sends faces by their place in ``names`` (1 = the first)."""

    die: str
    label: str
    count: int
    exact: bool
    names: tuple[str, ...]
    player: str | None
    #: what the roller's screen tells them ("The Brick: 1 hit: roll 1 evade die"), when another player rolls
    told: str = ""
    #: the roll the rules give (``DiceRequest.usual``: evade dice one per gear, a T-bone's 3 smash dice): another
    #: count is sent only when asked for, as the buttons ask "NEXT again: send 2 of 3 evade dice"; ``roll`` names
    #: the dice in that question
    usual: int | None = None
    roll: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"die": self.die, "label": self.label, "count": self.count, "exact": self.exact,
                "names": list(self.names), "player": self.player, "title": self.title(),
                "usual": self.usual, "roll": self.roll}

    def unusual_asked(self, typed: int) -> str | None:
        """What a roll of ``typed`` dice must be confirmed with before it is sent, or None: another count than a
        ``usual`` roll's (a phone's two taps and Send entered 2 of 3 evade dice without the question the buttons
        ask: a review of the phone page)."""
        n, name = self.usual, self.roll or "dice"
        if n is None or typed == n:
            return None
        return (f"{typed} of {n} {name} typed: the usual roll is all {n}" if typed < n else
                f"{typed} {name} typed: the usual roll is {n}")

    def how_many(self) -> str:
        """"exactly 4" or "at most 3": what the rules take."""
        return f"exactly {self.count}" if self.exact else f"at most {self.count}"

    def title(self) -> str:
        """What the page's dice box asks for."""
        whose = f"{self.player}'s roll" if self.player else "The roll"
        # "4 movement dice", "skid dice (up to 4)", "(2 ± weight)": the count said; not the "1" of "1 hit: evade dice"
        # (a phone audit: the count was left out)
        asked = self.told or self.label  # the roller's screen's words, where another rolls
        n = self.count if self.usual is None else self.usual  # (a T-bone's "(3)", not the room for a ram's dice)
        said = self.exact or re.search(rf"(up to |at most |\()\s*{n}\b|\b{n} [a-z ]*dic?e\b", asked) is not None
        return f"{whose}: {asked}" + ("" if said else f", at most {n}" if self.usual is None else f", {n} usually")

    def places(self, text: str, *, draft: bool = False) -> list[int]:
        """The faces typed (``"3 5 1"``, ``"3,5,1"``: places in ``names``), or ValueError saying what is wrong.
        ``draft``: a roll still being typed, which may hold fewer dice than it must."""
        words = text.replace(",", " ").split()
        for w in words:
            # (ASCII digits only: "³".isdigit() is True and int() of it fails, its words reaching the page: an audit)
            if not (w.isascii() and w.isdigit() and len(w) <= 3 and 1 <= int(w) <= len(self.names)):
                shown = w if len(w) <= 12 else w[:12] + "…"
                raise ValueError(f"{shown!r} is no face of the {self.label}: give 1 to {len(self.names)} "
                                 f"({', '.join(f'{i} {n}' for i, n in enumerate(self.names, 1))})")
        n = len(words)
        if n > self.count or (self.exact and n != self.count and not draft):
            raise ValueError(f"{n} {'die' if n == 1 else 'dice'} typed; this roll, {self.label}, takes {self.how_many()}")
        return [int(w) for w in words]


def dice_offer(app: Any) -> DiceOffer | None:
    """The roll the app awaits now, if any (on the loop's thread)."""
    request = app.awaited_roll()
    if request is None:
        return None
    faces = faces_of(app, request)
    # who rolls: the player the screens tell to roll (a target's evade dice are its owner's, a smash attack's its
    # car's), else the step's (a phone audit: "Alice's roll: 1 hit: evade dice" for The Brick's, Bob's, roll)
    rollers = list(dict.fromkeys(who for who, _ in request.tell))
    told = request.tell[0][1] if len(rollers) == 1 else ""
    from device.app import roll_name

    return DiceOffer(request.die, request.label, request.count, request.exact,
                     tuple(request.name_of(f) for f in faces), " and ".join(rollers) or app.prompt().player, told,
                     request.usual, roll_name(request))


def faces_of(app: Any, request: Any) -> list[Any]:
    """The faces offered for a roll, as the buttons offer them (each face once: a skid die has SHIFT three
    times)."""
    from device.menus import faces_of as offered

    return list(offered(request, app.die_types))


def type_dice(app: Any, offer: DiceOffer, places: Sequence[int], now: float | None = None, *,
              draft: bool = False) -> None:
    """On the loop's thread: the roll typed on the page, if the app still awaits the roll the page offered.
    The roller's screen says what the page sent (the screens are where the table reads it).  ``draft``: the
    dice tapped so far, before Send: the roller's screen shows them as they are typed, nothing is entered."""
    current = dice_offer(app)
    if current != offer:  # another roll, or the same dice now another player's: not this one's to enter
        if not draft:  # a late tap is dropped; a late roll is told on the chooser's screen
            why = "the step moved on" if current is not None else "no dice are awaited now"
            app.notify("info", f"phone's roll not taken: {why}", app.chooser(), now=now)  # short: a screen's banner
        return
    request = app.awaited_roll()
    faces = [faces_of(app, request)[i - 1] for i in places]
    typed = " ".join(request.name_of(f) for f in faces)
    if draft:  # a pad emptied (Take back of the last die, a page loaded anew) withdraws the line
        app.show_typing(faces, who="phone", now=now)
        return
    # dice already entered with the buttons for this roll: the phone's roll replaces them, and says so (the two
    # SHIFTs a player had kept on the panel were dropped without a word)
    entry = app.entry
    kept = [request.name_of(f) for f in entry.entered] if entry is not None and entry.request is request else []
    step_player = app.prompt().player  # whose screen the dice are entered on (the offer names who rolls them)
    outcome = app.type_faces(faces, now, source="web")
    if getattr(outcome, "accepted", False):
        replaced = f" (replaced {' '.join(kept)}, entered with the buttons)" if kept else ""
        app.notify("dice", f"phone: {typed or 'no dice'}{replaced}", step_player, now=now)


@dataclass(frozen=True)
class Snapshot:
    """What the live page shows, taken on the loop's thread: immutable, so the web reads it without locks."""

    version: int
    screens: tuple[tuple[str, bytes], ...]  # (player, PNG) in seating order
    prompt: str
    prompt_player: str | None
    status: str | None
    refusal: str | None
    notices: tuple[str, ...]
    commands: tuple[tuple[str, str, bool, str], ...]  # (source, command in words, accepted, reason)
    t: float
    dice: DiceOffer | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "screens": [{"player": p, "png": base64.b64encode(b).decode("ascii")} for p, b in self.screens],
            "prompt": self.prompt, "player": self.prompt_player, "status": self.status,
            "refusal": self.refusal, "notices": list(self.notices),
            "commands": [{"source": s, "command": c, "accepted": a, "reason": r} for s, c, a, r in self.commands],
            "dice": self.dice.to_json() if self.dice is not None else None,
        }


EMPTY = Snapshot(0, (), "", None, None, None, (), (), 0.0)


@dataclass
class CameraShot:
    """The camera's latest frame and what the loop's vision had read of the tray (drawn on demand)."""

    image: Any  # BGR numpy array (the frame's own array: frames are never written to after capture)
    index: int
    dice: tuple[tuple[Any, tuple[int, int, int, int] | None], ...] = ()  # (value, box in full-frame pixels)
    region: tuple[int, int, int, int] | None = None
    reader: Any = None
    gear: int | None = None
    chart: Any = None
    t: float = 0.0


@dataclass
class Waiter:
    loop: asyncio.AbstractEventLoop
    event: asyncio.Event


@dataclass
class WebHub:
    """Shared between the loop and the server; every method is safe from either thread."""

    clock: Callable[[], float] = time.monotonic
    snapshot: Snapshot = EMPTY
    camera: CameraShot | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _presses: queue.SimpleQueue[tuple[str, PressKind, float, str | None, bool]] = field(default_factory=queue.SimpleQueue)
    _calls: queue.SimpleQueue[Callable[[], None]] = field(default_factory=queue.SimpleQueue)
    _waiters: list[Waiter] = field(default_factory=list)
    closing: bool = False

    # -- the loop's side ------------------------------------------------------------------------
    def publish(self, snapshot: Snapshot) -> None:
        with self._lock:
            self.snapshot = snapshot
        self.wake()

    def take_presses(self, now: float) -> list[ButtonEvent]:
        out: list[ButtonEvent] = []
        while True:
            try:
                button, kind, _, seen, asked = self._presses.get_nowait()
            except queue.Empty:
                return out
            out.append(ButtonEvent(button, kind, now, seen=seen, asked=asked, source="web"))

    def run_calls(self) -> None:
        while True:
            try:
                call = self._calls.get_nowait()
            except queue.Empty:
                return
            call()

    def close(self) -> None:
        """The server is stopping: every event stream ends at once (no stream is left to be cancelled)."""
        self.closing = True
        self.wake()

    def wake(self) -> None:
        """Every event stream looks again at once (a stream whose phone was forgotten then ends)."""
        with self._lock:
            waiters = list(self._waiters)
        for w in waiters:
            try:
                w.loop.call_soon_threadsafe(w.event.set)
            except RuntimeError:  # that stream's loop has closed
                pass

    # -- the server's side ----------------------------------------------------------------------
    def press(self, button: str, long: bool = False, seen: str | None = None, asked: bool = False) -> None:
        """Queue a phone's press for the loop; ``seen``: the press key its page showed (the loop refuses the press
        when what the buttons act on has changed since: :meth:`device.app.App.press_key`); ``asked``: a BACK its
        page asked "Undo …?" about first."""
        if button not in WEB_BUTTONS:
            raise ValueError(f"{button!r} is not a button; buttons are {', '.join(WEB_BUTTONS)}")
        self._presses.put((button, PressKind.LONG if long else PressKind.SHORT, time.perf_counter(), seen, asked))

    def call_in_loop(self, call: Callable[[], None]) -> None:
        """Run ``call`` on the loop's thread at its next iteration."""
        self._calls.put(call)

    def subscribe(self) -> Waiter:
        w = Waiter(asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._waiters.append(w)
        return w

    def unsubscribe(self, w: Waiter) -> None:
        with self._lock:
            if w in self._waiters:
                self._waiters.remove(w)

    @property
    def watchers(self) -> int:
        with self._lock:
            return len(self._waiters)


class WebButtons:
    """The loop's button source with the page's presses added: ``poll`` also runs what the web queued for
    the loop's thread.  Everything else is the wrapped source's."""

    def __init__(self, inner: ButtonSource, hub: WebHub) -> None:
        self.inner = inner
        self.hub = hub

    def poll(self, now: float) -> list[ButtonEvent]:
        self.hub.run_calls()
        return [*self.inner.poll(now), *self.hub.take_presses(now)]

    def wait(self, timeout: float) -> None:
        self.inner.wait(timeout)

    def close(self) -> None:
        self.inner.close()

    def __getattr__(self, name: str) -> Any:  # push(), unhandled() of the simulator's keyboard, ...
        return getattr(self.inner, name)


def snapshot_of(app: Any, screens: dict[str, bytes], version: int, players: Sequence[str]) -> Snapshot:
    """The live page's content from the app, on the loop's thread."""
    prompt = app.prompt()
    # The refusal stands until a command is taken, as on the sender's screen (the list below keeps it).
    last = app.history[-1] if app.history else None
    refusal = (last.outcome.reason or "refused") if last is not None and not last.outcome.accepted else None
    # a button's choice in the menu's words, as the screens said it ("undo: steps 1" and "assign: vehicle
    # small, die 3" were the program's)
    commands = tuple((a.source, app.words_of(a), a.outcome.accepted, a.outcome.reason or "")
                     for a in app.history[-HISTORY_KEPT:])
    notices = tuple(n.text if not n.player or n.text.startswith(str(n.player)) else f"{n.player}: {n.text}"
                    for n in app.notices)
    ordered = tuple((p, screens[p]) for p in players if p in screens)
    return Snapshot(version, ordered, prompt.text, prompt.player, app.status_text(), refusal, notices, commands,
                    time.perf_counter(), dice_offer(app))

