"""Headless Chromium from Debian's packages (``apt-get install chromium chromium-driver``) driven by
selenium, and a simulator serving the page in a thread.  No browser is ever downloaded."""

from __future__ import annotations

import io
import os
import queue
import shutil
import threading
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=900,1000")


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not Path(path).exists():
            return f"{path} is missing: apt-get install -y chromium chromium-driver (Debian's {package})"
    return None


def browser(profile: Path) -> Any:
    os.environ.setdefault("SE_OFFLINE", "true")  # selenium never fetches a driver or a browser
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


class ServedSim:
    """``pitboard sim GAME --web 127.0.0.1:0`` in this process: the loop on a thread of its own, keys
    pushed with :meth:`keys` (as typed at the terminal)."""

    def __init__(self, tmp: Path, game: str = "gaslands", dice_images: Path | None = None,
                 setup: Path | None = None) -> None:
        self.out = io.StringIO()
        self._keys: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._stop = False
        self._ready = threading.Event()
        self.error: BaseException | None = None
        self.sim: Any = None
        # The sim is made, run and closed on one thread: the game log's SQLite connection belongs to it.
        self.thread = threading.Thread(target=self._run, args=(tmp, game, dice_images, setup),
                                       daemon=True)
        self.thread.start()
        self._ready.wait(30)
        if self.sim is None:
            raise RuntimeError(f"the sim did not start: {self.error!r}")

    def _run(self, tmp: Path, game: str, dice_images: Path | None, setup: Path | None) -> None:
        from device.sim import Sim

        try:
            self.sim = Sim(game, db=tmp / "sim.sqlite", out=self.out, web="127.0.0.1:0", dice_images=dice_images,
                           setup=setup)
            self.sim.step()
        except BaseException as exc:  # noqa: BLE001 - reported by __init__
            self.error = exc
            self._ready.set()
            return
        self._ready.set()
        try:
            self.sim.serve(iter(self._keys.get, None), stop=lambda: self._stop)
        finally:
            self.sim.close()

    @property
    def url(self) -> str:
        return self.sim.web.url

    @property
    def code(self) -> str:
        return self.sim.web.code

    def keys(self, text: str) -> None:
        for ch in text:
            self._keys.put(ch)

    def close(self) -> None:
        self._stop = True
        self._keys.put(None)
        self.thread.join(timeout=10)


def save_shot(driver: Any, path: Path) -> None:
    """A screenshot of the whole page (up to 2400 px high), reduced to 48 colours (the pages are flat: a few
    tens of KB)."""
    from PIL import Image

    size = driver.get_window_size()
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    driver.set_window_size(size["width"], min(max(height, 600), 2400))
    try:
        image = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
    finally:
        driver.set_window_size(size["width"], size["height"])
    image.quantize(colors=48).save(path, optimize=True)
