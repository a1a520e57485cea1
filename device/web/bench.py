"""``pitboard bench web``: figures for the web page, as JSON.

A simulator (the real loop, rules, store and dashboards; ``--no-log``) runs in a child process and
serves the page; this process is the phone.  Measured:

* press → update: a press POSTed to the page (as its buttons do) until the Server-Sent Event with the
  changed screen arrives (median, p95; each press is SELECT, so every one changes the chooser's screen);
  with ``--browser`` also in headless Chromium, from the button's click to the mirrored image replaced,
  and from a press on the table's panel (the simulator's keyboard) to the mirrored image replaced;
* page weight: the live page's HTML (the screens inlined as PNG), CSS and script, and one update event;
* memory: the child's resident set before the server is started and after it served the presses: what
  the page costs on top of the appliance.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any


def rss_kb() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def child() -> int:
    """The served simulator: prints one JSON line when ready, then ``rss`` lines on request."""
    import queue

    from device.sim import Sim

    out = open(os.devnull, "w")
    sim = Sim("gaslands", keep_log=False, out=out)
    sim.step()
    for _ in range(50):  # the loop warmed up: dashboards drawn, menus built
        sim.tick()
    before = rss_kb()
    sim.start_web("127.0.0.1:0")
    sim.print_screens = False
    started = rss_kb()
    print(json.dumps({"url": sim.web.url, "code": sim.web.code, "rss_before_kb": before, "rss_started_kb": started}),
          flush=True)
    lines: queue.SimpleQueue[str] = queue.SimpleQueue()

    def read() -> None:
        for line in sys.stdin:
            lines.put(line.strip())
        lines.put("quit")

    threading.Thread(target=read, daemon=True).start()
    try:
        while True:
            try:
                cmd = lines.get_nowait()
            except queue.Empty:
                cmd = ""
            if cmd == "quit":
                return 0
            if cmd == "rss":
                print(json.dumps({"rss_kb": rss_kb()}), flush=True)
            if cmd.startswith("key "):
                sim.feed(cmd[4:])  # a press on the panel (the simulator's keyboard), not on the page
            sim.tick()
            time.sleep(0.005)
    finally:
        sim.close()


class Stream:
    """The page's event stream read on a thread: (arrival time, snapshot) pairs."""

    def __init__(self, client: Any, url: str) -> None:
        self.events: list[tuple[float, dict[str, Any]]] = []
        self.bytes: list[int] = []
        self.cond = threading.Condition()
        self.client = client
        self.url = url
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self._read()
        except Exception:  # the server went away at the end of the bench
            pass

    def _read(self) -> None:
        with self.client.stream("GET", self.url + "events", timeout=None) as r:
            data = ""
            for line in r.iter_lines():
                if self.stop:
                    return
                if line.startswith("data: "):
                    data = line[6:]
                elif line == "" and data:
                    with self.cond:
                        self.events.append((time.perf_counter(), json.loads(data)))
                        self.bytes.append(len(data))
                        self.cond.notify_all()
                    data = ""

    def wait_change(self, after: int, status: str | None, timeout: float = 5.0) -> tuple[float, dict[str, Any]]:
        t_end = time.perf_counter() + timeout
        with self.cond:
            while True:
                for t, snap in self.events[after:]:
                    if snap.get("status") != status:
                        return t, snap
                left = t_end - time.perf_counter()
                if left <= 0:
                    raise RuntimeError("no update of the page within 5 s of a press")
                self.cond.wait(left)


def _pct(values: list[float], p: float) -> float:
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(p / 100 * (len(values) - 1)))))
    return values[k]


def run_web_bench(presses: int = 40, browser: bool = False) -> dict[str, Any]:
    import httpx

    root = str(Path(__file__).resolve().parents[2])
    extra = os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else ""
    env = dict(os.environ, PYTHONPATH=root + extra)
    proc = subprocess.Popen([sys.executable, "-m", "device.web.bench", "child"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env, cwd=root)
    assert proc.stdin is not None and proc.stdout is not None
    result: dict[str, Any] = {}
    try:
        ready = json.loads(proc.stdout.readline())
        url, code = ready["url"], ready["code"]
        client = httpx.Client(base_url=url, headers={"accept": "text/html"})
        page = client.get("/pair")
        token = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
        r = client.post("/pair", data={"csrf": token, "code": code}, follow_redirects=True)
        csrf = re.search(r'name="csrf" value="([^"]+)"', r.text).group(1)  # type: ignore[union-attr]
        html = client.get("/").content
        css = client.get("/static/style.css").content
        js = client.get("/static/live.js").content
        stream = Stream(client, url)
        while not stream.events:
            time.sleep(0.01)
        time.sleep(0.3)
        samples = []
        for _ in range(presses):
            with stream.cond:
                n = len(stream.events)
                status = stream.events[-1][1].get("status")
            t0 = time.perf_counter()
            client.post("/press", data={"button": "select"}, headers={"x-csrf-token": csrf})
            t1, _snap = stream.wait_change(n, status)
            samples.append((t1 - t0) * 1000)
            time.sleep(0.05)
        result.update({
            "press_to_update_ms_median": round(statistics.median(samples), 1),
            "press_to_update_ms_p95": round(_pct(samples, 95), 1),
            "press_to_update_ms_max": round(max(samples), 1),
            "press_to_update_presses": len(samples),
            "press_to_update_target_ms": 250,
            "page_html_bytes": len(html), "page_css_bytes": len(css), "page_js_bytes": len(js),
            "page_weight_bytes": len(html) + len(css) + len(js),
            "update_event_bytes_median": int(statistics.median(stream.bytes)),
        })
        if browser:
            result.update(browser_latency(url, code, presses, panel=lambda: _key(proc, "s")))
        proc.stdin.write("rss\n")
        proc.stdin.flush()
        after = json.loads(proc.stdout.readline())["rss_kb"]
        stream.stop = True
        result.update({
            "rss_appliance_kb": ready["rss_before_kb"],
            "rss_with_web_started_kb": ready["rss_started_kb"],
            "rss_with_web_after_presses_kb": after,
            "web_memory_on_top_kb": after - ready["rss_before_kb"],
        })
        client.close()
    finally:
        try:
            proc.stdin.write("quit\n")
            proc.stdin.flush()
        except OSError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return result


CLICK_AND_WAIT = """
var done = arguments[arguments.length - 1];
var img = document.getElementById('screen-0');
var before = img.src;
var t0 = performance.now();
var obs = new MutationObserver(function(){
  if (img.src !== before) { obs.disconnect(); done(performance.now() - t0); }
});
obs.observe(img, {attributes: true});
document.getElementById('btn-select').click();
setTimeout(function(){ obs.disconnect(); done(-1); }, 5000);
"""


WAIT_FOR_CHANGE = """
var done = arguments[arguments.length - 1];
var img = document.getElementById('screen-0');
var before = img.src;
var obs = new MutationObserver(function(){
  if (img.src !== before) { obs.disconnect(); done(Date.now()); }
});
obs.observe(img, {attributes: true});
window.__pitboard_ready = true;
setTimeout(function(){ obs.disconnect(); done(-1); }, 5000);
"""


def _key(proc: Any, key: str) -> float:
    """Press ``key`` on the served simulator's keyboard (the panel); the wall-clock time it was sent (ms)."""
    t0 = time.time() * 1000.0
    proc.stdin.write(f"key {key}\n")
    proc.stdin.flush()
    return t0


def browser_latency(url: str, code: str, presses: int, panel: Any = None) -> dict[str, Any]:
    """Click SELECT on the page in headless Chromium; the time until the mirrored screen is replaced.  With
    ``panel`` (a function pressing SELECT on the table's panel and returning when, in wall-clock ms), also
    the time from that press until the browser replaced the mirrored screen (the browser's own clock and
    this one are the same machine's)."""
    import shutil
    import tempfile

    os.environ.setdefault("SE_OFFLINE", "true")
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver_path:
        return {"browser": "chromium or chromedriver missing: apt-get install -y chromium chromium-driver"}
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    with tempfile.TemporaryDirectory() as profile:
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-dev-shm-usage", f"--user-data-dir={profile}"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
        try:
            driver.set_script_timeout(10)
            driver.get(url + "pair")
            driver.find_element(By.ID, "code").send_keys(code)
            driver.find_element(By.ID, "pair").click()
            time.sleep(0.5)
            samples = []
            for _ in range(presses):
                ms = driver.execute_async_script(CLICK_AND_WAIT)
                if ms >= 0:
                    samples.append(float(ms))
                time.sleep(0.05)
            panel_samples = []
            if panel is not None:
                import concurrent.futures

                with concurrent.futures.ThreadPoolExecutor(1) as pool:
                    for _ in range(presses):
                        done = pool.submit(driver.execute_async_script, WAIT_FOR_CHANGE)
                        time.sleep(0.1)  # the observer is in place
                        t0 = panel()
                        t1 = done.result(timeout=10)
                        if t1 >= 0:
                            panel_samples.append(float(t1) - t0)
                        time.sleep(0.05)
        finally:
            driver.quit()
    if not samples:
        return {"browser": "the page never updated after a click"}
    out = {"browser_click_to_update_ms_median": round(statistics.median(samples), 1),
           "browser_click_to_update_ms_p95": round(_pct(samples, 95), 1), "browser_presses": len(samples)}
    if panel_samples:
        out.update({"browser_panel_press_to_update_ms_median": round(statistics.median(panel_samples), 1),
                    "browser_panel_press_to_update_ms_p95": round(_pct(panel_samples, 95), 1),
                    "browser_panel_presses": len(panel_samples)})
    return out


if __name__ == "__main__":  # pragma: no cover - the bench's child process
    if sys.argv[1:] == ["child"]:
        sys.exit(child())
    print(json.dumps(run_web_bench(), indent=2, sort_keys=True))
