#!/usr/bin/env bash
# A real Slurm cluster on this machine, for trying the job templates and for the integration
# tests: munged, slurmctld and one slurmd on loopback, or N slurmd in namespaces of their own
# (--nodes N); every file under one state folder.
#
#   scripts/slurm/local-cluster.sh install        Debian's slurm-wlm + munge, if missing
#   scripts/slurm/local-cluster.sh start STATE [--nodes N]
#                                                 write STATE/etc/slurm.conf, start the daemons,
#                                                 wait until every node is idle; prints the env line
#   scripts/slurm/local-cluster.sh stop STATE     cancel jobs, stop the daemons this script started
#   scripts/slurm/local-cluster.sh env STATE      print `export SLURM_CONF=...` for the clients
#   scripts/slurm/local-cluster.sh diagnose STATE squeue, scontrol, job records, daemon log tails
#
# Exit: 0 ok; 1 failed; 3 not possible here (no root and no sudo to install, or the daemons cannot
# run as this user, or --nodes N > 1 without root). Nothing outside STATE is touched except the
# packages `install` adds and, with --nodes, the links and cgroups local-nodes.sh makes (`stop`
# removes them, also after a failed start; on cgroup v2 the root's cpuset controller stays on).
#
# The cluster: ClusterName tfbench-local, one partition `local`; cgroup-free Slurm plugins that work
# in containers (proctrack/linuxproc, task/affinity), no accounting database (finished jobs are
# kept by slurmctld for MinJobAge and written to STATE/log/jobcomp.log by jobcomp/filetxt).
# One node (default): this machine on loopback (CPUs from nproc, memory from /proc/meminfo).
# --nodes N (root): N nodes node1..nodeN, each a slurmd in its own network, UTS and mount
# namespaces with its own address, hostname and CPU (local-nodes.sh), the controller on a bridge
# in the caller's network namespace (run it inside `unshare --net` to keep the machine's clean).
set -euo pipefail
# shellcheck source=local-nodes.sh
source "$(dirname "$0")/local-nodes.sh"

say() { printf '[local-cluster] %s\n' "$*" >&2; }
die() { printf '[local-cluster] ERROR: %s\n' "$*" >&2; exit 1; }
impossible() { printf '[local-cluster] NOT POSSIBLE HERE: %s\n' "$*" >&2; exit 3; }

PACKAGES=(slurm-wlm munge)
BINARIES=(munged munge unmunge slurmctld slurmd sbatch squeue scontrol scancel sinfo)

have_all() {
  local b
  for b in "${BINARIES[@]}"; do command -v "$b" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v "$b" >/dev/null 2>&1 || return 1; done
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo -n "$@"
  else return 3; fi
}

cmd_install() {
  export PATH=$PATH:/usr/sbin:/sbin
  if have_all; then say "Slurm and munge present ($(slurmctld -V 2>/dev/null || echo '?'))"; return 0; fi
  if [ "$(id -u)" -ne 0 ] && ! { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; then
    impossible "${PACKAGES[*]} are not installed and there is no root or password-less sudo to install them"
  fi
  [ -r /etc/debian_version ] || impossible "not Debian: install ${PACKAGES[*]} with this system's package manager"
  say "installing ${PACKAGES[*]} (apt-get)"
  # The packages' maintainer scripts would start system daemons; the test starts its own instead.
  local policy=/usr/sbin/policy-rc.d added_policy=0
  if [ ! -e "$policy" ]; then
    as_root sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod 755 $policy" && added_policy=1
  fi
  local rc=0
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${PACKAGES[@]}" >&2 || {
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        "${PACKAGES[@]}" >&2
  } || rc=$?
  [ "$added_policy" = 1 ] && as_root rm -f "$policy"
  [ "$rc" -eq 0 ] || die "apt-get install ${PACKAGES[*]} failed (exit $rc)"
  have_all || die "installed ${PACKAGES[*]} but some of ${BINARIES[*]} are still missing"
  say "installed: $(slurmctld -V)"
}

# ---------------------------------------------------------------- cluster
free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

state_dir() {  # absolute STATE, created
  [ -n "${1:-}" ] || die "give the state folder: $0 ${CMD} STATE"
  mkdir -p "$1"
  (cd "$1" && pwd)
}

write_conf() {  # $1 = STATE, $2 = number of nodes
  local st=$1 nodes=$2 user host cpus mem_kb mem_mb ctld_port slurmd_port ctld_host node_lines
  user=$(id -un)
  host=$(hostname -s)
  cpus=$(nproc)
  mem_kb=$(awk '/^MemTotal:/{print $2}' /proc/meminfo)
  mem_mb=$(( mem_kb / 1024 * 9 / 10 ))  # leave a tenth to the system
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  [ "$slurmd_port" != "$ctld_port" ] || slurmd_port=$(free_port)
  mkdir -p "$st"/{etc,munge,ctld,spool,log,run,tmp}
  if [ "$nodes" = 1 ]; then
    ctld_host="$host(127.0.0.1)"
    node_lines="NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP"
  else
    ctld_host="$host($NODES_NET.254)"
    node_lines=$(nodes_conf "$st" "$nodes" $((mem_mb / nodes)))
  fi
  chmod 755 "$st/munge"  # the socket must be reachable; the key itself is 0600
  cat > "$st/etc/slurm.conf" <<CONF
# Written by scripts/slurm/local-cluster.sh: a $nodes-node test cluster.
ClusterName=tfbench-local
SlurmctldHost=$ctld_host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$st/munge/munge.socket.2
CredType=cred/munge
StateSaveLocation=$st/ctld
SlurmdSpoolDir=$st/spool/%n
SlurmctldPidFile=$st/run/slurmctld.pid
SlurmdPidFile=$st/run/slurmd-%n.pid
SlurmctldLogFile=$st/log/slurmctld.log
SlurmdLogFile=$st/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
TmpFS=$st/tmp
# No cgroups: plugins that work in containers.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$st/log/jobcomp.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MinJobAge=3600
MailProg=/bin/true
SlurmdParameters=config_overrides
SlurmdTimeout=60
$node_lines
CONF
  say "wrote $st/etc/slurm.conf ($nodes node(s), $cpus CPUs, $mem_mb MB in all; ports $ctld_port/$slurmd_port)"
}

alive() {  # $1 = pid file, $2 = daemon name: true when that daemon runs with the pid in the file
  [ -s "$1" ] || return 1
  local pid
  pid=$(cat "$1")
  [ -r "/proc/$pid/comm" ] && grep -q "^${2:0:15}" "/proc/$pid/comm"
}

wait_for() {  # $1 = seconds, $2.. = command; polls every 0.5 s
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
}

nodes_idle() {  # $1 = how many nodes: true when that many are idle (or busy)
  [ "$(sinfo -h -N -o '%T' 2>/dev/null | grep -cE '^(idle|mixed|allocated)')" -ge "$1" ]
}

cmd_start() {
  export PATH=$PATH:/usr/sbin:/sbin
  have_all || impossible "Slurm/munge missing: run '$0 install' first"
  local st nodes=1
  st=$(state_dir "${1:-}")
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --nodes) nodes=${2:?}; shift 2 ;;
      *) die "unknown start option $1" ;;
    esac
  done
  [[ "$nodes" =~ ^[1-9][0-9]*$ ]] || die "--nodes takes a positive count, not '$nodes'"
  if [ "$nodes" -gt 1 ]; then
    [ "$(id -u)" = 0 ] || impossible "--nodes $nodes needs root (network namespaces, cgroups)"
    for b in ip nsenter unshare setsid taskset; do
      command -v "$b" >/dev/null || impossible "--nodes $nodes needs $b"
    done
  fi
  if alive "$st/run/slurmctld.pid" slurmctld; then die "a cluster already runs from $st (stop it first)"; fi
  write_conf "$st" "$nodes"
  export SLURM_CONF=$st/etc/slurm.conf
  [ "$nodes" = 1 ] || nodes_setup "$st" "$nodes"

  # munge: a fresh key of our own, its own socket; nothing of the system's munge is used. A unix
  # socket on the filesystem: the nodes' network namespaces reach it too.
  if [ ! -s "$st/munge/munge.key" ]; then
    mungekey --create --keyfile="$st/munge/munge.key" 2>/dev/null ||
      dd if=/dev/urandom of="$st/munge/munge.key" bs=1024 count=1 status=none
    chmod 600 "$st/munge/munge.key"
  fi
  munged --force --key-file="$st/munge/munge.key" --socket="$st/munge/munge.socket.2" \
    --pid-file="$st/munge/munged.pid" --log-file="$st/log/munged.log" \
    --seed-file="$st/munge/munged.seed" ||
    { tail -n 20 "$st/log/munged.log" >&2 || true; impossible "munged does not start as $(id -un)"; }
  wait_for 10 sh -c "munge -n --socket='$st/munge/munge.socket.2' | unmunge --socket='$st/munge/munge.socket.2'" ||
    die "munge does not answer on $st/munge/munge.socket.2"
  say "munged up (pid $(cat "$st/munge/munged.pid"))"

  slurmctld -f "$SLURM_CONF" -i ||
    { tail -n 30 "$st/log/slurmctld.log" >&2 || true; die "slurmctld failed to start"; }
  wait_for 20 scontrol ping || { tail -n 30 "$st/log/slurmctld.log" >&2; die "slurmctld does not answer"; }
  say "slurmctld up (pid $(cat "$st/run/slurmctld.pid"))"

  if [ "$nodes" = 1 ]; then
    slurmd -f "$SLURM_CONF" ||
      { tail -n 30 "$st"/log/slurmd-*.log >&2 || true; die "slurmd failed to start"; }
  else
    nodes_start_slurmd "$st" "$nodes"
  fi
  if ! wait_for 30 nodes_idle "$nodes"; then
    sinfo -N -l >&2 || true
    tail -n 30 "$st"/log/slurmd-*.log "$st/log/slurmctld.log" >&2 || true
    die "not all $nodes node(s) became idle within 30 s"
  fi
  say "slurmd up (pid(s) $(cat "$st"/run/slurmd-*.pid | tr '\n' ' ')); nodes: $(sinfo -h -N -o '%N %T %c CPUs %m MB' | paste -sd ';')"
  echo "export SLURM_CONF=$SLURM_CONF"
}

stop_daemon() {  # $1 = pid file, $2 = name
  alive "$1" "$2" || return 0
  local pid
  pid=$(cat "$1")
  kill -TERM "$pid" 2>/dev/null || true
  local _
  for _ in $(seq 1 40); do
    [ -d "/proc/$pid" ] || { say "stopped $2 (pid $pid)"; return 0; }
    sleep 0.25
  done
  kill -KILL "$pid" 2>/dev/null || true
  say "killed $2 (pid $pid) after 10 s"
}

cmd_stop() {
  export PATH=$PATH:/usr/sbin:/sbin
  local st
  st=$(state_dir "${1:-}")
  export SLURM_CONF=$st/etc/slurm.conf
  if alive "$st/run/slurmctld.pid" slurmctld; then
    local jobs
    jobs=$(squeue -h -o %A 2>/dev/null | tr '\n' ' ')
    if [ -n "${jobs// /}" ]; then
      say "cancelling jobs: $jobs"
      scancel $jobs 2>/dev/null || true
      wait_for 15 sh -c '[ -z "$(squeue -h 2>/dev/null)" ]' || say "jobs still listed after 15 s"
    fi
  fi
  local f
  for f in "$st"/run/slurmd-*.pid; do [ ! -e "$f" ] || stop_daemon "$f" slurmd; done
  stop_daemon "$st/run/slurmctld.pid" slurmctld
  stop_daemon "$st/munge/munged.pid" munged
  nodes_teardown "$st"
}

cmd_env() {
  local st
  st=$(state_dir "${1:-}")
  [ -f "$st/etc/slurm.conf" ] || die "no cluster configured in $st"
  echo "export SLURM_CONF=$st/etc/slurm.conf"
}

cmd_diagnose() {
  export PATH=$PATH:/usr/sbin:/sbin
  local st
  st=$(state_dir "${1:-}")
  export SLURM_CONF=$st/etc/slurm.conf
  {
    echo "== sinfo";        sinfo -N -l 2>&1 || true
    echo "== squeue";       squeue -l 2>&1 || true
    echo "== scontrol show job"; scontrol show job 2>&1 | head -n 200 || true
    echo "== sacct (needs an accounting database; this cluster has none)"
    sacct -a -X 2>&1 | head -n 5 || true
    echo "== job completion records ($st/log/jobcomp.log)"; tail -n 40 "$st/log/jobcomp.log" 2>&1 || true
    echo "== slurmctld.log";  tail -n 40 "$st/log/slurmctld.log" 2>&1 || true
    echo "== slurmd logs";    tail -n 60 "$st"/log/slurmd-*.log 2>&1 || true
    echo "== munged.log";     tail -n 10 "$st/log/munged.log" 2>&1 || true
  } >&2
}

main() {
  CMD=${1:-}
  shift || true
  case "$CMD" in
    install) cmd_install ;;
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    env) cmd_env "$@" ;;
    diagnose) cmd_diagnose "$@" ;;
    *) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 1 ;;
  esac
}
main "$@"
