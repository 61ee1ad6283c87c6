#include "device.hpp"

#include <cstring>

#include "runtime/dtype.hpp"

namespace spx::test {

bool gpu_available() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
    cudaGetLastError();  // clear the error so it does not stick to later calls
    return false;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return prop.major >= 8;
}

void cuda_check(cudaError_t err, const char* expr, const char* file, int line) {
  if (err == cudaSuccess) return;
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + expr +
                           " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                           ")");
}

void spx_check(spxStatus_t st, const char* expr, const char* file, int line) {
  if (st == SPX_STATUS_SUCCESS) return;
  const std::string message = spxGetLastErrorMessage();  // before any other libspx call
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + expr +
                           " returned " + spxGetStatusName(st) + ": " + message);
}

// ---------------------------------------------------------------- spx objects

UniqueHandle make_handle() {
  spxHandle_t h = nullptr;
  SPX_CHECK_OK(spxCreate(&h));
  return UniqueHandle(h);
}

Stream::Stream() { SPX_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }

Stream::~Stream() {
  if (s_) cudaStreamDestroy(s_);
}

void Stream::sync() const { SPX_CUDA_CHECK(cudaStreamSynchronize(s_)); }

UniqueSpMat make_sparse_descr(const HostSparse& s, void* ptr, void* idx, void* values) {
  spxSpMatDescr_t d = nullptr;
  switch (s.format) {
    case SPX_FORMAT_CSR:
      SPX_CHECK_OK(spxCreateCsr(&d, s.rows, s.cols, static_cast<int64_t>(s.idx.size()), ptr, idx,
                                values, s.type));
      break;
    case SPX_FORMAT_BCRS:
      SPX_CHECK_OK(spxCreateBcrs(&d, s.rows, s.cols, s.vec_len, static_cast<int64_t>(s.idx.size()),
                                 ptr, idx, values, s.type));
      break;
    case SPX_FORMAT_NM:
      SPX_CHECK_OK(spxCreateNM(&d, s.rows, s.cols, s.n, s.m, s.l, values, idx, s.type));
      break;
    case SPX_FORMAT_ELL:
      SPX_CHECK_OK(spxCreateEll(&d, s.rows, s.cols, s.ell_width, idx, values, s.type));
      break;
    default:
      throw std::logic_error("make_sparse_descr: bad format");
  }
  return UniqueSpMat(d);
}

DeviceSparse to_device(const HostSparse& s, size_t values_guard) {
  DeviceSparse d;
  d.ptr = DeviceBuffer::from(s.ptr);
  d.idx = DeviceBuffer::from(s.idx);
  d.values = DeviceBuffer(s.values, values_guard);
  d.descr = make_sparse_descr(s, d.ptr.get(), d.idx.get(), d.values.get());
  return d;
}

HostSparse download_values(const DeviceSparse& d, const HostSparse& like) {
  HostSparse out = like;
  d.values.download(out.values.data(), out.values.size());
  return out;
}

UniqueDnMat make_dense_descr(const HostDense& d, void* values) {
  spxDnMatDescr_t descr = nullptr;
  SPX_CHECK_OK(spxCreateDnMat(&descr, d.rows, d.cols, d.ld, values, d.type, d.order));
  return UniqueDnMat(descr);
}

DeviceDense to_device(const HostDense& d, size_t guard) {
  DeviceDense out;
  out.buf = DeviceBuffer(d.data, guard);
  out.descr = make_dense_descr(d, out.buf.get());
  return out;
}

HostDense download(const DeviceDense& d, const HostDense& like) {
  HostDense out = like;
  d.buf.download(out.data.data(), out.data.size());
  return out;
}

ScalarBytes make_scalar(double v, spxDataType_t out_type) {
  ScalarBytes s;
  if (out_type == SPX_R_32I) {
    const int32_t i = static_cast<int32_t>(v);
    if (static_cast<double>(i) != v) throw std::logic_error("make_scalar: 32I scalar not integral");
    std::memcpy(s.bytes, &i, sizeof i);
  } else {
    const float f = static_cast<float>(v);
    std::memcpy(s.bytes, &f, sizeof f);
  }
  return s;
}

void device_sync() {
  SPX_CUDA_CHECK(cudaDeviceSynchronize());
  SPX_CUDA_CHECK(cudaGetLastError());
}

}  // namespace spx::test
