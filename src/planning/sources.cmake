# Host-side planning (format conversion, pruning, pattern checks, the fallback's CSR view):
# plain C++ over host arrays, compiled into spx_host. Paths are relative to src/.
set(SPX_PLANNING_SOURCES
  planning/structure_checks.cpp
  planning/smtx.cpp
  planning/dilate.cpp
  planning/dense_to_csr.cpp
  planning/dense_to_bcrs.cpp
  planning/prune_nm.cpp
  planning/prune_uniform.cpp
  planning/csr_to_ell.cpp
  planning/check_pattern.cpp
  planning/convert_values.cpp
  planning/to_csr.cpp)
