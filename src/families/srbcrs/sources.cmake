# Sources of the SR-BCRS family (host planning, kernels, dispatch glue), relative to src/.
set(SPX_SRBCRS_SOURCES
  families/srbcrs/plan/layout.cpp
  families/srbcrs/plan/choice.cpp
  families/srbcrs/family.cpp
  families/srbcrs/kernels/spmm_launch.cu
  families/srbcrs/kernels/spmm_l8r8.cu
  families/srbcrs/kernels/spmm_l8r4.cu
  families/srbcrs/kernels/spmm_l4r8.cu
  families/srbcrs/kernels/spmm_l4r4.cu
  families/srbcrs/kernels/spmm_l16r8.cu
  families/srbcrs/kernels/spmm_l16r4.cu
  families/srbcrs/kernels/spmm_l16r16.cu
  families/srbcrs/kernels/spmm_l4r4_k64.cu
  families/srbcrs/kernels/pack.cu
  # SDDMM (formats/srbcrs_sddmm, families/srbcrs_sddmm_family, README "SDDMM")
  families/srbcrs/plan/sddmm.cpp
  families/srbcrs/sddmm_family.cpp
  families/srbcrs/kernels/sddmm_launch.cu
  families/srbcrs/kernels/sddmm_l8r8.cu
  families/srbcrs/kernels/sddmm_l8r4.cu
  families/srbcrs/kernels/sddmm_l4r8.cu
  families/srbcrs/kernels/sddmm_l4r4.cu
  families/srbcrs/kernels/sddmm_l16r16.cu)
