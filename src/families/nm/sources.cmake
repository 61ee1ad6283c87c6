# Sources of the NM family (host plan, kernels, family glue), relative to
# src/. The two tile files hold the explicit instantiations (two per file: parallel builds).
set(SPX_NM_SOURCES
  families/nm/plan/layout.cpp
  families/nm/plan/choice.cpp
  families/nm/family.cpp
  families/nm/kernels/spmm_tiles_small.cu
  families/nm/kernels/spmm_tiles_large.cu
  families/nm/kernels/spmm_bulk.cu
  families/nm/kernels/stream_b.cu
  families/nm/kernels/aux.cu
  families/nm/kernels/prune.cu)
