"""install.sh and uninstall.sh, exercised on a PC.

Every test runs the scripts with ``--root <tmp> --no-system``: all files land under a scratch root and
apt, useradd and systemctl are skipped, so the file-laying part of the installer is tested for real and
twice. The scripts run from a scratch copy of the repository's ``deploy/`` and ``firmware_config/`` so
the test does not depend on (or disturb) the checkout; the copy is what the scripts would see in a
clone. The virtual environment is skipped (``--no-venv``) except in one test that creates it without
pip-installing anything (``--no-pip``), to keep the suite fast and offline.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = [REPO / "deploy" / "install.sh", REPO / "deploy" / "uninstall.sh"]

#: Stand-in example config when firmware_config/pitboard.toml has not been written yet; the installer
#: copies whatever example is there, so its content does not matter to these tests.
STAND_IN_EXAMPLE = '[game]\nname = "gaslands"\n'

#: A trimmed Raspberry Pi OS Bookworm config.txt: I2C commented out, camera already on, a model filter.
STOCK_CONFIG_TXT = """\
# For more options and information see
# http://rptl.io/configtxt
#dtparam=i2c_arm=on
#dtparam=spi=on
dtparam=audio=on
camera_auto_detect=1
display_auto_detect=1
auto_initramfs=1
dtoverlay=vc4-kms-v3d
max_framebuffers=2
arm_64bit=1

[cm4]
otg_mode=1

[all]
"""


# --- helpers ---------------------------------------------------------------------------------------


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A scratch copy of the parts of the repository the scripts read."""
    dst = tmp_path / "repo"
    shutil.copytree(REPO / "deploy", dst / "deploy")
    shutil.copytree(REPO / "firmware_config", dst / "firmware_config")
    shutil.copy(REPO / "pyproject.toml", dst / "pyproject.toml")
    example = dst / "firmware_config" / "pitboard.toml"
    if not example.exists():
        example.write_text(STAND_IN_EXAMPLE)
    return dst


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    r = tmp_path / "root"
    r.mkdir()
    return r


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PITBOARD_")}
    env["LC_ALL"] = "C"
    return env


def install(repo: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """install.sh into the scratch root, without apt/users/systemctl and without the venv."""
    return subprocess.run(
        ["bash", str(repo / "deploy" / "install.sh"), "--root", str(root), "--no-system", "--no-venv", *args],
        capture_output=True, text=True, env=clean_env(), stdin=subprocess.DEVNULL, timeout=60,
    )


def uninstall(repo: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(repo / "deploy" / "uninstall.sh"), "--root", str(root), "--no-system", *args],
        capture_output=True, text=True, env=clean_env(), stdin=subprocess.DEVNULL, timeout=60,
    )


def ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path under root with its type, mode, content (or link target) and modification time."""
    tree: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath, name)
            st = p.lstat()
            rel = str(p.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                tree[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                tree[rel] = ("dir", stat.S_IMODE(st.st_mode))
            else:
                tree[rel] = ("file", stat.S_IMODE(st.st_mode), p.read_bytes(), st.st_mtime_ns)
    return tree


def active_lines(text: str) -> list[str]:
    """Lines of a config.txt that take effect: comments and [section] headers removed."""
    out = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line and not line.startswith("["):
            out.append(line)
    return out


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


# --- static checks ---------------------------------------------------------------------------------


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_bash_syntax(script: Path) -> None:
    proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_shellcheck_clean(script: Path) -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck not installed (apt-get install shellcheck)")
    proc = subprocess.run([shellcheck, "--shell=bash", str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_strict_mode_and_executable(script: Path) -> None:
    lines = script.read_text().splitlines()
    assert lines[0] == "#!/usr/bin/env bash"
    strict = [i for i, ln in enumerate(lines) if re.fullmatch(r"set -E?euo pipefail", ln)]
    first_assignment = next(i for i, ln in enumerate(lines) if re.match(r"[A-Z_]+=", ln))
    assert strict and strict[0] < first_assignment, "`set -euo pipefail` must come before the script's work"
    assert os.access(script, os.X_OK), f"{script.name} is not executable (chmod +x)"


# --- install.sh ------------------------------------------------------------------------------------


def test_install_lays_out_the_tree(repo: Path, root: Path) -> None:
    ok(install(repo, root))
    assert (root / "etc/systemd/system/pitboard.service").read_bytes() == (
        repo / "deploy/pitboard.service"
    ).read_bytes()
    assert mode(root / "etc/systemd/system/pitboard.service") == 0o644
    assert mode(root / "etc/pitboard") == 0o750
    assert mode(root / "var/lib/pitboard") == 0o750
    assert mode(root / "opt/pitboard") == 0o755
    config = root / "etc/pitboard/pitboard.toml"
    assert config.read_bytes() == (repo / "firmware_config/pitboard.toml").read_bytes()
    assert mode(config) == 0o640
    assert "i2c-dev" in active_lines((root / "etc/modules-load.d/pitboard.conf").read_text())
    # --no-venv: no venv and no command link
    assert not (root / "opt/pitboard/venv").exists()
    assert not (root / "usr/local/bin/pitboard").exists()


def test_install_twice_changes_nothing(repo: Path, root: Path) -> None:
    boot = root / "boot/firmware"
    boot.mkdir(parents=True)
    (boot / "config.txt").write_text(STOCK_CONFIG_TXT)

    first = ok(install(repo, root))
    before = snapshot(root)
    second = ok(install(repo, root))
    assert snapshot(root) == before  # same paths, modes, contents and modification times
    assert "0 change(s) made" in second.stdout
    assert "0 change(s) made" not in first.stdout


def test_the_interactive_wiring_check_is_offered_at_the_end(repo: Path, root: Path) -> None:
    """Not in a terminal (here: stdin is /dev/null), the installer prints the command instead of asking."""
    proc = ok(install(repo, root))
    last = proc.stdout.rstrip().splitlines()[-1]
    assert "to check the wiring with you at the table" in last
    assert "pitboard check --interactive --config /etc/pitboard/pitboard.toml" in last
    assert "sudo systemctl stop pitboard" in last and "sudo -u pitboard" in last
    assert "check --interactive" not in ok(install(repo, root, "--no-check")).stdout
    assert "check --interactive" not in ok(install(repo, root, "--dry-run")).stdout


def test_on_the_unedited_example_the_service_is_left_off_and_the_next_steps_say_so(repo: Path, root: Path) -> None:
    """A deploy audit: the installer started the service on the example config it had just copied, which began the
    example's game (Alice and Bob); every later start resumed it, the owner's own players "not at this table".
    On the unedited example the service is neither enabled nor started, and the next steps say edit, check (as the
    service user: the owner's login cannot read /etc/pitboard), then enable; once edited, stop, check, start."""
    first = ok(install(repo, root)).stdout
    assert "next: edit /etc/pitboard/pitboard.toml for your table" in first
    assert ("check it: sudo -u pitboard PITBOARD_DATA=/var/lib/pitboard pitboard check --config "
            "/etc/pitboard/pitboard.toml") in first
    assert "then start it: sudo systemctl enable --now pitboard" in first
    last = first.rstrip().splitlines()[-1]
    assert "check --interactive" in last and "systemctl start pitboard" not in last  # not started on the example
    config = root / "etc/pitboard/pitboard.toml"
    config.write_text(config.read_text() + "\n# my table\n")
    again = ok(install(repo, root)).stdout
    assert "edit /etc/pitboard/pitboard.toml for your table" not in again
    assert ("next: check the wiring: sudo systemctl stop pitboard; sudo -u pitboard PITBOARD_DATA=/var/lib/pitboard "
            "pitboard check --config /etc/pitboard/pitboard.toml; sudo systemctl start pitboard") in again
    assert again.rstrip().splitlines()[-1].endswith("; sudo systemctl start pitboard")


def test_an_older_example_unedited_is_still_the_example(repo: Path, root: Path) -> None:
    """A deploy review: the example was known by comparing it with today's firmware_config/pitboard.toml only.
    An owner who never edited the copy installed last month, then pulled a change to the example's comments and
    ran the installer again, had the service enabled and started on it: the example's game (Alice and Bob).
    Every example shipped is listed by its SHA-256 in deploy/example-configs.sha256."""
    import hashlib

    config = root / "etc/pitboard/pitboard.toml"
    ok(install(repo, root))
    older = config.read_text().replace("# A page on the table's network", "# The page on the table's network", 1)
    assert older != config.read_text()
    config.write_text(older)  # as last month's example, unedited
    listed = repo / "deploy/example-configs.sha256"
    edited = ok(install(repo, root)).stdout  # not listed: an owner's own file
    assert "next: check the wiring" in edited and "next: edit /etc/pitboard/pitboard.toml" not in edited
    digest = hashlib.sha256(older.encode()).hexdigest()
    listed.write_text(listed.read_text() + f"{digest}  0000000\n")
    again = ok(install(repo, root)).stdout
    assert "next: edit /etc/pitboard/pitboard.toml for your table" in again and "next: check the wiring" not in again


def test_every_example_shipped_is_listed_by_its_hash() -> None:
    """The list install.sh knows an unedited example by holds today's example (a change to it fails here until its
    SHA-256 is added: `sha256sum firmware_config/pitboard.toml`)."""
    import hashlib

    lines = [ln for ln in (REPO / "deploy/example-configs.sha256").read_text().splitlines() if not ln.startswith("#")]
    sums = [ln.split()[0] for ln in lines]
    assert all(len(x) == 64 and set(x) <= set("0123456789abcdef") for x in sums)
    assert hashlib.sha256((REPO / "firmware_config/pitboard.toml").read_bytes()).hexdigest() in sums


def test_the_camera_modules_load_at_boot_before_the_service(repo: Path, root: Path) -> None:
    """A deploy audit: the unit's DeviceAllow=char-video4linux / char-media are looked up when it starts; a
    module udev had not loaded yet left the camera blocked for the service's life."""
    ok(install(repo, root))
    assert active_lines((root / "etc/modules-load.d/pitboard.conf").read_text()) == ["i2c-dev", "videodev", "mc"]


def test_existing_owner_config_is_never_overwritten(repo: Path, root: Path) -> None:
    owner = root / "etc/pitboard/pitboard.toml"
    owner.parent.mkdir(parents=True)
    owner.write_text("# my table\n[game]\nname = \"thunder_road\"\n")
    owner.chmod(0o600)

    for _ in range(2):
        proc = ok(install(repo, root))
        assert "keeping your" in proc.stdout
    assert owner.read_text() == "# my table\n[game]\nname = \"thunder_road\"\n"
    assert mode(owner) == 0o600  # not even its mode is touched


def test_config_survives_uninstall_and_reinstall(repo: Path, root: Path) -> None:
    ok(install(repo, root))
    config = root / "etc/pitboard/pitboard.toml"
    config.write_text("# edited by the owner\n")
    ok(uninstall(repo, root))
    ok(install(repo, root))
    assert config.read_text() == "# edited by the owner\n"


def test_boot_config_is_only_printed_without_firmware_flag(repo: Path, root: Path) -> None:
    cfg = root / "boot/firmware/config.txt"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(STOCK_CONFIG_TXT)
    proc = ok(install(repo, root))
    assert cfg.read_text() == STOCK_CONFIG_TXT
    assert "dtparam=i2c_arm=on" in proc.stdout
    assert "--firmware" in proc.stdout


def test_firmware_flag_appends_missing_lines_once(repo: Path, root: Path) -> None:
    cfg = root / "boot/firmware/config.txt"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(STOCK_CONFIG_TXT)
    wanted = active_lines((repo / "firmware_config/config.txt").read_text())
    assert "dtparam=i2c_arm=on" in wanted and "camera_auto_detect=1" in wanted

    ok(install(repo, root, "--firmware"))
    text = cfg.read_text()
    assert text.startswith(STOCK_CONFIG_TXT)  # appended, nothing above it changed
    have = active_lines(text)
    for line in wanted:
        assert have.count(line) == 1, f"{line!r} appears {have.count(line)} times"
    tail = text[len(STOCK_CONFIG_TXT):]
    assert "[all]" in tail  # the block applies to every model, whatever filter came before
    assert "camera_auto_detect" not in tail  # already there: not added again
    assert (cfg.parent / "config.txt.pitboard-backup").read_text() == STOCK_CONFIG_TXT

    before = snapshot(root)
    second = ok(install(repo, root, "--firmware"))
    assert snapshot(root) == before
    assert "already has Pitboard's lines" in second.stdout


def test_old_boot_config_location_is_used_when_there_is_no_firmware_folder(repo: Path, root: Path) -> None:
    cfg = root / "boot/config.txt"
    cfg.parent.mkdir(parents=True)
    cfg.write_text("dtparam=audio=on\n")
    ok(install(repo, root, "--firmware"))
    assert "dtparam=i2c_arm=on" in active_lines(cfg.read_text())


def test_dry_run_changes_nothing(repo: Path, root: Path) -> None:
    cfg = root / "boot/firmware/config.txt"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(STOCK_CONFIG_TXT)
    before = snapshot(root)
    proc = ok(install(repo, root, "--dry-run", "--firmware"))
    assert snapshot(root) == before
    assert "would run" in proc.stdout and "would append" in proc.stdout


def test_root_prefix_without_no_system_is_refused(repo: Path, root: Path) -> None:
    proc = subprocess.run(
        ["bash", str(repo / "deploy/install.sh"), "--root", str(root)],
        capture_output=True, text=True, env=clean_env(), timeout=60,
    )
    assert proc.returncode == 2
    assert "--no-system" in proc.stderr
    assert list(root.iterdir()) == []


def test_pitboard_root_environment_variable_works_like_root_option(repo: Path, root: Path) -> None:
    env = clean_env() | {"PITBOARD_ROOT": str(root)}
    proc = subprocess.run(
        ["bash", str(repo / "deploy/install.sh"), "--no-system", "--no-venv"],
        capture_output=True, text=True, env=env, timeout=60,
    )
    ok(proc)
    assert (root / "etc/systemd/system/pitboard.service").exists()


@pytest.mark.parametrize("script", ["install.sh", "uninstall.sh"])
def test_unknown_option_is_named(repo: Path, script: str) -> None:
    proc = subprocess.run(
        ["bash", str(repo / "deploy" / script), "--frobnicate"], capture_output=True, text=True, env=clean_env()
    )
    assert proc.returncode == 2
    assert "unknown option '--frobnicate'" in proc.stderr


@pytest.mark.parametrize("script", ["install.sh", "uninstall.sh"])
def test_refuses_to_run_without_root(script: str) -> None:
    """A real install needs root; a user who forgets sudo is told so, and nothing happens."""
    text = (REPO / "deploy" / script).read_text()
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root and setpriv (util-linux) is missing to drop to a normal user")
        cmd = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "bash", "-s"]
    else:
        cmd = ["bash", "-s"]
    # The script is fed on stdin so that an unprivileged user needs no access to the checkout.
    proc = subprocess.run(cmd, input=text, capture_output=True, text=True, env=clean_env(), cwd="/", timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "must be run as root" in proc.stderr
    assert "sudo" in proc.stderr


def _venv_available() -> bool:
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
    return subprocess.run([python, "-c", "import venv, ensurepip"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _venv_available(), reason="python3-venv (venv + ensurepip) not available")
def test_a_python_without_a_lock_is_refused_before_anything_is_changed(repo: Path, root: Path, tmp_path: Path) -> None:
    """Trixie's Python 3.13 has no lock file: the installer stopped at step 5, after the packages, the user and
    the venv were made (a deploy review). It stops first now, naming --no-lock, with nothing written."""
    python = tmp_path / "python3"
    python.write_text('#!/bin/sh\nprintf "py313\\n"\n')  # what the version probe prints on Trixie
    python.chmod(0o755)
    proc = subprocess.run(
        ["bash", str(repo / "deploy/install.sh"), "--root", str(root), "--no-system"],
        capture_output=True, text=True, env=clean_env() | {"PITBOARD_PYTHON": str(python)},
        stdin=subprocess.DEVNULL, timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert f"no lock file for py313 on {os.uname().machine}" in proc.stderr and "--no-lock" in proc.stderr
    assert "Trixie" in proc.stderr
    assert list(root.iterdir()) == []  # nothing made under the root


@pytest.mark.parametrize(("kernel", "packages"), [("armv7l", "armhf"), ("aarch64", "armhf"), ("armv8l", "armhf")])
@pytest.mark.parametrize("lock", [[], ["--no-lock"]])
def test_the_32_bit_os_is_refused_before_anything_is_changed(repo: Path, root: Path, tmp_path: Path, kernel: str,
                                                              packages: str, lock: list[str]) -> None:
    """deploy/README: "The 32-bit OS cannot run it (onnxruntime, which reads the dice, has no 32-bit ARM build):
    the installer says so and stops."  It asked only while choosing the lock, for a 64-bit kernel: on a 32-bit
    kernel it said "no lock file … Run again with --no-lock", and --no-lock skipped the question, pip failing
    later on onnxruntime (a docs review).  Now asked first, with or without a lock, nothing written."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "uname").write_text(f'#!/bin/sh\n[ "$1" = -m ] && {{ echo {kernel}; exit 0; }}\nexec /bin/uname "$@"\n')
    (bin_ / "dpkg").write_text(f'#!/bin/sh\n[ "$1" = --print-architecture ] && echo {packages}\n')
    for stub in bin_.iterdir():
        stub.chmod(0o755)
    path = f"{bin_}:{os.environ['PATH']}"
    python = tmp_path / "python3"
    python.write_text('#!/bin/sh\nprintf "py311\\n"\n')
    python.chmod(0o755)
    proc = subprocess.run(
        ["/bin/bash", str(repo / "deploy/install.sh"), "--root", str(root), "--no-system", *lock],
        capture_output=True, text=True, env=clean_env() | {"PITBOARD_PYTHON": str(python), "PATH": path},
        stdin=subprocess.DEVNULL, timeout=60,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "32-bit system" in proc.stderr and f"kernel {kernel}" in proc.stderr, proc.stderr
    assert "Raspberry Pi OS (64-bit)" in proc.stderr and "--no-lock" not in proc.stderr
    assert list(root.iterdir()) == []  # nothing made under the root


def test_venv_has_system_site_packages_and_is_not_recreated(repo: Path, root: Path) -> None:
    """The one test that builds the virtual environment (no pip install: that needs the network)."""

    def run() -> subprocess.CompletedProcess[str]:
        return ok(subprocess.run(
            ["bash", str(repo / "deploy/install.sh"), "--root", str(root), "--no-system", "--no-pip"],
            capture_output=True, text=True, env=clean_env(), stdin=subprocess.DEVNULL, timeout=120,
        ))

    first = run()
    assert "creating virtual environment" in first.stdout
    cfg = (root / "opt/pitboard/venv/pyvenv.cfg").read_text()
    assert "include-system-site-packages = true" in cfg  # picamera2 and lgpio come from apt
    assert os.readlink(root / "usr/local/bin/pitboard") == "/opt/pitboard/venv/bin/pitboard"
    before = snapshot(root)
    second = run()
    assert "creating virtual environment" not in second.stdout
    assert snapshot(root) == before


# --- uninstall.sh ----------------------------------------------------------------------------------


def test_uninstall_keeps_games_and_config_without_purge(repo: Path, root: Path) -> None:
    ok(install(repo, root))
    game = root / "var/lib/pitboard/games/2026-11-30-gaslands.sqlite"
    game.parent.mkdir(parents=True)
    game.write_bytes(b"SQLite format 3\x00 and a race")
    config = root / "etc/pitboard/pitboard.toml"
    config_text = config.read_text()
    wheels = root / "var/cache/pitboard/wheels"  # what a locked install keeps for offline re-runs
    wheels.mkdir(parents=True)
    (wheels / "pbdep-1.0-py3-none-any.whl").write_bytes(b"PK")

    proc = ok(uninstall(repo, root))
    assert not (root / "opt/pitboard").exists()
    assert not (root / "var/cache/pitboard").exists()
    assert not (root / "etc/systemd/system/pitboard.service").exists()
    assert not (root / "etc/modules-load.d/pitboard.conf").exists()
    assert game.read_bytes() == b"SQLite format 3\x00 and a race"
    assert config.read_text() == config_text
    assert "keeping" in proc.stdout and "--purge" in proc.stdout

    ok(uninstall(repo, root))  # a second uninstall is a no-op, not an error
    assert game.exists()


def test_purge_without_confirmation_deletes_nothing(repo: Path, root: Path) -> None:
    ok(install(repo, root))
    game = root / "var/lib/pitboard/game.sqlite"
    game.write_bytes(b"race")
    proc = uninstall(repo, root, "--purge")  # stdin is not a terminal and no --yes
    assert proc.returncode == 2
    assert "--yes" in proc.stderr
    assert game.exists()
    assert (root / "etc/systemd/system/pitboard.service").exists()  # refused before touching anything


def test_purge_with_yes_removes_everything(repo: Path, root: Path) -> None:
    ok(install(repo, root))
    (root / "var/lib/pitboard/game.sqlite").write_bytes(b"race")
    ok(uninstall(repo, root, "--purge", "--yes"))
    for gone in ("var/lib/pitboard", "etc/pitboard", "opt/pitboard", "etc/systemd/system/pitboard.service"):
        assert not (root / gone).exists(), gone


def test_uninstall_dry_run_changes_nothing(repo: Path, root: Path) -> None:
    ok(install(repo, root))
    before = snapshot(root)
    proc = ok(uninstall(repo, root, "--dry-run", "--purge"))
    assert snapshot(root) == before
    assert "would run" in proc.stdout


@pytest.mark.parametrize("script", ["install.sh", "uninstall.sh"])
def test_running_with_sh_instead_of_bash_is_explained(repo: Path, script: str) -> None:
    if subprocess.run(["sh", "-c", 'test -z "${BASH_VERSION:-}"']).returncode != 0:
        pytest.skip("sh is bash on this machine")
    proc = subprocess.run(["sh", str(repo / "deploy" / script), "--help"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "run it with bash" in proc.stderr
