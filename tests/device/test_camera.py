"""Camera backends and the supervisor: failures reported once, backoff, recovery, region crops."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from device.camera import (
    PICAMERA2_MISSING,
    Camera,
    CameraError,
    CameraStatus,
    Frame,
    OpenCVBackend,
    Picamera2Backend,
    ReplayBackend,
    ThreadedBackend,
    backend_from_config,
)
from device.config import CameraBackend, CameraConfig, Region


class FlakyBackend:
    """Scripted: ``plan`` is a list of 'ok' / 'fail' / 'raise' per read; opens fail while ``unplugged``."""

    name = "flaky"

    def __init__(self, plan: list[str]) -> None:
        self.plan = list(plan)
        self.unplugged = False
        self.opens = 0
        self.closes = 0
        self.reads = 0

    def open(self) -> None:
        self.opens += 1
        if self.unplugged:
            raise CameraError("no camera on the bus")

    def read(self) -> np.ndarray:
        self.reads += 1
        step = self.plan.pop(0) if self.plan else "ok"
        if step == "fail":
            raise CameraError("the camera gave no frame")
        if step == "raise":
            raise RuntimeError("driver exploded")
        return np.full((8, 8, 3), self.reads, np.uint8)

    def close(self) -> None:
        self.closes += 1


def test_frames_are_paced_by_fps() -> None:
    cam = Camera(FlakyBackend([]), fps=10)
    assert cam.poll(0.0) is not None
    assert cam.poll(0.05) is None
    frame = cam.poll(0.1)
    assert frame is not None and frame.index == 2 and cam.up


def test_failure_is_reported_once_and_reopened_with_backoff() -> None:
    backend = FlakyBackend(["ok", "fail"])
    cam = Camera(backend, fps=0, reopen_min_s=1.0, reopen_max_s=4.0)
    assert cam.poll(0.0) is not None
    assert cam.poll(0.1) is None
    assert cam.status is CameraStatus.DOWN and cam.message == "the camera gave no frame"
    assert backend.closes == 1
    backend.unplugged = True
    opens = backend.opens
    assert cam.poll(0.5) is None and backend.opens == opens  # 1 s backoff not over
    assert cam.poll(1.1) is None and backend.opens == opens + 1  # tried, failed: next in 2 s
    assert cam.poll(2.0) is None and backend.opens == opens + 1
    assert cam.poll(3.2) is None and backend.opens == opens + 2  # next in 4 s (the cap)
    assert cam.poll(7.3) is None and backend.opens == opens + 3  # still capped at 4 s
    assert cam.poll(10.0) is None and backend.opens == opens + 3
    backend.unplugged = False
    frame = cam.poll(11.4)
    assert frame is not None and cam.up
    # one DOWN when it failed, one UP when it came back: the repeated failures are not re-reported
    assert [(s, m) for _, s, m in cam.changes] == [
        (CameraStatus.UP, "flaky camera working"),
        (CameraStatus.DOWN, "the camera gave no frame"),
        (CameraStatus.UP, "flaky camera working"),
    ]
    assert cam.failures == 0


def test_an_unexpected_exception_is_a_failure_not_a_crash() -> None:
    cam = Camera(FlakyBackend(["raise"]), fps=0)
    assert cam.poll(0.0) is None
    assert cam.status is CameraStatus.DOWN and "driver exploded" in cam.message


def test_a_drivers_error_is_said_in_words_not_as_python_writes_it() -> None:
    """An audit: the journal said "camera lost: picamera2 failed: OSError(5, 'Input/output error')"."""
    from device.camera import driver_words

    assert driver_words(OSError(5, "Input/output error")) == "input/output error (errno 5)"
    assert driver_words(OSError(2, "No such file or directory", "/dev/video0")) == \
        "no such file or directory (errno 2): /dev/video0"
    assert driver_words(RuntimeError("driver exploded")) == "driver exploded"
    assert driver_words(IndexError()) == "IndexError"
    assert driver_words(KeyError("main")) == "KeyError: 'main'"
    cam = Camera(FlakyBackend(["raise"]), fps=0)
    cam.poll(0.0)
    assert cam.message == "flaky failed: driver exploded"


def test_frames_generator_waits_through_failures() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    cam = Camera(FlakyBackend(["ok", "fail", "ok"]), clock=lambda: now[0], fps=0, reopen_min_s=1.0)
    frames = list(cam.frames(max_frames=2, sleep=sleep))
    assert [f.index for f in frames] == [1, 2]
    assert sum(slept) >= 1.0  # it waited for the reopen


def test_region_crop_is_full_resolution() -> None:
    image = np.arange(100 * 200 * 3, dtype=np.uint32).astype(np.uint8).reshape(100, 200, 3)
    frame = Frame(image, 0.0, 1)
    crop = frame.crop(Region(150, 40, 100, 100))  # clipped at the frame's edge
    assert crop.shape == (60, 50, 3)
    assert np.array_equal(crop, image[40:100, 150:200])
    assert frame.crop(None) is image


class FakeCapture:
    def __init__(self, opened: bool, reads: list[tuple[bool, np.ndarray | None]]) -> None:
        self.opened, self.reads, self.released = opened, list(reads), False

    def isOpened(self) -> bool:
        return self.opened

    def read(self):
        return self.reads.pop(0) if self.reads else (False, None)

    def release(self) -> None:
        self.released = True


def test_opencv_backend_reports_a_camera_that_does_not_open() -> None:
    cap = FakeCapture(False, [])
    backend = OpenCVBackend(1, capture_factory=lambda dev: cap)
    with pytest.raises(CameraError, match="webcam 1 did not open"):
        backend.open()
    assert cap.released


def test_a_webcam_whose_device_does_not_exist_is_said_so_with_the_devices_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad-input audit: [camera] device = "/dev/video0" with no such device said "did not open (unplugged, or
    used by another program?)"; `check` says of a missing I2C bus that it does not exist.  The devices that do
    exist are named; a device that exists and does not open is told as before."""
    from device import camera

    monkeypatch.setattr(camera, "VIDEO_DEVICES", tmp_path)
    shut = FakeCapture(False, [])
    with pytest.raises(CameraError, match=f"webcam 1 did not open \\({tmp_path}/video1 does not exist; there is no "
                                          "video device here: is the webcam plugged in\\?\\)"):
        OpenCVBackend(1, capture_factory=lambda dev: shut).open()
    for n in (10, 2, 0):
        (tmp_path / f"video{n}").touch()
    with pytest.raises(CameraError, match=f"video {tmp_path}/video1 did not open \\({tmp_path}/video1 does not exist; "
                                          f"the video devices here: {tmp_path}/video0, {tmp_path}/video2, "
                                          f"{tmp_path}/video10\\)"):
        OpenCVBackend(str(tmp_path / "video1"), capture_factory=lambda dev: shut).open()
    with pytest.raises(CameraError, match=r"webcam 2 did not open \(unplugged, or used by another program\?\)"):
        OpenCVBackend(2, capture_factory=lambda dev: shut).open()


def test_opencv_backend_reads_and_reports_a_lost_camera() -> None:
    gray = np.zeros((4, 6), np.uint8)
    cap = FakeCapture(True, [(True, gray)])
    backend = OpenCVBackend(0, capture_factory=lambda dev: cap)
    backend.open()
    assert backend.read().shape == (4, 6, 3)
    with pytest.raises(CameraError, match="gave no frame"):
        backend.read()


def test_opencv_backend_missing_video_file(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="does not exist"):
        OpenCVBackend(str(tmp_path / "none.mp4")).open()


def _frames(folder: Path, n: int) -> None:
    folder.mkdir()
    for i in range(n):
        cv2.imwrite(str(folder / f"f{i:03d}.png"), np.full((6, 8, 3), i * 10, np.uint8))


def test_replay_reads_in_name_order_and_ends_or_loops(tmp_path: Path) -> None:
    _frames(tmp_path / "frames", 3)
    once = ReplayBackend(tmp_path / "frames", loop=False)
    once.open()
    assert [int(once.read()[0, 0, 0]) for _ in range(3)] == [0, 10, 20]
    with pytest.raises(CameraError, match="has ended"):
        once.read()
    looping = ReplayBackend(tmp_path / "frames")
    looping.open()
    assert [int(looping.read()[0, 0, 0]) for _ in range(4)] == [0, 10, 20, 0]


def test_replay_errors(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="does not exist"):
        ReplayBackend(tmp_path / "nope").open()
    (tmp_path / "empty").mkdir()
    with pytest.raises(CameraError, match="holds no frames"):
        ReplayBackend(tmp_path / "empty").open()
    # seen: device set to a file said "replay folder … does not exist" (it exists: it is a file)
    (tmp_path / "night.mp4").write_bytes(b"\x00")
    with pytest.raises(CameraError, match='is a file, not a folder.*backend = "opencv"'):
        ReplayBackend(tmp_path / "night.mp4").open()


def test_the_opencv_backend_given_a_folder_points_to_replay(tmp_path: Path) -> None:
    """Seen: backend "opencv" with a folder of frames: "did not open (unplugged, or used by another program?)"."""
    from device.camera import OpenCVBackend

    with pytest.raises(CameraError, match='is a folder, not a video.*backend = "replay"'):
        OpenCVBackend(str(tmp_path)).open()


def test_a_camera_that_disappears_and_comes_back_through_replay(tmp_path: Path) -> None:
    folder = tmp_path / "frames"
    _frames(folder, 1)
    cam = Camera(ReplayBackend(folder, loop=False), fps=0, reopen_min_s=1.0)
    assert cam.poll(0.0) is not None
    assert cam.poll(0.1) is None and not cam.up  # the folder ended: like an unplugged camera
    assert cam.poll(1.2) is not None and cam.up  # reopened from the start


@pytest.mark.skipif(importlib.util.find_spec("picamera2") is not None, reason="picamera2 is installed here")
def test_picamera2_on_a_pc_says_where_it_comes_from() -> None:
    with pytest.raises(CameraError) as info:
        Picamera2Backend().open()
    assert str(info.value) == PICAMERA2_MISSING
    cam = Camera(Picamera2Backend(), fps=0)
    assert cam.poll(0.0) is None and cam.message == PICAMERA2_MISSING


def test_backend_from_config() -> None:
    assert backend_from_config(CameraConfig()) is None
    assert isinstance(backend_from_config(CameraConfig(CameraBackend.PICAMERA2)), Picamera2Backend)
    assert isinstance(backend_from_config(CameraConfig(CameraBackend.OPENCV, device=2)), OpenCVBackend)
    assert isinstance(backend_from_config(CameraConfig(CameraBackend.REPLAY, device="x")), ReplayBackend)


def test_threaded_backend_hands_over_the_newest_frame_and_then_the_failure() -> None:
    inner = FlakyBackend(["ok", "ok", "fail"])
    threaded = ThreadedBackend(inner)
    threaded.open(start=False)  # the thread's body is pump(): called here by hand
    assert threaded.read() is None  # nothing yet: not a failure
    assert threaded.pump() and threaded.pump()
    image = threaded.read()
    assert image is not None and int(image[0, 0, 0]) == 2  # the newest of the two
    assert threaded.read() is None  # taken already
    assert not threaded.pump()  # the inner camera failed: the thread would stop here
    with pytest.raises(CameraError, match="gave no frame"):
        threaded.read()
    threaded.close()
    assert inner.closes == 1


def test_camera_treats_no_new_frame_as_waiting_not_failing() -> None:
    inner = FlakyBackend(["ok"])
    threaded = ThreadedBackend(inner)
    cam = Camera(threaded, fps=0)
    threaded.open = lambda: ThreadedBackend.open(threaded, start=False)  # type: ignore[method-assign]
    assert cam.poll(0.0) is None and cam.status is CameraStatus.DOWN and cam.failures == 0
    threaded.pump()
    assert cam.poll(0.1) is not None and cam.up


def test_a_camera_that_stops_giving_frames_without_an_error_is_down_and_opened_again() -> None:
    """An audit: a camera whose read blocked forever (a loose ribbon cable hangs libcamera; ThreadedBackend's
    thread waits in it) or gave none was never noticed: "picamera2 camera working", and a roll waited on the
    camera without a word.  No frame for STALL_S is a failure like any other: closed, said, opened again."""
    inner = FlakyBackend(["ok"])
    threaded = ThreadedBackend(inner)
    threaded.open = lambda: ThreadedBackend.open(threaded, start=False)  # type: ignore[method-assign]
    cam = Camera(threaded, fps=0, stall_s=5.0, reopen_min_s=1.0)
    assert cam.poll(0.0) is None and cam.status is CameraStatus.DOWN and cam.failures == 0  # starting: no frame yet
    assert cam.poll(4.9) is None and cam.failures == 0  # a camera warming up is given its seconds
    threaded.pump()
    assert cam.poll(5.0) is not None and cam.up
    for t in (6.0, 8.0, 10.0):  # frames stop: the thread's read never returns, nothing is raised
        assert cam.poll(t) is None and cam.up
    assert cam.poll(10.1) is None and cam.status is CameraStatus.DOWN
    assert cam.message == "the flaky camera gave no frame for 5 s (a loose cable, or a camera that hung)"
    assert inner.closes == 1 and cam.changes[-1][1] is CameraStatus.DOWN
    assert cam.poll(10.5) is None and inner.opens == 1  # backoff: not yet opened again
    assert cam.poll(11.2) is None and inner.opens == 2  # opened again (it gives no frame yet)
    threaded.pump()
    assert cam.poll(11.3) is not None and cam.up  # back


class HangingBackend:
    """One frame, then a read that blocks (a loose ribbon cable hangs libcamera) until ``release`` is set;
    counts the reads in progress at once."""

    name = "hanging"

    def __init__(self) -> None:
        import threading

        self.release = threading.Event()
        self.lock = threading.Lock()
        self.reads = self.busy = self.most_busy = self.opens = self.closes = 0

    def open(self) -> None:
        self.opens += 1

    def read(self) -> np.ndarray:
        with self.lock:
            self.reads += 1
            n = self.reads
            self.busy += 1
            self.most_busy = max(self.most_busy, self.busy)
        try:
            if n > 1 and not self.release.is_set():
                self.release.wait(5.0)
            else:
                import time

                time.sleep(0.01)
            return np.full((8, 8, 3), 7, np.uint8)
        finally:
            with self.lock:
                self.busy -= 1

    def close(self) -> None:
        self.closes += 1


def _back_once_the_driver_returns(cam: Camera, thread: str, t: float) -> Any:
    """Wait for the hung session's thread (named ``thread``) to end, then poll from ``t`` until a frame comes."""
    import threading
    import time

    for _ in range(100):
        if not any(th.name == thread and th.is_alive() for th in threading.enumerate()):
            break
        time.sleep(0.01)
    frame = None
    for _ in range(200):
        t += 0.2
        frame = cam.poll(t)
        if frame is not None:
            break
        time.sleep(0.01)
    return frame


def test_a_hung_read_on_the_camera_thread_neither_freezes_the_loop_nor_reads_beside_a_new_one() -> None:
    """A review: at a stall, closing waited 2 s for the hung thread (the loop froze at every stall), then the
    reopen cleared its stop and started another: once the cable was reseated, two threads read the driver at
    once.  Now the loop is not held, the camera says it hung until the read returns, and then opens again."""
    import time

    inner = HangingBackend()
    threaded = ThreadedBackend(inner)
    cam = Camera(threaded, fps=0, stall_s=0.5, reopen_min_s=0.1, reopen_max_s=0.1)
    t = 0.0
    frame = None
    for _ in range(200):  # the first frame, from the real thread
        frame = cam.poll(t)
        if frame is not None:
            break
        time.sleep(0.01)
    assert frame is not None and cam.up
    for _ in range(500):  # until the thread is inside its second read, which hangs
        if inner.reads == 2 and inner.busy == 1:
            break
        time.sleep(0.01)
    t0 = time.monotonic()
    assert cam.poll(t + 0.6) is None and cam.status is CameraStatus.DOWN  # no frame for 0.5 s: down
    assert time.monotonic() - t0 < 1.0  # the loop is not held for the hung thread
    assert inner.closes == 0  # the driver is not closed under the read in progress
    assert cam.poll(t + 0.8) is None and "hanging camera hung (the driver never returned from its last open or read)" in cam.message
    assert inner.opens == 1  # not opened again beside the hung read
    inner.release.set()  # the cable reseated: the hung read returns, its session is over
    frame = _back_once_the_driver_returns(cam, "camera-hanging", 1.0)
    assert frame is not None and cam.up and inner.opens == 2 and inner.closes == 1
    assert inner.most_busy == 1  # never two reads at once
    threaded.close()


class BlockingOpen:
    """A driver whose open blocks until ``release`` is set (an audit: a device that never answers), then gives
    frames; or whose open fails (``fail``)."""

    name = "blocking"

    def __init__(self, fail: bool = False) -> None:
        import threading

        self.release = threading.Event()
        self.fail = fail
        self.opens = self.closes = 0

    def open(self) -> None:
        self.opens += 1
        if self.fail:
            raise CameraError("no camera at /dev/video7")
        self.release.wait(10.0)

    def read(self) -> np.ndarray:
        import time

        time.sleep(0.01)
        return np.full((8, 8, 3), 5, np.uint8)

    def close(self) -> None:
        self.closes += 1


def test_a_camera_whose_open_never_returns_neither_freezes_the_loop_nor_goes_unsaid() -> None:
    """An audit: a camera whose open blocked (a device that never answers) held the loop's thread: presses did
    nothing, SIGTERM waited, no CAMERA OFF. The driver is opened on the camera's thread: the loop goes on, the
    camera is down once it gave no first frame for twice STALL_S, said hung until the open returns, then opened
    again."""
    import time

    inner = BlockingOpen()
    threaded = ThreadedBackend(inner)
    cam = Camera(threaded, fps=0, stall_s=0.5, reopen_min_s=0.1, reopen_max_s=0.1)
    t0 = time.monotonic()
    assert cam.poll(0.0) is None and cam.poll(0.9) is None and cam.failures == 0  # a camera starting: its seconds
    assert time.monotonic() - t0 < 0.5  # the loop is not held
    assert cam.poll(1.1) is None and cam.status is CameraStatus.DOWN
    assert cam.message == "the blocking camera gave no frame for 1 s (a loose cable, or a camera that hung)"
    assert cam.poll(1.3) is None and "blocking camera hung (the driver never returned" in cam.message
    assert inner.opens == 1 and inner.closes == 0  # not opened again beside the open in progress, nor closed under it
    inner.release.set()  # the open returns: that session is over
    frame = _back_once_the_driver_returns(cam, "camera-blocking", 1.3)
    assert frame is not None and cam.up and inner.opens == 2 and inner.closes == 1
    threaded.close()


def test_a_camera_whose_open_fails_on_its_thread_is_said_as_before() -> None:
    import time

    cam = Camera(ThreadedBackend(BlockingOpen(fail=True)), fps=0, stall_s=5.0)
    for k in range(100):
        cam.poll(k * 0.01)
        if cam.changes:
            break
        time.sleep(0.01)
    assert cam.status is CameraStatus.DOWN and cam.message == "no camera at /dev/video7" and cam.failures == 1


def test_first_frame_gives_up_on_a_camera_that_never_opens() -> None:
    """An audit: `check` with [camera] device naming a pipe nobody writes to printed nothing, for ever."""
    import time

    from device.camera import first_frame

    inner = BlockingOpen()
    t0 = time.monotonic()
    with pytest.raises(CameraError, match=r"the blocking camera did not open or give a frame within 0.3 s .*\[camera\]"):
        first_frame(inner, limit_s=0.3)
    assert time.monotonic() - t0 < 2.0
    inner.release.set()


def test_first_frame_waits_out_dropped_frames_and_always_closes() -> None:
    """One-off frames (`check`, `teach dice --camera`): a webcam's first reads may fail while exposure
    settles; the first frame it gives is taken, and the camera is closed whatever happened."""
    import numpy as np

    from device.camera import CameraError, first_frame

    class Flaky:
        name = "flaky"

        def __init__(self, fails: int, open_error: Exception | None = None) -> None:
            self.fails, self.open_error, self.closed, self.reads = fails, open_error, False, 0

        def open(self) -> None:
            if self.open_error is not None:
                raise self.open_error

        def read(self):
            self.reads += 1
            if self.reads <= self.fails:
                raise CameraError(f"dropped frame {self.reads}")
            return np.zeros((4, 6, 3), np.uint8)

        def close(self) -> None:
            self.closed = True

    cam = Flaky(fails=3)
    image, last = first_frame(cam, wait_s=0)
    assert image is not None and image.shape == (4, 6, 3) and last is None and cam.reads == 4 and cam.closed
    cam = Flaky(fails=9)
    image, last = first_frame(cam, wait_s=0)
    assert image is None and str(last) == "dropped frame 5" and cam.reads == 5 and cam.closed
    cam = Flaky(fails=0, open_error=CameraError("no camera at index 0"))
    with pytest.raises(CameraError, match="no camera at index 0"):
        first_frame(cam, wait_s=0)
    assert cam.closed


def test_picamera2_that_cannot_load_names_what_failed_and_a_camera_that_fails_is_let_go(tmp_path: Path,
                                                                                      monkeypatch) -> None:
    """A deploy audit: any ImportError read "picamera2 is not installed", also when it was and a module it
    loads was not; and a camera that failed to configure was not closed (the next try could find it busy)."""
    import sys

    pkg = tmp_path / "site" / "picamera2"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("import libcamera_not_here_at_all\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    with pytest.raises(CameraError) as info:
        Picamera2Backend().open()
    said = str(info.value)
    assert said.startswith("picamera2 is installed but could not be loaded (No module named "
                           "'libcamera_not_here_at_all')") and "apt install --reinstall python3-picamera2" in said

    closed: list[bool] = []

    class Broken:
        def create_video_configuration(self, **_: object) -> dict:
            return {}

        def configure(self, _config: object) -> None:
            raise RuntimeError("Camera frontend has timed out!")

        def close(self) -> None:
            closed.append(True)

    fake = type(sys)("picamera2")
    fake.Picamera2 = Broken  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", fake)
    with pytest.raises(CameraError) as info:
        Picamera2Backend().open()
    assert "the Pi camera did not start (Camera frontend has timed out!)" in str(info.value)
    assert closed == [True]


def test_check_names_the_device_of_a_camera_that_opened_and_gave_no_frame() -> None:
    """An audit: `[camera] device` naming a JPEG: "FAIL camera (opencv): opened but gave no frame", no file named
    and nothing to do."""
    import dataclasses

    from device.cli_device import probe_camera
    from device.config import CameraBackend, PitboardConfig

    class Silent:
        name = "opencv"

        def open(self) -> None:
            pass

        def read(self) -> None:
            return None

        def close(self) -> None:
            pass

    config = PitboardConfig()
    config = dataclasses.replace(config, camera=dataclasses.replace(config.camera, backend=CameraBackend.OPENCV,
                                                                    device="/srv/shots/text.jpg"))
    line = probe_camera(config, Silent())
    assert line.status == "FAIL" and "[camera] device = '/srv/shots/text.jpg'" in line.detail
    assert "is it the camera" in line.detail


def test_a_camera_closed_while_its_driver_opens_is_closed_once_the_open_returns() -> None:
    """A review: the appliance stopping while the driver's open was slow left the driver open."""
    import threading
    import time

    inner = BlockingOpen()
    threaded = ThreadedBackend(inner)
    threaded.open()
    time.sleep(0.05)
    threaded.close()  # the open is still in the driver: not waited on, not closed under it
    assert inner.closes == 0
    inner.release.set()
    for _ in range(200):
        if not any(th.name == "camera-blocking" and th.is_alive() for th in threading.enumerate()):
            break
        time.sleep(0.01)
    assert inner.opens == 1 and inner.closes == 1
