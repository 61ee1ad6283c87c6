! libspx from Fortran: prune a dense weight matrix to 2:4 vector-wise N:M on the GPU, run
! C = W_pruned * X there, and check the result against a double-precision host product.
!
! Host side first (works without a GPU): the same pruning with the host tool spxHostPruneNM and
! its pattern check. Then the device side: spxPruneNM must give exactly the host's values and
! indices, and the SpMM must agree with the host product within the fp32 rounding bound.
! Without a usable GPU the device side is skipped (exit 0), like examples/quickstart.
program nm_spmm
  use, intrinsic :: iso_c_binding
  use spx
  use spx_cuda
  implicit none

  integer(c_int64_t), parameter :: m = 256, k = 512, n = 96      ! W: m x k, X: k x n
  integer(c_int64_t), parameter :: nn = 2, mm = 4, ll = 32       ! 2:4, groups of 32 rows
  integer(c_int64_t), parameter :: kc = k / mm * nn              ! kept columns per row

  real(c_float), allocatable, target :: w(:, :), x(:, :), c(:, :), w_pruned(:, :), c_loaded(:, :)
  integer(c_int8_t), allocatable, target :: saved(:)
  integer(c_size_t) :: plan_bytes
  real(c_float), allocatable, target :: h_values(:, :), d_values_back(:, :)
  integer(c_int32_t), allocatable, target :: h_indices(:, :), d_indices_back(:, :)
  real(c_double), allocatable :: ref(:, :), mag(:, :)
  real(c_float), target :: alpha = 1.0, beta = 0.0
  type(c_ptr) :: handle, stream, d_w, d_x, d_c, d_values, d_indices, d_ws
  type(c_ptr) :: a_descr, b_descr, c_descr, plan
  type(spx_plan_info) :: info
  integer(c_size_t) :: ws_bytes
  integer(c_int) :: st, ok, version
  integer :: bad
  real(c_double) :: max_err

  call spx_check(spxGetVersion(version), "spxGetVersion")
  write(*, '("libspx ", i0, ".", i0, ".", i0, " from Fortran: W ", i0, " x ", i0, ", X ", i0, " x ", i0)') &
      version / 10000, mod(version / 100, 100), mod(version, 100), m, k, k, n

  allocate(w(m, k), x(k, n), c(m, n), w_pruned(m, k), ref(m, n), mag(m, n))
  allocate(h_values(kc, m), h_indices(kc, m / ll), d_values_back(kc, m), d_indices_back(kc, m / ll))
  call fill_random(w, 12345)
  call fill_random(x, 777)

  ! ---- host side: prune (a Fortran array is column-major: SPX_ORDER_COL, ld = m), check
  call spx_check(spxHostPruneNM(m, k, w, m, SPX_ORDER_COL, nn, mm, ll, h_values, h_indices), &
                 "spxHostPruneNM")
  call densify(h_values, h_indices, w_pruned)
  call spx_check(spxHostCheckNM(m, k, w_pruned, m, SPX_ORDER_COL, nn, mm, ll, ok), "spxHostCheckNM")
  if (ok /= 1) error stop "the host-pruned matrix does not satisfy 2:4"
  write(*, '("host: pruned to ", i0, ":", i0, " (L = ", i0, "), pattern check ok")') nn, mm, ll

  ! ---- device side
  st = spxCreate(handle)
  if (st == SPX_STATUS_NOT_INITIALIZED .or. st == SPX_STATUS_ARCH_MISMATCH) then
    write(*, '("no usable CUDA GPU here (", a, ": ", a, "): device steps skipped")') &
        spx_status_name(st), spx_last_error()
    stop
  end if
  call spx_check(st, "spxCreate")
  call cuda_check(cudaStreamCreate(stream), "cudaStreamCreate")
  call spx_check(spxSetStream(handle, stream), "spxSetStream")

  d_w = device_copy(c_loc(w), bytes(size(w)))
  d_x = device_copy(c_loc(x), bytes(size(x)))
  call cuda_check(cudaMalloc(d_c, bytes(size(c))), "cudaMalloc C")
  call cuda_check(cudaMalloc(d_values, bytes(size(h_values))), "cudaMalloc values")
  call cuda_check(cudaMalloc(d_indices, bytes(size(h_indices))), "cudaMalloc indices")

  ! Prune on the GPU and compare with the host tool: the same values and indices exactly.
  call spx_check(spxPruneNM(handle, m, k, d_w, m, SPX_ORDER_COL, SPX_R_32F, nn, mm, ll, &
                            d_values, d_indices), "spxPruneNM")
  call cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize")
  call cuda_check(cudaMemcpy(c_loc(d_values_back), d_values, bytes(size(h_values)), &
                             cudaMemcpyDeviceToHost), "cudaMemcpy values")
  call cuda_check(cudaMemcpy(c_loc(d_indices_back), d_indices, bytes(size(h_indices)), &
                             cudaMemcpyDeviceToHost), "cudaMemcpy indices")
  if (any(d_values_back /= h_values) .or. any(d_indices_back /= h_indices)) &
      error stop "spxPruneNM differs from spxHostPruneNM"
  write(*, '("device: spxPruneNM matches the host pruning")')

  ! C (m x n) = W_pruned (m x k, N:M) * X (k x n), dense operands column-major.
  call spx_check(spxCreateNM(a_descr, m, k, nn, mm, ll, d_values, d_indices, SPX_R_32F), "spxCreateNM")
  call spx_check(spxCreateDnMat(b_descr, k, n, k, d_x, SPX_R_32F, SPX_ORDER_COL), "spxCreateDnMat B")
  call spx_check(spxCreateDnMat(c_descr, m, n, m, d_c, SPX_R_32F, SPX_ORDER_COL), "spxCreateDnMat C")
  call spx_check(spxSpMM_analyze(handle, a_descr, b_descr, c_descr, SPX_R_32F, SPX_SPMM_ALG_DEFAULT, &
                                 plan), "spxSpMM_analyze")
  call spx_check(spxPlanGetWorkspaceSize(plan, ws_bytes), "spxPlanGetWorkspaceSize")
  d_ws = c_null_ptr
  if (ws_bytes > 0) call cuda_check(cudaMalloc(d_ws, ws_bytes), "cudaMalloc workspace")
  call spx_check(spxSpMM(handle, plan, c_loc(alpha), a_descr, b_descr, c_loc(beta), c_descr, d_ws), &
                 "spxSpMM")
  call cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize")
  call cuda_check(cudaMemcpy(c_loc(c), d_c, bytes(size(c)), cudaMemcpyDeviceToHost), "cudaMemcpy C")

  ! Check: |C - ref| <= (k + 2) * 2^-24 * sum |w x| per element (fp32 accumulation bound).
  ref = matmul(real(w_pruned, c_double), real(x, c_double))
  mag = matmul(abs(real(w_pruned, c_double)), abs(real(x, c_double)))
  max_err = maxval(abs(c - ref))
  bad = count(abs(c - ref) > (k + 2) * 2.0d0**(-24) * mag)
  call spx_check(spxPlanGetInfo(plan, info), "spxPlanGetInfo")
  write(*, '("device: SpMM with ", a, " [", a, "]: max |err| ", es9.2, ", ", i0, " outside the bound")') &
      spx_string(info%kernel), spx_string(info%config), max_err, bad
  if (sum(mag) <= 0 .or. bad > 0) error stop "the SpMM result is outside the rounding bound"

  ! Save the plan, destroy it and load it back (as a program would from a file): the loaded plan
  ! computes the same C, bit for bit, without analyzing W again.
  call spx_check(spxPlanGetSerializedSize(handle, plan, plan_bytes), "spxPlanGetSerializedSize")
  allocate(saved(plan_bytes))
  call spx_check(spxPlanSerialize(handle, plan, c_loc(saved), plan_bytes), "spxPlanSerialize")
  call spx_check(spxPlanDestroy(plan), "spxPlanDestroy")
  call spx_check(spxPlanDeserialize(handle, c_loc(saved), plan_bytes, plan), "spxPlanDeserialize")
  call spx_check(spxSpMM(handle, plan, c_loc(alpha), a_descr, b_descr, c_loc(beta), c_descr, d_ws), &
                 "spxSpMM (loaded plan)")
  call cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize")
  allocate(c_loaded(m, n))
  call cuda_check(cudaMemcpy(c_loc(c_loaded), d_c, bytes(size(c)), cudaMemcpyDeviceToHost), &
                  "cudaMemcpy C")
  if (any(c_loaded /= c)) error stop "the loaded plan's C differs from the original's"
  write(*, '("saved plan: ", i0, " bytes, loaded, same C")') plan_bytes

  call spx_check(spxPlanDestroy(plan), "spxPlanDestroy")
  call spx_check(spxDestroySpMat(a_descr), "spxDestroySpMat")
  call spx_check(spxDestroyDnMat(b_descr), "spxDestroyDnMat")
  call spx_check(spxDestroyDnMat(c_descr), "spxDestroyDnMat")
  call spx_check(spxDestroy(handle), "spxDestroy")
  call cuda_check(cudaStreamDestroy(stream), "cudaStreamDestroy")
  if (c_associated(d_ws)) call cuda_check(cudaFree(d_ws), "cudaFree")
  call cuda_check(cudaFree(d_w), "cudaFree")
  call cuda_check(cudaFree(d_x), "cudaFree")
  call cuda_check(cudaFree(d_c), "cudaFree")
  call cuda_check(cudaFree(d_values), "cudaFree")
  call cuda_check(cudaFree(d_indices), "cudaFree")
  write(*, '("the Fortran example matches the host reference")')

contains

  integer(c_size_t) function bytes(count)
    integer, intent(in) :: count
    bytes = int(count, c_size_t) * 4_c_size_t  ! fp32 and int32 elements
  end function

  type(c_ptr) function device_copy(host, nbytes) result(dev)
    type(c_ptr), intent(in) :: host
    integer(c_size_t), intent(in) :: nbytes
    call cuda_check(cudaMalloc(dev, nbytes), "cudaMalloc")
    call cuda_check(cudaMemcpy(dev, host, nbytes, cudaMemcpyHostToDevice), "cudaMemcpy")
  end function

  !> Uniform values in [-1, 1) from a linear congruential generator (no zeros in practice).
  subroutine fill_random(a, seed)
    real(c_float), intent(out) :: a(:, :)
    integer, intent(in) :: seed
    integer(c_int64_t) :: state
    integer :: i, j
    state = seed
    do j = 1, size(a, 2)
      do i = 1, size(a, 1)
        state = mod(state * 1103515245_c_int64_t + 12345_c_int64_t, 2147483648_c_int64_t)
        a(i, j) = real(state, c_float) / 1073741824.0 - 1.0
      end do
    end do
  end subroutine

  !> The dense m x k matrix of the N:M arrays: values (kc, m) is C's row-major rows x kc, and
  !> indices (kc, m / ll) the window positions 0..mm-1 shared by each group of ll rows.
  subroutine densify(values, indices, dense)
    real(c_float), intent(in) :: values(:, :)
    integer(c_int32_t), intent(in) :: indices(:, :)
    real(c_float), intent(out) :: dense(:, :)
    integer(c_int64_t) :: i, q, col
    dense = 0
    do i = 1, m
      do q = 1, kc
        col = (q - 1) / nn * mm + indices(q, (i - 1) / ll + 1) + 1
        dense(i, col) = values(q, i)
      end do
    end do
  end subroutine
end program nm_spmm
