"""Serial transports in luma's shape (``command(*bytes)``, ``data(bytes)``, ``cleanup()``).

luma.oled drivers talk to the bus only through a *serial interface* object, so everything the screens
need beyond luma is a wrapper of that shape:

* :class:`CountingSerial` counts what actually went to a screen (command and data bytes, transfers), which
  is how the benchmark knows the cost of an update.
* :class:`MuxedSerial` selects a TCA9548A channel before every transfer.  All screens behind one mux share
  one :class:`Mux` and therefore one lock, so a channel select and the transfer that needs it can never be
  split by another thread's select.
* :class:`RecordingSerial` stands in for the bus in tests and benchmarks: it records every byte, and can be
  told to fail like a screen that lost power (``OSError(EIO)``), so no test needs ``/dev/i2c-*``.
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import luma.core.error

#: What a bus fault looks like: smbus2 raises OSError, luma's i2c turns EIO/EREMOTEIO into its own errors.
BUS_ERRORS: tuple[type[BaseException], ...] = (OSError, luma.core.error.Error)


class SerialLike(Protocol):
    """luma.core's serial interface shape."""

    def command(self, *cmd: int) -> None: ...

    def data(self, data: Sequence[int]) -> None: ...

    def cleanup(self) -> None: ...


class SMBusLike(Protocol):
    """The part of ``smbus2.SMBus`` the mux needs."""

    def write_byte(self, i2c_addr: int, value: int, force: bool | None = None) -> None: ...


@dataclass(frozen=True)
class Transfer:
    """One recorded transfer: ``kind`` is ``"command"`` or ``"data"``."""

    kind: str
    payload: bytes


@dataclass
class RecordingSerial:
    """A serial interface that keeps every transfer instead of driving a bus.

    ``fail`` makes every transfer raise ``OSError(EIO)`` (what smbus2 raises when nobody acknowledges the
    address), so tests can unplug a screen and plug it back in.
    """

    transfers: list[Transfer] = field(default_factory=list)
    fail: bool = False
    closed: bool = False

    def _check(self) -> None:
        if self.fail:
            raise OSError(errno.EIO, "Remote I/O error (recording serial told to fail)")

    def command(self, *cmd: int) -> None:
        self._check()
        self.transfers.append(Transfer("command", bytes(cmd)))

    def data(self, data: Sequence[int]) -> None:
        self._check()
        self.transfers.append(Transfer("data", bytes(data)))

    def cleanup(self) -> None:
        self.closed = True

    def clear(self) -> None:
        self.transfers.clear()

    @property
    def byte_count(self) -> int:
        return sum(len(t.payload) for t in self.transfers)


class CountingSerial:
    """Wraps a serial interface and counts what went through it (only transfers that did not raise)."""

    def __init__(self, inner: SerialLike) -> None:
        self.inner = inner
        self.command_bytes = 0
        self.data_bytes = 0
        self.transfers = 0
        #: The commands sent before the first data (a controller's set-up: the luma device's init sequence
        #: and contrast), kept so that they can be sent again to a screen that lost power (see LumaScreen).
        self.setup: list[tuple[int, ...]] = []
        self._setting_up = True

    def command(self, *cmd: int) -> None:
        self.inner.command(*cmd)
        self.command_bytes += len(cmd)
        self.transfers += 1
        if self._setting_up:
            self.setup.append(tuple(cmd))

    def data(self, data: Sequence[int]) -> None:
        self.inner.data(data)
        self.data_bytes += len(data)
        self.transfers += 1
        if self._setting_up:
            self._setting_up = False
            if self.setup:
                self.setup.pop()  # the window the data went to (a column/page address) is no set-up

    def cleanup(self) -> None:
        self.inner.cleanup()

    @property
    def total_bytes(self) -> int:
        """Command plus data bytes: the payload the controller received."""
        return self.command_bytes + self.data_bytes

    def snapshot(self) -> tuple[int, int, int]:
        return (self.command_bytes, self.data_bytes, self.transfers)


class Mux:
    """One TCA9548A: its bus, its address and the lock every screen behind it shares."""

    def __init__(self, bus: SMBusLike, address: int = 0x70) -> None:
        if not 0x70 <= address <= 0x77:
            raise ValueError(f"TCA9548A address 0x{address:02X} is impossible; allowed: 0x70..0x77")
        self.bus = bus
        self.address = address
        self.lock = threading.RLock()
        self.selects = 0

    def select(self, channel: int) -> None:
        """Route the downstream bus to ``channel`` (the control register is a bit mask).  Call with the
        lock held."""
        self.bus.write_byte(self.address, 1 << channel)
        self.selects += 1


class MuxedSerial:
    """A luma serial interface behind a TCA9548A channel.

    Every transfer is ``select channel`` + ``transfer`` under the mux's lock.  Selecting before *every*
    transfer (rather than remembering the last channel) costs two bytes on the wire but survives a mux that
    was reset by a power glitch, which would otherwise send the next frame to nobody.
    """

    def __init__(self, inner: SerialLike, mux: Mux, channel: int) -> None:
        if not 0 <= channel <= 7:
            raise ValueError(f"TCA9548A channel {channel} does not exist; allowed: 0..7")
        self.inner = inner
        self.mux = mux
        self.channel = channel

    def command(self, *cmd: int) -> None:
        with self.mux.lock:
            self.mux.select(self.channel)
            self.inner.command(*cmd)

    def data(self, data: Sequence[int]) -> None:
        with self.mux.lock:
            self.mux.select(self.channel)
            self.inner.data(data)

    def cleanup(self) -> None:
        self.inner.cleanup()


class MuxRegistry:
    """Hands out one :class:`Mux` per (I2C port, mux address), so screens on the same mux share its lock."""

    def __init__(self, bus_factory: Callable[[int], Any] | None = None) -> None:
        self._bus_factory = bus_factory or _smbus
        self._muxes: dict[tuple[int, int], Mux] = {}
        self._lock = threading.Lock()

    def get(self, port: int, address: int) -> Mux:
        with self._lock:
            key = (port, address)
            if key not in self._muxes:
                self._muxes[key] = Mux(self._bus_factory(port), address)
            return self._muxes[key]


def _smbus(port: int) -> Any:
    import smbus2  # only on the real bus

    return smbus2.SMBus(port)
