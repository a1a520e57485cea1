"""Buttons: the pure press decoder, the gpiozero panel on mock pins, the keyboard backend."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from device.buttons import (
    ButtonEvent,
    ButtonPanel,
    Edge,
    KeyboardButtons,
    REGRIP_MS,
    PressDecoder,
    PressKind,
    ScriptedButtons,
)

SHORT, LONG = PressKind.SHORT, PressKind.LONG


def decode(edges: list[tuple[str, bool, float]], *, ticks: list[float] = (), long_ms: int = 800,
           debounce_ms: int = 30) -> list[tuple[str, PressKind, float]]:
    d = PressDecoder(long_press_ms=long_ms, debounce_ms=debounce_ms)
    items = [(t, 0, Edge(b, p, t)) for b, p, t in edges] + [(t, 1, None) for t in ticks]
    last = max((t for _, _, t in edges), default=0.0)
    if not any(t > last for t in ticks):  # the loop goes on ticking: a release is decided REGRIP_MS after it
        items.append((last + REGRIP_MS / 1000 + 0.001, 1, None))
    out: list[ButtonEvent] = []
    for t, _, edge in sorted(items, key=lambda x: (x[0], x[1])):
        out += d.feed(edge) if edge is not None else d.tick(t)
    return [(e.button, e.kind, round(e.t, 3)) for e in out]


def test_short_press_is_decided_on_release() -> None:
    assert decode([("next", True, 1.0), ("next", False, 1.2)]) == [("next", SHORT, 1.2)]


def test_a_glitch_shorter_than_debounce_is_not_a_press() -> None:
    assert decode([("ok", True, 1.0), ("ok", False, 1.01)], ticks=[1.5, 3.0]) == []


def test_bounces_on_press_and_release_give_one_press() -> None:
    edges = [("ok", True, 1.000), ("ok", False, 1.002), ("ok", True, 1.004),  # press bounce
             ("ok", False, 1.200), ("ok", True, 1.203), ("ok", False, 1.206)]  # release bounce
    assert decode(edges, ticks=[1.1, 1.3, 2.0]) == [("ok", SHORT, 1.206)]  # the contact open for good


def test_long_press_fires_while_held_and_release_adds_nothing() -> None:
    events = decode([("back", True, 1.0), ("back", False, 2.5)], ticks=[1.5, 1.79, 1.81, 2.0])
    assert events == [("back", LONG, 1.81)]


def test_long_press_without_ticks_is_decided_on_release() -> None:
    assert decode([("back", True, 1.0), ("back", False, 2.5)]) == [("back", LONG, 2.5)]


def test_press_time_is_counted_from_the_last_bounce() -> None:
    # Pressed at 1.0 but bouncing until 1.05: 0.8 s after 1.05 is the long press, not after 1.0.
    edges = [("next", True, 1.0), ("next", False, 1.02), ("next", True, 1.05)]
    assert decode(edges, ticks=[1.84]) == []
    assert decode(edges, ticks=[1.86]) == [("next", LONG, 1.86)]


def test_a_contact_opening_for_a_moment_while_held_is_one_press() -> None:
    """Seen on the loop's edges: a 3 ms opening of a held NEXT made two presses (at 1.4, "end SHIFTs" and
    then "slide placed" from one press).  The press is decided on the opening's first edge; the rest of it,
    the contact back within REGRIP_MS, decides nothing."""
    glitch = [("next", True, 1.0), ("next", False, 1.2), ("next", True, 1.203), ("next", False, 1.5)]
    assert decode(glitch, ticks=[1.1, 1.3, 1.4, 2.0]) == [("next", SHORT, 1.5)]
    # a long BACK knocked 0.3 s in is still the long press held for (undo 3), not a short one (undo 1)
    held = [("back", True, 1.0), ("back", False, 1.3), ("back", True, 1.304), ("back", False, 2.5)]
    assert decode(held, ticks=[1.1, 1.4, 1.9, 2.2, 3.0]) == [("back", LONG, 1.9)]
    # a real second tap (a finger lifted and pressed again) is another press
    taps = [("ok", True, 1.0), ("ok", False, 1.1), ("ok", True, 1.2), ("ok", False, 1.3)]
    assert decode(taps, ticks=[1.05, 1.25, 2.0]) == [("ok", SHORT, 1.1), ("ok", SHORT, 1.3)]


def test_each_press_says_when_it_began() -> None:
    d = PressDecoder(long_press_ms=800, debounce_ms=30)
    d.feed(Edge("ok", True, 1.0))
    assert d.tick(1.05) == []
    assert d.feed(Edge("ok", False, 1.3)) == []  # decided once the contact stays open
    (short,) = d.tick(1.32)
    assert short.began == 1.0 and short.t == 1.3
    d.feed(Edge("back", True, 2.0))
    (long,) = d.tick(2.9)
    assert long.kind is LONG and long.began == 2.0


def test_buttons_are_independent() -> None:
    edges = [("next", True, 1.0), ("ok", True, 1.1), ("next", False, 1.2), ("ok", False, 2.1)]
    assert decode(edges) == [("next", SHORT, 1.2), ("ok", LONG, 2.1)]


def test_repeated_level_changes_nothing() -> None:
    edges = [("next", True, 1.0), ("next", True, 1.1), ("next", False, 1.2), ("next", False, 1.3)]
    assert decode(edges) == [("next", SHORT, 1.2)]


def test_zero_debounce_counts_every_press() -> None:
    assert decode([("ok", True, 1.0), ("ok", False, 1.005)], debounce_ms=0) == [("ok", SHORT, 1.005)]


def test_bad_timings_are_refused() -> None:
    with pytest.raises(ValueError):
        PressDecoder(long_press_ms=20, debounce_ms=30)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0.0005, max_value=0.029), min_size=1, max_size=20))
def test_chatter_faster_than_debounce_never_makes_a_press(gaps: list[float]) -> None:
    t, pressed, edges = 1.0, False, []
    for gap in gaps:
        pressed = not pressed
        edges.append(("select", pressed, t))
        t += gap
    if pressed:
        edges.append(("select", False, t))
    assert decode(edges) == []


@settings(max_examples=60, deadline=None)
@given(st.floats(min_value=0.031, max_value=5.0))
def test_every_clean_press_is_exactly_one_event_of_the_right_kind(held: float) -> None:
    events = decode([("ok", True, 1.0), ("ok", False, 1.0 + held)])
    assert len(events) == 1
    assert events[0][1] is (LONG if held >= 0.8 else SHORT)


# -- gpiozero on mock pins --------------------------------------------------------------------------


@pytest.fixture()
def factory():
    from gpiozero.pins.mock import MockFactory

    f = MockFactory()
    yield f
    f.reset()


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _wait_for_edges(panel: ButtonPanel, n: int) -> None:
    # gpiozero's mock pins fire their callbacks on gpiozero's event thread: wait for the queue (not a timing
    # assertion, a synchronisation with that thread).
    for _ in range(500):
        if panel.edges.qsize() >= n:
            return
        time.sleep(0.002)


def test_panel_callbacks_only_queue_edges_and_poll_decides(factory) -> None:
    clock = FakeClock()
    panel = ButtonPanel({"next": 17, "back": 27}, clock=clock, pin_factory=factory)
    try:
        pin = factory.pin(17)
        pin.drive_low()  # pressed: wired to GND with the pull-up
        clock.t = 100.2
        pin.drive_high()
        _wait_for_edges(panel, 2)
        assert panel.edges.qsize() == 2  # nothing decided on gpiozero's thread
        assert panel.poll(100.3) == [ButtonEvent("next", SHORT, 100.2)]
        assert panel.poll(101.0) == []
    finally:
        panel.close()


def test_panel_long_press_fires_on_poll_while_held(factory) -> None:
    clock = FakeClock()
    panel = ButtonPanel({"back": 27}, clock=clock, pin_factory=factory, long_press_ms=800, debounce_ms=30)
    try:
        factory.pin(27).drive_low()
        _wait_for_edges(panel, 1)
        assert panel.poll(100.5) == []
        assert panel.poll(100.9) == [ButtonEvent("back", LONG, 100.9)]
        clock.t = 101.5
        factory.pin(27).drive_high()
        _wait_for_edges(panel, 1)
        assert panel.poll(101.6) == []
    finally:
        panel.close()


def test_panel_wait_leaves_edges_in_the_order_they_came(factory) -> None:
    """wait() took an edge off the queue and put it back: an edge arriving meanwhile overtook it, and one
    short BACK became a long press still held (long BACK: undo 3).  It now only waits, taking nothing."""
    clock = FakeClock()
    panel = ButtonPanel({"back": 27}, clock=clock, pin_factory=factory, long_press_ms=800, debounce_ms=30)
    try:
        pin = factory.pin(27)
        pin.drive_low()
        _wait_for_edges(panel, 1)
        clock.t = 100.2
        pin.drive_high()
        _wait_for_edges(panel, 2)
        queued = panel.edges

        class Watched:  # the panel's queue, but taking an edge off it is a failure
            def get(self, *a: object, **k: object) -> None:
                raise AssertionError("wait() took an edge off the queue")

            get_nowait = get

            def empty(self) -> bool:
                return queued.empty()

        panel.edges = Watched()  # type: ignore[assignment]
        started = time.monotonic()
        panel.wait(5.0)  # edges are queued: no waiting
        assert time.monotonic() - started < 1.0
        panel.edges = queued
        assert panel.edges.qsize() == 2
        assert panel.poll(100.3) == [ButtonEvent("back", SHORT, 100.2)]
        assert panel.poll(102.0) == []
    finally:
        panel.close()


def test_panel_uses_pull_ups_and_releases_pins_on_close(factory) -> None:
    panel = ButtonPanel({"next": 17, "p1": 5}, pin_factory=factory)
    assert factory.pin(17).pull == "up" and factory.pin(5).pull == "up"
    panel.close()
    again = ButtonPanel({"next": 17}, pin_factory=factory)  # claimable again
    again.close()


def test_panel_with_a_pin_in_use_fails_and_frees_the_others(factory) -> None:
    from gpiozero import Button

    holder = Button(27, pin_factory=factory)
    try:
        from gpiozero.exc import GPIOPinInUse

        with pytest.raises(GPIOPinInUse):
            ButtonPanel({"next": 17, "back": 27}, pin_factory=factory)
        ButtonPanel({"next": 17}, pin_factory=factory).close()  # 17 was released by the failed panel
    finally:
        holder.close()


def test_keyboard_backend_gives_the_same_events() -> None:
    kb = KeyboardButtons(players=2)
    kb.push("nNbBsoO!@#x")
    events = kb.poll(5.0)
    assert [(e.button, e.kind) for e in events] == [
        ("next", SHORT), ("next", LONG), ("back", SHORT), ("back", LONG), ("select", SHORT), ("ok", SHORT),
        ("ok", LONG), ("p1", SHORT), ("p2", SHORT),
    ]
    assert kb.unhandled() == ["#", "x"]
    assert kb.poll(6.0) == []


def test_keyboard_named_keys_are_select_or_nothing() -> None:
    """A terminal's keys by name: Down/Up are SELECT and long SELECT; no other name presses anything,
    and above all never BACK or OK."""
    kb = KeyboardButtons(players=6)
    kb.push(["Down", "Up", "PgDn", "PgUp", "Left", "Right", "Esc", "Enter", "F1", "Alt+B", "Ctrl+Up", ""])
    assert [(e.button, e.kind) for e in kb.poll(1.0)] == [("select", SHORT), ("select", LONG)]
    assert kb.unhandled() == ["PgDn", "PgUp", "Left", "Right", "Esc", "Enter", "F1", "Alt+B", "Ctrl+Up", ""]
    assert kb.button("N") == ("next", LONG) and kb.button("^") == ("p6", SHORT) and kb.button("B[") is None


def test_scripted_buttons() -> None:
    sb = ScriptedButtons()
    sb.press("ok", LONG)
    assert sb.poll(1.0) == [ButtonEvent("ok", LONG, 1.0)]
    assert sb.poll(2.0) == []
