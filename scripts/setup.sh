# Shared by scripts/run and scripts/test: install what is missing (as root) and build Release.
# Sourced, not executed.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${POREFLOW_BUILD_DIR:-$ROOT/build}

PACKAGES=(cmake ninja-build g++ pkg-config python3
  ocl-icd-opencl-dev opencl-clhpp-headers opencl-c-headers pocl-opencl-icd
  doctest-dev libspdlog-dev libcli11-dev libtomlplusplus-dev libstb-dev libhdf5-dev
  libopm-common-dev python3-opm-common libopenmpi-dev openmpi-bin)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ]; then
    echo "poreflow: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
  else
    echo "poreflow: missing packages; as root run:"
    echo "  apt-get install -y ${missing[*]}"
    exit 1
  fi
}

build_release() {
  # CUDA is used when nvcc is found (PATH or /usr/local/cuda); OpenCL when its headers are.
  local t0=$SECONDS
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release ${POREFLOW_CMAKE_ARGS:-}
  cmake --build "$BUILD" --parallel
  echo "poreflow: $BUILD built in $((SECONDS - t0)) s"  # CI's log says where its time goes
}
