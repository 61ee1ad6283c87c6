# Sources of the ELL family (kernels, host layout, dispatch glue), relative to src/.
set(SPX_ELL_SOURCES
  planning/ell_layout.cpp
  dispatch/ell_family.cpp
  api/prune_api_ell.cpp
  kernels/ell/spmm_slot.cu
  kernels/ell/spmm_slot_staged.cu
  kernels/ell/spmm_rowstaged.cu
  kernels/ell/spmm_rowmma.cu
  kernels/ell/spmm_rowtile.cu
  kernels/ell/spmm_dense_mma.cu
  kernels/ell/spmm_launch.cu
  kernels/ell/pack_prune.cu)
