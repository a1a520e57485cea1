"""Screens: the diff protocol replayed into models of the controllers' RAM, the mux lock, the bank that
survives a failing screen, and the test/demo backends.  No /dev/i2c anywhere."""

from __future__ import annotations

import errno
import logging
import threading
import time

import luma.core.error
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from device.displays import (
    Backoff,
    CaptureScreen,
    DisplayBank,
    DummyScreen,
    LumaScreen,
    Mux,
    MuxedSerial,
    MuxRegistry,
    RecordingSerial,
    ScreenEventKind,
    ScreenSpec,
    ScreenState,
    TerminalScreen,
    Window,
    build_bank,
    build_screen,
    compose_terminal,
    oled_look,
    pack_pages,
    plan_windows,
    to_braille,
    to_halfblocks,
    write_gif,
)
from device.displays.partial import changed_runs

pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")

# -- models of controller RAM ------------------------------------------------------------------------------


class Ssd1306Ram:
    """SSD1306/SSD1309 display RAM: 8 pages × 128 columns, fed the recorded command/data stream."""

    ARGS = {0x81: 1, 0x8D: 1, 0x20: 1, 0x21: 2, 0x22: 2, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1,
            0xA3: 2, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5}

    def __init__(self) -> None:
        self.ram = np.zeros((8, 128), dtype=np.uint8)
        self.mode = 2  # page addressing after reset
        self.c0, self.c1, self.p0, self.p1 = 0, 127, 0, 7
        self.col, self.page = 0, 0

    def command(self, payload: bytes) -> None:
        i = 0
        while i < len(payload):
            op = payload[i]
            n = self.ARGS.get(op, 0)
            args = payload[i + 1 : i + 1 + n]
            assert len(args) == n, f"command 0x{op:02X} lacks its arguments"
            if op == 0x20:
                self.mode = args[0] & 0x03
            elif op == 0x21:
                self.c0, self.c1 = args[0], args[1]
                self.col = self.c0
            elif op == 0x22:
                self.p0, self.p1 = args[0] & 7, args[1] & 7
                self.page = self.p0
            elif 0xB0 <= op <= 0xB7 and self.mode == 2:
                self.page = op & 7
            elif op <= 0x0F and self.mode == 2:
                self.col = (self.col & 0xF0) | op
            elif 0x10 <= op <= 0x1F and self.mode == 2:
                self.col = (self.col & 0x0F) | ((op & 0x0F) << 4)
            i += 1 + n

    def data(self, payload: bytes) -> None:
        for b in payload:
            assert 0 <= self.col < 128 and 0 <= self.page < 8
            self.ram[self.page, self.col] = b
            if self.mode == 0:  # horizontal
                self.col += 1
                if self.col > self.c1:
                    self.col = self.c0
                    self.page = self.p0 if self.page >= self.p1 else self.page + 1
            elif self.mode == 1:  # vertical
                self.page += 1
                if self.page > self.p1:
                    self.page = self.p0
                    self.col = self.c0 if self.col >= self.c1 else self.col + 1
            else:
                self.col = min(self.col + 1, 127)

    def image(self) -> np.ndarray:
        return _unpack(self.ram)


class Sh1106Ram:
    """SH1106 display RAM: 8 pages × 132 columns, visible columns 2..129; page + column addressing only."""

    ARGS = {0x81: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1, 0xAD: 1}

    def __init__(self) -> None:
        self.ram = np.zeros((8, 132), dtype=np.uint8)
        self.col, self.page = 0, 0

    def command(self, payload: bytes) -> None:
        i = 0
        while i < len(payload):
            op = payload[i]
            n = self.ARGS.get(op, 0)
            assert len(payload[i + 1 : i + 1 + n]) == n
            if op <= 0x0F:
                self.col = (self.col & 0xF0) | op
            elif 0x10 <= op <= 0x1F:
                self.col = (self.col & 0x0F) | ((op & 0x0F) << 4)
            elif 0xB0 <= op <= 0xB7:
                self.page = op & 7
            i += 1 + n

    def data(self, payload: bytes) -> None:
        for b in payload:
            assert self.col < 132, "data ran past column 131 of the SH1106 RAM"
            self.ram[self.page, self.col] = b
            self.col += 1

    def image(self) -> np.ndarray:
        return _unpack(self.ram[:, 2:130])


def _unpack(ram: np.ndarray) -> np.ndarray:
    bits = np.unpackbits(ram[..., None], axis=-1, bitorder="little")  # pages, cols, 8
    return bits.transpose(0, 2, 1).reshape(ram.shape[0] * 8, ram.shape[1]).astype(bool)


def replay(transfers, model) -> np.ndarray:
    for t in transfers:
        (model.command if t.kind == "command" else model.data)(t.payload)
    return model.image()


MODELS = {"ssd1306": Ssd1306Ram, "ssd1309": Ssd1306Ram, "sh1106": Sh1106Ram}


def bits(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("1"), dtype=bool)


def scene(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    im = Image.new("1", (128, 64))
    d = ImageDraw.Draw(im)
    for _ in range(rng.integers(1, 6)):
        x0, y0 = int(rng.integers(0, 128)), int(rng.integers(0, 64))
        d.rectangle((x0, y0, x0 + int(rng.integers(0, 40)), y0 + int(rng.integers(0, 20))), fill=int(rng.integers(0, 2)))
    d.text((int(rng.integers(0, 100)), int(rng.integers(0, 50))), str(seed), fill=1)
    return im


def recording_screen(driver: str, rotate: int = 0) -> tuple[LumaScreen, RecordingSerial]:
    serial = RecordingSerial()
    screen = LumaScreen(ScreenSpec("P", driver=driver, rotate=rotate), lambda spec: serial)
    screen.open()
    return screen, serial


# -- the models agree with luma's own full-frame display() ----------------------------------------------------


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106", "ssd1309"])
def test_ram_model_reproduces_lumas_own_full_frame(driver):
    screen, serial = recording_screen(driver)
    image = scene(7)
    screen.device.display(image)  # luma's reference path, not ours
    assert np.array_equal(replay(serial.transfers, MODELS[driver]()), bits(image))


# -- the diff protocol -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106", "ssd1309"])
@pytest.mark.parametrize("rotate", [0, 2])
def test_diff_updates_replay_to_every_frame(driver, rotate):
    screen, serial = recording_screen(driver, rotate)
    model = MODELS[driver]()
    replay(serial.transfers, model)
    serial.clear()
    for seed in range(12):
        image = scene(seed)
        screen.show(image)
        expected = bits(image.rotate(180) if rotate == 2 else image)
        assert np.array_equal(replay(serial.transfers, model), expected), f"frame {seed}"
        serial.clear()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 127), st.integers(0, 63), st.integers(0, 127), st.integers(0, 63),
                          st.booleans()), min_size=1, max_size=8),
       st.sampled_from(["ssd1306", "sh1106"]))
def test_any_sequence_of_edits_keeps_ram_equal_to_the_frame(edits, driver):
    screen, serial = recording_screen(driver)
    model = MODELS[driver]()
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    for x0, y0, x1, y1, on in edits:
        draw.rectangle((min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)), fill=int(on))
        screen.show(image)
        assert np.array_equal(replay(serial.transfers, model), bits(image))
        serial.clear()


@pytest.mark.parametrize("driver,full", [("ssd1306", 6 + 1024), ("sh1106", 8 * (3 + 128))])
def test_small_change_sends_only_its_window_and_no_change_sends_nothing(driver, full):
    screen, serial = recording_screen(driver)
    image = scene(3)
    assert screen.show(image) == full  # the first frame after open is complete
    assert screen.show(image.copy()) == 0
    ImageDraw.Draw(image).rectangle((60, 20, 67, 27), fill=1)  # one 8×8 pip: pages 2..3, columns 60..67
    sent = screen.show(image)
    assert 0 < sent <= 2 * (6 + 8)
    assert screen.last_windows and all(w.c0 >= 60 and w.c1 <= 67 for w in screen.last_windows)


def test_sh1106_writes_visible_column_0_at_ram_column_2():
    screen, serial = recording_screen("sh1106")
    screen.show(Image.new("1", (128, 64)))
    serial.clear()
    image = Image.new("1", (128, 64))
    image.putpixel((0, 9), 1)  # page 1, column 0, bit 1
    screen.show(image)
    assert [t.payload for t in serial.transfers] == [bytes([0xB1, 0x02, 0x10]), bytes([0x02])]


def test_plan_merges_pages_only_when_cheaper():
    # Two far-apart runs on adjacent pages: merging costs more than two windows.
    runs = {2: (0, 3), 3: (120, 127)}
    assert plan_windows(runs) == [Window(2, 2, 0, 3), Window(3, 3, 120, 127)]
    # Aligned runs on adjacent pages: one window saves a 6-byte command.
    runs = {2: (10, 20), 3: (10, 20)}
    assert plan_windows(runs) == [Window(2, 3, 10, 20)]
    # Pages with a gap: bridging page 4 costs 11 bytes > 6 for a second command.
    runs = {3: (10, 20), 5: (10, 20)}
    assert len(plan_windows(runs)) == 2


def test_pack_pages_bit_order():
    image = Image.new("1", (128, 64))
    image.putpixel((5, 0), 1)
    image.putpixel((5, 7), 1)
    image.putpixel((6, 8), 1)
    packed = pack_pages(image)
    assert packed.shape == (8, 128)
    assert packed[0, 5] == 0x81 and packed[1, 6] == 0x01
    assert changed_runs(np.zeros_like(packed), packed) == {0: (5, 5), 1: (6, 6)}


def test_wrong_size_and_mode_are_refused_with_the_reason():
    screen, _ = recording_screen("ssd1306", rotate=1)
    with pytest.raises(ValueError, match="64x128"):
        screen.show(Image.new("1", (128, 64)))
    with pytest.raises(ValueError, match="mode"):
        pack_pages(Image.new("L", (128, 64)))


def test_unknown_driver_and_rotation_are_refused():
    with pytest.raises(ValueError, match="allowed: ssd1306, sh1106, ssd1309"):
        LumaScreen(ScreenSpec("P", driver="st7735"))
    with pytest.raises(ValueError, match="rotate"):
        LumaScreen(ScreenSpec("P", rotate=4))


def test_a_failed_transfer_makes_the_next_frame_complete():
    screen, serial = recording_screen("ssd1306")
    screen.show(scene(1))
    serial.fail = True
    with pytest.raises(OSError):
        screen.show(scene(2))
    serial.fail = False
    serial.clear()
    model = Ssd1306Ram()
    model.mode = 0
    assert screen.show(scene(2)) == 6 + 1024
    assert np.array_equal(replay(serial.transfers, model), bits(scene(2)))


# -- TCA9548A ---------------------------------------------------------------------------------------------------


class FakeBus:
    """An SMBus that remembers which mux channel is selected; it yields the GIL to invite interleaving."""

    def __init__(self) -> None:
        self.selected: dict[int, int] = {}
        self.writes: list[tuple[int, int]] = []

    def write_byte(self, addr: int, value: int, force=None) -> None:
        time.sleep(0)
        self.selected[addr] = value
        self.writes.append((addr, value))


class ChannelCheckingSerial(RecordingSerial):
    """Fails the test if a transfer reaches it while the mux routes to another channel."""

    def __init__(self, bus: FakeBus, mux_address: int, channel: int) -> None:
        super().__init__()
        self.bus, self.mux_address, self.channel = bus, mux_address, channel
        self.misrouted = 0

    def _check(self) -> None:
        time.sleep(0)
        if self.bus.selected.get(self.mux_address) != 1 << self.channel:
            self.misrouted += 1


def test_mux_selects_the_channel_before_every_transfer():
    bus = FakeBus()
    inner = RecordingSerial()
    serial = MuxedSerial(inner, Mux(bus, 0x70), 5)
    serial.command(0xAF)
    serial.data([1, 2, 3])
    assert bus.writes == [(0x70, 0x20), (0x70, 0x20)]
    assert [t.kind for t in inner.transfers] == ["command", "data"]


def test_screens_on_one_mux_share_its_lock_and_never_get_misrouted():
    bus = FakeBus()
    registry = MuxRegistry(lambda port: bus)
    serials: dict[int, ChannelCheckingSerial] = {}

    def inner(spec):
        serials[spec.mux_channel] = ChannelCheckingSerial(bus, spec.mux_address, spec.mux_channel)
        return serials[spec.mux_channel]

    def factory(spec):
        return MuxedSerial(inner(spec), registry.get(spec.port, spec.mux_address), spec.mux_channel)

    screens = [LumaScreen(ScreenSpec(f"P{c}", mux_address=0x70, mux_channel=c), factory) for c in (0, 3)]
    for s in screens:
        s.open()
    assert registry.get(1, 0x70) is registry.get(1, 0x70)

    def draw(screen: LumaScreen, seed: int) -> None:
        for i in range(15):
            screen.show(scene(seed + i))

    threads = [threading.Thread(target=draw, args=(s, 100 * i)) for i, s in enumerate(screens)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(s.misrouted == 0 for s in serials.values())
    assert all(len(s.transfers) > 15 for s in serials.values())


def test_mux_validation():
    with pytest.raises(ValueError, match="0x70..0x77"):
        Mux(FakeBus(), 0x3C)
    with pytest.raises(ValueError, match="0..7"):
        MuxedSerial(RecordingSerial(), Mux(FakeBus()), 8)


# -- the bank -----------------------------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def make_bank(*players, fail=(), backoff=Backoff(1, 2, 8)):
    serials = {p: RecordingSerial(fail=p in fail) for p in players}
    clock = Clock()
    events = []
    bank = build_bank([ScreenSpec(p) for p in players], "i2c", serial_factory=lambda spec: serials[spec.player],
                      clock=clock, backoff=backoff, on_event=events.append)
    return bank, serials, clock, events


def test_screen_failing_mid_game_is_reported_once_others_go_on_and_it_is_redrawn_on_return(caplog):
    bank, serials, clock, events = make_bank("Alice", "Bob")
    bank.open()
    assert bank.show("Alice", scene(1)) and bank.show("Bob", scene(1))

    serials["Bob"].fail = True
    with caplog.at_level(logging.DEBUG, logger="pitboard.displays"):
        assert bank.show("Bob", scene(2)) is False
        assert bank.show("Alice", scene(2)) is True
        for i in range(5):  # retries while still down are not reported again
            clock.now += 10
            bank.show("Bob", scene(3 + i))
            bank.poll()
    # said once: to the bank's owner (``on_event``: the journal), so the log record is only for debugging
    # (a WARNING too was printed bare beside the journal's line)
    said = [r for r in caplog.records if "stopped answering" in r.getMessage()]
    assert len(said) == 1 and "Bob" in said[0].getMessage() and said[0].levelno == logging.DEBUG
    assert [e.kind for e in events] == [ScreenEventKind.LOST]
    status = bank.status()["Bob"]
    assert status.state is ScreenState.DOWN and status.failures > 1 and "Bob" in status.line()
    assert bank.status()["Alice"].state is ScreenState.OK

    # It answers again: re-initialised and the latest frame sent whole, without a new show().
    serials["Bob"].fail = False
    serials["Bob"].clear()
    clock.now += 60
    bank.poll()
    assert [e.kind for e in events] == [ScreenEventKind.LOST, ScreenEventKind.BACK]
    assert bank.status()["Bob"].state is ScreenState.OK
    model = Ssd1306Ram()
    assert np.array_equal(replay(serials["Bob"].transfers, model), bits(scene(7)))


def test_retries_back_off_and_wait_for_the_clock():
    bank, serials, clock, events = make_bank("Alice", fail=("Alice",))
    opens = []
    screen = bank.screen("Alice")
    real_open = screen.open
    screen.open = lambda: (opens.append(clock.now), real_open())[1]
    bank.open()
    assert [e.kind for e in events] == [ScreenEventKind.MISSING]
    for _ in range(40):
        clock.now += 0.5
        bank.poll()
    gaps = np.diff(opens).tolist()
    assert gaps[:4] == [1.0, 2.0, 4.0, 8.0] and all(g == 8.0 for g in gaps[4:])
    assert bank.status()["Alice"].retry_in is not None


def test_luma_bus_errors_count_as_a_missing_screen():
    class Nobody(RecordingSerial):
        def _check(self):
            raise luma.core.error.DeviceNotFoundError("I2C device not found on address: 0x3C")

    bank = DisplayBank({"Alice": LumaScreen(ScreenSpec("Alice"), lambda spec: Nobody())}, clock=Clock())
    bank.open()
    assert bank.show("Alice", scene(1)) is False
    assert "0x3C" in bank.status()["Alice"].error


def test_a_dead_screen_is_probed_without_building_a_luma_device_each_retry(monkeypatch):
    import device.displays.screens as screens

    built = []
    real = screens.Driver.luma_class

    def counting(self):
        cls = real(self)

        def make(*args, **kwargs):
            built.append(cls)
            return cls(*args, **kwargs)

        return make

    monkeypatch.setattr(screens.Driver, "luma_class", counting)
    bank, serials, clock, events = make_bank("Alice", fail=("Alice",))
    bank.open()
    for _ in range(10):
        clock.now += 60
        bank.poll()
    assert built == []
    serials["Alice"].fail = False
    clock.now += 60
    bank.poll()
    assert len(built) == 1 and bank.status()["Alice"].state is ScreenState.OK


def test_real_i2c_backend_reports_a_missing_bus_instead_of_raising():
    import os

    if os.path.exists("/dev/i2c-99"):
        pytest.skip("this machine has an I2C bus 99")
    events = []
    bank = build_bank([ScreenSpec("Alice", port=99), ScreenSpec("Bob", port=99, mux_address=0x70, mux_channel=1)],
                      "i2c", clock=Clock(), on_event=events.append)
    bank.open()
    assert [e.kind for e in events] == [ScreenEventKind.MISSING, ScreenEventKind.MISSING]
    assert "/dev/i2c-99" in bank.status()["Alice"].error
    assert bank.show("Alice", scene(1)) is False
    assert str(events[1]).startswith("screen Bob (i2c-99 mux 0x70 ch 1 0x3C) does not answer")
    assert "add the overlay that makes this bus" in str(events[0])


@pytest.mark.parametrize(("error", "hint"), [
    (FileNotFoundError(errno.ENOENT, "No such file or directory", "/dev/i2c-1"),
     "enable I2C (dtparam=i2c_arm=on in config.txt, or sudo deploy/install.sh --firmware), then reboot"),
    (PermissionError(errno.EACCES, "Permission denied", "/dev/i2c-1"), "add this user to the i2c group"),
])
def test_a_bus_that_cannot_be_opened_is_told_with_what_to_do_in_the_services_log(monkeypatch, error, hint):
    """With I2C off (or the user outside the i2c group) every screen is dark: the service's log is where the
    maker looks, and it said only luma's "I2C device not found: /dev/i2c-1" (a deploy review); it says what
    ``pitboard check`` says (the bank's event is what the app writes to the journal)."""
    import smbus2

    def no_bus(port: int) -> None:
        raise error

    monkeypatch.setattr(smbus2, "SMBus", no_bus)
    events = []
    bank = build_bank([ScreenSpec("Alice", port=1)], "i2c", clock=Clock(), on_event=events.append)
    bank.open()
    assert [e.kind for e in events] == [ScreenEventKind.MISSING]
    assert "/dev/i2c-1" in str(events[0]) and hint in str(events[0])


def test_unknown_player_names_the_configured_ones():
    bank, *_ = make_bank("Alice")
    with pytest.raises(KeyError, match="Alice"):
        bank.show("Zed", scene(1))


def test_two_screens_for_one_player_are_refused():
    with pytest.raises(ValueError, match="one screen per player"):
        build_bank([ScreenSpec("A"), ScreenSpec("A", address=0x3D)], "dummy")


# -- backends -------------------------------------------------------------------------------------------------------


def test_dummy_backend_keeps_the_image():
    screen = build_screen(ScreenSpec("A"), "dummy")
    assert isinstance(screen, DummyScreen)
    bank = DisplayBank({"A": screen})
    bank.open()
    bank.show("A", scene(4))
    assert np.array_equal(bits(screen.image), bits(scene(4)))


def test_capture_keeps_distinct_frames_and_writes_a_scaled_animated_gif(tmp_path):
    clock = Clock()
    screen = CaptureScreen("A", clock=clock)
    for seed in (1, 1, 2, 3):
        screen.show(scene(seed))
        clock.now += 0.5
    assert len(screen.frames) == 3
    path = tmp_path / "a.gif"
    screen.write_gif(path, label="Alice")
    gif = Image.open(path)
    assert gif.n_frames == 3
    assert gif.width >= 128 * 4 and gif.height >= 64 * 4
    assert gif.info.get("duration") == 1000  # 2 seconds' worth split over the duplicate shows → first frame 1 s


def test_write_captures_writes_one_gif_per_player_that_showed_something(tmp_path):
    from device.displays import write_captures

    bank = build_bank([ScreenSpec("Alice"), ScreenSpec("Bob / 2")], "capture", clock=Clock())
    bank.open()
    bank.show("Bob / 2", scene(1))
    paths = write_captures(bank, tmp_path / "demo")
    assert [p.name for p in paths] == ["Bob_2.gif"]
    assert Image.open(paths[0]).size[0] >= 512


def test_oled_look_lights_only_lit_pixels():
    image = Image.new("1", (128, 64))
    image.putpixel((0, 0), 1)
    big = oled_look(image, scale=4)
    pad = 12
    assert big.getpixel((pad, pad)) != big.getpixel((pad + 8, pad + 8))
    with pytest.raises(ValueError):
        write_gif("/nonexistent/x.gif", [])


def test_terminal_renderers():
    image = Image.new("1", (128, 64))
    image.putpixel((0, 0), 1)
    image.putpixel((1, 1), 1)
    half = to_halfblocks(image).split("\n")
    assert len(half) == 32 and all(len(line) == 128 for line in half)
    assert half[0][:2] == "▀▄"
    braille = to_braille(image).split("\n")
    assert len(braille) == 16 and all(len(line) == 64 for line in braille)
    assert braille[0][0] == chr(0x2800 + 0x01 + 0x10)
    screen = TerminalScreen("A", style="halfblock")
    screen.show(image)
    assert screen.text.split("\n")[0][:2] == "▀▄"
    panel = compose_terminal({"Alice": image, "Bob": image}, columns=2)
    assert "Alice" in panel and "Bob" in panel and len(panel.split("\n")) == 18


# -- Pillow 14: no Image.getdata ---------------------------------------------------------------------------------
# luma.oled's display() walks Image.getdata(), deprecated in Pillow 12 and removed in Pillow 14. The drivers we
# build (device.displays.compat.getdata_free) replace display() with a numpy packing that sends the same bytes.

HAS_GETDATA = hasattr(Image.Image, "getdata")


@pytest.mark.skipif(not HAS_GETDATA, reason="this Pillow has no Image.getdata: luma's own display() cannot run")
@pytest.mark.parametrize("driver", ["ssd1306", "sh1106", "ssd1309"])
@pytest.mark.parametrize("rotate", [0, 1, 2])
def test_getdata_free_display_sends_exactly_what_lumas_own_sends(driver, rotate):
    import luma.oled.device as d

    from device.displays.compat import getdata_free

    base = {"ssd1306": d.ssd1306, "sh1106": d.sh1106, "ssd1309": d.ssd1309}[driver]
    ours, theirs = RecordingSerial(), RecordingSerial()
    mine = getdata_free(base)(ours, width=128, height=64, rotate=rotate)
    luma = base(theirs, width=128, height=64, rotate=rotate)
    for seed in (3, 4):
        image = scene(seed) if rotate % 2 == 0 else scene(seed).rotate(90, expand=True)
        mine.display(image)
        luma.display(image)
    mine.clear()
    luma.clear()
    assert [(t.kind, bytes(t.payload)) for t in ours.transfers] == [(t.kind, bytes(t.payload)) for t in theirs.transfers]
    assert type(mine).__name__ == base.__name__ and isinstance(mine, base)


def _display_path_without_getdata(driver: str) -> None:
    """Open a real-driver screen, show frames, blank and close it, with Image.getdata gone (as in Pillow 14)."""
    serial = RecordingSerial()
    screen = LumaScreen(ScreenSpec("P", driver=driver), lambda spec: serial)
    screen.open()  # luma's __init__ clears the panel through display()
    for seed in (1, 2):
        screen.show(scene(seed))
        assert np.array_equal(replay(serial.transfers, MODELS[driver]()), bits(scene(seed)))
    screen.device.display(scene(5))  # a full frame through the driver itself
    assert np.array_equal(replay(serial.transfers, MODELS[driver]()), bits(scene(5)))
    screen.close(blank=True)  # clear() -> display()


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106", "ssd1309"])
def test_display_path_works_without_image_getdata_as_on_pillow_14(driver, monkeypatch):
    if HAS_GETDATA:
        monkeypatch.delattr(Image.Image, "getdata")
    with pytest.raises(AttributeError):
        Image.new("1", (8, 8)).getdata()  # what luma's own display() would hit
    _display_path_without_getdata(driver)


def test_display_path_calls_no_deprecated_pillow_api():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for driver in ("ssd1306", "sh1106"):
            _display_path_without_getdata(driver)


PILLOW_14 = "pillow>=14"


def _pillow_from_registry(spec: str) -> str:
    """A folder with ``spec`` pip-installed into it (``pip install --target``), kept between runs in
    ~/.cache/pitboard-tests (outside the repository); pytest.skip with pip's reason when the registry
    has no such Pillow (Pillow 14 is not released yet) or cannot be reached."""
    import hashlib
    import os
    import subprocess
    import sys
    from pathlib import Path

    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pitboard-tests"
    target = cache / ("pillow-" + hashlib.sha256(spec.encode()).hexdigest()[:12])
    if (target / "PIL" / "__init__.py").is_file():
        return str(target)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--quiet", "--no-deps", "--retries", "1",
         "--timeout", "10",
         "--only-binary=:all:", "--target", str(target) + ".partial", spec],
        capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        import shutil

        shutil.rmtree(str(target) + ".partial", ignore_errors=True)
        reason = next((ln.strip() for ln in proc.stderr.splitlines() if "ERROR" in ln or "versions:" in ln),
                      proc.stderr.strip()[-300:])
        pytest.skip(f"cannot get {spec} from the package registry ({reason}); the display path was run without "
                    "Image.getdata instead (test_display_path_works_without_image_getdata_as_on_pillow_14)")
    os.replace(str(target) + ".partial", target)
    return str(target)


def _pillow_targets() -> list[str]:
    """Other Pillow versions to run the display path under: folders made with
    ``pip install --target DIR 'pillow==X'``, listed in $PITBOARD_PILLOW_TARGETS (':'-separated)."""
    import os

    return [p for p in os.environ.get("PITBOARD_PILLOW_TARGETS", "").split(":") if p]


@pytest.mark.parametrize("target", [None, PILLOW_14, *_pillow_targets()])
def test_display_path_under_each_available_pillow(target):
    """The display path in a fresh interpreter (so that the Pillow first on sys.path is the one imported)
    under: the installed Pillow; Pillow 14 from the registry, when it is there (skipped with the reason
    when not); and each folder in $PITBOARD_PILLOW_TARGETS (see deploy/README.md)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    if target == PILLOW_14:
        target = _pillow_from_registry(PILLOW_14)

    repo = Path(__file__).resolve().parents[2]
    code = (
        "import sys, PIL; from PIL import Image\n"
        "sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2])\n"
        "import importlib, test_displays as t\n"
        "for d in ('ssd1306', 'sh1106', 'ssd1309'): t._display_path_without_getdata(d)\n"
        "print(PIL.__version__, PIL.__file__)\n"
    )
    env = dict(os.environ)
    if target is not None:
        env["PYTHONPATH"] = target + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", code, str(repo), str(Path(__file__).parent)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    version, where = proc.stdout.split()[-2:]
    if target is not None:  # the display path ran on that folder's Pillow, not the venv's
        assert Path(where).resolve().is_relative_to(Path(target).resolve()), (version, where)
    else:
        import PIL

        assert version == PIL.__version__


def test_a_quiet_screen_unplugged_is_told_within_seconds():
    """Seen driving the loop: the chooser's screen unplugged while her menu stood still was noticed after
    20 s, when the idle timeout drew something new on it; meanwhile the table looked at a dark screen with
    no word.  A screen sent nothing for 2 s is asked for a NOP by poll()."""
    bank, serials, clock, events = make_bank("Alice", "Bob")
    bank.open()
    assert bank.show("Alice", scene(1)) and bank.show("Bob", scene(1))
    sent = len(serials["Bob"].transfers)
    clock.now += 1.0
    bank.poll()
    assert len(serials["Bob"].transfers) == sent  # drawn a second ago: not asked
    clock.now += 1.5
    bank.poll()
    assert len(serials["Bob"].transfers) == sent + 1  # one NOP, a byte or two on the bus
    serials["Bob"].fail = True  # unplugged; its picture does not change, nothing is drawn on it
    clock.now += 2.0
    bank.poll()
    assert [(e.player, e.kind) for e in events] == [("Bob", ScreenEventKind.LOST)]
    assert bank.status()["Bob"].state is ScreenState.DOWN and bank.status()["Alice"].state is ScreenState.OK


def test_a_screen_whose_power_dropped_between_transfers_is_set_up_again_and_redrawn_whole():
    """A loose power wire: the controller resets (dark: display off, charge pump off; its memory lost) between
    two transfers, then answers every NOP and every partial update, so nothing noticed and its player looked
    at a black screen all game.  Every ``refresh_s`` one screen is sent its set-up again (never "display
    off": no flash on a screen that was fine) and its picture whole."""
    bank, serials, clock, events = make_bank("Alice", "Bob")
    bank.open()
    assert bank.show("Alice", scene(1)) and bank.show("Bob", scene(1))
    init = [t.payload for t in serials["Bob"].transfers if t.kind == "command"][:3]
    assert init[1][0] == 0xAE  # luma's init begins by switching the panel off
    clock.now += 5.0
    bank.poll()
    serials["Alice"].clear(), serials["Bob"].clear()
    clock.now += 5.0  # 10 s since they were opened: one screen a call (a whole picture is ~23 ms of bus)
    bank.poll()
    first = "Alice" if serials["Alice"].transfers else "Bob"
    other = "Bob" if first == "Alice" else "Alice"
    sent = serials[first].transfers
    commands = [t.payload for t in sent if t.kind == "command"]
    assert commands[:3] == [init[0], init[1][1:], init[2]]  # the set-up, without "display off"
    assert not any(c[:1] == bytes([0xAE]) for c in commands)
    assert sent[-1].payload == bytes([0xAF])  # on after the whole picture: no noise from a reset panel's memory
    assert sum(len(t.payload) for t in sent if t.kind == "data") == 128 * 64 // 8  # the picture, whole
    assert [t for t in serials[other].transfers if t.kind == "data"] == []
    bank.poll()  # the next call, the other one
    assert sum(len(t.payload) for t in serials[other].transfers if t.kind == "data") == 128 * 64 // 8
    serials[first].clear()
    bank.poll()
    assert serials[first].transfers == []  # not again before refresh_s
    serials["Bob"].fail = True  # unplugged: its refresh fails like any transfer, and is told
    clock.now += 10.0
    bank.poll(), bank.poll()
    assert [(e.player, e.kind) for e in events] == [("Bob", ScreenEventKind.LOST)]
