# CPU reference (tests, examples' checks, spx-bench); not part of libspx.so. Paths relative to src/.
set(SPX_REFERENCE_SOURCES
  reference/entries.cpp
  reference/spmm_ref.cpp
  reference/sddmm_ref.cpp
  reference/tolerance.cpp)
