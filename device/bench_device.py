"""Screen benchmarks: bytes per typical update vs a full frame, and button press → updated frame latency.

Both run on the real luma drivers and the real diff layer, with a :class:`RecordingSerial` in place of the
I2C bus, so the byte counts are exactly what a screen would receive (command + data payload; the I2C
address and control byte of each transfer are reported separately as ``transfers``).

``run_device_bench() -> dict`` is what ``pitboard bench device`` calls.  The start-up time (process start
→ first drawn screen) is measured by ``device.cli_device.measure_startup`` (the app's own path), and the
press → frame time *through the whole app and its SQLite store* by ``device.cli_device.
measure_press_to_frame``; this module measures the rules → views → render → diff → serial part on a bare
``games.core.Match``, which isolates what the screens cost.
"""

from __future__ import annotations

import queue
import statistics
import time
import tomllib
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PIL import Image

from device.dashboards import clear_cache, render_view
from device.displays import CountingSerial, Driver, LumaScreen, RecordingSerial, ScreenSpec, build_bank

TARGET_UPDATE_RATIO = 0.25
TARGET_PRESS_MS = 30.0


def full_frame_bytes(driver: str) -> dict[str, int]:
    """What luma's own ``display()`` sends for one frame on ``driver`` (every update, without our diff)."""
    serial = CountingSerial(RecordingSerial())
    device = Driver(driver).luma_class()(serial, width=128, height=64)
    before = serial.snapshot()
    device.display(Image.new("1", (128, 64)))
    after = serial.snapshot()
    sent, transfers = (after[0] - before[0]) + (after[1] - before[1]), after[2] - before[2]
    return {"bytes": sent, "transfers": transfers, "i2c_ms_at_400khz": _wire_ms(sent, transfers)}


def _update_cost(driver: str, before: Image.Image, after: Image.Image) -> dict[str, int]:
    serial = RecordingSerial()
    screen = LumaScreen(ScreenSpec("bench", driver=driver), lambda spec: serial)
    screen.open()
    screen.show(before)
    serial.clear()
    sent = screen.show(after)
    return {"bytes": sent, "transfers": len(serial.transfers), "i2c_ms_at_400khz": _wire_ms(sent, len(serial.transfers))}


def _wire_ms(payload: int, transfers: int) -> float:
    """Time on a 400 kHz I2C bus: 9 clocks per byte, plus the address and control byte of each transfer."""
    return round((payload + 2 * transfers) * 9 / 400_000 * 1000, 3)


def _gaslands_views() -> tuple[str, dict[str, tuple[Any, Any]]]:
    """Pairs of (before, after) views of player 1 for typical updates, from the real rules when they are
    importable, else from hand-built views (and the source says which)."""
    from games.gaslands.state import PlayerView, Step, VehicleView

    pairs: dict[str, tuple[Any, Any]] = {}
    try:
        from games.core import Command, Match
        from games.gaslands import EXAMPLE_SETUP, GAME

        match = Match.begin(GAME, tomllib.loads(EXAMPLE_SETUP))
        if "activate" in match.prompt().commands:
            match.apply(Command.from_json({"type": "activate"}))
        vid = match.views()[0].vehicles[0].id
        before = match.views()[0]
        outcome = match.apply(Command.from_json({"type": "gain_hazard", "vehicle": vid}))
        if not outcome.accepted:
            raise RuntimeError(outcome.reason)
        pairs["hazard_added"] = (before, match.views()[0])
        source = "games.gaslands rules (EXAMPLE_SETUP, gain_hazard)"
    except Exception as exc:  # the rules are optional for this figure; say so in the result
        v = VehicleView("rust", "Rust Bucket", "buggy", 3, 6, 2, 5, 6, False, False, False, True)
        before = PlayerView("Alice", 0, 1, 3, True, True, (v,), Step.SKID_CHECK.value, "")
        pairs["hazard_added"] = (before, replace(before, vehicles=(replace(v, hazards=3),)))
        source = f"hand-built views (games.gaslands unavailable: {exc})"
    base = pairs["hazard_added"][1]
    v = base.vehicles[0]
    pairs["gear_shifted"] = (base, replace(base, vehicles=(replace(v, gear=min(v.max_gear, v.gear + 1)),) + base.vehicles[1:]))
    pairs["step_advanced"] = (base, replace(base, step=Step.SHIFTS.value))
    pairs["hull_lost"] = (base, replace(base, vehicles=(replace(v, hull=max(0, v.hull - 1)),) + base.vehicles[1:]))
    return source, pairs


def _alert_flash() -> tuple[Any, Any]:
    """The costliest routine update: an alert banner flashing on (blink off → on) over the dashboard."""
    from games.core import Alert
    from games.gaslands.state import PlayerView, Step, VehicleView

    v = VehicleView("rust", "Rust Bucket", "buggy", 5, 6, 2, 5, 6, False, False, False, True)
    flashing = PlayerView("Alice", 0, 1, 3, True, True, (v,), Step.TOUCH_MOVE.value, "",
                          (Alert("illegal_template", "Hairpin NOT PERMITTED in gear 5. Bob picks for you"),))
    return flashing, flashing


def measure_update_bytes() -> dict[str, Any]:
    """Bytes sent for typical Gaslands updates on SSD1306 and SH1106, against a full frame."""
    source, pairs = _gaslands_views()
    out: dict[str, Any] = {"update_bytes_source": source, "update_ratio_target": TARGET_UPDATE_RATIO}
    for driver in ("ssd1306", "sh1106"):
        full = full_frame_bytes(driver)
        row: dict[str, Any] = {"full_frame": full}
        for name, (a, b) in pairs.items():
            cost = _update_cost(driver, render_view("gaslands", a, blink_on=True), render_view("gaslands", b, blink_on=True))
            cost["ratio"] = round(cost["bytes"] / full["bytes"], 4)
            row[name] = cost
        a, b = _alert_flash()
        cost = _update_cost(driver, render_view("gaslands", a, blink_on=False), render_view("gaslands", b, blink_on=True))
        cost["ratio"] = round(cost["bytes"] / full["bytes"], 4)
        row["alert_flash_on"] = cost
        out[f"update_bytes_{driver}"] = row
    out["hazard_added_ratio"] = max(out[f"update_bytes_{d}"]["hazard_added"]["ratio"] for d in ("ssd1306", "sh1106"))
    out["hazard_added_ratio_ok"] = out["hazard_added_ratio"] <= TARGET_UPDATE_RATIO
    return out


def measure_press_to_frame(presses: int = 60, *, clock: Callable[[], float] = time.perf_counter) -> dict[str, Any]:
    """A fake button press → (queue, as gpiozero's thread hands it to the loop) → command applied to a
    ``games.core.Match`` of Gaslands → views → render every player's dashboard → diff → recording serial.

    Presses alternate "a hazard token" (``gain_hazard``) and BACK (``undo``), so every press changes a
    screen.  The dashboards' frame cache is emptied before each press, so every player's screen is drawn
    afresh (the worst case; in play the players whose view did not change cost a look-up).  Without the
    Gaslands rules only render + diff + send is timed, and the result says so.
    """
    presses_q: queue.Queue[str] = queue.Queue()
    try:
        from games.core import Command, Match
        from games.gaslands import EXAMPLE_SETUP, GAME

        match = Match.begin(GAME, tomllib.loads(EXAMPLE_SETUP))
        if "activate" in match.prompt().commands:
            match.apply(Command.from_json({"type": "activate"}))
        vid = match.views()[0].vehicles[0].id
        commands = {"hazard": Command.from_json({"type": "gain_hazard", "vehicle": vid}),
                    "back": Command.from_json({"type": "undo"})}
        mode = "press → Match.apply (gaslands) → views → render → diff → recording serial"
    except Exception as exc:
        match, commands = None, {}
        mode = f"render → diff → recording serial only (games.gaslands unavailable: {exc})"

    if match is not None:
        players = [v.player for v in match.views()]
    else:
        players = ["Alice", "Bob"]
    bank = build_bank([ScreenSpec(p) for p in players], "recording")
    bank.open()
    _, pairs = _gaslands_views()
    fallback = pairs["hazard_added"]

    def views(i: int) -> list[Any]:
        if match is not None:
            return list(match.views())
        return [replace(fallback[i % 2], player=p) for p in players]

    for v in views(0):
        bank.show(v.player, render_view("gaslands", v, blink_on=True))

    stages: dict[str, list[float]] = {"apply": [], "views": [], "render": [], "send": []}
    totals: list[float] = []
    wire: list[float] = []

    def counters() -> tuple[int, int]:
        serials = [bank.screen(p).serial for p in players]  # type: ignore[attr-defined]
        return sum(s.total_bytes for s in serials), sum(s.transfers for s in serials)

    for i in range(presses):
        presses_q.put("hazard" if i % 2 == 0 else "back")
        clear_cache()
        t0 = clock()
        button = presses_q.get_nowait()
        if match is not None:
            outcome = match.apply(commands[button])
            if not outcome.accepted:
                raise RuntimeError(f"the benchmark's {button} press was refused: {outcome.reason}")
        t1 = clock()
        vs = views(i)
        t2 = clock()
        images = [(v.player, render_view("gaslands", v, blink_on=True)) for v in vs]
        sent_before = counters()
        t3 = clock()
        for player, image in images:
            bank.show(player, image)
        t4 = clock()
        sent_after = counters()
        wire.append(_wire_ms(sent_after[0] - sent_before[0], sent_after[1] - sent_before[1]))
        for name, (a, b) in zip(stages, ((t0, t1), (t1, t2), (t2, t3), (t3, t4))):
            stages[name].append((b - a) * 1000)
        totals.append((t4 - t0) * 1000)
    totals.sort()
    return {
        "press_to_frame_mode": mode,
        "press_to_frame_ms_median": round(statistics.median(totals), 3),
        "press_to_frame_ms_p90": round(totals[int(0.9 * (len(totals) - 1))], 3),
        "press_to_frame_ms_max": round(totals[-1], 3),
        "press_to_frame_stage_ms_median": {k: round(statistics.median(v), 3) for k, v in stages.items()},
        "press_to_frame_presses": presses,
        "press_to_frame_i2c_ms_median_at_400khz": round(statistics.median(wire), 3),
        "press_to_frame_i2c_note": "time on the wire is not in the figures above (the serial only records); "
                                   "add this estimate for a real 400 kHz bus",
        "press_to_frame_screens": len(players),
        "press_to_frame_target_ms": TARGET_PRESS_MS,
        "press_to_frame_ok": statistics.median(totals) <= TARGET_PRESS_MS,
    }


def run_device_bench(presses: int = 60) -> dict[str, Any]:
    """Both screen figures as one JSON-able dict (``pitboard bench device`` adds the app's own figures)."""
    result = measure_update_bytes()
    result.update(measure_press_to_frame(presses))
    result["start_to_first_frame_note"] = "measured by device.cli_device.measure_startup (the app's path)"
    return result


if __name__ == "__main__":  # pragma: no cover
    import json

    print(json.dumps(run_device_bench(), indent=2, sort_keys=True))
