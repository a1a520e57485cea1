"""All the players' screens, kept going when one of them is not.

A screen that does not answer (missing at start, or an ``OSError`` on the bus mid-game) is reported once —
a ``logging`` warning and a :class:`ScreenEvent` handed to ``on_event`` so the app can show a notice — and
then left alone: the other screens go on drawing.  It is retried with an exponential backoff (1 s, 2 s,
4 s … capped at 30 s by default; the clock is injected) from :meth:`DisplayBank.poll` or the next
:meth:`DisplayBank.show` for it.  When it answers again it is re-initialised (the controller may have
lost power and its settings) and the latest frame is sent whole, and that is reported too.  A screen that
has been sent nothing for ``ping_s`` (its picture did not change) is asked for a NOP from :meth:`poll`, so
one unplugged while the game waits is told within seconds, not at the next picture drawn on it.  Every
``refresh_s`` one screen at a time is sent its controller's set-up again and its picture whole
(``LumaScreen.refresh``): one whose power dropped between two transfers answers the bus all the same,
reset and dark, and would stay dark all game.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum

from PIL import Image

from device.displays.screens import Screen
from device.displays.transport import BUS_ERRORS

log = logging.getLogger("pitboard.displays")


class ScreenState(str, Enum):
    UNOPENED = "unopened"
    OK = "ok"
    DOWN = "down"


class ScreenEventKind(str, Enum):
    MISSING = "missing"  # did not answer when first opened
    LOST = "lost"  # answered before, failed mid-game
    BACK = "back"  # answers again, redrawn


@dataclass(frozen=True)
class ScreenEvent:
    player: str
    kind: ScreenEventKind
    message: str

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class Backoff:
    """Retry delays: ``first`` seconds, times ``factor`` after each failed retry, at most ``maximum``."""

    first: float = 1.0
    factor: float = 2.0
    maximum: float = 30.0

    def delay(self, failures: int) -> float:
        return min(self.maximum, self.first * self.factor ** max(0, failures - 1))


@dataclass(frozen=True)
class ScreenStatus:
    player: str
    name: str
    state: ScreenState
    error: str | None
    failures: int
    retry_in: float | None
    frames: int
    bytes_sent: int

    def line(self) -> str:
        """One line for ``pitboard check`` and the logs."""
        if self.state is ScreenState.OK:
            return f"screen {self.player} ({self.name}): ok, {self.frames} frames, {self.bytes_sent} bytes"
        if self.state is ScreenState.UNOPENED:
            return f"screen {self.player} ({self.name}): not opened yet"
        retry = f", retry in {self.retry_in:.0f} s" if self.retry_in is not None else ""
        return f"screen {self.player} ({self.name}): NOT ANSWERING: {self.error}{retry}"


def working(status: Mapping[str, ScreenStatus]) -> list[str]:
    """The players of ``status`` (a bank's :meth:`DisplayBank.status`) whose screen works now, in its order (a
    state given by its value, as :class:`ScreenState`'s is, is taken too)."""
    return [p for p, s in status.items() if getattr(s.state, "value", s.state) == ScreenState.OK.value]


class _Slot:
    def __init__(self, player: str, screen: Screen) -> None:
        self.player = player
        self.screen = screen
        self.state = ScreenState.UNOPENED
        self.error: str | None = None
        self.failures = 0
        self.next_try = 0.0
        self.latest: Image.Image | None = None
        self.frames = 0
        self.bytes_sent = 0
        self.ever_ok = False
        self.last_contact = 0.0
        self.last_refresh = 0.0


class DisplayBank:
    """Player → screen.  ``show(player, image)`` never raises for a bus fault; ``status()`` says how each
    screen is doing.

    Call it from one thread (the main loop).  Screens behind one TCA9548A may still be driven from several
    threads by other code: their transport holds the mux lock per transfer.
    """

    def __init__(
        self,
        screens: Mapping[str, Screen],
        *,
        clock: Callable[[], float] = time.monotonic,
        backoff: Backoff = Backoff(),
        on_event: Callable[[ScreenEvent], None] | None = None,
        ping_s: float = 2.0,
        refresh_s: float = 10.0,
    ) -> None:
        self._slots = {player: _Slot(player, screen) for player, screen in screens.items()}
        self._clock = clock
        self._backoff = backoff
        self._ping_s = ping_s
        self._refresh_s = refresh_s
        self._on_event = on_event
        self.events: list[ScreenEvent] = []

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self._slots)

    def screen(self, player: str) -> Screen:
        return self._slot(player).screen

    def open(self) -> None:
        """Open every screen; the ones that do not answer are reported and retried later."""
        for slot in self._slots.values():
            self._try_open(slot)

    def show(self, player: str, image: Image.Image) -> bool:
        """Draw ``image`` on ``player``'s screen.  False if the screen is down (the frame is kept and drawn
        whole when it comes back)."""
        slot = self._slot(player)
        slot.latest = image
        if slot.state is not ScreenState.OK:
            return self._retry(slot)
        return self._draw(slot)

    def poll(self) -> None:
        """Retry the screens that are down and due, and ask the quiet ones whether they are still there;
        call it from the main loop now and then."""
        now = self._clock()
        refreshed = False
        for slot in self._slots.values():
            if slot.state is not ScreenState.OK:
                self._retry(slot)
            elif (not refreshed and now - slot.last_refresh >= self._refresh_s and slot.latest is not None
                  and callable(getattr(slot.screen, "refresh", None))):
                refreshed = True  # one a call: a whole picture is ~23 ms of a 400 kHz bus
                slot.last_refresh = now
                self._draw(slot, slot.screen.refresh)  # type: ignore[attr-defined]
            elif now - slot.last_contact >= self._ping_s:
                ping = getattr(slot.screen, "ping", None)
                if ping is None:
                    continue
                try:
                    ping()
                except BUS_ERRORS as exc:
                    self._down(slot, exc)
                    continue
                slot.last_contact = now

    def status(self) -> dict[str, ScreenStatus]:
        now = self._clock()
        return {
            p: ScreenStatus(
                player=p, name=s.screen.name, state=s.state, error=s.error, failures=s.failures,
                retry_in=max(0.0, s.next_try - now) if s.state is ScreenState.DOWN else None,
                frames=s.frames, bytes_sent=s.bytes_sent,
            )
            for p, s in self._slots.items()
        }

    def close(self, *, blank: bool = False) -> None:
        for slot in self._slots.values():
            try:
                slot.screen.close(blank=blank)
            except BUS_ERRORS:
                pass
            slot.state = ScreenState.UNOPENED

    # -- internals ----------------------------------------------------------------------------------------
    def _slot(self, player: str) -> _Slot:
        try:
            return self._slots[player]
        except KeyError:
            configured = ", ".join(self._slots) or "none"
            raise KeyError(f"no screen is configured for player {player!r}; screens are for: {configured}") from None

    def _retry(self, slot: _Slot) -> bool:
        if slot.state is ScreenState.DOWN and self._clock() < slot.next_try:
            return False
        if not self._try_open(slot):
            return False
        if slot.latest is None:
            return True
        return self._draw(slot)

    def _try_open(self, slot: _Slot) -> bool:
        try:
            slot.screen.open()
            slot.screen.invalidate()
        except BUS_ERRORS as exc:
            self._down(slot, exc)
            return False
        was_down = slot.state is ScreenState.DOWN
        slot.state, slot.error, slot.failures = ScreenState.OK, None, 0
        slot.last_contact = slot.last_refresh = self._clock()
        if was_down:
            self._report(slot, ScreenEventKind.BACK, f"screen {slot.player} ({slot.screen.name}) answers again",
                         logging.INFO)
        slot.ever_ok = True
        return True

    def _draw(self, slot: _Slot, send: Callable[[Image.Image], int] | None = None) -> bool:
        """The latest picture sent by ``send`` (the screen's ``show``: only what changed; its ``refresh``: set
        up again and whole)."""
        assert slot.latest is not None
        try:
            slot.bytes_sent += (send or slot.screen.show)(slot.latest)
        except BUS_ERRORS as exc:
            self._down(slot, exc)
            return False
        slot.frames += 1
        slot.last_contact = self._clock()
        return True

    def _down(self, slot: _Slot, exc: BaseException) -> None:
        first = slot.state is not ScreenState.DOWN
        slot.state = ScreenState.DOWN
        slot.error = str(exc) or type(exc).__name__
        slot.failures += 1
        slot.next_try = self._clock() + self._backoff.delay(slot.failures)
        try:
            slot.screen.close()
        except Exception:  # the bus is already broken; closing is best effort
            pass
        if first:
            kind = ScreenEventKind.LOST if slot.ever_ok else ScreenEventKind.MISSING
            verb = "stopped answering" if kind is ScreenEventKind.LOST else "does not answer"
            self._report(
                slot, kind,
                f"screen {slot.player} ({slot.screen.name}) {verb}: {slot.error}; the other screens go on, "
                f"retrying every {self._backoff.first:g}..{self._backoff.maximum:g} s",
                logging.WARNING,
            )
        else:
            log.debug("screen %s still down: %s", slot.player, slot.error)

    def _report(self, slot: _Slot, kind: ScreenEventKind, message: str, level: int) -> None:
        event = ScreenEvent(slot.player, kind, message)
        self.events.append(event)
        # the owner of ``on_event`` says it (the journal): logged again here it was printed twice, once bare
        log.log(level if self._on_event is None else logging.DEBUG, message)
        if self._on_event is not None:
            self._on_event(event)
