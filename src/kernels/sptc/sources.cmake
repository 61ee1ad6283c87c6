# Sources of the SPTC family (host planning, later kernels and dispatch glue), relative to src/.
set(SPX_SPTC_SOURCES
  planning/sptc_reorder.cpp
  planning/sptc_group_unit.cpp)
