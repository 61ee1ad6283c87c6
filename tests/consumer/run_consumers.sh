#!/usr/bin/env bash
# Installs the built libspx into a scratch prefix, then builds and runs two outside consumers:
# one through find_package(spx) (CMake), one through pkg-config. Used as a ctest test.
# Usage: run_consumers.sh <libspx build dir> <scratch dir>
set -euo pipefail
build=$1
scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
here=$(cd "$(dirname "$0")" && pwd)

cmake -S "$here/project" -B "$scratch/cmake-consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/cmake-consumer" >/dev/null
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64:${LD_LIBRARY_PATH:-}" "$scratch/cmake-consumer/consumer"

libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -n 1)
export PKG_CONFIG_PATH="$libdir:${PKG_CONFIG_PATH:-}"
cc "$here/project/main.c" $(pkg-config --cflags --libs spx) -o "$scratch/pkgconfig-consumer"
LD_LIBRARY_PATH="$(dirname "$libdir"):${LD_LIBRARY_PATH:-}" "$scratch/pkgconfig-consumer"
echo "consumers: find_package and pkg-config both built, linked and ran"
