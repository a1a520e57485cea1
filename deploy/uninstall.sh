#!/usr/bin/env bash
# Pitboard uninstaller: undoes deploy/install.sh.
#
# Removes the service, the virtual environment (/opt/pitboard), the wheel cache (/var/cache/pitboard), the
# /usr/local/bin/pitboard link and the i2c-dev boot snippet. KEEPS the owner's games and calibration (/var/lib/pitboard), the configuration
# (/etc/pitboard) and the 'pitboard' user that owns them, unless --purge is given.
# Leaves the apt packages (other programs may use them) and the lines in config.txt (harmless) alone.
# Refuse `sh install.sh` early, before any bash-only line is parsed.
if [ -z "${BASH_VERSION:-}" ]; then
    echo "uninstall.sh: run it with bash: sudo deploy/uninstall.sh (not sh uninstall.sh)" >&2
    exit 2
fi
set -Eeuo pipefail
trap 'printf "%s: error: unexpected failure (exit %s) at line %s: %s\n" "${PROG:-uninstall.sh}" "$?" "$LINENO" "$BASH_COMMAND" >&2' ERR

PROG=uninstall.sh
SERVICE_USER=pitboard
UNIT_NAME=pitboard.service

usage() {
    cat <<EOF
Usage: sudo deploy/uninstall.sh [options]

Removes the Pitboard service and program. Your games (/var/lib/pitboard) and configuration
(/etc/pitboard) are kept unless you add --purge.

Options:
  --purge         also delete /var/lib/pitboard (all recorded games, calibration, taught dice faces),
                  /etc/pitboard and the 'pitboard' user; asks for confirmation
  --yes, -y       confirm --purge without asking (for scripts)
  --dry-run, -n   print what would be done, change nothing
  --root DIR      act on files under DIR instead of / (needs --no-system). Also: PITBOARD_ROOT=DIR.
                  Alias: --prefix DIR
  --no-system     skip systemctl and userdel
  -h, --help      this text
EOF
}

say() { printf '%s: %s\n' "$PROG" "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
die() {
    printf '%s: error: %s\n' "$PROG" "$*" >&2
    exit 2
}

ROOT=${PITBOARD_ROOT:-}
SYSTEM=1 DRY=0 PURGE=0 YES=0
while [ $# -gt 0 ]; do
    case $1 in
        --purge) PURGE=1 ;;
        -y | --yes) YES=1 ;;
        -n | --dry-run) DRY=1 ;;
        --no-system) SYSTEM=0 ;;
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
        *) die "unknown option '$1' (see deploy/uninstall.sh --help)" ;;
    esac
    shift
done

if [ -n "$ROOT" ]; then
    case $ROOT in
        /*) ;;
        *) ROOT=$PWD/$ROOT ;;
    esac
    ROOT=${ROOT%/}
    [ "$SYSTEM" -eq 0 ] || die "--root/PITBOARD_ROOT acts on files under $ROOT but systemctl and userdel would act on this machine: add --no-system"
    [ -d "$ROOT" ] || die "--root $ROOT: no such directory"
fi

if [ "$(id -u)" -ne 0 ] && [ "$DRY" -eq 0 ] && { [ "$SYSTEM" -eq 1 ] || [ -z "$ROOT" ]; }; then
    die "must be run as root: it stops the service and deletes files owned by root. Run: sudo $0"
fi

OPT=$ROOT/opt/pitboard
ETC=$ROOT/etc/pitboard
DATA=$ROOT/var/lib/pitboard
UNIT_DST=$ROOT/etc/systemd/system/$UNIT_NAME
WANTS_LINK=$ROOT/etc/systemd/system/multi-user.target.wants/$UNIT_NAME
MODULES_CONF=$ROOT/etc/modules-load.d/pitboard.conf
BIN_LINK=$ROOT/usr/local/bin/pitboard
WHEEL_CACHE=$ROOT/var/cache/pitboard

CHANGES=0
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

# remove PATH: delete a file, link or directory tree if it is there.
remove() {
    if [ -e "$1" ] || [ -L "$1" ]; then
        say "removing $1"
        run rm -rf -- "${1:?}"
    fi
}

# Decide about --purge first, before anything is removed.
if [ "$PURGE" -eq 1 ] && [ "$YES" -eq 0 ] && [ "$DRY" -eq 0 ]; then
    games=0
    if [ -d "$DATA" ]; then games=$(find "$DATA" -type f | wc -l); fi
    if [ -t 0 ]; then
        printf '%s: --purge deletes %s (%s file(s): recorded games, calibration, taught faces) and %s for good.\n' \
            "$PROG" "$DATA" "$games" "$ETC"
        read -r -p "Type 'yes' to delete them: " answer
        [ "$answer" = yes ] || die "nothing deleted (answer was not 'yes')"
    else
        die "--purge deletes the owner's games in $DATA: confirm with --yes when not running interactively"
    fi
fi

if [ "$DRY" -eq 1 ]; then say "dry run: nothing will be changed"; fi

# --- 1. the service --------------------------------------------------------------------------------
if [ "$SYSTEM" -eq 1 ]; then
    if [ -d /run/systemd/system ]; then
        if systemctl is-active --quiet "$UNIT_NAME" 2>/dev/null; then
            say "stopping $UNIT_NAME"
            run systemctl stop "$UNIT_NAME"
        fi
        if systemctl is-enabled --quiet "$UNIT_NAME" 2>/dev/null; then
            run systemctl disable --quiet "$UNIT_NAME"
        fi
    elif [ -e "$WANTS_LINK" ] || [ -L "$WANTS_LINK" ]; then
        run systemctl --root=/ disable --quiet "$UNIT_NAME"
    fi
else
    say "skipping systemctl (--no-system)"
fi
remove "$WANTS_LINK"
remove "$UNIT_DST"
if [ "$SYSTEM" -eq 1 ] && [ -d /run/systemd/system ]; then
    run systemctl daemon-reload
    run systemctl reset-failed "$UNIT_NAME" 2>/dev/null || true
fi

# --- 2. the program --------------------------------------------------------------------------------
if [ -L "$BIN_LINK" ] && [ "$(readlink "$BIN_LINK")" = /opt/pitboard/venv/bin/pitboard ]; then
    remove "$BIN_LINK"
fi
remove "$OPT"
remove "$WHEEL_CACHE" # the locked wheels install.sh kept for offline re-runs
remove "$MODULES_CONF"

# --- 3. the owner's data ---------------------------------------------------------------------------
if [ "$PURGE" -eq 1 ]; then
    remove "$DATA"
    remove "$ETC"
    if [ "$SYSTEM" -eq 1 ] && getent passwd "$SERVICE_USER" >/dev/null; then
        say "removing user '$SERVICE_USER'"
        run userdel "$SERVICE_USER"
        if getent group "$SERVICE_USER" >/dev/null; then run groupdel "$SERVICE_USER"; fi
    fi
else
    for kept in "$DATA" "$ETC"; do
        if [ -e "$kept" ]; then say "keeping $kept (delete it with --purge)"; fi
    done
    if [ "$SYSTEM" -eq 1 ] && getent passwd "$SERVICE_USER" >/dev/null; then
        say "keeping user '$SERVICE_USER' (it owns $DATA)"
    fi
fi

say "left in place: the apt packages (python3-picamera2 python3-lgpio python3-venv i2c-tools sqlite3) and the"
say "I2C/camera lines in config.txt; remove them by hand if nothing else needs them"
if [ "$DRY" -eq 1 ]; then
    say "dry run finished: $CHANGES change(s) would be made"
else
    say "done${ROOT:+ (under $ROOT)}: $CHANGES change(s) made."
fi
