#!/usr/bin/env bash
# SimGrid's Python module for paper D, exposed to the project's venv.
#
#   scripts/simgrid.sh install VENV   apt-get install python3-simgrid if missing
#                                     (root, Debian/Ubuntu), then `link`
#   scripts/simgrid.sh link VENV      make VENV's python import Debian's module
#   scripts/simgrid.sh check VENV     exit 0 when VENV's python imports simgrid
#
# Debian's python3-simgrid (SimGrid 3.32) is one extension module built for
# the system python3. A venv does not see dist-packages, and adding all of it
# would shadow the venv's own packages, so `link` puts a symlink to that one
# .so in VENV/simgrid-debian/ and a .pth file naming that folder in the venv's
# site-packages. The module must match the venv's Python version.
#
# `install` never fails the caller: without root or apt-get it says what to
# install and exits 0, so papers U and K still build; paper D's rules then
# fail with the same advice (simlib.backends.simgrid.require_simgrid).
set -euo pipefail

say() { echo "simgrid.sh: $*" >&2; }

venv_python() {
    local py="$1/bin/python"
    [[ -x $py ]] || { say "no venv at $1 (run make install first)"; exit 2; }
    echo "$py"
}

check() {
    "$(venv_python "$1")" -c "import simgrid" 2>/dev/null
}

link() {
    local venv=$1 py tag so site dir
    py=$(venv_python "$venv")
    tag=$("$py" -c 'import sys; print(f"cpython-{sys.version_info[0]}{sys.version_info[1]}")')
    so=$(ls /usr/lib/python3/dist-packages/simgrid.${tag}-*.so 2>/dev/null | head -n 1 || true)
    if [[ -z $so ]]; then
        if ls /usr/lib/python3/dist-packages/simgrid.*.so >/dev/null 2>&1; then
            say "Debian's SimGrid module is built for another Python than $py ($tag):" \
                "$(ls /usr/lib/python3/dist-packages/simgrid.*.so | head -n 1);" \
                "recreate the venv with the system python3 (make PYTHON=/usr/bin/python3)"
        else
            say "python3-simgrid is not installed (sudo apt-get install python3-simgrid)"
        fi
        return 1
    fi
    dir="$(cd "$venv" && pwd)/simgrid-debian"
    mkdir -p "$dir"
    ln -sfn "$so" "$dir/$(basename "$so")"
    site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "$dir" > "$site/simgrid-debian.pth"
    check "$venv" || { say "linked $so but $py still cannot import simgrid"; return 1; }
    say "SimGrid $("$py" -c 'import simgrid; print(simgrid.simgrid_version)' 2>/dev/null) available in $venv"
}

install() {
    local venv=$1
    check "$venv" && return 0
    if ! ls /usr/lib/python3/dist-packages/simgrid.*.so >/dev/null 2>&1; then
        if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
            say "installing Debian's python3-simgrid (SimGrid 3.32)"
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-simgrid >/dev/null \
                || { apt-get update -q >/dev/null && \
                     DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-simgrid >/dev/null; } \
                || say "apt-get install python3-simgrid failed"
        else
            say "SimGrid is missing and cannot be installed here (needs root and apt-get):" \
                "run 'sudo apt-get install python3-simgrid' then 'make install';" \
                "paper D's rules fail until then, papers U and K are not affected"
            return 0
        fi
    fi
    link "$venv" || say "paper D's rules will fail until SimGrid imports in $venv"
    return 0
}

case "${1:-}" in
    install) install "${2:?usage: $0 install VENV}" ;;
    link) link "${2:?usage: $0 link VENV}" ;;
    check) check "${2:?usage: $0 check VENV}" ;;
    *) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 2 ;;
esac
