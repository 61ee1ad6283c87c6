#!/usr/bin/env bash
# Builds the Python wheel from the repository root (`pip install .`: CMake through
# scikit-build-core, libspx.so inside the package) into a fresh virtual environment and imports
# it from outside the checkout: the version, and the library the package loads and its version.
# No GPU needed. Environment: CUDA_ARCHS (default 90, to keep the build short), WHEEL_BUILD_DIR
# (default build-wheel: kept between runs, so a rebuild is incremental).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
venv=$(mktemp -d)/venv
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip >/dev/null
"$venv/bin/python" -m pip install -q . \
  --config-settings=cmake.define.CMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" \
  --config-settings=build-dir="${WHEEL_BUILD_DIR:-build-wheel}"
cd /
"$venv/bin/python" - <<'PY'
import spx
lib = spx.library_path() if hasattr(spx, "library_path") else None
print("spx", spx.__version__, "library", lib, "reports", "%d.%d.%d" % spx.library_version())
assert spx.__version__ == "%d.%d.%d" % spx.library_version()
assert lib is None or "site-packages" in str(lib), lib
PY
rm -rf "$(dirname "$venv")"
echo "wheel: installed and imported"
