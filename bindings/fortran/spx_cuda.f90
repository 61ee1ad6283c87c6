! The few CUDA runtime calls a Fortran program needs to use libspx without CUDA Fortran: device
! memory (cudaMalloc, cudaFree, cudaMemcpy, cudaMemset), streams (create, destroy, synchronize:
! hand one to spxSetStream) and errors. Link with the CUDA runtime (libcudart).
module spx_cuda
  use, intrinsic :: iso_c_binding
  implicit none
  public

  integer(c_int), parameter :: cudaSuccess = 0
  ! cudaMemcpyKind
  integer(c_int), parameter :: cudaMemcpyHostToHost = 0
  integer(c_int), parameter :: cudaMemcpyHostToDevice = 1
  integer(c_int), parameter :: cudaMemcpyDeviceToHost = 2
  integer(c_int), parameter :: cudaMemcpyDeviceToDevice = 3
  integer(c_int), parameter :: cudaMemcpyDefault = 4

  interface
    integer(c_int) function cudaMalloc(ptr, bytes) bind(C, name="cudaMalloc")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), intent(out) :: ptr
      integer(c_size_t), value :: bytes
    end function
    integer(c_int) function cudaFree(ptr) bind(C, name="cudaFree")
      import :: c_int, c_ptr
      type(c_ptr), value :: ptr
    end function
    !> dst and src: c_loc of a host array, or a device pointer; bytes: the length in bytes.
    integer(c_int) function cudaMemcpy(dst, src, bytes, kind) bind(C, name="cudaMemcpy")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: dst, src
      integer(c_size_t), value :: bytes
      integer(c_int), value :: kind
    end function
    integer(c_int) function cudaMemset(ptr, value, bytes) bind(C, name="cudaMemset")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: ptr
      integer(c_int), value :: value
      integer(c_size_t), value :: bytes
    end function
    integer(c_int) function cudaDeviceSynchronize() bind(C, name="cudaDeviceSynchronize")
      import :: c_int
    end function
    integer(c_int) function cudaGetDeviceCount(count) bind(C, name="cudaGetDeviceCount")
      import :: c_int
      integer(c_int), intent(out) :: count
    end function
    integer(c_int) function cudaStreamCreate(stream) bind(C, name="cudaStreamCreate")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: stream
    end function
    integer(c_int) function cudaStreamDestroy(stream) bind(C, name="cudaStreamDestroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: stream
    end function
    integer(c_int) function cudaStreamSynchronize(stream) bind(C, name="cudaStreamSynchronize")
      import :: c_int, c_ptr
      type(c_ptr), value :: stream
    end function
    function cudaGetErrorString(err) bind(C, name="cudaGetErrorString")
      import :: c_int, c_ptr
      integer(c_int), value :: err
      type(c_ptr) :: cudaGetErrorString
    end function
  end interface

contains

  !> Stops the program with CUDA's message when err is not cudaSuccess.
  subroutine cuda_check(err, what)
    use spx, only: spx_c_string
    integer(c_int), intent(in) :: err
    character(len=*), intent(in) :: what
    if (err /= cudaSuccess) then
      write(*, '(a, ": CUDA error ", i0, " (", a, ")")') what, err, spx_c_string(cudaGetErrorString(err))
      error stop 1
    end if
  end subroutine
end module spx_cuda
