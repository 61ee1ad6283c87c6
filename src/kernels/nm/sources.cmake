# Sources of the NM family (kernels, host layout, dispatch glue, device pruning API), relative to
# src/. The two tile files hold the explicit instantiations (two per file: parallel builds).
set(SPX_NM_SOURCES
  planning/nm_layout.cpp
  dispatch/nm_family.cpp
  api/prune_api.cpp
  kernels/nm/spmm_tiles_small.cu
  kernels/nm/spmm_tiles_large.cu
  kernels/nm/spmm_bulk.cu
  kernels/nm/stream_b.cu
  kernels/nm/aux.cu
  kernels/nm/prune.cu)
