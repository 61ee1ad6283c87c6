! The enum values and version of include/spx/spx_types.h and spx.h as Fortran constants, with
! the C names (Fortran is case-insensitive: SPX_R_32F and spx_r_32f are the same name).
! tests/check_enums.py (a CI test) fails when a value here differs from the C header or an
! enumerator is missing.
module spx_enums
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  public

  ! version (spx.h)
  integer(c_int), parameter :: SPX_VERSION_MAJOR = 0
  integer(c_int), parameter :: SPX_VERSION_MINOR = 1
  integer(c_int), parameter :: SPX_VERSION_PATCH = 0
  integer(c_int), parameter :: SPX_VERSION = SPX_VERSION_MAJOR * 10000 + SPX_VERSION_MINOR * 100 &
                                             + SPX_VERSION_PATCH

  ! spxStatus_t
  integer(c_int), parameter :: SPX_STATUS_SUCCESS = 0
  integer(c_int), parameter :: SPX_STATUS_NOT_INITIALIZED = 1
  integer(c_int), parameter :: SPX_STATUS_ALLOC_FAILED = 2
  integer(c_int), parameter :: SPX_STATUS_INVALID_VALUE = 3
  integer(c_int), parameter :: SPX_STATUS_ARCH_MISMATCH = 4
  integer(c_int), parameter :: SPX_STATUS_EXECUTION_FAILED = 5
  integer(c_int), parameter :: SPX_STATUS_INTERNAL_ERROR = 6
  integer(c_int), parameter :: SPX_STATUS_NOT_SUPPORTED = 7
  integer(c_int), parameter :: SPX_STATUS_IO_ERROR = 8

  ! spxDataType_t (4-bit types pack two elements per byte, low nibble first)
  integer(c_int), parameter :: SPX_R_32F = 0
  integer(c_int), parameter :: SPX_R_16F = 1
  integer(c_int), parameter :: SPX_R_16BF = 2
  integer(c_int), parameter :: SPX_R_8I = 3
  integer(c_int), parameter :: SPX_R_4I = 4
  integer(c_int), parameter :: SPX_R_16I = 5
  integer(c_int), parameter :: SPX_R_32I = 6
  integer(c_int), parameter :: SPX_R_8U = 7
  integer(c_int), parameter :: SPX_R_4U = 8

  ! spxOrder_t (a Fortran array is column-major: SPX_ORDER_COL with ld = its first extent)
  integer(c_int), parameter :: SPX_ORDER_ROW = 0
  integer(c_int), parameter :: SPX_ORDER_COL = 1

  ! spxFormat_t
  integer(c_int), parameter :: SPX_FORMAT_CSR = 0
  integer(c_int), parameter :: SPX_FORMAT_BCRS = 1
  integer(c_int), parameter :: SPX_FORMAT_NM = 2
  integer(c_int), parameter :: SPX_FORMAT_ELL = 3

  ! spxPointerMode_t
  integer(c_int), parameter :: SPX_POINTER_MODE_HOST = 0
  integer(c_int), parameter :: SPX_POINTER_MODE_DEVICE = 1

  ! spxSpMMAlg_t (spxSDDMMAlg_t is the same enum)
  integer(c_int), parameter :: SPX_SPMM_ALG_DEFAULT = 0
  integer(c_int), parameter :: SPX_SPMM_ALG_NM = 1
  integer(c_int), parameter :: SPX_SPMM_ALG_ELL = 2
  integer(c_int), parameter :: SPX_SPMM_ALG_SRBCRS = 3
  integer(c_int), parameter :: SPX_SPMM_ALG_SPTC_REORDER = 4
  integer(c_int), parameter :: SPX_SPMM_ALG_FALLBACK = 5
  integer(c_int), parameter :: SPX_SPMM_ALG_DENSE = 6

  ! spxPlanOption_t (spxPlanOptionsSet / spxPlanOptionsGet)
  integer(c_int), parameter :: SPX_PLAN_OPTION_AUTOTUNE = 0
  integer(c_int), parameter :: SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT = 1
  integer(c_int), parameter :: SPX_PLAN_OPTION_DENSE_ROUTE = 2
  integer(c_int), parameter :: SPX_PLAN_OPTION_ALLOW_TF32 = 3
  integer(c_int), parameter :: SPX_PLAN_OPTION_MAX_N = 4
  integer(c_int), parameter :: SPX_PLAN_OPTION_EPILOGUE_ACTIVATION = 5
  integer(c_int), parameter :: SPX_PLAN_OPTION_EPILOGUE_BIAS = 6
  integer(c_int), parameter :: SPX_PLAN_OPTION_EPILOGUE_SCALE = 7

  ! spxDenseRoute_t (SPX_PLAN_OPTION_DENSE_ROUTE)
  integer(c_int), parameter :: SPX_DENSE_ROUTE_AUTO = 0
  integer(c_int), parameter :: SPX_DENSE_ROUTE_NEVER = 1
  integer(c_int), parameter :: SPX_DENSE_ROUTE_ALWAYS = 2
  integer(c_int), parameter :: SPX_DENSE_ROUTE_AUTO_EVERY_N = 3

  ! spxActivation_t (SPX_PLAN_OPTION_EPILOGUE_ACTIVATION): the fused SpMM epilogue's activation
  integer(c_int), parameter :: SPX_ACTIVATION_NONE = 0
  integer(c_int), parameter :: SPX_ACTIVATION_RELU = 1
  integer(c_int), parameter :: SPX_ACTIVATION_GELU_TANH = 2
  integer(c_int), parameter :: SPX_ACTIVATION_SILU = 3

  ! spxValuesLayout_t (SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT)
  integer(c_int), parameter :: SPX_VALUES_LAYOUT_NATIVE = 0
  integer(c_int), parameter :: SPX_VALUES_LAYOUT_SRBCRS = 1
end module spx_enums
