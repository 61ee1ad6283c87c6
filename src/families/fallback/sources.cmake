# Sources of the generic fallback family (host plan and kernels), relative to src/.
set(SPX_FALLBACK_SOURCES
  families/fallback/family.cpp
  families/fallback/plan/entry_rows.cpp
  families/fallback/kernels/spmm_csr.cu
  families/fallback/kernels/sddmm.cu
  families/fallback/kernels/gather.cu)
