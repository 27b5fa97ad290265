#!/usr/bin/env bash
# Batsim v4.2.1 and pybatsim 3.2.1, built into one prefix, to cross-check our
# simulator against them (simlib.batsim.run). An explicit opt-in tool: no
# make target and no test needs it (tests marked `batsim` are skipped
# without it).
#
#   scripts/batsim.sh deps                  apt-get install the Debian build
#                                           dependencies (root), or say which
#   scripts/batsim.sh install PREFIX [--intervalset=SRC]
#                                           build redox, intervalset, Batsim
#                                           into PREFIX, pybatsim into
#                                           PREFIX/pybatsim-venv (runs `deps`)
#   scripts/batsim.sh check PREFIX          exit 0 when PREFIX/bin/batsim
#                                           runs and pybatsim imports; prints
#                                           versions and the stand-in warning
#   scripts/batsim.sh env PREFIX            print the PATH/PKG_CONFIG_PATH lines
#                                           for a shell (eval "$(... env P)")
#
# Sources (each a git URL, a local clone, a bare git repository such as a
# snapshot, or a plain source tree; a git source is exported at the ref):
#   BATSIM_SRC       default https://github.com/oar-team/batsim.git (ref BATSIM_REF=v4.2.1;
#                    https://framagit.org/batsim/batsim.git is the other upstream)
#   REDOX_SRC        default https://github.com/hmartiro/redox.git (ref REDOX_REF=master)
#   INTERVALSET_SRC  default https://framagit.org/batsim/intervalset.git
#                    (ref INTERVALSET_REF=v1.2.0); or `standin`, also given as
#                    --intervalset=standin: build simlib's own STAND-IN from
#                    scripts/batsim/intervalset-standin/ instead (unit-tested
#                    here but not the upstream library; PREFIX is marked with an
#                    INTERVALSET-STANDIN file and `check` and simlib.batsim warn)
#   BATSIM_BUILD_DIR build directory (default PREFIX/build); keep it outside
#                    any git repository (Batsim's version comes from git describe)
#   GIT_TIMEOUT      seconds allowed to a git clone of a URL (default 120)
#   PYTHON           interpreter of PREFIX/pybatsim-venv (default python3)
#   JOBS             parallel build jobs (default nproc)
#
# redox installs no pkg-config file and puts its library in lib64, so this
# script writes PREFIX/lib/pkgconfig/redox.pc. Batsim is linked with an rpath
# to PREFIX/lib and PREFIX/lib64, so no ld.so configuration is needed.
# pybatsim 3.2.1 pins pyzmq<23, which has no wheel for Python 3.11: its
# dependencies are installed by hand (pyzmq>=23) and pybatsim with --no-deps.
set -euo pipefail

say() { echo "batsim.sh: $*" >&2; }
die() { say "$*"; exit 1; }

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
STANDIN_DIR="$HERE/batsim/intervalset-standin"
STANDIN_MARKER=INTERVALSET-STANDIN

BATSIM_SRC=${BATSIM_SRC:-https://github.com/oar-team/batsim.git}
BATSIM_REF=${BATSIM_REF:-v4.2.1}
REDOX_SRC=${REDOX_SRC:-https://github.com/hmartiro/redox.git}
REDOX_REF=${REDOX_REF:-master}
INTERVALSET_SRC=${INTERVALSET_SRC:-https://framagit.org/batsim/intervalset.git}
INTERVALSET_REF=${INTERVALSET_REF:-v1.2.0}
PYTHON=${PYTHON:-python3}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

DEB_PACKAGES=(build-essential meson ninja-build pkg-config cmake libsimgrid-dev libboost-dev
              rapidjson-dev libzmq3-dev libpugixml-dev libdocopt-dev libhiredis-dev libev-dev git)
PYBATSIM_DEPS=("pyzmq>=23" "docopt<0.7" "procset<2" "sortedcontainers<3")
PYBATSIM_VERSION=3.2.1

abspath() { mkdir -p "$1" && (cd "$1" && pwd); }

deps() {
    local missing=() p
    for p in "${DEB_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
        die "missing Debian packages: ${missing[*]}. Install them with" \
            "'sudo apt-get install ${DEB_PACKAGES[*]}' (needs root and apt-get), then run this again"
    fi
    say "apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null \
        || { apt-get update -q >/dev/null && \
             DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null; } \
        || die "apt-get install ${missing[*]} failed"
}

# fetch NAME SRC REF DEST: put the source tree of SRC at REF in DEST (fresh).
fetch() {
    local name=$1 src=$2 ref=$3 dest=$4
    rm -rf "$dest"
    mkdir -p "$dest"
    if [[ -d $src ]]; then
        if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
            if git -C "$src" rev-parse -q --verify "$ref^{commit}" >/dev/null; then
                say "$name: $src at $ref ($(git -C "$src" rev-parse --short "$ref^{commit}"))"
                git -C "$src" archive --format=tar "$ref" | tar -x -C "$dest"
                return 0
            fi
            if [[ $(git -C "$src" rev-parse --is-bare-repository) == true ]]; then
                die "$name: the git repository $src has no ref $ref (set ${name^^}_REF)"
            fi
            say "$name: $src has no ref $ref; using its work tree as it is"
        else
            say "$name: plain source tree $src (no git; ref $ref not checked)"
        fi
        (cd "$src" && tar -c --exclude=.git .) | tar -x -C "$dest"
        return 0
    fi
    say "$name: cloning $src at $ref"
    GIT_TERMINAL_PROMPT=0 timeout "${GIT_TIMEOUT:-120}" \
        git clone -q --depth 1 --branch "$ref" "$src" "$dest" 2>&1 >&2 \
        || { rm -rf "$dest"; return 1; }
    rm -rf "$dest/.git"
}

build_redox() {
    local prefix=$1 build=$2
    fetch redox "$REDOX_SRC" "$REDOX_REF" "$build/redox-src" \
        || die "redox: cannot get $REDOX_SRC (set REDOX_SRC to a local clone or snapshot)"
    say "redox: building"
    cmake -S "$build/redox-src" -B "$build/redox-build" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX="$prefix" -Dstatic_lib=OFF >"$build/redox.log" 2>&1 \
        && cmake --build "$build/redox-build" -j "$JOBS" >>"$build/redox.log" 2>&1 \
        && cmake --install "$build/redox-build" >>"$build/redox.log" 2>&1 \
        || die "redox: build failed, see $build/redox.log"
    local libdir
    libdir=$(dirname "$(ls "$prefix"/lib*/libredox.so | head -n 1)")
    mkdir -p "$prefix/lib/pkgconfig"
    # redox installs no pkg-config file; Batsim's meson.build asks for one.
    cat >"$prefix/lib/pkgconfig/redox.pc" <<EOF
prefix=$prefix
libdir=$libdir
includedir=\${prefix}/include

Name: redox
Description: C++ Redis client (written by scripts/batsim.sh, redox installs none)
Version: 0.3.0
Requires: hiredis
Libs: -L\${libdir} -lredox
Libs.private: -lev -lpthread
Cflags: -I\${includedir}
EOF
}

build_intervalset_standin() {
    local prefix=$1 build=$2
    say "!!! intervalset: building simlib's STAND-IN, NOT the upstream library"
    say "!!! ($STANDIN_DIR); Batsim's results are then unverified against upstream"
    make -s -C "$STANDIN_DIR" BUILD="$build/intervalset-standin" PREFIX="$prefix" all \
        >"$build/intervalset.log" 2>&1 || die "intervalset stand-in: build failed, see $build/intervalset.log"
    "$build/intervalset-standin/test_intervalset" >&2 \
        || die "intervalset stand-in: its unit tests failed; not installing it"
    make -s -C "$STANDIN_DIR" BUILD="$build/intervalset-standin" PREFIX="$prefix" install \
        >>"$build/intervalset.log" 2>&1 || die "intervalset stand-in: install failed"
    cat >"$prefix/$STANDIN_MARKER" <<EOF
This prefix's intervalset library is simlib's STAND-IN
($STANDIN_DIR), built by scripts/batsim.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)
because the upstream library (framagit.org/batsim/intervalset $INTERVALSET_REF) was
not available. It implements the IntervalSet API Batsim $BATSIM_REF compiles
against and passes its own unit tests, but it is not the library Batsim is
released with. Rebuild with INTERVALSET_SRC=<upstream clone> to remove this file.
EOF
}

build_intervalset_upstream() {
    local prefix=$1 build=$2
    fetch intervalset "$INTERVALSET_SRC" "$INTERVALSET_REF" "$build/intervalset-src" || return 1
    say "intervalset: building $INTERVALSET_SRC"
    meson setup "$build/intervalset-build" "$build/intervalset-src" --prefix="$prefix" \
        --libdir=lib --buildtype=release >"$build/intervalset.log" 2>&1 \
        && ninja -C "$build/intervalset-build" -j "$JOBS" >>"$build/intervalset.log" 2>&1 \
        && ninja -C "$build/intervalset-build" install >>"$build/intervalset.log" 2>&1 \
        || die "intervalset: build failed, see $build/intervalset.log"
    rm -f "$prefix/$STANDIN_MARKER"
}

build_batsim() {
    local prefix=$1 build=$2
    fetch batsim "$BATSIM_SRC" "$BATSIM_REF" "$build/batsim-src" \
        || die "batsim: cannot get $BATSIM_SRC (set BATSIM_SRC to a local clone or snapshot)"
    say "batsim: building (a few minutes; log in $build/batsim.log)"
    rm -rf "$build/batsim-build"
    PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib64/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
        meson setup "$build/batsim-build" "$build/batsim-src" --prefix="$prefix" --libdir=lib \
        --buildtype=release -Dcpp_link_args="-Wl,-rpath,$prefix/lib:$prefix/lib64" \
        >"$build/batsim.log" 2>&1 \
        && ninja -C "$build/batsim-build" -j "$JOBS" >>"$build/batsim.log" 2>&1 \
        && ninja -C "$build/batsim-build" install >>"$build/batsim.log" 2>&1 \
        || die "batsim: build failed, see $build/batsim.log"
}

install_pybatsim() {
    local prefix=$1 venv=$1/pybatsim-venv
    say "pybatsim $PYBATSIM_VERSION: into $venv"
    [[ -x $venv/bin/python ]] || "$PYTHON" -m venv "$venv" || die "cannot create $venv with $PYTHON"
    "$venv/bin/python" -m pip install -q "${PYBATSIM_DEPS[@]}" \
        && "$venv/bin/python" -m pip install -q --no-deps "pybatsim==$PYBATSIM_VERSION" \
        || die "pip install of pybatsim $PYBATSIM_VERSION failed"
}

install() {
    local prefix build intervalset=$INTERVALSET_SRC start=$SECONDS
    prefix=$(abspath "$1"); shift
    for arg in "$@"; do
        case $arg in
            --intervalset=*) intervalset=${arg#--intervalset=} ;;
            *) die "unknown option $arg" ;;
        esac
    done
    build=$(abspath "${BATSIM_BUILD_DIR:-$prefix/build}")
    deps
    build_redox "$prefix" "$build"
    if [[ $intervalset == standin ]]; then
        build_intervalset_standin "$prefix" "$build"
    else
        INTERVALSET_SRC=$intervalset
        build_intervalset_upstream "$prefix" "$build" \
            || die "intervalset: cannot get $intervalset. Give a local clone or source tree" \
                   "(INTERVALSET_SRC=PATH or --intervalset=PATH), or build simlib's unverified" \
                   "stand-in explicitly with --intervalset=standin"
    fi
    build_batsim "$prefix" "$build"
    install_pybatsim "$prefix"
    say "installed in $prefix in $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s"
    check "$prefix"
}

check() {
    local prefix=$1 ok=0 version
    if [[ -f $prefix/$STANDIN_MARKER ]]; then
        say "!!! WARNING: $prefix uses simlib's intervalset STAND-IN, not the upstream library"
        say "!!! (see $prefix/$STANDIN_MARKER); cross-check results are provisional"
    fi
    if [[ ! -x $prefix/bin/batsim ]]; then
        say "no $prefix/bin/batsim (run scripts/batsim.sh install $prefix)"; ok=1
    elif ldd "$prefix/bin/batsim" | grep -q "not found"; then
        say "$prefix/bin/batsim misses libraries: $(ldd "$prefix/bin/batsim" | grep "not found" | tr -s ' \t' ' ')"; ok=1
    elif version=$("$prefix/bin/batsim" --version 2>&1); then
        echo "batsim $version ($prefix/bin/batsim)"
    else
        say "$prefix/bin/batsim --version failed: $version"; ok=1
    fi
    if version=$("$prefix/pybatsim-venv/bin/python" -c \
            'import importlib.metadata as m, batsim.batsim; print(m.version("pybatsim"))' 2>&1); then
        echo "pybatsim $version ($prefix/pybatsim-venv/bin/pybatsim)"
    else
        say "pybatsim does not import from $prefix/pybatsim-venv (run scripts/batsim.sh install $prefix)"; ok=1
    fi
    return $ok
}

env_lines() {
    local prefix
    prefix=$(cd "$1" && pwd)
    echo "export PATH=\"$prefix/bin:$prefix/pybatsim-venv/bin:\$PATH\""
    echo "export PKG_CONFIG_PATH=\"$prefix/lib/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}\""
    echo "export SIMLIB_BATSIM=\"$prefix\""
}

case "${1:-}" in
    deps) deps ;;
    install) shift; install "${1:?usage: $0 install PREFIX [--intervalset=SRC]}" "${@:2}" ;;
    check) check "${2:?usage: $0 check PREFIX}" ;;
    env) env_lines "${2:?usage: $0 env PREFIX}" ;;
    *) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 2 ;;
esac
