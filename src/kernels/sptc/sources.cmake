# Sources of the SPTC family (host planning, kernels and dispatch glue), relative to src/.
set(SPX_SPTC_SOURCES
  planning/sptc_reorder.cpp
  planning/sptc_group_unit.cpp
  planning/sptc_cluster.cpp
  planning/sptc_storage.cpp
  dispatch/sptc_family.cpp
  kernels/sptc/spmm_bt16.cu
  kernels/sptc/spmm_bt32.cu
  kernels/sptc/spmm_bt64.cu
  kernels/sptc/spmm_bt128.cu
  kernels/sptc/spmm_launch.cu)
