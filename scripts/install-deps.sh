#!/usr/bin/env bash
# Installs what building and testing libspx needs and is missing (Debian): cmake, a C/C++
# compiler, pkg-config, Catch2 (Debian's catch2 package), gfortran (the Fortran bindings), and
# python3 with pytest and NumPy (the Python binding tests). The CUDA toolkit (nvcc 12.x/13.x)
# must already be installed; this script says so if it is not.
set -euo pipefail
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)
command -v pkg-config >/dev/null || need+=(pkg-config)
[ -f /usr/lib/cmake/Catch2/Catch2Config.cmake ] || [ -f /usr/share/cmake/Catch2/Catch2Config.cmake ] \
  || [ -d /usr/include/catch2 ] || need+=(catch2)
# The Fortran module and example (bindings/fortran) are built when gfortran is there.
command -v gfortran >/dev/null || need+=(gfortran)
# The Python binding tests need a python3 with pytest and NumPy (Debian's packages go to
# /usr/bin/python3, which the build looks for when the python3 in PATH lacks them).
py_ok=0
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null && "$py" -c "import pytest, numpy" 2>/dev/null; then py_ok=1; break; fi
done
[ $py_ok = 1 ] || need+=(python3 python3-pytest python3-numpy)
# The wheel check (scripts/check-wheel.sh) makes a virtual environment with the python3 in PATH.
python3 -c "import venv, ensurepip" 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "installing: ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
if ! command -v nvcc >/dev/null; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    echo "nvcc is at /usr/local/cuda/bin: add it to PATH (export PATH=/usr/local/cuda/bin:\$PATH)"
  else
    echo "error: the CUDA toolkit (nvcc) is required to build libspx; install CUDA 12.5 or newer" >&2
  fi
  exit 1
fi
