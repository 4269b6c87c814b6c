# shellcheck shell=bash
# Sourced by local-cluster.sh: the compute nodes of a multi-node local cluster (start --nodes N).
# Each node is a set of namespaces held open by one `sleep` process: its own network namespace (a
# veth pair to a bridge in the caller's namespace, its own address), UTS namespace (its own
# hostname) and mount namespace (its own /etc/hosts, bind-mounted there only: the machine's file is
# never written), plus its own CPU: a cpuset cgroup (v1 or v2) where the kernel lets us make one,
# else the slurmd's affinity (taskset), inherited by everything it starts. Needs root.
#
# State under STATE/nodes/: mode (cpuset-v1, cpuset-v2 or taskset), nodeI.holder (the holder's
# pid), nodeI.cgroup (its cgroup folder), hosts; the bridge and veth names derive from STATE.
# Every function tolerates a half-built state: nodes_teardown undoes whatever exists.

NODES_NET=10.254.77       # the bridge is .254, node i is .i
NODES_HOSTNAME_PREFIX=node

nodes_tag() {  # a short tag of STATE, for the names that live outside it (links, cgroups)
  printf '%s' "$1" | md5sum | cut -c1-6
}

# The CPU-confinement mode this kernel allows: cpuset-v1, cpuset-v2 or taskset.
nodes_cpu_mode() {
  local v1=/sys/fs/cgroup/cpuset v2=/sys/fs/cgroup
  if [ -w "$v1/cpuset.cpus" ] || { [ -d "$v1" ] && [ -w "$v1/tasks" ]; }; then
    local probe=$v1/tfbench-probe-$$
    if mkdir "$probe" 2>/dev/null; then rmdir "$probe"; echo cpuset-v1; return; fi
  fi
  if [ -r "$v2/cgroup.controllers" ] && grep -qw cpuset "$v2/cgroup.controllers"; then
    local probe=$v2/tfbench-probe-$$
    if grep -qw cpuset "$v2/cgroup.subtree_control" 2>/dev/null ||
        echo +cpuset > "$v2/cgroup.subtree_control" 2>/dev/null; then
      if mkdir "$probe" 2>/dev/null; then rmdir "$probe"; echo cpuset-v2; return; fi
    fi
  fi
  echo taskset
}

nodes_cgroup_make() {  # $1 = mode, $2 = folder name, $3 = cpu; prints the folder
  local dir
  case "$1" in
    cpuset-v1)
      dir=/sys/fs/cgroup/cpuset/$2
      mkdir -p "$dir"
      cat /sys/fs/cgroup/cpuset/cpuset.mems > "$dir/cpuset.mems"
      echo "$3" > "$dir/cpuset.cpus" ;;
    cpuset-v2)
      dir=/sys/fs/cgroup/$2
      mkdir -p "$dir"
      echo "$3" > "$dir/cpuset.cpus" ;;
    *) return 0 ;;
  esac
  echo "$dir"
}

# Runs a command inside node i's namespaces and CPU set.
nodes_exec() {  # $1 = STATE, $2 = i, $3.. = command
  local st=$1 i=$2 holder cg="" cpu
  shift 2
  holder=$(cat "$st/nodes/node$i.holder")
  [ ! -s "$st/nodes/node$i.cgroup" ] || cg=$(cat "$st/nodes/node$i.cgroup")
  cpu=$(cat "$st/nodes/node$i.cpu")
  if [ -n "$cg" ]; then
    # shellcheck disable=SC2016
    nsenter -t "$holder" -n -u -m -- sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@"
  else
    nsenter -t "$holder" -n -u -m -- taskset -c "$cpu" "$@"
  fi
}

# Bridge, holders, veths, addresses, hostnames, hosts file, CPU sets for nodes 1..N.
nodes_setup() {  # $1 = STATE, $2 = N
  local st=$1 n=$2 tag mode i cpu holder cg ncpu
  tag=$(nodes_tag "$st")
  mkdir -p "$st/nodes"
  mode=$(nodes_cpu_mode)
  echo "$mode" > "$st/nodes/mode"
  ncpu=$(nproc --all)
  {
    echo "127.0.0.1 localhost"
    echo "$NODES_NET.254 $(hostname -s)"
    for i in $(seq 1 "$n"); do echo "$NODES_NET.$i $NODES_HOSTNAME_PREFIX$i"; done
  } > "$st/nodes/hosts"
  ip link add "tfb${tag}br" type bridge
  ip addr add "$NODES_NET.254/24" dev "tfb${tag}br"
  ip link set "tfb${tag}br" up
  for i in $(seq 1 "$n"); do
    cpu=$(( (i - 1) % ncpu ))
    echo "$cpu" > "$st/nodes/node$i.cpu"
    # The holder: new network, UTS and mount namespaces; sets the hostname and the hosts file
    # there, says so, then sleeps. Killing it (and what runs inside) removes all three.
    # shellcheck disable=SC2016
    setsid unshare --net --uts --mount --propagation private -- sh -c \
      'hostname "$0" && mount --bind "$1" /etc/hosts && ip link set lo up && touch "$2" && exec sleep infinity' \
      "$NODES_HOSTNAME_PREFIX$i" "$st/nodes/hosts" "$st/nodes/node$i.ready" </dev/null >/dev/null 2>&1 &
    holder=$!
    echo "$holder" > "$st/nodes/node$i.holder"
    wait_for 10 test -e "$st/nodes/node$i.ready" || die "node $i: namespaces not ready"
    cg=$(nodes_cgroup_make "$mode" "tfbench-$tag-node$i" "$cpu")
    echo "$cg" > "$st/nodes/node$i.cgroup"
    ip link add "tfb${tag}v$i" type veth peer name eth0 netns "$holder"
    ip link set "tfb${tag}v$i" master "tfb${tag}br" up
    nsenter -t "$holder" -n -- ip addr add "$NODES_NET.$i/24" dev eth0
    nsenter -t "$holder" -n -- ip link set eth0 up
  done
  say "$n node namespaces up (CPU confinement: $mode; bridge tfb${tag}br $NODES_NET.254/24)"
}

# Prints the slurm.conf lines of the nodes and their partition. Each node is declared with the
# machine's CPUs (what its slurmd -C reports: Slurm's topology ignores cpusets) and every CPU but
# its own as specialized (CpuSpecList), so that Slurm allocates it exactly its CPU and its
# task/affinity binding (machine CPU ids) lands inside the node's cpuset.
nodes_conf() {  # $1 = STATE, $2 = N, $3 = memory per node (MB)
  local i cpu ncpu spec
  ncpu=$(nproc --all)
  for i in $(seq 1 "$2"); do
    cpu=$(( (i - 1) % ncpu ))
    spec=$(seq 0 $((ncpu - 1)) | grep -vx "$cpu" | paste -sd,)
    echo "NodeName=$NODES_HOSTNAME_PREFIX$i NodeAddr=$NODES_NET.$i NodeHostname=$NODES_HOSTNAME_PREFIX$i CPUs=$ncpu${spec:+ CpuSpecList=$spec} RealMemory=$3 State=UNKNOWN"
  done
  # OverSubscribe=YES: jobs that ask (--oversubscribe) may share CPUs; --exclusive ones never do.
  echo "PartitionName=local Nodes=${NODES_HOSTNAME_PREFIX}[1-$2] Default=YES MaxTime=INFINITE OverSubscribe=YES State=UP"
}

# slurmd -C inside each node (what that node's slurmd sees of its hardware), then the slurmds.
nodes_start_slurmd() {  # $1 = STATE, $2 = N
  local st=$1 n=$2 i
  for i in $(seq 1 "$n"); do
    nodes_exec "$st" "$i" slurmd -C > "$st/nodes/node$i.slurmd-C" 2>&1 ||
      die "node $i: slurmd -C failed: $(cat "$st/nodes/node$i.slurmd-C")"
    say "node $i slurmd -C: $(head -n1 "$st/nodes/node$i.slurmd-C")"
    nodes_exec "$st" "$i" slurmd -f "$SLURM_CONF" -N "$NODES_HOSTNAME_PREFIX$i" ||
      { tail -n 30 "$st/log/slurmd-$NODES_HOSTNAME_PREFIX$i.log" >&2 || true; die "node $i: slurmd failed to start"; }
  done
}

nodes_holders() {  # the holders' pids that still run
  local f pid
  for f in "$1"/nodes/node*.holder; do
    [ -s "$f" ] || continue
    pid=$(cat "$f")
    [ -r "/proc/$pid/comm" ] && grep -qE '^(sleep|sh|unshare)$' "/proc/$pid/comm" && echo "$pid"
  done
  return 0
}

# Every process inside a node's network namespace (the holder's), the holder included.
nodes_members() {  # $1 = holder pid
  local ns p
  ns=$(readlink "/proc/$1/ns/net" 2>/dev/null) || return 0
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$ns" ] && echo "${p#/proc/}"
  done
  return 0
}

# Kills everything in the nodes' namespaces, removes cgroups, veths and the bridge.
nodes_teardown() {  # $1 = STATE
  local st=$1 tag holder pids f cg _ i
  [ -d "$st/nodes" ] || return 0
  tag=$(nodes_tag "$st")
  for holder in $(nodes_holders "$st"); do
    pids=$(nodes_members "$holder" | tr '\n' ' ')
    # shellcheck disable=SC2086
    [ -z "${pids// /}" ] || kill -KILL $pids 2>/dev/null || true
  done
  for _ in $(seq 1 40); do
    [ -z "$(nodes_holders "$st")" ] && break
    sleep 0.25
  done
  for f in "$st"/nodes/node*.cgroup; do
    [ -s "$f" ] || continue
    cg=$(cat "$f")
    for _ in $(seq 1 20); do rmdir "$cg" 2>/dev/null && break; [ -d "$cg" ] || break; sleep 0.25; done
    [ ! -d "$cg" ] || say "cgroup $cg still exists"
  done
  for i in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep "^tfb${tag}v" || true); do
    ip link del "$i" 2>/dev/null || true
  done
  ip link del "tfb${tag}br" 2>/dev/null || true
  rm -f "$st"/nodes/node*.holder "$st"/nodes/node*.ready
}

# What is left of the nodes (empty when the teardown was complete): for the test's final check.
nodes_leftovers() {  # $1 = STATE
  local st=$1 tag f
  [ -d "$st/nodes" ] || return 0
  tag=$(nodes_tag "$st")
  for f in "$st"/nodes/node*.holder; do
    [ -s "$f" ] && [ -d "/proc/$(cat "$f")" ] && echo "holder process $(cat "$f")"
  done
  for f in "$st"/nodes/node*.cgroup; do
    [ -s "$f" ] && [ -d "$(cat "$f")" ] && echo "cgroup $(cat "$f")"
  done
  ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep "^tfb${tag}" | sed 's/^/link /'
  return 0
}
