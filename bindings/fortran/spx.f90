! Fortran interfaces of libspx (include/spx/spx.h and spx_host.h) over iso_c_binding.
!
! Every C function has a bind(C) interface with the C name. Conventions:
!   * handles, descriptors and plans are type(c_ptr); creators take them as intent(out);
!   * device arrays are type(c_ptr) (from cudaMalloc, see spx_cuda), passed by value;
!   * alpha and beta are host (or device) pointers: pass c_loc(alpha) of a target variable;
!   * int64_t arguments are integer(c_int64_t), enums integer(c_int) (values in spx_enums);
!   * host arrays of the host tools are ordinary Fortran arrays (assumed size);
!   * outputs a C call may leave NULL (spxDnMatGet, spxSpMatGetSize) are optional.
! A Fortran array is column-major: describe it with SPX_ORDER_COL and ld = its first extent.
! Helpers: spx_check (stops with the library's message on a failure), spx_status_name,
! spx_last_error, spx_string (a C char array such as spx_plan_info%kernel as a Fortran string).
module spx
  use, intrinsic :: iso_c_binding
  use spx_enums
  implicit none

  !> spxPlanInfo_t, field for field.
  type, bind(C) :: spx_plan_info
    integer(c_int) :: family
    character(kind=c_char) :: kernel(64)
    character(kind=c_char) :: config(192)
    integer(c_size_t) :: workspace_bytes
    integer(c_size_t) :: metadata_bytes
    integer(c_size_t) :: values_bytes
    real(c_double) :: analyze_ms
    integer(c_int64_t) :: nnz
    integer(c_int64_t) :: padded_nnz
    integer(c_int64_t) :: columns_skipped
    integer(c_int64_t) :: reorder_retries
    integer(c_int32_t) :: split_k
    integer(c_int32_t) :: packing
    integer(c_int32_t) :: candidates
    integer(c_int32_t) :: searched
    real(c_double) :: predicted_speedup
    integer(c_int32_t) :: route
    integer(c_int32_t) :: reserved32
    real(c_double) :: sparse_estimate_us
    real(c_double) :: dense_estimate_us
    integer(c_size_t) :: dense_bytes
    integer(c_int64_t) :: max_n
    integer(c_int64_t) :: prepared_sizes
  end type spx_plan_info

  interface
    ! ------------------------------------------------------------ errors and version
    function spxGetStatusName(status) bind(C, name="spxGetStatusName")
      import :: c_int, c_ptr
      integer(c_int), value :: status
      type(c_ptr) :: spxGetStatusName
    end function
    function spxGetStatusString(status) bind(C, name="spxGetStatusString")
      import :: c_int, c_ptr
      integer(c_int), value :: status
      type(c_ptr) :: spxGetStatusString
    end function
    function spxGetLastErrorMessage() bind(C, name="spxGetLastErrorMessage")
      import :: c_ptr
      type(c_ptr) :: spxGetLastErrorMessage
    end function
    integer(c_int) function spxGetVersion(version) bind(C, name="spxGetVersion")
      import :: c_int
      integer(c_int), intent(out) :: version
    end function

    ! ------------------------------------------------------------ handle
    integer(c_int) function spxCreate(handle) bind(C, name="spxCreate")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: handle
    end function
    integer(c_int) function spxDestroy(handle) bind(C, name="spxDestroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
    end function
    integer(c_int) function spxSetStream(handle, stream) bind(C, name="spxSetStream")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, stream
    end function
    integer(c_int) function spxGetStream(handle, stream) bind(C, name="spxGetStream")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      type(c_ptr), intent(out) :: stream
    end function
    integer(c_int) function spxSetPointerMode(handle, mode) bind(C, name="spxSetPointerMode")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      integer(c_int), value :: mode
    end function
    integer(c_int) function spxGetPointerMode(handle, mode) bind(C, name="spxGetPointerMode")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: mode
    end function

    ! ------------------------------------------------------------ dense descriptors
    integer(c_int) function spxCreateDnMat(descr, rows, cols, ld, values, type, order) &
        bind(C, name="spxCreateDnMat")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(out) :: descr
      integer(c_int64_t), value :: rows, cols, ld
      type(c_ptr), value :: values
      integer(c_int), value :: type, order
    end function
    integer(c_int) function spxDestroyDnMat(descr) bind(C, name="spxDestroyDnMat")
      import :: c_int, c_ptr
      type(c_ptr), value :: descr
    end function
    integer(c_int) function spxDnMatGet(descr, rows, cols, ld, values, type, order) &
        bind(C, name="spxDnMatGet")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: descr
      integer(c_int64_t), intent(out), optional :: rows, cols, ld
      type(c_ptr), intent(out), optional :: values
      integer(c_int), intent(out), optional :: type, order
    end function
    integer(c_int) function spxDnMatSetValues(descr, values) bind(C, name="spxDnMatSetValues")
      import :: c_int, c_ptr
      type(c_ptr), value :: descr, values
    end function

    ! ------------------------------------------------------------ sparse descriptors
    integer(c_int) function spxCreateCsr(descr, rows, cols, nnz, row_ptr, col_ind, values, type) &
        bind(C, name="spxCreateCsr")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(out) :: descr
      integer(c_int64_t), value :: rows, cols, nnz
      type(c_ptr), value :: row_ptr, col_ind, values
      integer(c_int), value :: type
    end function
    integer(c_int) function spxCreateBcrs(descr, rows, cols, vec_len, num_vectors, block_row_ptr, &
        block_col, values, type) bind(C, name="spxCreateBcrs")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(out) :: descr
      integer(c_int64_t), value :: rows, cols, vec_len, num_vectors
      type(c_ptr), value :: block_row_ptr, block_col, values
      integer(c_int), value :: type
    end function
    integer(c_int) function spxCreateNM(descr, rows, cols, n, m, l, values, indices, type) &
        bind(C, name="spxCreateNM")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(out) :: descr
      integer(c_int64_t), value :: rows, cols, n, m, l
      type(c_ptr), value :: values, indices
      integer(c_int), value :: type
    end function
    integer(c_int) function spxCreateEll(descr, rows, cols, ell_width, col_ind, values, type) &
        bind(C, name="spxCreateEll")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), intent(out) :: descr
      integer(c_int64_t), value :: rows, cols, ell_width
      type(c_ptr), value :: col_ind, values
      integer(c_int), value :: type
    end function
    integer(c_int) function spxDestroySpMat(descr) bind(C, name="spxDestroySpMat")
      import :: c_int, c_ptr
      type(c_ptr), value :: descr
    end function
    integer(c_int) function spxSpMatGetSize(descr, rows, cols, nnz) bind(C, name="spxSpMatGetSize")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: descr
      integer(c_int64_t), intent(out), optional :: rows, cols, nnz
    end function
    integer(c_int) function spxSpMatGetFormat(descr, format) bind(C, name="spxSpMatGetFormat")
      import :: c_int, c_ptr
      type(c_ptr), value :: descr
      integer(c_int), intent(out) :: format
    end function
    integer(c_int) function spxSpMatGetValueType(descr, type) bind(C, name="spxSpMatGetValueType")
      import :: c_int, c_ptr
      type(c_ptr), value :: descr
      integer(c_int), intent(out) :: type
    end function
    integer(c_int) function spxSpMatSetValues(descr, values) bind(C, name="spxSpMatSetValues")
      import :: c_int, c_ptr
      type(c_ptr), value :: descr, values
    end function

    ! ------------------------------------------------------------ analyze options
    integer(c_int) function spxCreatePlanOptions(options) bind(C, name="spxCreatePlanOptions")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: options
    end function
    integer(c_int) function spxDestroyPlanOptions(options) bind(C, name="spxDestroyPlanOptions")
      import :: c_int, c_ptr
      type(c_ptr), value :: options
    end function
    ! value: c_loc of the option's value (integer(c_int32_t) for every option, e.g.
    ! SPX_PLAN_OPTION_AUTOTUNE, or SPX_PLAN_OPTION_MAX_N with -1 for any n)
    integer(c_int) function spxPlanOptionsSet(options, option, value, size) &
        bind(C, name="spxPlanOptionsSet")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: options
      integer(c_int), value :: option
      type(c_ptr), value :: value
      integer(c_size_t), value :: size
    end function
    integer(c_int) function spxPlanOptionsGet(options, option, value, size) &
        bind(C, name="spxPlanOptionsGet")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: options
      integer(c_int), value :: option
      type(c_ptr), value :: value
      integer(c_size_t), value :: size
    end function

    ! ------------------------------------------------------------ SpMM
    integer(c_int) function spxSpMM_analyze(handle, a, b, c, compute_type, alg, plan) &
        bind(C, name="spxSpMM_analyze")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, a, b, c
      integer(c_int), value :: compute_type, alg
      type(c_ptr), intent(out) :: plan
    end function
    ! options: from spxCreatePlanOptions, or c_null_ptr for the defaults
    integer(c_int) function spxSpMM_analyzeWithOptions(handle, a, b, c, compute_type, alg, &
        options, plan) bind(C, name="spxSpMM_analyzeWithOptions")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, a, b, c
      integer(c_int), value :: compute_type, alg
      type(c_ptr), value :: options
      type(c_ptr), intent(out) :: plan
    end function
    integer(c_int) function spxPlanGetWorkspaceSize(plan, bytes) bind(C, name="spxPlanGetWorkspaceSize")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: plan
      integer(c_size_t), intent(out) :: bytes
    end function
    integer(c_int) function spxSpMM(handle, plan, alpha, a, b, beta, c, workspace) &
        bind(C, name="spxSpMM")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, plan, alpha, a, b, beta, c, workspace
    end function
    ! The one-call execute: b (k x n) and c (m x n) are raw device pointers with leading
    ! dimensions ldb / ldc, in the types and orders of analyze; any n up to the plan's bound
    ! (SPX_PLAN_OPTION_MAX_N). No descriptors, no allocation; legal during stream capture.
    integer(c_int) function spxSpMM_execute(handle, plan, n, alpha, b, ldb, beta, c, ldc, &
        workspace) bind(C, name="spxSpMM_execute")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: handle, plan
      integer(c_int64_t), value :: n
      type(c_ptr), value :: alpha, b
      integer(c_int64_t), value :: ldb
      type(c_ptr), value :: beta, c
      integer(c_int64_t), value :: ldc
      type(c_ptr), value :: workspace
    end function
    integer(c_int) function spxSpMM_search(handle, plan, alpha, a, b, beta, c, workspace) &
        bind(C, name="spxSpMM_search")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, plan, alpha, a, b, beta, c, workspace
    end function
    integer(c_int) function spxPlanUpdateValues(handle, plan, a) bind(C, name="spxPlanUpdateValues")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, plan, a
    end function
    ! The fused epilogue's per-row fp32 bias and scale (device arrays of m values, or c_null_ptr).
    integer(c_int) function spxPlanSetEpilogue(handle, plan, bias, scale) &
        bind(C, name="spxPlanSetEpilogue")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, plan, bias, scale
    end function
    integer(c_int) function spxPlanGetEpilogue(plan, bias, scale) bind(C, name="spxPlanGetEpilogue")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
      type(c_ptr), intent(out) :: bias, scale
    end function
    integer(c_int) function spxPlanGetInfo(plan, info) bind(C, name="spxPlanGetInfo")
      import :: c_int, c_ptr, spx_plan_info
      type(c_ptr), value :: plan
      type(spx_plan_info), intent(out) :: info
    end function
    ! What an execute with n columns runs (sizes are the plan's, as spxPlanGetInfo gives them).
    integer(c_int) function spxPlanGetInfoForN(plan, n, info) bind(C, name="spxPlanGetInfoForN")
      import :: c_int, c_int64_t, c_ptr, spx_plan_info
      type(c_ptr), value :: plan
      integer(c_int64_t), value :: n
      type(spx_plan_info), intent(out) :: info
    end function
    integer(c_int) function spxPlanDestroy(plan) bind(C, name="spxPlanDestroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
    end function

    ! ------------------------------------------------------------ saving plans
    ! Bytes spxPlanSerialize writes for an SpMM plan (no device work).
    integer(c_int) function spxPlanGetSerializedSize(handle, plan, bytes) &
        bind(C, name="spxPlanGetSerializedSize")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: handle, plan
      integer(c_size_t), intent(out) :: bytes
    end function
    ! Writes the plan into a host buffer of buffer_size bytes (c_loc of an integer(c_int8_t)
    ! array); reads the plan's device arrays on the handle's stream and synchronizes it.
    integer(c_int) function spxPlanSerialize(handle, plan, buffer, buffer_size) &
        bind(C, name="spxPlanSerialize")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: handle, plan, buffer
      integer(c_size_t), value :: buffer_size
    end function
    ! A plan from the bytes spxPlanSerialize wrote, on the handle's device (another GPU model:
    ! SPX_STATUS_NOT_SUPPORTED; bytes that are not a plan, truncated or corrupted:
    ! SPX_STATUS_INVALID_VALUE).
    integer(c_int) function spxPlanDeserialize(handle, bytes, size, plan) &
        bind(C, name="spxPlanDeserialize")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: handle, bytes
      integer(c_size_t), value :: size
      type(c_ptr), intent(out) :: plan
    end function

    ! ------------------------------------------------------------ SDDMM
    integer(c_int) function spxSDDMM_analyze(handle, a, b, c, compute_type, alg, plan) &
        bind(C, name="spxSDDMM_analyze")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, a, b, c
      integer(c_int), value :: compute_type, alg
      type(c_ptr), intent(out) :: plan
    end function
    integer(c_int) function spxSDDMM_analyzeWithOptions(handle, a, b, c, compute_type, alg, &
        options, plan) bind(C, name="spxSDDMM_analyzeWithOptions")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, a, b, c
      integer(c_int), value :: compute_type, alg
      type(c_ptr), value :: options
      type(c_ptr), intent(out) :: plan
    end function
    integer(c_int) function spxSDDMM(handle, plan, alpha, a, b, beta, c, workspace) &
        bind(C, name="spxSDDMM")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, plan, alpha, a, b, beta, c, workspace
    end function

    ! ------------------------------------------------------------ pruning on the device
    integer(c_int) function spxPruneNM(handle, rows, cols, dense, ld, order, type, n, m, l, &
        values, indices) bind(C, name="spxPruneNM")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: rows, cols
      type(c_ptr), value :: dense
      integer(c_int64_t), value :: ld
      integer(c_int), value :: order, type
      integer(c_int64_t), value :: n, m, l
      type(c_ptr), value :: values, indices
    end function
    integer(c_int) function spxCheckNM(handle, rows, cols, dense, ld, order, type, n, m, l, ok) &
        bind(C, name="spxCheckNM")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: rows, cols
      type(c_ptr), value :: dense
      integer(c_int64_t), value :: ld
      integer(c_int), value :: order, type
      integer(c_int64_t), value :: n, m, l
      integer(c_int), intent(out) :: ok
    end function
    integer(c_int) function spxPruneUniform(handle, rows, cols, dense, ld, order, type, ell_width, &
        col_ind, values) bind(C, name="spxPruneUniform")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: rows, cols
      type(c_ptr), value :: dense
      integer(c_int64_t), value :: ld
      integer(c_int), value :: order, type
      integer(c_int64_t), value :: ell_width
      type(c_ptr), value :: col_ind, values
    end function

    ! ------------------------------------------------------------ host tools (spx_host.h)
    subroutine spxHostFree(ptr) bind(C, name="spxHostFree")
      import :: c_ptr
      type(c_ptr), value :: ptr
    end subroutine
    integer(c_int) function spxHostReadSmtx(path, rows, cols, nnz, row_ptr, col_ind) &
        bind(C, name="spxHostReadSmtx")
      import :: c_int, c_int64_t, c_ptr, c_char
      character(kind=c_char), intent(in) :: path(*)  ! NUL-terminated: trim(name) // c_null_char
      integer(c_int64_t), intent(out) :: rows, cols, nnz
      type(c_ptr), intent(out) :: row_ptr, col_ind  ! allocated by libspx: spxHostFree them
    end function
    integer(c_int) function spxHostDilateCsr(rows, cols, row_ptr, col_ind, vec_len, out_row_ptr, &
        out_col_ind) bind(C, name="spxHostDilateCsr")
      import :: c_int, c_int64_t, c_int32_t, c_ptr
      integer(c_int64_t), value :: rows, cols
      integer(c_int32_t), intent(in) :: row_ptr(*), col_ind(*)
      integer(c_int64_t), value :: vec_len
      type(c_ptr), intent(out) :: out_row_ptr, out_col_ind
    end function
    integer(c_int) function spxHostDenseToCsr(rows, cols, dense, ld, order, nnz, row_ptr, &
        col_ind, values) bind(C, name="spxHostDenseToCsr")
      import :: c_int, c_int64_t, c_float, c_ptr
      integer(c_int64_t), value :: rows, cols
      real(c_float), intent(in) :: dense(*)
      integer(c_int64_t), value :: ld
      integer(c_int), value :: order
      integer(c_int64_t), intent(out) :: nnz
      type(c_ptr), intent(out) :: row_ptr, col_ind, values
    end function
    integer(c_int) function spxHostDenseToBcrs(rows, cols, dense, ld, order, vec_len, &
        num_vectors, block_row_ptr, block_col, values) bind(C, name="spxHostDenseToBcrs")
      import :: c_int, c_int64_t, c_float, c_ptr
      integer(c_int64_t), value :: rows, cols
      real(c_float), intent(in) :: dense(*)
      integer(c_int64_t), value :: ld
      integer(c_int), value :: order
      integer(c_int64_t), value :: vec_len
      integer(c_int64_t), intent(out) :: num_vectors
      type(c_ptr), intent(out) :: block_row_ptr, block_col, values
    end function
    integer(c_int) function spxHostPruneNM(rows, cols, dense, ld, order, n, m, l, values, indices) &
        bind(C, name="spxHostPruneNM")
      import :: c_int, c_int64_t, c_int32_t, c_float
      integer(c_int64_t), value :: rows, cols
      real(c_float), intent(in) :: dense(*)
      integer(c_int64_t), value :: ld
      integer(c_int), value :: order
      integer(c_int64_t), value :: n, m, l
      real(c_float), intent(out) :: values(*)       ! rows x kc, row-major: a Fortran (kc, rows)
      integer(c_int32_t), intent(out) :: indices(*) ! (rows/l) x kc row-major: (kc, rows/l)
    end function
    integer(c_int) function spxHostPruneUniform(rows, cols, dense, ld, order, ell_width, col_ind, &
        values) bind(C, name="spxHostPruneUniform")
      import :: c_int, c_int64_t, c_int32_t, c_float
      integer(c_int64_t), value :: rows, cols
      real(c_float), intent(in) :: dense(*)
      integer(c_int64_t), value :: ld
      integer(c_int), value :: order
      integer(c_int64_t), value :: ell_width
      integer(c_int32_t), intent(out) :: col_ind(*)  ! rows x ell_width column-major: (rows, w)
      real(c_float), intent(out) :: values(*)
    end function
    integer(c_int) function spxHostCsrToEll(rows, cols, row_ptr, col_ind, values, ell_width, &
        ell_col_ind, ell_values) bind(C, name="spxHostCsrToEll")
      import :: c_int, c_int64_t, c_int32_t, c_float, c_ptr
      integer(c_int64_t), value :: rows, cols
      integer(c_int32_t), intent(in) :: row_ptr(*), col_ind(*)
      real(c_float), intent(in) :: values(*)
      integer(c_int64_t), intent(out) :: ell_width
      type(c_ptr), intent(out) :: ell_col_ind, ell_values
    end function
    integer(c_int) function spxHostCheckNM(rows, cols, dense, ld, order, n, m, l, ok) &
        bind(C, name="spxHostCheckNM")
      import :: c_int, c_int64_t, c_float
      integer(c_int64_t), value :: rows, cols
      real(c_float), intent(in) :: dense(*)
      integer(c_int64_t), value :: ld
      integer(c_int), value :: order
      integer(c_int64_t), value :: n, m, l
      integer(c_int), intent(out) :: ok
    end function
    integer(c_int) function spxHostCheckUniform(rows, cols, dense, ld, order, ell_width, ok) &
        bind(C, name="spxHostCheckUniform")
      import :: c_int, c_int64_t, c_float
      integer(c_int64_t), value :: rows, cols
      real(c_float), intent(in) :: dense(*)
      integer(c_int64_t), value :: ld
      integer(c_int), value :: order
      integer(c_int64_t), value :: ell_width
      integer(c_int), intent(out) :: ok
    end function
    integer(c_int) function spxHostConvertValues(count, src, type, dst) &
        bind(C, name="spxHostConvertValues")
      import :: c_int, c_int64_t, c_float, c_ptr
      integer(c_int64_t), value :: count
      real(c_float), intent(in) :: src(*)
      integer(c_int), value :: type
      type(c_ptr), value :: dst  ! c_loc of a host array of the target type
    end function
    integer(c_int) function spxHostSrbcrsSlotPtr(vector_rows, block_row_ptr, vec_len, slot_ptr) &
        bind(C, name="spxHostSrbcrsSlotPtr")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: vector_rows, vec_len
      integer(c_int32_t), intent(in) :: block_row_ptr(*)
      integer(c_int32_t), intent(out) :: slot_ptr(*)  ! vector_rows + 1 entries
    end function
    integer(c_size_t) function spxHostSizeOf(type, count) bind(C, name="spxHostSizeOf")
      import :: c_int, c_int64_t, c_size_t
      integer(c_int), value :: type
      integer(c_int64_t), value :: count
    end function

    ! strlen from the C library, for C strings returned by libspx
    integer(c_size_t) function spx_c_strlen(s) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
    end function
  end interface

contains

  !> A NUL-terminated C string (owned by libspx) as a Fortran string.
  function spx_c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ""
      return
    end if
    n = int(spx_c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  !> A fixed C char array (e.g. spx_plan_info%kernel) up to its NUL, as a Fortran string.
  function spx_string(chars) result(s)
    character(kind=c_char), intent(in) :: chars(:)
    character(len=:), allocatable :: s
    integer :: i, n
    n = size(chars)
    do i = 1, size(chars)
      if (chars(i) == c_null_char) then
        n = i - 1
        exit
      end if
    end do
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  !> "SPX_STATUS_INVALID_VALUE" etc.
  function spx_status_name(status) result(s)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: s
    s = spx_c_string(spxGetStatusName(status))
  end function

  !> The message of the last failed libspx call on this thread.
  function spx_last_error() result(s)
    character(len=:), allocatable :: s
    s = spx_c_string(spxGetLastErrorMessage())
  end function

  !> Stops the program with the status name and the library's message when status is a failure.
  subroutine spx_check(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= SPX_STATUS_SUCCESS) then
      write(*, '(a, ": ", a, " (", a, ")")') what, spx_status_name(status), spx_last_error()
      error stop 1
    end if
  end subroutine
end module spx
