! test_fortran_abi (CPU): the Fortran bind(C) type spx_plan_info has the size and field offsets
! of the C spxPlanInfo_t (abi_sizes.c), and the module's calls reach the library (version,
! status names, a host tool) with the values of spx_enums.
program abi_check
  use, intrinsic :: iso_c_binding
  use spx
  implicit none
  interface
    integer(c_size_t) function spx_test_plan_info_size() bind(C)
      import :: c_size_t
    end function
    integer(c_size_t) function spx_test_plan_info_offset(field) bind(C)
      import :: c_size_t, c_int
      integer(c_int), value :: field
    end function
  end interface
  type(spx_plan_info), target :: info
  integer(c_size_t) :: offsets(0:22)
  integer(c_intptr_t) :: base
  integer(c_int) :: i, version, ok
  integer :: failures
  real(c_float) :: dense(2, 3)

  failures = 0
  base = transfer(c_loc(info), base)
  offsets(0) = at(c_loc(info%family))
  offsets(1) = at(c_loc(info%kernel))
  offsets(2) = at(c_loc(info%config))
  offsets(3) = at(c_loc(info%workspace_bytes))
  offsets(4) = at(c_loc(info%metadata_bytes))
  offsets(5) = at(c_loc(info%values_bytes))
  offsets(6) = at(c_loc(info%analyze_ms))
  offsets(7) = at(c_loc(info%nnz))
  offsets(8) = at(c_loc(info%padded_nnz))
  offsets(9) = at(c_loc(info%columns_skipped))
  offsets(10) = at(c_loc(info%reorder_retries))
  offsets(11) = at(c_loc(info%split_k))
  offsets(12) = at(c_loc(info%packing))
  offsets(13) = at(c_loc(info%candidates))
  offsets(14) = at(c_loc(info%searched))
  offsets(15) = at(c_loc(info%predicted_speedup))
  offsets(16) = at(c_loc(info%route))
  offsets(17) = at(c_loc(info%reserved32))
  offsets(18) = at(c_loc(info%sparse_estimate_us))
  offsets(19) = at(c_loc(info%dense_estimate_us))
  offsets(20) = at(c_loc(info%dense_bytes))
  offsets(21) = at(c_loc(info%max_n))
  offsets(22) = at(c_loc(info%prepared_sizes))
  call expect(c_sizeof(info) == spx_test_plan_info_size(), "sizeof(spx_plan_info)")
  do i = 0, 22
    call expect(offsets(i) == spx_test_plan_info_offset(i), "field offset")
  end do

  call spx_check(spxGetVersion(version), "spxGetVersion")
  call expect(version == SPX_VERSION, "library version == spx_enums SPX_VERSION")
  call expect(spx_status_name(SPX_STATUS_INVALID_VALUE) == "SPX_STATUS_INVALID_VALUE", "status name")
  ! A bad argument comes back as a status with the library's message.
  dense = reshape([1.0, 0.0, 0.0, 2.0, 3.0, 0.0], [2, 3])
  call expect(spxHostCheckNM(2_c_int64_t, 3_c_int64_t, dense, 2_c_int64_t, SPX_ORDER_COL, &
                             5_c_int64_t, 4_c_int64_t, 1_c_int64_t, ok) == SPX_STATUS_INVALID_VALUE, &
              "spxHostCheckNM with N > M")
  call expect(spx_last_error() == "N (5) must be <= M (4)", "the library's message")
  call spx_check(spxHostCheckUniform(2_c_int64_t, 3_c_int64_t, dense, 2_c_int64_t, SPX_ORDER_COL, &
                                     2_c_int64_t, ok), "spxHostCheckUniform")
  call expect(ok == 1, "at most 2 nonzeros per row")

  if (failures > 0) error stop 1
  write(*, '("Fortran ABI and enums: all checks passed")')

contains

  integer(c_size_t) function at(p)
    type(c_ptr), intent(in) :: p
    integer(c_intptr_t) :: addr
    addr = transfer(p, addr)
    at = int(addr - base, c_size_t)
  end function

  subroutine expect(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      write(*, '("FAILED: ", a)') what
      failures = failures + 1
    end if
  end subroutine
end program abi_check
