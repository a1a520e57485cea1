"""install.sh's locked install, for real: a venv, pip, hashes, the wheel cache, and a re-run with no network.

The real lock pins ~20 packages (onnxruntime, OpenCV: 100 MB), which only ``deploy/pi-emulated`` installs.
Here the installer runs on a stand-in repository whose lock pins two wheels that sit on this disk:
setuptools from Python's ``ensurepip`` (the build backend, as in the real lock) and a tiny wheel built by
the test. The first run gets them from a local package index (a ``file://`` folder in PyPI's "simple"
layout, given through pip's own ``PIP_INDEX_URL``: what an owner's pip.conf would say), standing in for
PyPI; every later run gets an index address that refuses connections instead, and -- as root, where ``unshare --net`` works -- runs
in a network namespace with no interface at all. A wheel in the cache whose bytes changed is refused.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable


#: Where ensurepip keeps its setuptools wheel: in ``ensurepip/_bundled`` (python.org builds) or, on Debian,
#: in /usr/share/python-wheels (``ensurepip._get_packages()`` knows which).
_FIND_SETUPTOOLS = """
import ensurepip, pathlib
pkgs = getattr(ensurepip, "_get_packages", None)
if pkgs is not None and "setuptools" in pkgs():
    p = pkgs()["setuptools"]
    print(p.wheel_path or pathlib.Path(ensurepip.__file__).parent / "_bundled" / p.wheel_name)
else:
    print(sorted((pathlib.Path(ensurepip.__file__).parent / "_bundled").glob("setuptools-*.whl"))[-1])
"""


def _bundled_setuptools() -> Path | None:
    out = subprocess.run([PYTHON, "-c", _FIND_SETUPTOOLS], capture_output=True, text=True)
    path = Path(out.stdout.strip())
    return path if out.returncode == 0 and path.name.endswith("-py3-none-any.whl") and path.is_file() else None


SETUPTOOLS = _bundled_setuptools()
pytestmark = pytest.mark.skipif(
    SETUPTOOLS is None, reason=f"{PYTHON} has no ensurepip with a bundled setuptools wheel (python3-venv missing)")


def _can_unshare_net() -> bool:
    return (shutil.which("unshare") is not None and
            subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode == 0)


NO_NETWORK = _can_unshare_net()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_wheel(folder: Path, name: str, version: str, module: str) -> Path:
    """A pure-Python wheel with one module, RECORD and all (what pip checks)."""
    dist = f"{name}-{version}.dist-info"
    files = {
        f"{name}.py": module.encode(),
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{dist}/RECORD,,")
    files[f"{dist}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
    return wheel


@pytest.fixture()
def setup(tmp_path: Path) -> dict[str, Path]:
    """A stand-in repository (the real deploy/ scripts and firmware_config/, a small package), its lock,
    and the folder standing in for PyPI."""
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "deploy", repo / "deploy", ignore=shutil.ignore_patterns("requirements*.lock"))
    shutil.copytree(REPO / "firmware_config", repo / "firmware_config")
    (repo / "device").mkdir()
    (repo / "device" / "__init__.py").write_text("")
    (repo / "device" / "cli.py").write_text(
        "import pbdep\n\ndef main():\n    print('stand-in pitboard, dependency', pbdep.VERSION)\n    return 0\n")
    (repo / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "pitboard"\nversion = "0.1.0"\ndependencies = ["pbdep==1.0"]\n\n'
        '[project.scripts]\npitboard = "device.cli:main"\n\n'
        '[tool.setuptools.packages.find]\ninclude = ["device*"]\n')
    index = tmp_path / "index"
    (index / "pbdep").mkdir(parents=True)
    (index / "setuptools").mkdir()
    dep = make_wheel(index / "pbdep", "pbdep", "1.0", "VERSION = '1.0'\n")
    assert SETUPTOOLS is not None
    tools = index / "setuptools" / SETUPTOOLS.name
    shutil.copy(SETUPTOOLS, tools)
    for wheel in (dep, tools):  # PEP 503 pages, which pip reads from a file:// index
        (wheel.parent / "index.html").write_text(f'<html><body><a href="{wheel.name}">{wheel.name}</a></body></html>')
    setuptools_version = SETUPTOOLS.name.split("-")[1]
    lock = repo / "deploy" / "requirements-standin.lock"
    lock.write_text(
        "# stand-in lock for tests/deploy/test_deploy_install_offline.py\n"
        f"pbdep==1.0 \\\n    --hash=sha256:{sha256(dep)}\n"
        f"setuptools=={setuptools_version} \\\n    --hash=sha256:{sha256(tools)}\n")
    root = tmp_path / "root"
    root.mkdir()
    return {"repo": repo, "index": index, "lock": lock, "root": root, "tmp": tmp_path}


def run_install(s: dict[str, Path], *args: str, online: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PITBOARD_", "PIP_", "VIRTUAL_ENV"))}
    env.update(LC_ALL="C", PITBOARD_PYTHON=PYTHON, PIP_CONFIG_FILE=os.devnull, PIP_NO_CACHE_DIR="1")
    cmd = ["bash", str(s["repo"] / "deploy" / "install.sh"), "--root", str(s["root"]), "--no-system",
           "--lock", str(s["lock"]), *args]
    if online:
        env.update(PIP_INDEX_URL=s["index"].as_uri())
    else:
        # Nothing to download from: the index refuses connections; as root, no network at all.
        env.update(PIP_INDEX_URL="http://127.0.0.1:9/simple", PIP_RETRIES="0", PIP_TIMEOUT="2")
        if NO_NETWORK:
            cmd = ["unshare", "--net", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=300)


def ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc


def pitboard_says(s: dict[str, Path]) -> str:
    venv = s["root"] / "opt/pitboard/venv"
    return subprocess.run([str(venv / "bin/pitboard")], capture_output=True, text=True, check=True).stdout


def test_first_install_fills_the_wheel_cache_and_reruns_need_no_network(setup: dict[str, Path]) -> None:
    s = setup
    first = ok(run_install(s, online=True))
    assert "downloading the locked wheels" in first.stdout
    assert "installing the dependencies pinned in requirements-standin.lock" in first.stdout
    assert pitboard_says(s) == "stand-in pitboard, dependency 1.0\n"
    wheels = s["root"] / "var/cache/pitboard/wheels"
    assert sorted(p.name for p in wheels.iterdir()) == sorted(p.name for p in s["index"].glob("*/*.whl"))

    # A plain re-run: nothing changed, nothing to do, no network.
    second = ok(run_install(s, online=False))
    assert "pitboard already installed from this source" in second.stdout
    assert "0 change(s) made" in second.stdout

    # An update (the code changed, or --reinstall) finds every locked wheel in the cache.
    (s["repo"] / "device" / "cli.py").write_text(
        "import pbdep\n\ndef main():\n    print('updated pitboard', pbdep.VERSION)\n    return 0\n")
    third = ok(run_install(s, online=False))
    assert "installing without the network" in third.stdout
    assert pitboard_says(s) == "updated pitboard 1.0\n"
    fourth = ok(run_install(s, "--reinstall", online=False))
    assert "installing without the network" in fourth.stdout


def test_a_changed_wheel_in_the_cache_is_refused(setup: dict[str, Path]) -> None:
    s = setup
    ok(run_install(s, online=True))
    wheel = s["root"] / "var/cache/pitboard/wheels/pbdep-1.0-py3-none-any.whl"
    wheel.write_bytes(wheel.read_bytes() + b"\0")
    proc = run_install(s, "--reinstall", online=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "could not download the wheels pinned in" in proc.stderr
    assert "a file with a different hash?" in proc.stderr
    assert "Traceback" not in proc.stderr
    # the installed code is the one from before, still working
    assert pitboard_says(s) == "stand-in pitboard, dependency 1.0\n"


def test_a_lock_without_hashes_is_refused(setup: dict[str, Path]) -> None:
    s = setup
    s["lock"].write_text("pbdep==1.0\nsetuptools\n")
    proc = run_install(s, online=True)
    assert proc.returncode == 2
    assert "could not download the wheels pinned in" in proc.stderr
    assert not (s["root"] / "opt/pitboard/venv/bin/pitboard").exists()
