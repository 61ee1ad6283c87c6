# Sources of the SPTC family (host planning, kernels and dispatch glue), relative to src/.
set(SPX_SPTC_SOURCES
  families/sptc/plan/reorder.cpp
  families/sptc/plan/group_unit.cpp
  families/sptc/plan/cluster.cpp
  families/sptc/plan/storage.cpp
  families/sptc/plan/choice.cpp
  families/sptc/family.cpp
  families/sptc/kernels/spmm_bt16.cu
  families/sptc/kernels/spmm_bt32.cu
  families/sptc/kernels/spmm_bt64.cu
  families/sptc/kernels/spmm_bt128.cu
  families/sptc/kernels/spmm_launch.cu)

# The warpgroup kernel (wgmma.mma_async.sp) exists only as sm_90a code: when the build targets
# sm_90, it is compiled for sm_90a alone in an object library of its own (its instructions are
# not part of sm_90 or any other architecture), and spmm_launch.cu holds its launcher
# (SPX_SPTC_SM90A; wgmma_usable(): compute capability 9.0 only); plan/choice.cpp chooses it.
if(CMAKE_CUDA_ARCHITECTURES MATCHES "(^|;)90([-;]|real|virtual|$)")
  add_library(spx_sptc_sm90a OBJECT families/sptc/kernels/spmm_wgmma.cu)
  set_target_properties(spx_sptc_sm90a PROPERTIES
    CUDA_ARCHITECTURES 90a
    POSITION_INDEPENDENT_CODE ON
    CUDA_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_include_directories(spx_sptc_sm90a PRIVATE
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(spx_sptc_sm90a PRIVATE SPX_BUILDING_LIBRARY)
  target_compile_options(spx_sptc_sm90a PRIVATE --expt-relaxed-constexpr -Xcompiler=-Wall)
  list(APPEND SPX_SPTC_SOURCES $<TARGET_OBJECTS:spx_sptc_sm90a>)
  set_source_files_properties(families/sptc/kernels/spmm_launch.cu PROPERTIES
    COMPILE_DEFINITIONS SPX_SPTC_SM90A=1)
endif()
