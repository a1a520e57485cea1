"""The web page in a real browser (headless Chromium + selenium) against a simulator serving it: pair,
see the mirror change after a button press, fill in the chart and see a verdict change, read a game's
timeline.  Skipped, saying why, where chromium, chromium-driver or selenium is missing.

``PITBOARD_SCREENSHOTS=docs/web`` saves a screenshot of each page there (how docs/web/*.png are made);
otherwise they go to the test's temporary folder."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from browser_helpers import ServedSim, browser, missing, save_shot

why = missing()
pytestmark = pytest.mark.skipif(why is not None, reason=f"no browser for the web tests: {why}")


@pytest.fixture
def served(tmp_path, monkeypatch):
    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    s = ServedSim(tmp_path)
    yield s
    s.close()


@pytest.fixture
def driver(tmp_path):
    d = browser(tmp_path / "profile")
    yield d
    d.quit()


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("PITBOARD_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def wait_for(condition, timeout: float = 15.0, what: str = "") -> None:
    """Poll ``condition`` until it holds.  While a page is being replaced (a form was sent, a link followed)
    its elements vanish or go stale for a moment: that counts as "not yet", as in selenium's WebDriverWait."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException

    t0 = time.monotonic()
    last: Exception | None = None
    while time.monotonic() - t0 < timeout:
        try:
            if condition():
                return
        except (NoSuchElementException, StaleElementReferenceException) as exc:
            last = exc
        except WebDriverException as exc:
            # Chromium's own words for an element read while the page replaced it (a stale element by
            # another name, seen once in CI): not yet, as the two above
            if "does not belong to the document" not in str(exc):
                raise
            last = exc
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}") from last  # a wrong locator shows here


def pair(driver, served: ServedSim, folder: Path | None = None) -> None:
    from selenium.webdriver.common.by import By

    driver.get(served.url)
    assert "/pair" in driver.current_url
    if folder is not None:
        save_shot(driver, folder / "pair.png")
    driver.find_element(By.ID, "code").send_keys(served.code)
    driver.find_element(By.ID, "pair").click()
    wait_for(lambda: driver.current_url.rstrip("/") == served.url.rstrip("/"), what="the live page after pairing")


def test_pair_then_the_mirror_follows_a_button_press(served, driver, tmp_path):
    from selenium.webdriver.common.by import By

    folder = shots(tmp_path)
    pair(driver, served, folder)
    img = driver.find_element(By.ID, "screen-0")
    wait_for(lambda: driver.execute_script("return document.body.dataset.version") is not None, what="the stream")
    before = img.get_attribute("src")
    served.keys("s")  # SELECT at the table: Alice's menu cursor moves
    wait_for(lambda: driver.find_element(By.ID, "screen-0").get_attribute("src") != before, 10.0,
             "Alice's mirrored screen to change")
    # the page's own OK goes the same way as the panel's
    status = driver.find_element(By.ID, "status").text
    driver.find_element(By.ID, "btn-ok").click()
    wait_for(lambda: driver.find_element(By.ID, "status").text != status, 10.0, "the status after OK on the page")
    assert driver.find_element(By.ID, "prompt").text.startswith("Alice")
    save_shot(driver, folder / "live.png")


def test_back_on_the_page_asks_what_it_undoes_before_it_does(served, driver, tmp_path):
    """A play-tester: one tap of BACK on the phone undid a decision with no word.  In the browser the page asks
    "Undo …?" naming the decision; Cancel undoes nothing, OK undoes it."""
    from selenium.webdriver.common.by import By

    pair(driver, served)
    wait_for(lambda: driver.execute_script("return document.body.dataset.version") is not None, what="the stream")
    for _ in range(3):  # OK at the table until a decision is made (a template opened, then chosen)
        if (served.sim.web.ctx.undo or {}).get("back"):
            break
        served.keys("o")
        time.sleep(0.5)
    asked = (served.sim.web.ctx.undo or {}).get("back")
    assert asked, served.sim.web.ctx.undo
    wait_for(lambda: driver.execute_script("return document.body.dataset.version") is not None, what="the stream")
    time.sleep(0.5)  # the snapshot with the question reaches the page
    prompt = driver.find_element(By.ID, "prompt").text
    driver.find_element(By.ID, "btn-back").click()
    wait_for(lambda: _alert_text(driver) is not None, 5.0, "BACK's question")
    question = _alert_text(driver)
    assert question == asked and question.startswith("Undo Alice: "), question
    driver.switch_to.alert.dismiss()
    time.sleep(0.5)
    assert driver.find_element(By.ID, "prompt").text == prompt  # Cancel: nothing undone
    driver.find_element(By.ID, "btn-back").click()
    wait_for(lambda: _alert_text(driver) is not None, 5.0, "BACK's question again")
    driver.switch_to.alert.accept()
    wait_for(lambda: driver.find_element(By.ID, "prompt").text != prompt, 10.0, "the decision undone")


def _alert_text(driver):
    from selenium.common.exceptions import NoAlertPresentException

    try:
        return driver.switch_to.alert.text
    except NoAlertPresentException:
        return None


def test_the_chart_grid_changes_a_templates_verdict(served, driver, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    folder = shots(tmp_path)
    pair(driver, served)
    driver.get(served.url + "rules?gear=2")
    assert driver.find_element(By.ID, "verdict-hard").text == "unknown"
    Select(driver.find_element(By.ID, "cell-hard-2")).select_by_visible_text("not permitted")
    driver.find_element(By.ID, "save-chart").click()
    wait_for(lambda: driver.find_elements(By.ID, "chart-message"), what="the chart to be saved")
    Select(driver.find_element(By.ID, "gear")).select_by_visible_text("2")
    driver.find_element(By.ID, "show-gear").click()
    wait_for(lambda: driver.find_element(By.ID, "verdict-hard").text == "not permitted", what="the new verdict")
    save_shot(driver, folder / "rules.png")
    driver.get(served.url + "setup")
    driver.find_element(By.ID, "check").click()
    wait_for(lambda: driver.find_elements(By.ID, "setup-message"), what="the setup check")
    assert "Gaslands: Refuelled: a valid table" in driver.find_element(By.ID, "setup-message").text
    save_shot(driver, folder / "setup.png")
    driver.get(served.url + "check")
    save_shot(driver, folder / "check.png")


def test_read_a_games_timeline(served, driver, tmp_path):
    from selenium.webdriver.common.by import By

    folder = shots(tmp_path)
    pair(driver, served)
    from games.core import Command
    from games.core.table_input import find_leaf

    app = served.sim.app
    leaf = find_leaf(app.menu(), Command("choose_template", {"template": "turn", "hand": "left"}))
    presses = app.plan(leaf.path)
    keys = {"select": "s", "select_long": "S", "ok": "o", "next": "n", "back": "b"}
    served.keys("".join(keys[p] for p in presses))  # Template › Turn › Left, pressed at the table
    wait_for(lambda: any(a.outcome.accepted for a in app.history), what="the template to be chosen")
    served.keys("n")  # NEXT: the template is placed
    wait_for(lambda: len(app.match.records) > 3, what="the template to be placed")
    driver.get(served.url + "log")
    driver.find_element(By.LINK_TEXT, f"game {served.sim.game_id}").click()
    text = driver.find_element(By.ID, "timeline").text
    assert "Round 1 · gear phase 1" in text and "Rust Bucket: template Turn, left" in text
    save_shot(driver, folder / "log.png")
    driver.find_element(By.CSS_SELECTOR, "#timeline li a").click()
    wait_for(lambda: "at step" in driver.title, what="the replayed step")
    save_shot(driver, folder / "replay.png")


def test_teach_a_die_face_from_the_live_camera(tmp_path, monkeypatch, driver):
    import cv2
    import numpy as np
    from selenium.webdriver.common.by import By

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    photos = tmp_path / "tray"
    photos.mkdir()
    image = np.full((480, 640, 3), 60, np.uint8)  # one light die showing three pips
    cv2.rectangle(image, (250, 180), (330, 260), (235, 235, 235), -1)
    for x, y in ((265, 195), (290, 220), (315, 245)):
        cv2.circle(image, (x, y), 7, (20, 20, 20), -1)
    cv2.imwrite(str(photos / "three.png"), image)
    served = ServedSim(tmp_path, dice_images=photos)
    try:
        folder = shots(tmp_path)
        pair(driver, served)
        served.keys("r")  # the photo goes on the tray
        wait_for(lambda: served.sim.web.hub.camera is not None and served.sim.web.hub.camera.image.mean() < 100,
                 what="the camera frame")
        driver.get(served.url + "teach")
        driver.find_element(By.ID, "die").send_keys("fire")
        driver.find_element(By.ID, "face").send_keys("fire3")
        driver.find_element(By.ID, "take").click()
        wait_for(lambda: driver.find_elements(By.ID, "confirm"), what="the crop to confirm")
        assert "1 die found" in driver.find_element(By.TAG_NAME, "main").text
        library = tmp_path / "data" / "faces.json"
        assert not library.exists()  # nothing is taught before the confirmation
        save_shot(driver, folder / "teach.png")
        driver.find_element(By.ID, "confirm").click()
        wait_for(lambda: driver.find_elements(By.ID, "teach-message"), what="the face to be taught")
        assert "fire fire3 now has 1 example" in driver.find_element(By.ID, "teach-message").text
        from device.dice_library_files import load_library

        assert "fire" in load_library(library).dice()
        assert driver.find_element(By.ID, "library-last").text == "fire fire3: 1 example"
        save_shot(driver, folder / "teach-library.png")
        driver.find_element(By.ID, "undo").click()  # the phone takes the teaching back
        wait_for(lambda: driver.find_elements(By.ID, "library-message"), what="the teaching to be undone")
        assert "removed 1 example(s) of fire fire3 (0 left)" in driver.find_element(By.ID, "library-message").text
        assert load_library(library).dice() == []
        assert driver.find_elements(By.ID, "library-empty")
    finally:
        served.close()


def test_calibrate_the_table_from_the_live_camera(tmp_path, monkeypatch, driver):
    import cv2
    import numpy as np
    from selenium.webdriver.common.by import By

    from vision.synth import CarSpec, SceneSpec, render_scene

    monkeypatch.setenv("PITBOARD_DATA", str(tmp_path / "data"))
    photos = tmp_path / "table"
    photos.mkdir()
    image, _ = render_scene(SceneSpec(tilt_deg=6.0, cars=[CarSpec("car1", 10, 300.0, 200.0, 30.0)], tokens={"p1": 2}),
                            np.random.default_rng(4))
    cv2.imwrite(str(photos / "table.png"), image)
    served = ServedSim(tmp_path, dice_images=photos)
    try:
        folder = shots(tmp_path)
        pair(driver, served)
        served.keys("r")  # the photo of the table is what the camera sees
        wait_for(lambda: served.sim.web.hub.camera is not None and served.sim.web.hub.camera.image.shape[1] == 1280,
                 what="the camera frame")
        driver.get(served.url + "calibrate")
        assert "not calibrated" in driver.find_element(By.ID, "calibration-now").text
        driver.find_element(By.ID, "mat").send_keys("800x450")
        driver.find_element(By.ID, "calibrate").click()
        wait_for(lambda: driver.find_elements(By.ID, "confirm-calibration"), what="the calibration to confirm")
        assert "reprojection error" in driver.find_element(By.ID, "proposal").text
        wait_for(lambda: driver.execute_script("return document.getElementById('preview').naturalWidth") == 1280,
                 what="the drawn calibration")
        assert not (tmp_path / "data" / "table_calibration.json").exists()
        save_shot(driver, folder / "calibrate.png")
        driver.find_element(By.ID, "confirm-calibration").click()
        wait_for(lambda: driver.find_elements(By.ID, "calibrate-message"), what="the calibration to be saved")
        assert "saved" in driver.find_element(By.ID, "calibrate-message").text
        assert (tmp_path / "data" / "table_calibration.json").exists()
        wait_for(lambda: served.sim.app.reader.calibration is not None, what="the loop to take the calibration")
        driver.get(served.url)
        wait_for(lambda: driver.execute_script("var c = document.getElementById('camera');"
                                               "return c && c.complete && c.naturalWidth") == 960,
                 what="the live camera frame")
        save_shot(driver, folder / "live-camera.png")
    finally:
        served.close()


def test_the_phones_page_lists_this_phone_and_forgetting_it_asks_for_the_code_again(served, driver, tmp_path):
    """The Phones page in a browser at a phone's width: this phone listed, its Forget button in reach; pressed,
    the next page is the pairing page (the phone must type the code again)."""
    from selenium.webdriver.common.by import By

    folder = shots(tmp_path)
    driver.set_window_size(390, 844)
    pair(driver, served)
    driver.get(served.url.rstrip("/") + "/phones")
    listed = driver.find_element(By.ID, "phones").text
    assert "(this phone)" in listed and "an owner's phone" in listed  # the first paired
    assert any(word in listed for word in ("Linux", "Mac", "Windows", "Chromebook"))  # what headless Chromium says
    save_shot(driver, folder / "phones.png")
    forget = driver.find_element(By.CSS_SELECTOR, "#phones button")  # this phone's first: Forget this phone
    assert forget.size["height"] >= 44 and forget.location["x"] + forget.size["width"] <= 390
    forget.click()
    wait_for(lambda: "/pair" in driver.current_url, what="the pairing page after forgetting this phone")
    driver.get(served.url)
    assert "/pair" in driver.current_url
