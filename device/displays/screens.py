"""One player's screen: a luma device plus the diffing layer, or a test/demo stand-in of the same shape.

Every screen has the same four calls, so :class:`device.displays.DisplayBank` never asks what it drives:

* ``open()`` — talk to the hardware (luma sends the controller's init sequence); raises a bus error if the
  screen does not answer.
* ``show(image) -> int`` — put a frame on the screen; returns the bytes that went to the controller.
* ``invalidate()`` — the screen's content is unknown (it was power-cycled); the next ``show`` is complete.
* ``close()``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from PIL import Image

from device.config import ScreenConfig, screen_where
from device.displays.partial import Addressing, PartialUpdater, Window
from device.displays.transport import CountingSerial, MuxedSerial, MuxRegistry, SerialLike

WIDTH, HEIGHT = 128, 64
#: "No operation" on SSD1306, SSD1309 and SH1106: probes that a controller acknowledges its address.
NOP = 0xE3
#: The same on the SSD1306, SSD1309 and SH1106.
DISPLAY_OFF, DISPLAY_ON = 0xAE, 0xAF


class Driver(str, Enum):
    """Controllers of 128×64 monochrome OLED modules (the names luma.oled uses)."""

    SSD1306 = "ssd1306"
    SH1106 = "sh1106"
    SSD1309 = "ssd1309"

    @property
    def addressing(self) -> Addressing:
        return Addressing.PAGE if self is Driver.SH1106 else Addressing.WINDOW

    @property
    def column_offset(self) -> int:
        """Visible column 0 in controller RAM: SH1106 has 132 columns and 128-wide glass starts at 2."""
        return 2 if self is Driver.SH1106 else 0

    def luma_class(self) -> type:
        """luma.oled's driver class, with a ``display`` that does not need Pillow's ``Image.getdata``
        (removed in Pillow 14): see :mod:`device.displays.compat`."""
        import luma.oled.device as d

        from device.displays.compat import getdata_free

        return getdata_free({Driver.SSD1306: d.ssd1306, Driver.SH1106: d.sh1106, Driver.SSD1309: d.ssd1309}[self])


class ScreenSpecLike(Protocol):
    """What a screen needs from configuration (``device.config.ScreenConfig`` has this shape; read-only, as
    that frozen dataclass is)."""

    @property
    def player(self) -> str: ...
    @property
    def driver(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def address(self) -> int: ...
    @property
    def mux_address(self) -> int | None: ...
    @property
    def mux_channel(self) -> int | None: ...
    @property
    def rotate(self) -> int: ...


#: One ``[[screens]]`` entry: the configuration's own dataclass, so a screen is described in one place.
ScreenSpec = ScreenConfig


#: ``i2c-1 0x3C`` or ``i2c-1 mux 0x70 ch 2 0x3C``.
where = screen_where


def driver_of(spec: ScreenSpecLike) -> Driver:
    try:
        return Driver(str(spec.driver).lower())
    except ValueError:
        allowed = ", ".join(d.value for d in Driver)
        raise ValueError(f"screen for {spec.player}: driver {spec.driver!r} is unknown; allowed: {allowed}") from None


class Screen(Protocol):
    name: str

    def open(self) -> None: ...

    def show(self, image: Image.Image) -> int: ...

    def invalidate(self) -> None: ...

    def close(self, *, blank: bool = False) -> None: ...


#: ``serial_factory(spec) -> serial``: the transport for one screen (tests pass a RecordingSerial maker).
SerialFactory = Callable[[ScreenSpecLike], SerialLike]


def bus_hint(port: int, *, missing: bool) -> str:
    """What to do when I2C bus ``port`` cannot be opened: ``missing`` (no ``/dev/i2c-N``), else not allowed.
    One wording for ``pitboard check`` and the service's log (a deploy review: with I2C off the log said only
    luma's "I2C device not found: /dev/i2c-1", every screen dark)."""
    if not missing:
        return "add this user to the i2c group (the service's user, pitboard, is in it after deploy/install.sh)"
    if port == 1:
        return "enable I2C (dtparam=i2c_arm=on in config.txt, or sudo deploy/install.sh --firmware), then reboot"
    return "add the overlay that makes this bus (see firmware_config/config.txt), then reboot"


def i2c_serial_factory(muxes: MuxRegistry | None = None) -> SerialFactory:
    """Real transports: luma's ``i2c(port, address)``, wrapped in :class:`MuxedSerial` behind a TCA9548A.

    The registry is shared by the screens built from one factory, so screens on one mux share its lock.
    """
    registry = muxes or MuxRegistry()

    def make(spec: ScreenSpecLike) -> SerialLike:
        from luma.core.error import DeviceNotFoundError, DevicePermissionError
        from luma.core.interface.serial import i2c

        try:
            serial: SerialLike = i2c(port=spec.port, address=spec.address)
        except (DeviceNotFoundError, DevicePermissionError) as exc:
            raise type(exc)(f"{exc}: {bus_hint(spec.port, missing=isinstance(exc, DeviceNotFoundError))}") from exc
        if spec.mux_address is not None:
            channel = spec.mux_channel if spec.mux_channel is not None else 0
            serial = MuxedSerial(serial, registry.get(spec.port, spec.mux_address), channel)
        return serial

    return make


class LumaScreen:
    """A real controller (or a recording serial standing in for the bus) driven by luma + the diff layer."""

    def __init__(self, spec: ScreenSpecLike, serial_factory: SerialFactory | None = None) -> None:
        self.spec = spec
        self.driver = driver_of(spec)
        if spec.rotate not in (0, 1, 2, 3):
            raise ValueError(f"screen for {spec.player}: rotate {spec.rotate!r}; allowed: 0, 1, 2, 3 (quarter turns)")
        self.name = where(spec)
        self._serial_factory = serial_factory or i2c_serial_factory()
        self.serial: CountingSerial | None = None
        self.device: Any = None
        self.updater: PartialUpdater | None = None
        self.last_windows: list[Window] = []

    def open(self) -> None:
        """Connect and initialise.  A NOP is sent first: a screen that does not answer fails there, before a
        luma device is built (each luma device registers an ``atexit`` hook that is never released, so
        building one per retry of a dead screen would leak memory all game long)."""
        self.close()
        serial = CountingSerial(self._serial_factory(self.spec))
        try:
            serial.command(NOP)
            device = self.driver.luma_class()(serial, width=WIDTH, height=HEIGHT, rotate=self.spec.rotate)
        except BaseException:
            _quiet_cleanup(serial)
            raise
        # luma registers an atexit hook that blanks the screen; keep the last frame up if we die instead.
        device.persist = True
        self.serial, self.device = serial, device
        self.updater = PartialUpdater(device, self.driver.addressing, column_offset=self.driver.column_offset)

    def show(self, image: Image.Image) -> int:
        if self.updater is None or self.serial is None:
            raise OSError(f"{self.name} is not open")
        before = self.serial.total_bytes
        self.last_windows = self.updater.display(image)
        return self.serial.total_bytes - before

    def invalidate(self) -> None:
        if self.updater is not None:
            self.updater.invalidate()

    def refresh(self, image: Image.Image) -> int:
        """Send the controller's set-up again, without switching it off, draw ``image`` whole, then switch it
        on (after the picture: a panel that did reset shows no noise from its memory meanwhile); the bytes
        sent.  A screen whose power dropped for a moment between two transfers (a loose wire) wakes
        up reset, dark (display off, charge pump off) and blank, yet answers every transfer, so nothing else
        notices it: its player would look at a black screen all game.  On a screen that did not lose power
        the same settings change nothing and the whole picture is the one it shows."""
        if self.serial is None:
            raise OSError(f"{self.name} is not open")
        before = self.serial.total_bytes
        for cmd in self.serial.setup:
            cmd = cmd[1:] if cmd[:1] == (DISPLAY_OFF,) else cmd  # the init's first: a flash, else
            if cmd:
                self.serial.command(*cmd)
        self.invalidate()
        self.show(image)
        self.serial.command(DISPLAY_ON)
        return self.serial.total_bytes - before

    def ping(self) -> None:
        """One NOP on the bus: a screen unplugged while its picture does not change (nothing is sent to it)
        answers with an OSError here, not when the next picture is drawn, maybe minutes later."""
        if self.serial is None:
            raise OSError(f"{self.name} is not open")
        self.serial.command(NOP)

    def close(self, *, blank: bool = False) -> None:
        """Release the bus.  ``blank`` switches the panel off first (a clean stop: OLEDs burn in)."""
        if blank and self.device is not None:
            try:
                self.device.clear()
                self.device.hide()
            except Exception:  # a dead screen cannot be blanked; closing must still release the bus
                pass
        if self.serial is not None:
            _quiet_cleanup(self.serial)
        self.serial = self.device = self.updater = None

    @property
    def bytes_sent(self) -> int:
        return self.serial.total_bytes if self.serial is not None else 0


def _quiet_cleanup(serial: Any) -> None:
    try:
        serial.cleanup()
    except Exception:  # closing a dead bus must not hide the error that killed it
        pass


class DummyScreen:
    """luma's ``dummy`` device: keeps the last image, sends nothing (``show`` reports 0 bytes)."""

    def __init__(self, name: str = "dummy", rotate: int = 0) -> None:
        self.name = name
        self.rotate = rotate
        self.device: Any = None

    def open(self) -> None:
        from luma.core.device import dummy

        self.device = dummy(width=WIDTH, height=HEIGHT, rotate=self.rotate, mode="1")

    def show(self, image: Image.Image) -> int:
        if self.device is None:
            raise OSError(f"{self.name} is not open")
        self.device.display(image)
        return 0

    @property
    def image(self) -> Image.Image | None:
        return None if self.device is None else self.device.image

    def invalidate(self) -> None:
        pass

    def close(self, *, blank: bool = False) -> None:
        self.device = None


@dataclass
class Frame:
    image: Image.Image
    at: float


@dataclass
class CaptureScreen:
    """Collects every distinct frame with the (injected) time it was shown: the demo's GIF source."""

    name: str = "capture"
    clock: Callable[[], float] = time.monotonic
    frames: list[Frame] = field(default_factory=list)

    def open(self) -> None:
        pass

    def show(self, image: Image.Image) -> int:
        image = image if image.mode == "1" else image.convert("1")
        if not self.frames or self.frames[-1].image.tobytes() != image.tobytes():
            self.frames.append(Frame(image.copy(), self.clock()))
        return 0

    def invalidate(self) -> None:
        pass

    def close(self, *, blank: bool = False) -> None:
        pass

    def write_gif(self, path: Any, *, scale: int = 4, label: str | None = None, last_ms: int = 2000) -> None:
        from device.displays.render import write_gif

        write_gif(path, self.frames, scale=scale, label=label, last_ms=last_ms)


@dataclass
class TerminalScreen:
    """Keeps the last frame as terminal text (``style``: ``"halfblock"`` or ``"braille"``)."""

    name: str = "terminal"
    style: str = "braille"
    image: Image.Image | None = None

    def open(self) -> None:
        pass

    def show(self, image: Image.Image) -> int:
        self.image = image.copy()
        return 0

    @property
    def text(self) -> str:
        from device.displays.render import to_text

        return "" if self.image is None else to_text(self.image, self.style)

    def invalidate(self) -> None:
        pass

    def close(self, *, blank: bool = False) -> None:
        pass
