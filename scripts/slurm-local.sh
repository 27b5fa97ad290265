#!/usr/bin/env bash
# A one-node Slurm cluster on localhost, for testing cluster-submitted sweeps
# (profiles/slurm-local, tests/test_slurm.py) on a machine without systemd.
#
#   scripts/slurm-local.sh install   apt-get install munge + Slurm if missing (root)
#   scripts/slurm-local.sh start     write the configuration and start munged,
#                                    slurmctld and slurmd; no-op if running
#   scripts/slurm-local.sh stop      stop exactly the daemons `start` started
#   scripts/slurm-local.sh status    say whether the cluster is up (exit 0/1)
#   scripts/slurm-local.sh env       print `export SLURM_CONF=...` (optional:
#                                    clients find the cluster without it)
#
# Everything lives in one directory, $SLURM_LOCAL_DIR (default
# /tmp/simlib-slurm): slurm.conf, the munge key and socket, state, spool, logs
# and the daemons' PID files; slurm.conf points clients at this munged's
# socket, so a system munge is neither used nor touched. Nothing is written to
# /etc. Clients (sbatch, squeue, and srun inside jobs) find slurm.conf through
# /run/slurm/conf, the directory Slurm clients read when SLURM_CONF is unset
# and /etc/slurm/slurm.conf does not exist: `start` makes it a symlink to this
# directory and `stop` removes it. SLURM_CONF alone is not enough, because the
# Snakemake executor plugin clears SLURM_* variables before its in-job srun.
#
# Settings (environment):
#   SLURM_LOCAL_DIR      the directory above (absolute; short: it holds sockets)
#   SLURM_LOCAL_CTLD_PORT, SLURM_LOCAL_SLURMD_PORT
#                        ports of slurmctld and slurmd (default 6817, 6818)
#   SLURM_LOCAL_CPUS     CPUs of the node (default: nproc)
#   SLURM_LOCAL_TIMEOUT  seconds to wait for the node to come up (default 60)
set -euo pipefail

DIR="${SLURM_LOCAL_DIR:-/tmp/simlib-slurm}"
CTLD_PORT="${SLURM_LOCAL_CTLD_PORT:-6817}"
SLURMD_PORT="${SLURM_LOCAL_SLURMD_PORT:-6818}"
CPUS="${SLURM_LOCAL_CPUS:-$(nproc)}"
TIMEOUT="${SLURM_LOCAL_TIMEOUT:-60}"
CONF="$DIR/slurm.conf"
CLIENT_CONF_DIR=/run/slurm/conf
# Order matters: stop goes backwards (slurmd first, munged last).
DAEMONS=(munged slurmctld slurmd)

say() { echo "slurm-local: $*" >&2; }
die() { say "error: $*"; exit 1; }

usage() { awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; }

pidfile() { echo "$DIR/run/$1.pid"; }

# PID of a daemon we started, if it is still alive and still that program
# (a recycled PID belonging to something else must never be signalled).
live_pid() {
    local name=$1 f pid exe
    f=$(pidfile "$name")
    [[ -s $f ]] || return 1
    pid=$(<"$f")
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
    exe=${exe##*/}
    # Debian installs slurmctld as an alternative of slurmctld-wlm.
    [[ $exe == "$name" || $exe == "$name"-* ]] || return 1
    echo "$pid"
}

cmd_install() {
    local missing=()
    for bin in munged mungekey slurmctld slurmd sbatch squeue scontrol sinfo; do
        command -v "$bin" >/dev/null || missing+=("$bin")
    done
    if ((${#missing[@]} == 0)); then
        say "munge and Slurm already installed ($(slurmctld -V))"
        return 0
    fi
    [[ $(id -u) == 0 ]] || die "missing ${missing[*]}; installing needs root (apt-get)"
    command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get to install them"
    say "installing munge and Slurm with apt-get (missing: ${missing[*]})"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # The packages' own init scripts cannot start anything without systemd;
    # `start` below runs the daemons by hand.
    apt-get install -y -qq munge slurmctld slurmd slurm-client >/dev/null
    say "installed $(slurmctld -V)"
}

write_config() {
    local mem
    # Leave the OS some memory; mem_mb requests above this are refused by sbatch.
    mem=$(awk '/^MemTotal:/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)
    cat >"$CONF" <<EOF
# Written by scripts/slurm-local.sh: a one-node cluster on localhost.
ClusterName=simlib-local
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# This cluster's own munged, not a system one.
AuthInfo=socket=$DIR/munge/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$(pidfile slurmctld)
SlurmdPidFile=$(pidfile slurmd)
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
# No cgroup manager (no systemd, maybe no cgroup v2 delegation here).
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
# No slurmdbd: sacct has nothing to read, so clients poll squeue, which
# shows finished jobs for MinJobAge seconds (the executor plugin needs >= 120).
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MinJobAge=300
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
}

prepare_dir() {
    mkdir -p "$DIR"
    # munged runs as user munge and must reach its socket directory.
    chmod 755 "$DIR"
    mkdir -p "$DIR/run" "$DIR/log" "$DIR/state" "$DIR/spool" "$DIR/munge"
    chown munge:munge "$DIR/munge"
    # Clients (any user) need to reach the socket; the key itself is 0600.
    chmod 755 "$DIR/munge"
    if [[ ! -s $DIR/munge/munge.key ]]; then
        # A fresh key per cluster: the test cluster shares nothing with a
        # site's munge.
        mungekey --create --keyfile "$DIR/munge/munge.key" >/dev/null
        chown munge:munge "$DIR/munge/munge.key"
        chmod 600 "$DIR/munge/munge.key"
    fi
}

start_munged() {
    if live_pid munged >/dev/null; then return 0; fi
    rm -f "$DIR/munge/munge.socket" "$DIR/munge/munge.socket.lock"
    # munged refuses to write its PID file outside a directory it owns.
    runuser -u munge -- munged \
        --socket="$DIR/munge/munge.socket" \
        --key-file="$DIR/munge/munge.key" \
        --pid-file="$DIR/munge/munged.pid" \
        --log-file="$DIR/munge/munged.log" \
        --seed-file="$DIR/munge/munged.seed" \
        || die "munged did not start; see $DIR/munge/munged.log"
    cp "$DIR/munge/munged.pid" "$(pidfile munged)"
    live_pid munged >/dev/null || die "munged exited at once; see $DIR/munge/munged.log"
}

start_slurmctld() {
    if live_pid slurmctld >/dev/null; then return 0; fi
    # -i: ignore state files of an earlier run in this directory.
    slurmctld -f "$CONF" -i </dev/null >>"$DIR/log/slurmctld.out" 2>&1 \
        || die "slurmctld did not start; see $DIR/log/slurmctld.log"
}

start_slurmd() {
    if live_pid slurmd >/dev/null; then return 0; fi
    slurmd -f "$CONF" -N localhost </dev/null >>"$DIR/log/slurmd.out" 2>&1 \
        || die "slurmd did not start; see $DIR/log/slurmd.log"
}

# Point configless clients at this cluster (see the header).
link_client_config() {
    local target
    if [[ -e /etc/slurm/slurm.conf ]]; then
        die "/etc/slurm/slurm.conf exists (another cluster's configuration); srun inside jobs would read it instead of $CONF"
    fi
    if [[ -L $CLIENT_CONF_DIR ]]; then
        target=$(readlink "$CLIENT_CONF_DIR")
        [[ $target == "$DIR" ]] && return 0
        # A dangling link from an earlier cluster of this script is stale.
        [[ -e $CLIENT_CONF_DIR ]] && die "$CLIENT_CONF_DIR points to another cluster ($target)"
        rm -f "$CLIENT_CONF_DIR"
    elif [[ -e $CLIENT_CONF_DIR ]]; then
        die "$CLIENT_CONF_DIR exists and is not ours (a configless slurmd?)"
    fi
    mkdir -p "${CLIENT_CONF_DIR%/*}"
    ln -s "$DIR" "$CLIENT_CONF_DIR"
}

unlink_client_config() {
    if [[ -L $CLIENT_CONF_DIR && $(readlink "$CLIENT_CONF_DIR") == "$DIR" ]]; then
        rm -f "$CLIENT_CONF_DIR"
    fi
}

node_state() {
    SLURM_CONF="$CONF" sinfo -h -N -n localhost -o '%T' 2>/dev/null | head -n 1
}

wait_for() {
    local what=$1 deadline=$((SECONDS + TIMEOUT))
    shift
    until "$@"; do
        ((SECONDS < deadline)) || return 1
        sleep 0.5
    done
}

node_is_up() {
    case "$(node_state)" in idle* | mixed* | allocated* | completing*) return 0 ;; esac
    return 1
}

pid_file_written() { live_pid "$1" >/dev/null; }

cmd_start() {
    [[ $(id -u) == 0 ]] || die "start needs root (slurmd runs jobs as their submitter)"
    [[ $DIR == /* ]] || die "SLURM_LOCAL_DIR must be absolute: $DIR"
    for bin in munged mungekey slurmctld slurmd sinfo; do
        command -v "$bin" >/dev/null || die "$bin not found; run '$0 install' first"
    done
    if cmd_status >/dev/null 2>&1; then
        link_client_config
        say "already running in $DIR (PIDs: $(pids_line))"
        return 0
    fi
    prepare_dir
    # Keep the configuration of a cluster that is partly running (a daemon
    # must not see its slurm.conf change under it).
    live_pid slurmctld >/dev/null || live_pid slurmd >/dev/null || write_config
    link_client_config
    start_munged
    start_slurmctld
    wait_for "slurmctld PID file" pid_file_written slurmctld \
        || die "slurmctld is not running; see $DIR/log/slurmctld.log"
    start_slurmd
    wait_for "slurmd PID file" pid_file_written slurmd \
        || die "slurmd is not running; see $DIR/log/slurmd.log"
    if ! wait_for "node" node_is_up; then
        die "node localhost not up after ${TIMEOUT}s (state: '$(node_state)'); see $DIR/log/"
    fi
    say "started in $DIR (PIDs: $(pids_line)); clients read $CONF via $CLIENT_CONF_DIR"
}

pids_line() {
    local out=() name pid
    for name in "${DAEMONS[@]}"; do
        pid=$(live_pid "$name") && out+=("$name=$pid")
    done
    echo "${out[*]:-none}"
}

cmd_status() {
    local name ok=0
    for name in "${DAEMONS[@]}"; do
        if live_pid "$name" >/dev/null; then
            echo "$name: running (PID $(live_pid "$name"))"
        else
            echo "$name: not running"
            ok=1
        fi
    done
    if ((ok == 0)) && node_is_up; then
        echo "node localhost: $(node_state)"
        return 0
    fi
    return 1
}

cmd_stop() {
    local name pid deadline stopped=()
    # Jobs first, so no slurmstepd outlives its slurmd.
    if live_pid slurmctld >/dev/null; then
        local jobs
        jobs=$(SLURM_CONF="$CONF" squeue -h -t pending,running,suspended -o %A 2>/dev/null || true)
        # shellcheck disable=SC2086  # one job ID per word
        [[ -z $jobs ]] || SLURM_CONF="$CONF" scancel --full $jobs 2>/dev/null || true
        deadline=$((SECONDS + 15))
        while [[ -n $(SLURM_CONF="$CONF" squeue -h -t running,completing -o %i 2>/dev/null) ]] \
            && ((SECONDS < deadline)); do
            sleep 0.5
        done
    fi
    for ((i = ${#DAEMONS[@]} - 1; i >= 0; i--)); do
        name=${DAEMONS[i]}
        pid=$(live_pid "$name") || continue
        kill -TERM "$pid" 2>/dev/null || true
        deadline=$((SECONDS + 20))
        while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
        if kill -0 "$pid" 2>/dev/null; then
            say "$name (PID $pid) ignored SIGTERM; sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            sleep 0.2
        fi
        stopped+=("$name=$pid")
    done
    rm -f "$DIR"/run/*.pid
    unlink_client_config
    if ((${#stopped[@]})); then
        say "stopped ${stopped[*]}"
    else
        say "nothing to stop in $DIR"
    fi
}

case "${1:-}" in
    install) cmd_install ;;
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    env) echo "export SLURM_CONF=$CONF" ;;
    -h | --help | help) usage ;;
    *) usage >&2; exit 2 ;;
esac
