# Sources of the SPTC family (host planning, kernels and dispatch glue), relative to src/.
set(SPX_SPTC_SOURCES
  planning/sptc_reorder.cpp
  planning/sptc_group_unit.cpp
  planning/sptc_storage.cpp)
