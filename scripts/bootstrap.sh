#!/usr/bin/env bash
# Installs everything tfbench needs on Debian 12 and builds Kokkos + Kokkos Kernels (OpenMP +
# Serial) into a cached prefix keyed by version and options. Idempotent: a second run only checks.
#
#   scripts/bootstrap.sh                   Kokkos 3.4.1 from Debian's trilinos source (the default)
#   scripts/bootstrap.sh --kokkos 4.6.99   Kokkos 4.6.99 + Kokkos Kernels 4.7.99 from the source
#                                          snapshots in $TFBENCH_DEPS (checksums verified)
#   scripts/bootstrap.sh --cuda            the same Kokkos 4.6.99 with the Cuda space (and OpenMP,
#                                          Serial) and Kokkos Kernels with cuBLAS, built with the CUDA
#                                          toolkit it finds (CUDA_HOME, nvcc on PATH, /usr/local/cuda).
#                                          Kokkos 3.4.1 has no Hopper arch and no CUDA 13 support.
#
# Environment:
#   Kokkos_ROOT=DIR        use this Kokkos (HPC module, CUDA build); nothing is built.
#                          KokkosKernels_ROOT defaults to the same DIR.
#   TFBENCH_CACHE=DIR      cache root (default: $HOME/.cache/tfbench)
#   TFBENCH_DEPS=DIR       folder of the Kokkos 4 snapshots (default: ../shared/deps beside the repo)
#   TFBENCH_SKIP_APT=1     do not call apt-get (packages must already be there)
#   TFBENCH_JOBS=N         parallel build jobs (default: nproc)
#   TFBENCH_ARCH=V         -march of the Kokkos build: native (default), none, or a -march= value
#                          such as x86-64-v3 (scripts/build.sh passes its build tree's)
#   TFBENCH_CUDA_ARCH=A    with --cuda: the Kokkos arch of the GPU (default HOPPER90: H100/H200;
#                          AMPERE80 for A100, ...); without a GPU here it cannot be detected
#
# On success the last line on stdout is `TFBENCH_KOKKOS_PREFIX=<dir>`. For the default Kokkos
# the same line is written to "$TFBENCH_CACHE/kokkos.env", where CMake finds it when no
# Kokkos_ROOT is given; other Kokkos builds are used through Kokkos_ROOT=<dir>.
# Exit status: 0 ready, 1 failed, 3 the requested Kokkos 4 snapshots are not in $TFBENCH_DEPS,
# 4 --cuda found no CUDA toolkit.
set -euo pipefail

DEFAULT_KOKKOS_VERSION=3.4.1
KOKKOS_VERSION=""  # from --kokkos; else 3.4.1, or 4.6.99 with --cuda
CUDA=0
CUDA_ARCH=${TFBENCH_CUDA_ARCH:-HOPPER90}
CACHE=${TFBENCH_CACHE:-$HOME/.cache/tfbench}
JOBS=${TFBENCH_JOBS:-$(nproc)}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEPS=${TFBENCH_DEPS:-$(cd "$HERE/../.." && pwd)/shared/deps}
say() { printf '[bootstrap] %s\n' "$*" >&2; }
die() { printf '[bootstrap] ERROR: %s\n' "$*" >&2; exit 1; }
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }

while [ $# -gt 0 ]; do
  case $1 in
    --kokkos) [ $# -ge 2 ] || die "--kokkos needs a version (3.4.1 or 4.6.99)"; KOKKOS_VERSION=$2; shift 2 ;;
    --kokkos=*) KOKKOS_VERSION=${1#--kokkos=}; shift ;;
    --cuda) CUDA=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
if [ "$CUDA" = 1 ]; then
  KOKKOS_VERSION=${KOKKOS_VERSION:-4.6.99}
  [ "$KOKKOS_VERSION" = 4.6.99 ] || die "--cuda builds Kokkos 4.6.99 (Kokkos 3.4.1 has no Hopper arch and does not compile with CUDA 13)"
fi
KOKKOS_VERSION=${KOKKOS_VERSION:-$DEFAULT_KOKKOS_VERSION}
case $KOKKOS_VERSION in
  3.4.1) KERNELS_VERSION=3.4.1 ;;
  4.6.99) KERNELS_VERSION=4.7.99 ;;
  *) die "--kokkos $KOKKOS_VERSION: supported are 3.4.1 (Debian's trilinos source) and 4.6.99 (the snapshots in TFBENCH_DEPS); for any other Kokkos, build it yourself and set Kokkos_ROOT" ;;
esac

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@";
  elif command -v sudo >/dev/null 2>&1; then sudo "$@";
  else die "need root (or sudo) to run: $*"; fi
}

# ---------------------------------------------------------------- Debian packages
PACKAGES=(
  build-essential g++ gfortran cmake ninja-build ccache pkg-config git dpkg-dev xz-utils patchelf libomp-dev
  libopenblas-dev liblapacke-dev
  libyaml-cpp-dev libcli11-dev catch2 libbenchmark-dev
  libhdf5-dev hdf5-tools libssl-dev nlohmann-json3-dev
  libxsmm-dev libeigen3-dev
  python3 python3-h5py python3-numpy python3-matplotlib python3-scipy python3-pandas python3-jsonschema
  clang-format clang-tidy
)

install_packages() {
  if [ "${TFBENCH_SKIP_APT:-0}" = 1 ]; then say "TFBENCH_SKIP_APT=1: not calling apt-get"; return; fi
  [ -r /etc/debian_version ] || die "this script supports Debian 12 (bookworm); /etc/debian_version not found"
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then say "Debian packages: all ${#PACKAGES[@]} present"; return; fi
  say "Debian packages: installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || die "apt-get update failed"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 \
    || die "apt-get install failed for: ${missing[*]}"
}

# ---------------------------------------------------------------- Kokkos source
ensure_deb_src() {
  # apt-get source needs a deb-src entry for bookworm; add one beside the existing sources.
  if grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then return; fi
  say "adding a deb-src entry for bookworm (/etc/apt/sources.list.d/tfbench-deb-src.sources)"
  as_root tee /etc/apt/sources.list.d/tfbench-deb-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || die "apt-get update (deb-src) failed"
}

fetch_kokkos_sources() {  # $1 = destination folder holding kokkos/ and kokkos-kernels/
  local dest=$1
  if [ -f "$dest/kokkos/CMakeLists.txt" ] && [ -f "$dest/kokkos-kernels/CMakeLists.txt" ]; then return; fi
  local dl="$CACHE/src/trilinos-deb"
  mkdir -p "$dl"
  if ! ls "$dl"/trilinos_*.orig.tar.* >/dev/null 2>&1; then
    [ "${TFBENCH_SKIP_APT:-0}" = 1 ] && die "Kokkos sources missing and TFBENCH_SKIP_APT=1: cannot fetch Debian's trilinos source package"
    ensure_deb_src
    say "downloading Debian's trilinos source package (Kokkos $KOKKOS_VERSION lives in it)"
    (cd "$dl" && apt-get source --download-only trilinos >&2) \
      || die "apt-get source --download-only trilinos failed (is a bookworm deb-src entry reachable?)"
  fi
  local tarball
  tarball=$(ls "$dl"/trilinos_*.orig.tar.* | head -n 1)
  say "extracting packages/kokkos and packages/kokkos-kernels from $(basename "$tarball")"
  local tmp="$dest.tmp"
  rm -rf "$tmp"; mkdir -p "$tmp"
  tar -xf "$tarball" -C "$tmp" --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*' \
    || die "could not extract Kokkos from $tarball"
  local top
  top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
  grep -q "Kokkos_VERSION_MAJOR 3" "$top/packages/kokkos/CMakeLists.txt" \
    || die "the trilinos source package does not carry Kokkos 3.x"
  rm -rf "$dest"; mkdir -p "$dest"
  mv "$top/packages/kokkos" "$dest/kokkos"
  mv "$top/packages/kokkos-kernels" "$dest/kokkos-kernels"
  rm -rf "$tmp"
}

# The Kokkos 4 snapshots (TFBENCH_DEPS): verified against SHA256SUMS, patched (scripts/patches/).
SNAPSHOT_KOKKOS=kokkos-4.6.99-28848dfa8
SNAPSHOT_KERNELS=kokkos-kernels-4.7.99-2fc2af19f

# Patches named kokkos-<version>-cuda-*.patch apply to CUDA builds only.
snapshot_patches() {
  local f
  for f in "$HERE"/patches/kokkos-"$KOKKOS_VERSION"-*.patch; do
    [ -f "$f" ] || continue
    case $(basename "$f") in
      kokkos-"$KOKKOS_VERSION"-cuda-*) [ "$CUDA" = 1 ] && printf '%s\n' "$f" ;;
      *) printf '%s\n' "$f" ;;
    esac
  done
  return 0
}

# The CUDA toolkit: CUDA_HOME, else nvcc on PATH, else the toolkit's default prefix.
find_cuda() {
  local home=${CUDA_HOME:-}
  if [ -z "$home" ] && command -v nvcc >/dev/null 2>&1; then home=$(dirname "$(dirname "$(command -v nvcc)")"); fi
  [ -n "$home" ] || home=/usr/local/cuda
  if [ ! -x "$home/bin/nvcc" ]; then
    say "--cuda: no CUDA toolkit found (set CUDA_HOME, or put nvcc on PATH)"
    exit 4
  fi
  CUDA_HOME=$home
  CUDA_VERSION=$("$home/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
  export PATH="$CUDA_HOME/bin:$PATH" CUDAToolkit_ROOT="$CUDA_HOME" NVCC_WRAPPER_DEFAULT_COMPILER=g++
}

fetch_snapshot_sources() {  # $1 = destination folder holding kokkos/ and kokkos-kernels/
  local dest=$1
  if [ -f "$dest/.tfbench-patched" ]; then return; fi
  local f
  for f in "$SNAPSHOT_KOKKOS.tar.gz" "$SNAPSHOT_KERNELS.tar.gz" SHA256SUMS; do
    if [ ! -f "$DEPS/$f" ]; then
      say "Kokkos $KOKKOS_VERSION: $DEPS/$f not found (set TFBENCH_DEPS to the folder of the Kokkos 4 snapshots)"
      exit 3
    fi
  done
  (cd "$DEPS" && grep -E " \*?($SNAPSHOT_KOKKOS|$SNAPSHOT_KERNELS)\.tar\.gz\$" SHA256SUMS | sha256sum -c --quiet -) >&2 \
    || die "checksum mismatch for the Kokkos snapshots in $DEPS (see SHA256SUMS there)"
  [ "$(cd "$DEPS" && grep -cE "($SNAPSHOT_KOKKOS|$SNAPSHOT_KERNELS)\.tar\.gz" SHA256SUMS)" = 2 ] \
    || die "$DEPS/SHA256SUMS does not list both $SNAPSHOT_KOKKOS.tar.gz and $SNAPSHOT_KERNELS.tar.gz"
  say "extracting $SNAPSHOT_KOKKOS and $SNAPSHOT_KERNELS (checksums verified)"
  local tmp="$dest.tmp"
  rm -rf "$tmp"; mkdir -p "$tmp"
  tar -xzf "$DEPS/$SNAPSHOT_KOKKOS.tar.gz" -C "$tmp" && tar -xzf "$DEPS/$SNAPSHOT_KERNELS.tar.gz" -C "$tmp" \
    || die "could not extract the Kokkos snapshots from $DEPS"
  mv "$tmp/$SNAPSHOT_KOKKOS" "$tmp/kokkos"
  mv "$tmp/$SNAPSHOT_KERNELS" "$tmp/kokkos-kernels"
  local patch_file
  for patch_file in $(snapshot_patches); do
    say "applying $(basename "$patch_file")"
    patch -d "$tmp/kokkos" -p1 --forward --quiet < "$patch_file" >&2 || die "patch $patch_file does not apply"
  done
  touch "$tmp/.tfbench-patched"
  rm -rf "$dest"; mv "$tmp" "$dest"
}

# ---------------------------------------------------------------- Kokkos build
native_arch() { gcc -march=native -Q --help=target 2>/dev/null | awk '$1=="-march="{print $2; exit}'; }

# Kokkos Kernels options per version. 3.4.1 instantiates double/LayoutLeft/int ahead of time (ETI,
# ~9 min on 2 cores); 4.x is used header-only (ETI off, seconds): tfbench's TUs instantiate what they use.
kernels_options() {
  local common=(-DKokkosKernels_ENABLE_TPL_BLAS=ON -DKokkosKernels_ENABLE_TPL_LAPACK=ON
    -DBLAS_LIBRARIES=openblas -DBLAS_LIBRARY_DIRS="$OPENBLAS_DIR"
    -DLAPACK_LIBRARIES=openblas -DLAPACK_LIBRARY_DIRS="$OPENBLAS_DIR"
    -DKokkosKernels_ENABLED_COMPONENTS="BATCHED;BLAS"
    -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF)
  if [ "$KERNELS_VERSION" = 3.4.1 ]; then
    printf '%s\n' "${common[@]}" \
      -DKokkosKernels_INST_DOUBLE=ON -DKokkosKernels_INST_FLOAT=OFF \
      -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF -DKokkosKernels_INST_COMPLEX_FLOAT=OFF \
      -DKokkosKernels_INST_LAYOUTLEFT=ON -DKokkosKernels_INST_LAYOUTRIGHT=OFF \
      -DKokkosKernels_INST_ORDINAL_INT=ON -DKokkosKernels_INST_ORDINAL_INT64_T=OFF \
      -DKokkosKernels_INST_OFFSET_INT=ON -DKokkosKernels_INST_OFFSET_SIZE_T=OFF \
      -DKokkosKernels_INST_EXECSPACE_OPENMP=ON -DKokkosKernels_INST_EXECSPACE_SERIAL=ON
  else
    printf '%s\n' "${common[@]}" -DKokkosKernels_ADD_DEFAULT_ETI=OFF \
      -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF \
      -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF -DKokkosKernels_INST_COMPLEX_FLOAT=OFF \
      -DKokkosKernels_ENABLE_PERFTESTS=OFF -DKokkosKernels_ENABLE_BENCHMARK=OFF
  fi
}

build_kokkos() {
  # TFBENCH_ARCH (scripts/build.sh passes the build tree's): the -march of tfbench's own code.
  local arch=${TFBENCH_ARCH:-native} cxx_flags="-O3 -march=native" arch_key
  arch_key=$(native_arch) || true  # awk's early exit may end gcc by SIGPIPE
  case $arch in
    native) ;;
    none) cxx_flags="-O3" arch_key=none ;;
    *) cxx_flags="-O3 -march=$arch" arch_key=$arch ;;
  esac
  local kk_eti="double,LayoutLeft,int,int"
  [ "$KERNELS_VERSION" = 3.4.1 ] || kk_eti=off
  local patches="" patch_file
  for patch_file in $(snapshot_patches); do patches+="$(basename "$patch_file"):$(sha256sum < "$patch_file" | cut -c1-12),"; done
  local spaces="OpenMP,Serial" kind="openmp-serial" kk_tpl="BLAS,LAPACK(openblas)"
  if [ "$CUDA" = 1 ]; then
    find_cuda
    spaces="Cuda,OpenMP,Serial" kind="cuda-openmp-serial" kk_tpl="BLAS,LAPACK(openblas),CUBLAS"
    cxx_flags="-O3"  # portable host code: the CUDA build runs on another machine
  fi
  local opts="v=$KOKKOS_VERSION;spaces=$spaces;build=Release;flags=$cxx_flags;arch=$arch_key"
  opts+=";cxx=$(g++ -dumpfullversion);kk=$KERNELS_VERSION;kk_components=BATCHED,BLAS;kk_eti=$kk_eti;kk_tpl=$kk_tpl"
  [ "$CUDA" = 0 ] || opts+=";cuda=$CUDA_VERSION;cuda_arch=$CUDA_ARCH"
  [ -z "$patches" ] || opts+=";patches=$patches"
  local key
  key=$(printf '%s' "$opts" | sha256sum | cut -c1-12)
  local prefix="$CACHE/kokkos-$KOKKOS_VERSION-$kind-$key"
  if [ -f "$prefix/.tfbench-complete" ]; then
    say "Kokkos $KOKKOS_VERSION ($spaces) found in cache: $prefix"
    PREFIX=$prefix; return
  fi
  say "building Kokkos $KOKKOS_VERSION + Kokkos Kernels $KERNELS_VERSION ($spaces) into $prefix"
  say "  options: $opts"
  local src
  if [ "$KOKKOS_VERSION" = "$DEFAULT_KOKKOS_VERSION" ]; then
    src="$CACHE/src/kokkos-$KOKKOS_VERSION"
    fetch_kokkos_sources "$src"
  else
    src="$CACHE/src/kokkos-$KOKKOS_VERSION-$key"
    fetch_snapshot_sources "$src"
  fi
  local bld="$CACHE/build/kokkos-$key"
  rm -rf "$bld" "$prefix"
  local t0=$SECONDS
  local core_cxx=g++ kernels_cxx=g++ core_extra=() kernels_extra=()
  if [ "$CUDA" = 1 ]; then
    core_cxx="$src/kokkos/bin/nvcc_wrapper"
    kernels_cxx="$prefix/bin/nvcc_wrapper"
    core_extra=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON "-DKokkos_ARCH_$CUDA_ARCH=ON")
    kernels_extra=(-DKokkosKernels_ENABLE_TPL_CUBLAS=ON)
  fi
  cmake -S "$src/kokkos" -B "$bld/kokkos" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$core_cxx" -DCMAKE_CXX_FLAGS="$cxx_flags" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17 \
    -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON "${core_extra[@]}" \
    -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF >&2 || die "Kokkos configure failed"
  cmake --build "$bld/kokkos" -j "$JOBS" >&2 || die "Kokkos build failed"
  cmake --install "$bld/kokkos" >&2 || die "Kokkos install failed"
  say "Kokkos core built in $((SECONDS - t0)) s; building Kokkos Kernels $KERNELS_VERSION"
  OPENBLAS_DIR=/usr/lib/x86_64-linux-gnu/openblas-pthread
  [ -d "$OPENBLAS_DIR" ] || OPENBLAS_DIR=$(dirname "$(ls /usr/lib/*/openblas-pthread/libopenblas.so 2>/dev/null | head -n1)")
  [ -f "$OPENBLAS_DIR/libopenblas.so" ] || die "OpenBLAS (libopenblas-dev) not found"
  local kk_opts=()
  mapfile -t kk_opts < <(kernels_options)
  cmake -S "$src/kokkos-kernels" -B "$bld/kokkos-kernels" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$kernels_cxx" -DCMAKE_CXX_FLAGS="$cxx_flags" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DKokkos_ROOT="$prefix" "${kk_opts[@]}" "${kernels_extra[@]}" >&2 \
    || die "Kokkos Kernels configure failed"
  cmake --build "$bld/kokkos-kernels" -j "$JOBS" >&2 || die "Kokkos Kernels build failed"
  cmake --install "$bld/kokkos-kernels" >&2 || die "Kokkos Kernels install failed"
  printf '%s\n' "$opts" > "$prefix/.tfbench-complete"
  rm -rf "$bld"
  say "Kokkos $KOKKOS_VERSION + Kokkos Kernels $KERNELS_VERSION ($spaces) built in $((SECONDS - t0)) s"
  PREFIX=$prefix
}

use_user_kokkos() {
  local root=$Kokkos_ROOT
  [ -d "$root" ] || die "Kokkos_ROOT=$root is not a directory"
  ls "$root"/lib*/cmake/Kokkos/KokkosConfig.cmake >/dev/null 2>&1 \
    || die "Kokkos_ROOT=$root has no lib*/cmake/Kokkos/KokkosConfig.cmake"
  local kk=${KokkosKernels_ROOT:-$root}
  ls "$kk"/lib*/cmake/KokkosKernels/KokkosKernelsConfig.cmake >/dev/null 2>&1 \
    || die "no Kokkos Kernels in ${kk} (set KokkosKernels_ROOT)"
  say "using the user's Kokkos at $root (nothing is built)"
  PREFIX=$root
}

main() {
  install_packages
  mkdir -p "$CACHE"
  if [ -n "${Kokkos_ROOT:-}" ]; then
    use_user_kokkos
    printf 'TFBENCH_KOKKOS_PREFIX=%s\n' "$PREFIX"
    return
  fi
  build_kokkos
  if [ "$KOKKOS_VERSION" = "$DEFAULT_KOKKOS_VERSION" ]; then
    printf 'TFBENCH_KOKKOS_PREFIX=%s\n' "$PREFIX" | tee "$CACHE/kokkos.env"
  else
    printf 'TFBENCH_KOKKOS_PREFIX=%s\n' "$PREFIX"
  fi
}
main
