#!/usr/bin/env bash
# Pitboard installer for Raspberry Pi OS Bookworm (64-bit); Trixie installs with --no-lock, untested.
#
# Run once on a fresh Pi from a clone of the repository:   sudo deploy/install.sh
# Running it again is safe: it only does what is still missing (and updates the installed code when
# the repository changed). It never overwrites the owner's configuration in /etc/pitboard and never
# touches the games in /var/lib/pitboard.
#
# Layout it creates:
#   /opt/pitboard/venv                   virtual environment (--system-site-packages: picamera2, lgpio from apt)
#                                        with the dependencies from deploy/requirements-py311-ARCH.lock (hashes)
#   /var/cache/pitboard/wheels           the locked wheels, downloaded once: a re-run needs no network
#   /usr/local/bin/pitboard              symlink to the venv's command, for `pitboard check` etc.
#   /etc/pitboard/*.toml                 configuration (copied from firmware_config/ only when absent)
#   /var/lib/pitboard                    game logs, calibration, face library (owned by user pitboard)
#   /etc/systemd/system/pitboard.service the hardened unit (deploy/pitboard.service)
#   /etc/modules-load.d/pitboard.conf    loads i2c-dev at boot (/dev/i2c-*)
#
# Testing without a Pi: `--root DIR --no-system --no-venv` lays every file under DIR and skips apt,
# users/groups, ownership and systemctl (see tests/deploy/).
# Refuse `sh install.sh` early, before any bash-only line is parsed.
if [ -z "${BASH_VERSION:-}" ]; then
    echo "install.sh: run it with bash: sudo deploy/install.sh (not sh install.sh)" >&2
    exit 2
fi
set -Eeuo pipefail
umask 022
trap 'printf "%s: error: unexpected failure (exit %s) at line %s: %s\n" "${PROG:-install.sh}" "$?" "$LINENO" "$BASH_COMMAND" >&2' ERR

PROG=install.sh
SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(dirname -- "$SCRIPT_DIR")

APT_PACKAGES=(python3-picamera2 python3-lgpio python3-venv i2c-tools sqlite3)
# Without these Pitboard still installs and runs (apt sources other than Raspberry Pi OS's, e.g. plain
# Debian, have neither picamera2 nor lgpio): the installer says what is lost and carries on.  sqlite3: the
# command a damaged or half-written game log's messages name (to roll it back, or dump what can be read).
APT_OPTIONAL=(python3-picamera2 python3-lgpio i2c-tools sqlite3)
DEVICE_GROUPS=(gpio i2c video)
SERVICE_USER=pitboard
UNIT_NAME=pitboard.service

usage() {
    cat <<EOF
Usage: sudo deploy/install.sh [options]

Installs Pitboard as a service on Raspberry Pi OS Bookworm, 64-bit (Trixie: with --no-lock, untested).
Safe to run again.

Options:
  --firmware      append the missing lines of firmware_config/config.txt to /boot/firmware/config.txt
                  (without it, the installer only prints what to add)
  --no-start      install and enable the service, but do not (re)start it now
  --reinstall     pip-install the code even if this exact source is already installed
  --dry-run, -n   print what would be done, change nothing
  --root DIR      lay all files under DIR instead of / (for tests and image building);
                  needs --no-system. Also: PITBOARD_ROOT=DIR. Alias: --prefix DIR
  --no-system     skip apt, users/groups, file ownership, modprobe and systemctl
  --no-venv       do not create the virtual environment (implies --no-pip)
  --no-pip        create the virtual environment but do not pip-install the code
  --lock FILE     install the dependencies from this lock file (default: the repository's
                  deploy/requirements-pyXY-ARCH.lock for this machine's Python and architecture)
  --no-lock       no lock file for this Python (e.g. Trixie's 3.13): pip resolves the dependencies
                  itself from pyproject.toml's ranges (no hashes; needs the network every time)
  --apt-update    look again for apt packages an earlier run found missing from the apt sources
  --no-check      do not offer the interactive wiring check at the end (it is offered only when the
                  installer runs in a terminal; otherwise it prints the command)
  -h, --help      this text
EOF
}

say() { printf '%s: %s\n' "$PROG" "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
die() {
    printf '%s: error: %s\n' "$PROG" "$*" >&2
    exit 2
}

# ---------------------------------------------------------------------------------------------------
# Options
ROOT=${PITBOARD_ROOT:-}
SYSTEM=1 VENV=1 PIP=1 START=1 DRY=0 FIRMWARE=0 REINSTALL=0 USE_LOCK=1 LOCK='' APT_RECHECK=0 OFFER_CHECK=1
while [ $# -gt 0 ]; do
    case $1 in
        --firmware) FIRMWARE=1 ;;
        --no-start) START=0 ;;
        --reinstall) REINSTALL=1 ;;
        -n | --dry-run) DRY=1 ;;
        --no-system) SYSTEM=0 ;;
        --no-venv) VENV=0 PIP=0 ;;
        --no-pip) PIP=0 ;;
        --no-lock) USE_LOCK=0 ;;
        --apt-update) APT_RECHECK=1 ;;
        --no-check) OFFER_CHECK=0 ;;
        --lock)
            [ $# -ge 2 ] || die "$1 needs a file, e.g. $1 deploy/requirements-py311-aarch64.lock"
            LOCK=$2
            shift
            ;;
        --lock=*) LOCK=${1#*=} ;;
        --root | --prefix)
            [ $# -ge 2 ] || die "$1 needs a directory, e.g. $1 /tmp/pitboard-root"
            ROOT=$2
            shift
            ;;
        --root=* | --prefix=*) ROOT=${1#*=} ;;
        -h | --help)
            usage
            exit 0
            ;;
        *) die "unknown option '$1' (see deploy/install.sh --help)" ;;
    esac
    shift
done

if [ -n "$ROOT" ]; then
    case $ROOT in
        /*) ;;
        *) ROOT=$PWD/$ROOT ;;
    esac
    ROOT=${ROOT%/}
    [ "$SYSTEM" -eq 0 ] || die "--root/PITBOARD_ROOT lays files under $ROOT but apt, useradd and systemctl would act on this machine: add --no-system"
fi

if [ "$(id -u)" -ne 0 ] && [ "$DRY" -eq 0 ] && { [ "$SYSTEM" -eq 1 ] || [ -z "$ROOT" ]; }; then
    die "must be run as root: it installs apt packages, creates the '$SERVICE_USER' user and a systemd unit. Run: sudo $0"
fi

[ -f "$REPO/pyproject.toml" ] || die "$REPO does not look like the Pitboard repository (no pyproject.toml): run the install.sh that sits in the repository's deploy/ folder"
[ -f "$SCRIPT_DIR/pitboard.service" ] || die "$SCRIPT_DIR/pitboard.service is missing: the repository is incomplete"

OPT=$ROOT/opt/pitboard
VENV_DIR=$OPT/venv
STAMP=$OPT/installed-source.sha256
# Apt packages that an `apt-get update` found missing from this system's sources: not looked for again
# (no network) until --apt-update.
APT_MISSING_STATE=$OPT/apt-unavailable
WHEELS=$ROOT/var/cache/pitboard/wheels
ETC=$ROOT/etc/pitboard
DATA=$ROOT/var/lib/pitboard
UNIT_DIR=$ROOT/etc/systemd/system
UNIT_DST=$UNIT_DIR/$UNIT_NAME
MODULES_CONF=$ROOT/etc/modules-load.d/pitboard.conf
BIN_LINK=$ROOT/usr/local/bin/pitboard
PYTHON=${PITBOARD_PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || PYTHON=$(command -v python3 || true)

CHANGES=0
FIRMWARE_APPENDED=0

# The configuration is still the shipped example, unedited: the service is not enabled or started on it (a deploy
# audit: started on it, it began the example's game with Alice and Bob, which every later start resumed, the
# owner's own players "not at this table").
# An example shipped before (deploy/example-configs.sha256: every version's SHA-256) is the example too: compared
# with today's file only, a copy of last month's example, unedited, was an owner's table after a git pull changed
# the example's comments, and the service began the example's game.
config_is_example() {
    [ -f "$ETC/pitboard.toml" ] || return 1
    if [ -f "$REPO/firmware_config/pitboard.toml" ] && cmp -s "$ETC/pitboard.toml" "$REPO/firmware_config/pitboard.toml"; then
        return 0
    fi
    local sum
    sum=$(sha256sum <"$ETC/pitboard.toml" | cut -d' ' -f1) || return 1
    [ -f "$REPO/deploy/example-configs.sha256" ] && grep -q "^$sum " "$REPO/deploy/example-configs.sha256"
}

# ---------------------------------------------------------------------------------------------------
# Helpers: every change to the machine goes through one of these, so --dry-run and the "nothing to do"
# second run are decided in one place.

# run CMD...: run a command that changes the machine (printed instead under --dry-run).
run() {
    CHANGES=$((CHANGES + 1))
    if [ "$DRY" -eq 1 ]; then
        printf '%s: would run:' "$PROG"
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

# ensure_dir DIR MODE [OWNER:GROUP]
ensure_dir() {
    local dir=$1 mode=$2 owner=${3:-}
    if [ ! -d "$dir" ]; then
        say "creating $dir"
        run mkdir -p "$dir"
        run chmod "$mode" "$dir"
    elif [ "$(stat -c %a "$dir")" != "${mode#0}" ]; then
        say "setting mode $mode on $dir"
        run chmod "$mode" "$dir"
    fi
    if [ -n "$owner" ] && [ "$SYSTEM" -eq 1 ]; then
        if [ "$DRY" -eq 1 ] && [ ! -d "$dir" ]; then
            run chown "$owner" "$dir"
        elif [ "$(stat -c %U:%G "$dir")" != "$owner" ]; then
            run chown "$owner" "$dir"
        fi
    fi
}

install_file() {
    local src=$1 dst=$2 mode=$3
    if [ -f "$dst" ] && cmp -s "$src" "$dst"; then
        if [ "$(stat -c %a "$dst")" != "${mode#0}" ]; then
            run chmod "$mode" "$dst"
        fi
        return 0
    fi
    say "installing $dst"
    run install -m "$mode" "$src" "$dst"
}

# write_file DST MODE CONTENT: like install_file for generated content.
write_file() {
    local dst=$1 mode=$2 content=$3 tmp
    tmp=$(mktemp)
    printf '%s' "$content" >"$tmp"
    install_file "$tmp" "$dst" "$mode"
    rm -f "$tmp"
}

pkg_installed() {
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}

# The hash of everything pip would install, so that a second run with an unchanged repository does not
# rebuild and reinstall the package.
source_hash() {
    (
        cd "$REPO"
        local parts=() p
        for p in pyproject.toml README.md games vision device deploy/requirements-*.lock; do
            [ -e "$p" ] && parts+=("$p")
        done
        [ -z "$LOCK" ] || parts+=("$LOCK")
        find "${parts[@]}" -type f ! -path '*/__pycache__/*' ! -name '*.pyc' -print0 |
            LC_ALL=C sort -z | xargs -0 -r sha256sum
    ) | sha256sum | cut -d' ' -f1
}

# Active lines of firmware_config/config.txt (no comments, no blanks, no [section] headers).
firmware_lines() {
    sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//' "$REPO/firmware_config/config.txt" |
        grep -v -e '^$' -e '^\[' || true
}

# The lock file for the venv's Python and this machine (empty: none).
choose_lock() {
    local tag arch
    if [ -n "$LOCK" ]; then
        case $LOCK in /*) ;; *) LOCK=$PWD/$LOCK ;; esac
        [ -f "$LOCK" ] || die "lock file $LOCK does not exist: give an existing file to --lock, or leave --lock out"
        return 0
    fi
    [ "$USE_LOCK" -eq 1 ] || return 0
    tag=$("$PYTHON" -c 'import sys; print("py%d%d" % sys.version_info[:2])')
    arch=$(uname -m)
    LOCK=$REPO/deploy/requirements-$tag-$arch.lock
    if [ ! -f "$LOCK" ]; then
        die "no lock file for $tag on $arch (deploy/$(basename "$LOCK")): locks exist for $(cd "$REPO/deploy" && printf '%s ' requirements-py*.lock). Run again with --no-lock to let pip pick the versions (no hashes; the way on Trixie, whose Python 3.13 has no lock here yet), or give a lock made for it with --lock FILE"
    fi
}

# The 32-bit Raspberry Pi OS cannot run Pitboard: onnxruntime, which reads the dice, has no 32-bit ARM build.
# Asked before anything changes, whatever --no-lock or --lock say: it was asked only while choosing the lock, so
# the 32-bit OS on a 32-bit kernel was told to run again with --no-lock, which skipped it, and pip then failed
# on onnxruntime (a docs review).  A Pi 4/5 on the 32-bit OS may run a 64-bit kernel: uname says aarch64, but
# Python and every wheel are armhf (dpkg says so).
refuse_32_bit() {
    local arch packages=""
    arch=$(uname -m)
    if command -v dpkg >/dev/null 2>&1; then packages=$(dpkg --print-architecture); fi
    case "$arch/$packages" in
        armv6l/* | armv7l/* | armv8l/* | */armhf | */armel)
            die "this is a 32-bit system (kernel $arch${packages:+, packages $packages}): Pitboard needs Raspberry Pi OS (64-bit), arm64 (onnxruntime, which reads the dice, has no 32-bit ARM build). Install Raspberry Pi OS (64-bit) and run this again" ;;
    esac
}

# ---------------------------------------------------------------------------------------------------
if [ "$DRY" -eq 1 ]; then say "dry run: nothing will be changed"; fi
say "installing from $REPO${ROOT:+ into $ROOT}"

if [ "$SYSTEM" -eq 1 ] && [ -r /etc/os-release ]; then
    # shellcheck disable=SC1091
    codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-unknown}")
    case $codename in
        bookworm | trixie) ;;
        *) warn "made for Raspberry Pi OS Bookworm/Trixie; this is '$codename', carrying on" ;;
    esac
fi
# The lock is chosen before anything changes: a Python with no lock (Trixie's 3.13) stopped at step 5, after
# the packages, the user and the venv were made (a deploy review)
if [ "$SYSTEM" -eq 1 ] || { [ "$VENV" -eq 1 ] && [ "$PIP" -eq 1 ]; }; then
    refuse_32_bit
fi
if [ "$VENV" -eq 1 ] && [ "$PIP" -eq 1 ] && [ -n "$PYTHON" ]; then
    choose_lock
fi

# --- 1. apt packages -------------------------------------------------------------------------------
is_optional() {
    local p
    for p in "${APT_OPTIONAL[@]}"; do [ "$p" != "$1" ] || return 0; done
    return 1
}

# What is lost without an optional package, and what works instead.
without() {
    case $1 in
        python3-picamera2) echo "no Raspberry Pi camera module (picamera2): a USB webcam works through OpenCV ([camera] backend = \"opencv\" in pitboard.toml)" ;;
        python3-lgpio) echo "gpiozero cannot use lgpio for the buttons: it falls back to another pin factory (GPIOZERO_PIN_FACTORY=rpigpio with python3-rpi-lgpio or python3-rpi.gpio, or native)" ;;
        i2c-tools) echo "no i2cdetect to look for the screens (pitboard check still probes them)" ;;
        sqlite3) echo "no sqlite3 command to roll back or dump a damaged game log by hand (the log's messages name it)" ;;
        *) echo "$1 is missing" ;;
    esac
}

apt_candidate() {
    local cand
    cand=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
    [ -n "$cand" ] && [ "$cand" != "(none)" ]
}

if [ "$SYSTEM" -eq 1 ]; then
    known_missing=()
    if [ "$APT_RECHECK" -eq 0 ] && [ -f "$APT_MISSING_STATE" ]; then
        mapfile -t known_missing < <(grep -v '^#' "$APT_MISSING_STATE" || true)
    fi
    missing=() skipped=()
    for p in "${APT_PACKAGES[@]}"; do
        pkg_installed "$p" && continue
        if [ ${#known_missing[@]} -gt 0 ] && printf '%s\n' "${known_missing[@]}" | grep -qx -- "$p"; then
            skipped+=("$p")
        else
            missing+=("$p")
        fi
    done
    for p in "${skipped[@]}"; do
        warn "$p is not in this system's apt sources (found at an earlier run; --apt-update looks again): $(without "$p")"
    done
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing apt packages: ${missing[*]}"
        run apt-get update
        unknown=() installable=()
        for p in "${missing[@]}"; do
            if apt_candidate "$p"; then installable+=("$p"); else unknown+=("$p"); fi
        done
        if [ "$DRY" -eq 1 ]; then
            installable=("${missing[@]}") unknown=()
        fi
        for p in "${unknown[@]}"; do
            is_optional "$p" ||
                die "apt knows no package $p and Pitboard cannot do without it: add Raspberry Pi OS's (or Debian's) sources, or use --no-system and install the equivalent yourself"
            warn "could not install $p: apt knows no such package here (not Raspberry Pi OS?); carrying on: $(without "$p")"
        done
        if [ ${#installable[@]} -gt 0 ]; then
            # --no-install-recommends keeps picamera2's desktop preview stack (Qt, OpenGL) off a Lite image.
            run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${installable[@]}"
        fi
        if [ "$DRY" -eq 0 ]; then
            mkdir -p "$OPT"
            if [ ${#unknown[@]} -gt 0 ]; then
                printf '# apt packages missing from the sources at %s (deploy/install.sh --apt-update looks again)\n%s\n' \
                    "$(date -u +%FT%TZ)" "$(printf '%s\n' "${unknown[@]}")" >"$APT_MISSING_STATE"
            else
                rm -f "$APT_MISSING_STATE"
            fi
        fi
    elif [ ${#skipped[@]} -eq 0 ]; then
        say "apt packages already installed: ${APT_PACKAGES[*]}"
    fi
else
    say "skipping apt packages (--no-system): ${APT_PACKAGES[*]}"
fi

# --- 2. user and groups ----------------------------------------------------------------------------
if [ "$SYSTEM" -eq 1 ]; then
    for g in "${DEVICE_GROUPS[@]}"; do
        if ! getent group "$g" >/dev/null; then
            # The unit's SupplementaryGroups= refuses to start with a group that does not exist.
            # Raspberry Pi OS has all three; elsewhere the device nodes also need udev rules for them.
            warn "group '$g' does not exist: creating it (on a system other than Raspberry Pi OS, make sure udev gives the devices to it)"
            run groupadd --system "$g"
        fi
    done
    if ! getent passwd "$SERVICE_USER" >/dev/null; then
        say "creating system user '$SERVICE_USER'"
        run useradd --system --user-group --home-dir /var/lib/pitboard --no-create-home \
            --shell /usr/sbin/nologin --comment "Pitboard race marshal" "$SERVICE_USER"
    fi
    have_groups=" $(id -nG "$SERVICE_USER" 2>/dev/null || true) "
    for g in "${DEVICE_GROUPS[@]}"; do
        case $have_groups in
            *" $g "*) ;;
            *)
                say "adding '$SERVICE_USER' to group '$g'"
                run usermod -a -G "$g" "$SERVICE_USER"
                ;;
        esac
    done
else
    say "skipping user '$SERVICE_USER' and groups ${DEVICE_GROUPS[*]} (--no-system)"
fi

# --- 3. directories --------------------------------------------------------------------------------
ensure_dir "$OPT" 0755 root:root
ensure_dir "$ETC" 0750 "root:$SERVICE_USER"
ensure_dir "$DATA" 0750 "$SERVICE_USER:$SERVICE_USER"
ensure_dir "$UNIT_DIR" 0755
ensure_dir "$(dirname "$MODULES_CONF")" 0755

# --- 4. configuration: copied only when absent -----------------------------------------------------
shopt -s nullglob
examples=("$REPO"/firmware_config/*.toml)
shopt -u nullglob
for src in "${examples[@]}"; do
    dst=$ETC/$(basename "$src")
    if [ -e "$dst" ]; then
        say "keeping your $dst"
    else
        say "installing example configuration $dst (edit it for your table)"
        run install -m 0640 "$src" "$dst"
        [ "$SYSTEM" -eq 0 ] || run chown "root:$SERVICE_USER" "$dst"
    fi
done
if [ ! -e "$ETC/pitboard.toml" ] && [ ! -e "$REPO/firmware_config/pitboard.toml" ]; then
    warn "no $ETC/pitboard.toml and no example in firmware_config/: write one before starting the service"
fi

# pip with the repository's own settings only where it must: the owner's pip.conf (a proxy, a CA
# bundle) still applies.
vpip() { "$VENV_DIR/bin/python" -m pip --disable-pip-version-check --no-input "$@"; }

# The dependencies from the lock file, every file checked against its sha256. The wheels are kept in
# $WHEELS: the first run downloads them, a later run (an update, --reinstall) finds them all there and
# does not touch the network.
install_locked() {
    local build=$1 pinned sys_numpy
    pinned=$(sed -n 's/^numpy==\([^ ]*\).*/\1/p' "$LOCK")
    if sys_numpy=$("$PYTHON" -c 'import numpy; print(numpy.__version__)' 2>/dev/null) && [ -n "$pinned" ] &&
        [ "$sys_numpy" != "$pinned" ]; then
        warn "the system's numpy is $sys_numpy but $LOCK pins $pinned: the venv gets its own numpy $pinned, which apt's picamera2 (simplejpeg) may not load with"
    fi
    mkdir -p "$WHEELS"
    chmod 0755 "$WHEELS"
    if vpip download --quiet --no-index --find-links "$WHEELS" --no-deps --require-hashes \
        --only-binary=:all: --dest "$WHEELS" -r "$LOCK" >/dev/null 2>&1; then
        say "all locked wheels are in $WHEELS: installing without the network"
    else
        say "downloading the locked wheels into $WHEELS (hashes checked)"
        vpip download --quiet --no-deps --require-hashes --only-binary=:all: --dest "$WHEELS" -r "$LOCK" ||
            die "could not download the wheels pinned in $LOCK (network? a file with a different hash?); nothing was changed in $VENV_DIR"
    fi
    say "installing the dependencies pinned in $(basename "$LOCK")"
    vpip install --quiet --no-index --find-links "$WHEELS" --no-deps --require-hashes -r "$LOCK" ||
        die "pip could not install from $LOCK with the wheels in $WHEELS (see above)"
    # The build backend (setuptools) came from the lock too: no unpinned download at build time.
    say "building and installing pitboard (no network, setuptools from the lock)"
    vpip install --quiet --no-index --no-deps --no-build-isolation --force-reinstall "$build" ||
        die "pip could not build pitboard from $REPO (see above)"
}

# No lock for this Python: pip resolves pyproject.toml's ranges, with numpy held at the system's version.
install_unlocked() {
    local build=$1 constraints system_numpy
    warn "installing without a lock file: versions chosen by pip today, no hashes checked"
    # Keep numpy at the system's version: apt's picamera2 imports apt's simplejpeg, which is compiled
    # against it, and a numpy 2 pulled into the venv by a newer opencv wheel breaks it ("numpy.dtype
    # size changed", raspberrypi/picamera2#1088). pip then picks the newest opencv-python-headless
    # that accepts that numpy.
    constraints=$build/pitboard-constraints.txt
    : >"$constraints"
    if system_numpy=$("$PYTHON" -c 'import numpy; print(numpy.__version__)' 2>/dev/null); then
        say "holding numpy at the system's $system_numpy (picamera2's simplejpeg is built against it)"
        printf 'numpy==%s\n' "$system_numpy" >"$constraints"
    fi
    vpip install --upgrade --constraint "$constraints" "$build"
}

# --- 5. virtual environment and the code -----------------------------------------------------------
if [ "$VENV" -eq 1 ]; then
    [ -n "$PYTHON" ] || die "python3 not found (apt install python3-venv)"
    if ! { [ -x "$VENV_DIR/bin/python" ] && "$VENV_DIR/bin/python" -c '' 2>/dev/null &&
        grep -qx 'include-system-site-packages = true' "$VENV_DIR/pyvenv.cfg" 2>/dev/null; }; then
        # Missing, broken by a Python upgrade, or made without the system packages: (re)create it.
        say "creating virtual environment $VENV_DIR (with system site packages)"
        run "$PYTHON" -m venv --clear --system-site-packages "$VENV_DIR"
        run rm -f "$STAMP"
    fi
    if [ "$PIP" -eq 1 ]; then  # (its lock was chosen before step 1: choose_lock)
        want=$(source_hash)
        if [ "$REINSTALL" -eq 0 ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
            say "pitboard already installed from this source"
        else
            say "pip-installing pitboard from $REPO"
            if [ "$DRY" -eq 1 ]; then
                if [ -n "$LOCK" ]; then
                    say "would install the dependencies from $LOCK (hashes checked, wheels kept in $WHEELS)"
                fi
                run "$VENV_DIR/bin/python" -m pip install --upgrade "$REPO"
            else
                # Build from a copy: an in-tree build would leave root-owned build/ and *.egg-info in
                # the owner's clone.
                build=$(mktemp -d)
                trap 'rm -rf "$build"' EXIT
                tar -C "$REPO" --exclude=.git --exclude=out --exclude=build --exclude='*.egg-info' \
                    --exclude=__pycache__ --exclude='.venv*' --exclude=.mypy_cache --exclude=.ruff_cache --exclude=.pytest_cache --exclude=tests -cf - . | tar -C "$build" -xf -
                if [ -n "$LOCK" ]; then
                    install_locked "$build"
                else
                    install_unlocked "$build"
                fi
                printf '%s\n' "$want" >"$STAMP"
            fi
        fi
        if [ "$DRY" -eq 0 ] && [ "$SYSTEM" -eq 1 ]; then
            for mod in picamera2 lgpio; do
                "$VENV_DIR/bin/python" -c "import $mod" 2>/dev/null ||
                    warn "the venv cannot import $mod (from apt python3-$mod): $(without "python3-$mod")"
            done
        fi
    else
        say "skipping pip install (--no-pip)"
    fi
    ensure_dir "$(dirname "$BIN_LINK")" 0755
    if [ "$(readlink "$BIN_LINK" 2>/dev/null || true)" != "/opt/pitboard/venv/bin/pitboard" ]; then
        if [ -e "$BIN_LINK" ] && [ ! -L "$BIN_LINK" ]; then
            warn "$BIN_LINK exists and is not ours: leaving it"
        else
            say "linking $BIN_LINK"
            run ln -sfn /opt/pitboard/venv/bin/pitboard "$BIN_LINK"
        fi
    fi
else
    say "skipping the virtual environment (--no-venv)"
fi

# --- 6. i2c-dev at boot ----------------------------------------------------------------------------
# videodev and mc too: the unit's DeviceAllow=char-video4linux / char-media are looked up in /proc/devices when it
# starts, and a group whose module udev had not loaded yet was left out for the service's whole life (a deploy
# audit: a boot race that blocks the camera)
write_file "$MODULES_CONF" 0644 "# Written by Pitboard's deploy/install.sh: /dev/i2c-* for the OLED screens, and the camera's
# video4linux and media devices before the service starts.
i2c-dev
videodev
mc
"
if [ "$SYSTEM" -eq 1 ] && [ -d /sys/module ] && [ ! -e /sys/module/i2c_dev ]; then
    run modprobe i2c-dev || warn "could not load i2c-dev now; it loads at the next boot"
fi

# --- 7. the systemd unit ---------------------------------------------------------------------------
install_file "$SCRIPT_DIR/pitboard.service" "$UNIT_DST" 0644

# --- 8. boot configuration (config.txt) ------------------------------------------------------------
if [ -f "$ROOT/boot/firmware/config.txt" ]; then
    BOOT_CONFIG=$ROOT/boot/firmware/config.txt
elif [ -f "$ROOT/boot/config.txt" ] && ! grep -qi 'DO NOT EDIT' "$ROOT/boot/config.txt"; then
    BOOT_CONFIG=$ROOT/boot/config.txt
else
    BOOT_CONFIG=
fi
mapfile -t wanted < <(firmware_lines)
if [ -z "$BOOT_CONFIG" ]; then
    say "no config.txt found under $ROOT/boot (not a Raspberry Pi?): the lines to add are in firmware_config/config.txt"
else
    mapfile -t present < <(sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' "$BOOT_CONFIG")
    missing_lines=()
    for line in "${wanted[@]}"; do
        found=0
        for have in "${present[@]}"; do
            if [ "$have" = "$line" ]; then
                found=1
                break
            fi
        done
        [ "$found" -eq 1 ] || missing_lines+=("$line")
    done
    if [ ${#missing_lines[@]} -eq 0 ]; then
        say "$BOOT_CONFIG already has Pitboard's lines"
    elif [ "$FIRMWARE" -eq 1 ]; then
        say "appending to $BOOT_CONFIG (reboot afterwards): ${missing_lines[*]}"
        if [ ! -e "$BOOT_CONFIG.pitboard-backup" ]; then
            run cp -p "$BOOT_CONFIG" "$BOOT_CONFIG.pitboard-backup"
        fi
        block=$'\n# Added by Pitboard (deploy/install.sh --firmware); see firmware_config/config.txt\n[all]\n'
        block+=$(printf '%s\n' "${missing_lines[@]}")
        CHANGES=$((CHANGES + 1))
        FIRMWARE_APPENDED=1
        if [ "$DRY" -eq 1 ]; then
            printf '%s: would append to %s:\n%s\n' "$PROG" "$BOOT_CONFIG" "$block"
        else
            printf '%s\n' "$block" >>"$BOOT_CONFIG"
        fi
    else
        say "to enable the hardware, add these lines at the end of $BOOT_CONFIG (under [all]) and reboot,"
        say "or run again with --firmware to have them appended:"
        printf '    %s\n' "[all]" "${missing_lines[@]}"
    fi
    # A different value set earlier for the same setting (e.g. a slower i2c_arm_baudrate) is worth a word.
    for line in "${wanted[@]}"; do
        key=${line%=*}
        case $line in dtoverlay=*) continue ;; esac
        for have in "${present[@]}"; do
            if [ "${have%=*}" = "$key" ] && [ "$have" != "$line" ]; then
                warn "$BOOT_CONFIG also has '$have'; Pitboard expects '$line' (the later line wins)"
            fi
        done
    done
fi

# --- 9. systemd ------------------------------------------------------------------------------------
CHANGED_BEFORE_UNIT=$CHANGES
EXAMPLE=0
config_is_example && EXAMPLE=1
if [ "$SYSTEM" -eq 1 ]; then
    if [ -d /run/systemd/system ]; then
        run systemctl daemon-reload
        if [ "$EXAMPLE" -eq 1 ]; then
            warn "$ETC/pitboard.toml is still the example (players Alice and Bob): $UNIT_NAME is not enabled or started on it, or it would begin the example's game and resume it at every start. Edit it for your table, then: sudo systemctl enable --now pitboard"
        elif ! systemctl is-enabled --quiet "$UNIT_NAME" 2>/dev/null; then
            run systemctl enable --quiet "$UNIT_NAME"
        fi
        if [ "$EXAMPLE" -eq 1 ]; then
            :
        elif [ "$START" -eq 0 ]; then
            say "not starting the service (--no-start): sudo systemctl restart pitboard"
        elif [ ! -e "$ETC/pitboard.toml" ]; then
            warn "not starting: $ETC/pitboard.toml does not exist yet"
        elif [ "$CHANGED_BEFORE_UNIT" -eq 0 ] && systemctl is-active --quiet "$UNIT_NAME"; then
            # a re-run that changed nothing does not stop a game under way (it would resume, but the table waits)
            say "nothing changed: $UNIT_NAME keeps running (to restart it: sudo systemctl restart pitboard)"
        else
            say "restarting $UNIT_NAME"
            run systemctl restart "$UNIT_NAME"
        fi
    else
        # In a chroot or an image build systemd is not running: enable offline, start at next boot.
        if systemctl --root=/ is-enabled --quiet "$UNIT_NAME" 2>/dev/null; then
            say "systemd is not running here; $UNIT_NAME is enabled for the next boot"
        elif [ "$EXAMPLE" -eq 1 ]; then
            warn "$ETC/pitboard.toml is still the example (players Alice and Bob): $UNIT_NAME is not enabled for the next boot, or it would begin the example's game. Edit it for your table, then: sudo systemctl enable pitboard"
        else
            say "systemd is not running here: enabling $UNIT_NAME for the next boot"
            run systemctl --root=/ enable --quiet "$UNIT_NAME"
        fi
    fi
else
    say "skipping systemctl (--no-system): daemon-reload, enable and restart $UNIT_NAME yourself"
fi

if [ "$DRY" -eq 1 ]; then
    say "dry run finished: $CHANGES change(s) would be made"
    exit 0
fi
say "done${ROOT:+ (under $ROOT)}: $CHANGES change(s) made."
# the check as the service user (its groups, its data folder: the owner's login cannot read /etc/pitboard), with
# the service stopped (screens, buttons and camera serve one program at a time)
CHECK_AS="sudo -u $SERVICE_USER PITBOARD_DATA=/var/lib/pitboard pitboard check --config /etc/pitboard/pitboard.toml"
if [ "$EXAMPLE" -eq 1 ]; then
    say "next: edit /etc/pitboard/pitboard.toml for your table (players, screens, buttons, game),"
    say "      check it: $CHECK_AS"
    say "      then start it: sudo systemctl enable --now pitboard; follow it: journalctl -u pitboard -f"
else
    say "next: check the wiring: sudo systemctl stop pitboard; $CHECK_AS; sudo systemctl start pitboard"
    say "      then follow the service with 'journalctl -u pitboard -f'"
fi

# --- 10. the interactive wiring check (offered) ----------------------------------------------------
# With someone at the table: each player's name on their screen to confirm, each button pressed in turn
# (which GPIO answered), the camera's view saved with the calibration drawn. Run as the service user, so
# its groups (gpio i2c video) are what is tested, with the service stopped (one program per device).
CHECK_CMD="sudo systemctl stop pitboard; sudo -u $SERVICE_USER PITBOARD_DATA=/var/lib/pitboard pitboard check --interactive --config /etc/pitboard/pitboard.toml"
# (on the unedited example the service is not started afterwards: see section 9)
[ "$EXAMPLE" -eq 1 ] || CHECK_CMD+="; sudo systemctl start pitboard"
if [ "$OFFER_CHECK" -eq 0 ]; then
    :
elif [ "$SYSTEM" -eq 1 ] && { [ "$FIRMWARE_APPENDED" -eq 1 ] || [ ! -e /dev/i2c-1 ]; }; then
    # the screens answer only once I2C is on, at the next boot: offered now, every screen FAILed "then reboot"
    say "after the reboot that turns I2C on (sudo reboot), check the wiring with you at the table: $CHECK_CMD"
elif [ "$SYSTEM" -eq 1 ] && [ "$VENV" -eq 1 ] && [ -x "$VENV_DIR/bin/pitboard" ] && [ -e "$ETC/pitboard.toml" ] &&
    [ -t 0 ] && [ -t 1 ]; then
    answer=
    read -r -p "$PROG: check the wiring now, with you at the table (screens, buttons, camera)? [y/N] " answer || true
    case ${answer,,} in
        y | yes)
            was_active=0
            if [ -d /run/systemd/system ] && systemctl is-active --quiet "$UNIT_NAME"; then
                was_active=1
                say "stopping $UNIT_NAME for the check (screens, buttons and camera serve one program at a time)"
                systemctl stop "$UNIT_NAME"
            fi
            check_status=0
            runuser -u "$SERVICE_USER" -- env PITBOARD_DATA=/var/lib/pitboard "$VENV_DIR/bin/pitboard" check \
                --interactive --config "$ETC/pitboard.toml" --camera-out /var/lib/pitboard/check-camera.png ||
                check_status=$?
            if [ "$was_active" -eq 1 ]; then
                say "starting $UNIT_NAME again"
                systemctl start "$UNIT_NAME"
            fi
            if [ "$check_status" -ne 0 ]; then
                warn "the wiring check found problems (above); fix them and run it again: $CHECK_CMD"
            fi
            ;;
        *) say "later, to check the wiring with you at the table: $CHECK_CMD" ;;
    esac
else
    say "to check the wiring with you at the table (each screen's name, each button, the camera's view): $CHECK_CMD"
fi
