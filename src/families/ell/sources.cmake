# Sources of the ELL family (host plan, kernels, family glue), relative to src/.
set(SPX_ELL_SOURCES
  families/ell/plan/layout.cpp
  families/ell/plan/choice.cpp
  families/ell/plan/call.cpp
  families/ell/family.cpp
  families/ell/kernels/spmm_slot.cu
  families/ell/kernels/spmm_slot_staged.cu
  families/ell/kernels/spmm_rowstaged.cu
  families/ell/kernels/spmm_rowmma.cu
  families/ell/kernels/spmm_rowtile.cu
  families/ell/kernels/spmm_dense_mma.cu
  families/ell/kernels/spmm_launch.cu
  families/ell/kernels/pack_prune.cu)
