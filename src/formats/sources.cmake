# Host format conversions, pruning and pattern checks shared by the families:
# plain C++ over host arrays, compiled into spx_host. Paths are relative to src/.
set(SPX_FORMATS_SOURCES
  formats/structure_checks.cpp
  formats/smtx.cpp
  formats/dilate.cpp
  formats/dense_to_csr.cpp
  formats/dense_to_bcrs.cpp
  formats/prune_nm.cpp
  formats/prune_uniform.cpp
  formats/csr_to_ell.cpp
  formats/check_pattern.cpp
  formats/convert_values.cpp
  formats/to_csr.cpp)
