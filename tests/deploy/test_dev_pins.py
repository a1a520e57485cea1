"""``./dev test`` installs the versions the suite ran with (``tests/constraints-py311.txt``) on Python 3.11: a
clean clone's CI installed the newest release of each library, and a new OpenCV once moved what a test measured
by a pixel (0b44991); Starlette warns that its test client is leaving httpx.  The pins must cover every library
the project needs, and the project's environment must hold them."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tools.tested_versions import needed

REPO = Path(__file__).resolve().parents[2]
PINS = REPO / "tests" / "constraints-py311.txt"


def key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins() -> dict[str, str]:
    out = {}
    for line in PINS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"{PINS.name}: {line!r} is not name==version"
            out[key(name)] = version.strip()
    return out


def test_every_library_the_project_needs_is_pinned() -> None:
    """A dependency added to pyproject.toml (or brought in by one) without its pin would be installed at its newest:
    `./dev pin` writes them all."""
    if not needed():
        pytest.skip("pitboard is not installed here (./dev installs it): its needs cannot be read")
    missing = sorted(set(map(key, needed())) - set(pins()))
    assert not missing, f"not in {PINS.name}: {missing}; run ./dev pin, then ./dev lint and ./dev test"


@pytest.mark.skipif(sys.version_info[:2] != (3, 11) or Path(sys.prefix).name != ".venv",
                    reason="the pins are installed in ./dev's .venv on Python 3.11")
def test_the_projects_environment_holds_the_pinned_versions() -> None:
    installed = {key(n): v for n, v in needed().items()}
    wrong = {n: (installed[n], v) for n, v in pins().items() if n in installed and installed[n] != v}
    assert not wrong, (f"installed (pinned): {wrong}; ./dev setup installs the pins when {PINS.name} is newer than "
                       ".venv/.pitboard-installed (remove that file, then ./dev setup)")


def test_setup_holds_the_lint_tools_to_the_pins_too() -> None:
    """New pins re-installed the test tools only: ruff and mypy stayed at their old versions in an existing .venv
    (./dev lint installs them only when missing), and the test above failed with advice that did not help (a
    review).  Read from ./dev itself: the refresh installs the lint extra when the lint tools are there."""
    dev = (REPO / "dev").read_text(encoding="utf-8")
    setup = dev[dev.index("setup() {"):dev.index("\n}\n", dev.index("setup() {"))]
    assert 'import ruff, mypy' in setup and 'pip_install -e ".[test,lint]"' in setup
    assert '"$PINS" -nt "$stamp"' in setup
