# Sources of the SR-BCRS family (host planning, kernels, dispatch glue), relative to src/.
set(SPX_SRBCRS_SOURCES
  planning/srbcrs_layout.cpp
  planning/srbcrs_choice.cpp
  dispatch/srbcrs_family.cpp
  kernels/srbcrs/spmm_launch.cu
  kernels/srbcrs/spmm_l8r8.cu
  kernels/srbcrs/spmm_l8r4.cu
  kernels/srbcrs/spmm_l4r8.cu
  kernels/srbcrs/spmm_l4r4.cu
  kernels/srbcrs/spmm_l16r8.cu
  kernels/srbcrs/spmm_l16r4.cu
  kernels/srbcrs/spmm_l16r16.cu
  kernels/srbcrs/spmm_l4r4_k64.cu
  kernels/srbcrs/pack.cu
  # SDDMM (planning/srbcrs_sddmm, dispatch/srbcrs_sddmm_family, README "SDDMM")
  planning/srbcrs_sddmm.cpp
  dispatch/srbcrs_sddmm_family.cpp
  kernels/srbcrs/sddmm_launch.cu
  kernels/srbcrs/sddmm_l8r8.cu
  kernels/srbcrs/sddmm_l8r4.cu
  kernels/srbcrs/sddmm_l4r8.cu
  kernels/srbcrs/sddmm_l4r4.cu
  kernels/srbcrs/sddmm_l16r16.cu)
