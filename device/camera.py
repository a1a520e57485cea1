"""The camera over the table: one interface, several backends, and a supervisor that survives failures.

* :class:`Picamera2Backend` — the Pi camera (Camera Module 3), imported lazily so that a PC never needs
  it; on a PC it says where picamera2 comes from.
* :class:`OpenCVBackend` — ``cv2.VideoCapture``: a USB webcam by index, or a video file.
* :class:`ReplayBackend` — a folder of frames (PNG/JPEG), in name order: tests, the simulator, and
  replaying a recorded evening.

Frames are BGR ``uint8`` arrays at the configured (full) resolution, the convention of OpenCV and of
``vision/``; picamera2's ``RGB888`` format is already BGR in memory.  :meth:`Frame.crop` cuts the dice
tray from the *full-resolution* frame, so the dice are read with every pixel the sensor gives, while the
table can be read from a scaled copy.

:class:`Camera` is what the main loop holds.  A backend that fails (``read`` returns False, an
exception, a camera unplugged) is closed and reported once (:attr:`Camera.status` turns DOWN with a
message the screens show); the loop carries on with manual entry, and :meth:`Camera.poll` reopens the
backend with exponential backoff (1 s, 2 s, 4 s … up to ``reopen_max_s``) measured on the injected
clock.  Nothing here sleeps or starts a thread: the loop decides when to call.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from device.config import CameraBackend as BackendName
from device.config import CameraConfig, Region
from device.safe_files import FileProblem, read_image

Clock = Callable[[], float]

PICAMERA2_MISSING = "picamera2 is not installed: it comes from Raspberry Pi OS (apt install python3-picamera2)"
FRAME_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")


class CameraError(Exception):
    """The camera cannot give a frame; the message says what happened (and, where known, what to do)."""


def driver_words(exc: BaseException) -> str:
    """A driver's exception in words for the journal: "input/output error (errno 5)", not Python's
    "OSError(5, 'Input/output error')" (an audit); its kind before its words unless it is a plain
    RuntimeError; its kind alone when it says nothing."""
    if isinstance(exc, OSError) and exc.strerror:
        said = f"{exc.strerror[:1].lower()}{exc.strerror[1:]} (errno {exc.errno})"
        return f"{said}: {exc.filename}" if exc.filename else said
    said = str(exc)
    if not said:
        return type(exc).__name__
    # (a RuntimeError's words are the driver's own; another's need its kind: "picamera2 failed: 'main'" said
    # nothing of a KeyError; a review)
    return said if type(exc) in (RuntimeError, CameraError) else f"{type(exc).__name__}: {said}"


@dataclass(frozen=True)
class Frame:
    image: np.ndarray  # BGR uint8, full resolution
    t: float
    index: int

    def crop(self, region: Region | None) -> np.ndarray:
        """The region at full resolution (a view, not a copy); the whole frame when ``region`` is None."""
        if region is None:
            return self.image
        h, w = self.image.shape[:2]
        x0, y0 = min(region.x, w), min(region.y, h)
        return self.image[y0:min(region.y + region.height, h), x0:min(region.x + region.width, w)]


class Backend(Protocol):
    name: str

    def open(self) -> None:
        """Acquire the device; raise :class:`CameraError`."""
        ...

    def read(self) -> np.ndarray | None:
        """One BGR frame; None when no new frame is ready yet (not a failure); raise
        :class:`CameraError` when the camera cannot give one."""
        ...

    def close(self) -> None:
        ...


class Picamera2Backend:
    """The Raspberry Pi camera through picamera2 (libcamera)."""

    name = "picamera2"

    def __init__(self, width: int = 2304, height: int = 1296, fps: float = 10.0) -> None:
        self.size = (width, height)
        self.fps = fps
        self._cam: Any = None

    def open(self) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as exc:
            if exc.name in (None, "picamera2"):
                raise CameraError(PICAMERA2_MISSING) from None
            # installed, but something it loads is not (a deploy audit: every such failure read "not installed")
            raise CameraError(f"picamera2 is installed but could not be loaded ({exc}): reinstall it from Raspberry "
                              "Pi OS (sudo apt install --reinstall python3-picamera2 python3-libcamera)") from None
        cam: Any = None
        try:
            cam = Picamera2()
            config = cam.create_video_configuration(
                main={"size": self.size, "format": "RGB888"},  # RGB888 is BGR byte order: OpenCV's
                controls={"FrameRate": self.fps},
                buffer_count=2,
            )
            cam.configure(config)
            cam.start()
        except Exception as exc:  # libcamera raises RuntimeError/IndexError when no camera is attached
            if cam is not None:  # a camera that failed to configure or start is let go, or the next try finds it busy
                with contextlib.suppress(Exception):
                    cam.close()
            raise CameraError(f"the Pi camera did not start ({exc}); check the ribbon cable and "
                              "camera_auto_detect=1 in config.txt") from exc
        self._cam = cam

    def read(self) -> np.ndarray:
        if self._cam is None:
            raise CameraError("the Pi camera is not open")
        try:
            return np.ascontiguousarray(self._cam.capture_array("main")[:, :, :3])
        except Exception as exc:
            raise CameraError(f"the Pi camera stopped giving frames ({exc})") from exc

    def close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.stop()
                self._cam.close()
            except Exception:
                pass
            self._cam = None


#: Where Linux lists its video devices (a test points it elsewhere).
VIDEO_DEVICES = Path("/dev")


def _why_not_open(device: int | str) -> str:
    """Why a webcam did not open, as far as the video devices say: a device that does not exist is said so,
    with those that do (an audit: "unplugged, or used by another program?" for a /dev/video0 that was not
    there, where `check` says of a missing I2C bus that it does not exist)."""
    node = VIDEO_DEVICES / f"video{device}" if isinstance(device, int) else Path(device)
    if not VIDEO_DEVICES.is_dir() or not str(node).startswith(str(VIDEO_DEVICES)) or node.exists():
        return "unplugged, or used by another program?"
    there = sorted((p for p in VIDEO_DEVICES.glob("video*") if p.name[5:].isdigit()), key=lambda p: int(p.name[5:]))
    listed = (f"the video devices here: {', '.join(str(p) for p in there[:6])}{' ...' if len(there) > 6 else ''}"
              if there else "there is no video device here: is the webcam plugged in?")
    return f"{node} does not exist; {listed}"


class OpenCVBackend:
    """``cv2.VideoCapture``: a webcam index (0, 1 ..) or a video file path."""

    name = "opencv"

    def __init__(self, device: int | str = 0, width: int | None = None, height: int | None = None,
                 fps: float | None = None, *, capture_factory: Callable[[int | str], Any] | None = None) -> None:
        self.device = device
        self.width, self.height, self.fps = width, height, fps
        self._factory = capture_factory
        self._cap: Any = None

    def open(self) -> None:
        if isinstance(self.device, str) and not self.device.startswith(f"{VIDEO_DEVICES}/") \
                and not Path(self.device).exists():
            raise CameraError(f"video file {self.device} does not exist")
        if isinstance(self.device, str) and Path(self.device).is_dir():
            raise CameraError(f"{self.device} is a folder, not a video: for a folder of frames use "
                              "[camera] backend = \"replay\"")
        if self._factory is not None:
            cap = self._factory(self.device)
        else:
            import cv2

            from device.safe_files import opencv_quiet

            # OpenCV's own "[ WARN:0@0.2] global cap_v4l.cpp ... can't open camera by index" came before the
            # words below, which say it
            with opencv_quiet():
                cap = cv2.VideoCapture(self.device)
            if isinstance(self.device, int):
                if self.width:
                    cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
                if self.height:
                    cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
                if self.fps:
                    cap.set(cv2.CAP_PROP_FPS, self.fps)
        if not cap.isOpened():
            cap.release()
            what = f"webcam {self.device}" if isinstance(self.device, int) else f"video {self.device}"
            raise CameraError(f"{what} did not open ({_why_not_open(self.device)})")
        self._cap = cap

    def read(self) -> np.ndarray:
        if self._cap is None:
            raise CameraError("the camera is not open")
        try:
            ok, image = self._cap.read()
        except Exception as exc:
            raise CameraError(f"reading the camera failed ({exc})") from exc
        if not ok or image is None:
            raise CameraError("the camera gave no frame (unplugged, or the video ended)")
        if image.ndim == 2:
            image = np.repeat(image[:, :, None], 3, axis=2)
        return image

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class ReplayBackend:
    """Frames from a folder, in file-name order.  ``loop`` starts again at the end; otherwise the end of
    the folder is a failure like a camera that went away (which is what a test of recovery wants)."""

    name = "replay"

    def __init__(self, folder: str | Path, *, loop: bool = True) -> None:
        self.folder = Path(folder)
        self.loop = loop
        self._files: list[Path] = []
        self._i = 0

    def open(self) -> None:
        if self.folder.exists() and not self.folder.is_dir():
            raise CameraError(f"replay folder {self.folder} is a file, not a folder: give [camera] device a folder of "
                              "frames (for a video file use backend = \"opencv\")")
        if not self.folder.is_dir():
            raise CameraError(f"replay folder {self.folder} does not exist")
        self._files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in FRAME_SUFFIXES)
        if not self._files:
            raise CameraError(f"replay folder {self.folder} holds no frames ({', '.join(FRAME_SUFFIXES)})")
        self._i = 0

    def read(self) -> np.ndarray:
        if not self._files:
            raise CameraError("the replay is not open")
        if self._i >= len(self._files):
            if not self.loop:
                raise CameraError(f"the replay of {self.folder} has ended")
            self._i = 0
        path = self._files[self._i]
        self._i += 1
        try:
            return read_image(path, what="replay frame")
        except FileProblem as exc:
            raise CameraError(str(exc)) from exc

    def close(self) -> None:
        self._files = []


class StillBackend:
    """One image held until replaced (the simulator's dice tray: ``show(image)`` for each roll)."""

    name = "still"

    def __init__(self, image: np.ndarray | None = None) -> None:
        self.image = image

    def show(self, image: np.ndarray | None) -> None:
        self.image = image

    def open(self) -> None:
        return

    def read(self) -> np.ndarray:
        if self.image is None:
            raise CameraError("no image on the tray yet")
        return self.image

    def close(self) -> None:
        return


class ThreadedBackend:
    """Reads another backend on its own thread and keeps only the newest frame.

    Why: ``capture_array`` and ``VideoCapture.read`` block until the sensor's next frame (up to 1/fps),
    which would hold a button press for that long.  With this wrapper the loop's :meth:`read` never
    blocks: it returns the newest frame not yet taken, or None.  A failure on the thread is handed over
    on the next :meth:`read` and the thread stops; :class:`Camera` then reopens it as usual.  The body of
    the thread is :meth:`pump`, which a test calls directly (no thread needed to test it).
    """

    def __init__(self, inner: Backend) -> None:
        import threading

        self.inner = inner
        self.name = inner.name
        self._lock = threading.Lock()
        self._stop = threading.Event()  # this session's: each open makes its own (see close)
        self._thread: threading.Thread | None = None
        self._hung: threading.Thread | None = None  # a closed session's thread still inside the driver's read
        self._latest: np.ndarray | None = None
        self._error: CameraError | None = None
        self._closed_late = False  # the thread closed the driver after an open that returned once it was stopped

    def open(self, *, start: bool = True) -> None:
        import threading

        if self._hung is not None:
            if self._hung.is_alive():  # its open or read never returned: opening the driver again beside it is not safe
                raise CameraError(f"the {self.name} camera hung (the driver never returned from its last open or "
                                  "read): reseat its cable (it is opened again once the driver returns); if it stays "
                                  "so, restart pitboard (sudo systemctl restart pitboard)")
            self._hung = None
            if not self._closed_late:  # (an open that returned late closed the driver itself)
                self.inner.close()  # the hung session's, closed now that its read has returned
        self._stop = threading.Event()
        self._latest, self._error, self._closed_late = None, None, False
        if not start:
            self.inner.open()
            return
        # the driver is opened on the thread too: an open that never returned (a device that blocks, a driver
        # stuck) froze the loop, the buttons and SIGTERM with it, and no CAMERA OFF came (an audit); now it is a
        # camera that gives no frame, down after STALL_S, and said so
        self._thread = threading.Thread(target=self._run, args=(self._stop, True), name=f"camera-{self.name}",
                                        daemon=True)
        self._thread.start()

    def pump(self, stop: Any = None) -> bool:
        """Read one frame from the inner backend into the slot; False once it failed (the thread ends).
        ``stop``: the session's event; a read that returns after its session was closed is dropped (a
        hung read that came back late must not hand its frame or error to the next session)."""
        try:
            image = self.inner.read()
        except CameraError as exc:
            error = exc
        except Exception as exc:  # a driver bug on the thread must reach the loop, not vanish
            error = CameraError(f"{self.name} failed: {driver_words(exc)}")
        else:
            if image is not None:
                with self._lock:
                    if stop is None or not stop.is_set():
                        self._latest = image
            return True
        self._hand_over(error, stop)
        return False

    def _hand_over(self, error: CameraError, stop: Any) -> None:
        """``error`` for the loop's next :meth:`read`, unless its session was closed (``stop`` set) meanwhile."""
        with self._lock:
            if stop is None or not stop.is_set():
                self._error = error

    def _run(self, stop: Any, opening: bool = False) -> None:
        if opening:
            try:
                self.inner.open()
            except Exception as exc:  # handed to the loop at its next read, as a failed read is
                self._hand_over(exc if isinstance(exc, CameraError) else CameraError(
                    f"{self.name} failed to open: {driver_words(exc)}"), stop)
                return
            if stop.is_set():  # closed while it opened (the appliance stopping): the driver is closed here, as
                self.inner.close()  # close() would have (a review: it was left open)
                self._closed_late = True
                return
        while not stop.is_set() and self.pump(stop):
            pass

    def read(self) -> np.ndarray | None:
        with self._lock:
            if self._latest is not None:
                image, self._latest = self._latest, None
                return image
            if self._error is not None:
                raise self._error
        return None

    def close(self) -> None:
        """Stop the session.  A thread still inside the driver's read (a camera that hung, :data:`STALL_S`) is
        not waited on (the loop froze 2 s at each stall) and the driver is not closed under it: it is closed
        when that read returns, at the next open, which until then says the camera hung (a review: the
        hung thread, its stop cleared by the reopen, read beside the new one once the cable was reseated)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=0.2)
            if thread.is_alive():
                self._hung = thread
                return
        if self._hung is None:
            self.inner.close()


#: Seconds :func:`first_frame` waits for a camera to open and give a frame before saying it hangs.
FIRST_FRAME_S = 15.0


def first_frame(backend: Backend, *, tries: int = 5, wait_s: float = 0.1,
                limit_s: float = FIRST_FRAME_S) -> tuple[np.ndarray | None, CameraError | None]:
    """Open ``backend``, take the first frame it gives within ``tries`` reads (webcams drop their first
    frames while exposure settles: a read's ``CameraError`` means "not yet", ``wait_s`` apart), and close
    it again.  Returns ``(frame, None)``, or ``(None, the last read's error or None)``; an error while
    opening is raised.  For one-off frames (``check``, ``teach --camera``), not the running loop.  A camera
    whose open or read does not return within ``limit_s`` is a :class:`CameraError` (``check`` waited on such a
    device for ever, printing nothing: an audit); the call stuck in the driver is left on its own thread."""
    import threading

    result: list[Any] = []

    def take() -> None:
        try:
            result.append(_first_frame(backend, tries, wait_s))
        except BaseException as exc:  # handed back to the caller's thread
            result.append(exc)

    worker = threading.Thread(target=take, name=f"first-frame-{backend.name}", daemon=True)
    worker.start()
    worker.join(limit_s)
    if not result:
        raise CameraError(f"the {backend.name} camera did not open or give a frame within {limit_s:g} s (a camera "
                          "that hangs, a loose cable, or [camera] device naming something that is not a camera): "
                          "check the cable and [camera] in pitboard.toml, then try again")
    if isinstance(result[0], BaseException):
        raise result[0]
    out: tuple[np.ndarray | None, CameraError | None] = result[0]
    return out


def _first_frame(backend: Backend, tries: int, wait_s: float) -> tuple[np.ndarray | None, CameraError | None]:
    last: CameraError | None = None
    try:
        backend.open()
        for attempt in range(tries):
            try:
                image = backend.read()
            except CameraError as exc:
                last = exc
                if attempt < tries - 1 and wait_s > 0:
                    time.sleep(wait_s)
                continue
            if image is not None:
                return image, None
        return None, last
    finally:
        try:
            backend.close()
        except Exception:  # closing a camera that failed must not hide why it failed
            pass


def backend_from_config(config: CameraConfig) -> Backend | None:
    """The backend the config names (None for ``backend = "none"``)."""
    if config.backend is BackendName.PICAMERA2:
        return Picamera2Backend(config.width, config.height, config.fps)
    if config.backend is BackendName.OPENCV:
        return OpenCVBackend(config.device, config.width, config.height, config.fps)
    if config.backend is BackendName.REPLAY:
        return ReplayBackend(str(config.device))
    return None


#: Seconds an open camera may give no frame before it is down (closed, said on the screens, opened again with
#: backoff).  An audit: a camera whose read blocked forever (a loose ribbon cable hangs libcamera) or gave none
#: was never noticed: "picamera2 camera working", and a roll waited on the camera without a word.  A Pi camera
#: gives its first frame within ~1 s of starting, a webcam within ~2 s.
STALL_S = 5.0


class CameraStatus(str, Enum):
    UP = "up"
    DOWN = "down"


class Camera:
    """A backend under supervision: failures reported once, reopening with backoff, frames at a pace.

    ``poll(now)`` is what the loop calls every iteration: it returns a new :class:`Frame` when one is due
    (``1 / fps`` after the last), None otherwise, and never raises.  ``frames()`` is the same as a
    generator for tools that just want pictures.
    """

    def __init__(self, backend: Backend, *, clock: Clock = time.monotonic, fps: float = 10.0,
                 reopen_min_s: float = 1.0, reopen_max_s: float = 30.0, stall_s: float = STALL_S) -> None:
        self.backend = backend
        #: A camera open but giving no frame for this long is down, as one that fails (see STALL_S).
        self.stall_s = stall_s
        self.clock = clock
        self.period = 1.0 / fps if fps > 0 else 0.0
        self.reopen_min_s = reopen_min_s
        self.reopen_max_s = reopen_max_s
        self.status = CameraStatus.DOWN
        self.message = "camera not opened yet"
        self.failures = 0  # consecutive failed attempts
        self._opened = False
        self._next_attempt = float("-inf")
        self._next_frame = float("-inf")
        self._last_frame_at = float("-inf")  # (or when it was opened)
        self._first = True  # no frame yet since it was opened
        self._index = 0
        #: (time, status, message) for every change: what the app turns into notices.
        self.changes: list[tuple[float, CameraStatus, str]] = []

    @property
    def up(self) -> bool:
        return self.status is CameraStatus.UP

    def _set(self, now: float, status: CameraStatus, message: str) -> None:
        if status is not self.status or (status is CameraStatus.DOWN and not self.changes):
            self.changes.append((now, status, message))
        self.status, self.message = status, message

    def _fail(self, now: float, message: str) -> None:
        self.backend.close()
        self._opened = False
        self.failures += 1
        delay = min(self.reopen_max_s, self.reopen_min_s * 2 ** (self.failures - 1))
        self._next_attempt = now + delay
        self._set(now, CameraStatus.DOWN, message)

    def poll(self, now: float | None = None) -> Frame | None:
        now = self.clock() if now is None else now
        if not self._opened:
            if now < self._next_attempt:
                return None
            try:
                self.backend.open()
            except CameraError as exc:
                self._fail(now, str(exc))
                return None
            except Exception as exc:  # a driver bug must not stop the game
                self._fail(now, f"{self.backend.name} failed to open: {driver_words(exc)}")
                return None
            self._opened = True
            self._last_frame_at = now
            self._first = True
        if now < self._next_frame:
            return None
        try:
            image = self.backend.read()
        except CameraError as exc:
            self._fail(now, str(exc))
            return None
        except Exception as exc:
            self._fail(now, f"{self.backend.name} failed: {driver_words(exc)}")
            return None
        if image is None:  # a threaded backend with no new frame yet: try again next iteration
            # ... unless it has given none for seconds: it hangs (the first frame is given twice as long: a threaded
            # backend opens the driver on its thread, and a Pi camera takes a second or two to open and start)
            limit = self.stall_s * (2 if self._first else 1)
            if now - self._last_frame_at > limit:
                self._fail(now, f"the {self.backend.name} camera gave no frame for {limit:g} s (a loose "
                                "cable, or a camera that hung)")
            return None
        self._first = False
        self.failures = 0
        self._last_frame_at = now
        self._set(now, CameraStatus.UP, f"{self.backend.name} camera working")
        self._next_frame = now + self.period
        self._index += 1
        return Frame(image, now, self._index)

    def frames(self, *, max_frames: int | None = None, sleep: Callable[[float], None] = time.sleep) -> Iterator[Frame]:
        """Frames as they come; waits (with ``sleep``) through failures and backoff."""
        count = 0
        while max_frames is None or count < max_frames:
            frame = self.poll()
            if frame is None:
                now = self.clock()
                wait = (self._next_attempt if not self._opened else self._next_frame) - now
                sleep(max(0.005, min(wait, 1.0)))
                continue
            count += 1
            yield frame

    def close(self) -> None:
        self.backend.close()
        self._opened = False
