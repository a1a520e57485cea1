"""The install lock files (deploy/requirements-py311-*.lock) against pyproject.toml, offline.

`deploy/lock` writes them (it needs PyPI); these tests catch a pyproject.toml whose dependencies changed
without the lock being made again, a pin without hashes, and an installer that would not use them.
`deploy/lock --check` is the full comparison (it re-resolves: network).
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
ARCHES = ("aarch64", "x86_64")
#: Raspberry Pi OS Bookworm's python3-numpy: picamera2's simplejpeg is compiled against it.
SYSTEM_NUMPY = "1.24.2"


def pins(lock: Path) -> dict[str, tuple[str, list[str]]]:
    """name → (version, hashes) of a `pip --require-hashes` requirements file."""
    out: dict[str, tuple[str, list[str]]] = {}
    for entry in re.split(r"\n(?=\S)", lock.read_text()):
        if entry.startswith("#") or not entry.strip():
            continue
        first = entry.split()[0]
        m = re.fullmatch(r"([A-Za-z0-9_.\-\[\],]+)==([^\s;\\]+)", first)
        assert m, f"{lock.name}: not an exact pin: {first!r}"
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", entry)
        out[canonicalize_name(m.group(1).split("[")[0])] = (m.group(2), hashes)
    return out


def project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def lock_path(kind: str, arch: str) -> Path:
    return DEPLOY / f"requirements{kind}-py311-{arch}.lock"


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("kind", ["", "-test"])
def test_lock_covers_every_dependency_of_pyproject(kind: str, arch: str) -> None:
    lock = lock_path(kind, arch)
    assert lock.is_file(), f"{lock.name} is missing: run deploy/lock"
    pinned = pins(lock)
    wanted = [Requirement(r) for r in project()["project"]["dependencies"]]
    wanted += [Requirement(r) for r in project()["build-system"]["requires"]]
    if kind == "-test":
        wanted += [Requirement(r) for r in project()["project"]["optional-dependencies"]["test"]]
    for req in wanted:
        if req.marker is not None and not req.marker.evaluate({"platform_machine": arch, "sys_platform": "linux",
                                                               "python_version": "3.11"}):
            continue
        name = canonicalize_name(req.name)
        assert name in pinned, f"{lock.name} has no pin for {req} (pyproject.toml changed): run deploy/lock"
        version = pinned[name][0]
        assert req.specifier.contains(version, prereleases=True), (
            f"{lock.name} pins {name}=={version}, outside pyproject.toml's {req}: run deploy/lock")


@pytest.mark.parametrize("lock", sorted(DEPLOY.glob("requirements*.lock")), ids=lambda p: p.name)
def test_every_pin_has_sha256_hashes_and_numpy_is_the_systems(lock: Path) -> None:
    pinned = pins(lock)
    assert pinned, f"{lock.name} pins nothing"
    for name, (version, hashes) in pinned.items():
        assert hashes, f"{lock.name}: {name}=={version} has no --hash: pip --require-hashes would refuse it"
    assert pinned["numpy"][0] == SYSTEM_NUMPY
    header = lock.read_text().splitlines()[:3]
    assert any(line.startswith("# resolved-at: ") for line in header), "deploy/lock reads the date back from here"
    assert "deploy/lock" in "\n".join(header)


def test_both_arches_pin_the_same_versions() -> None:
    """One resolution for the Pi and the PC: what the x86-64 tests ran is what the Pi installs."""
    for kind in ("", "-test"):
        a = {n: v for n, (v, _) in pins(lock_path(kind, "aarch64")).items()}
        b = {n: v for n, (v, _) in pins(lock_path(kind, "x86_64")).items()}
        assert a == b


def test_installer_installs_from_the_lock_with_hashes_and_a_wheel_cache() -> None:
    text = (DEPLOY / "install.sh").read_text()
    assert "--require-hashes" in text
    assert 'requirements-$tag-$arch.lock' in text
    assert "--no-index --find-links \"$WHEELS\"" in text  # the install itself never reaches the network
    assert "--no-build-isolation" in text  # setuptools from the lock, not fetched unpinned at build time
    assert "/var/cache/pitboard/wheels" in text


def test_lock_command_is_valid_bash_and_documented() -> None:
    proc = subprocess.run(["bash", "-n", str(DEPLOY / "lock")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "deploy/lock" in (DEPLOY / "README.md").read_text()
