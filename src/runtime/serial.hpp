// The bounds-checked byte writer and reader of serialized plans, and their checksum. Plain C++
// (no CUDA): the library's device arrays reach the writer through a copy function, so the same
// code writes from device memory in libspx and from host memory in the CPU tests and the fuzzer.
// Every value is little-endian and fixed-width; a reader that runs past its end, or meets a
// length that does not fit what is left, throws INVALID_VALUE naming the field and the offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>

namespace spx::serial {

/// An array of bytes: for writing, where they are (a device pointer in libspx); for reading, a
/// view into the caller's buffer (no copy).
struct Array {
  const void* data = nullptr;
  uint64_t bytes = 0;
  bool host = false;  ///< writing: data is host memory (copied with memcpy, not `copy`)
};

class Writer {
 public:
  /// Copies `bytes` from an Array's data to host memory `dst` (libspx: a device-to-host copy).
  using Copy = std::function<void(void* dst, const void* src, size_t bytes)>;
  /// out == nullptr: counts the bytes only (what spxPlanGetSerializedSize needs).
  Writer(uint8_t* out, size_t capacity, Copy copy);

  void u32(uint32_t v) { raw(&v, 4); }
  void i32(int32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void i64(int64_t v) { raw(&v, 8); }
  void f64(double v) { raw(&v, 8); }
  void flag(bool v) { u32(v ? 1u : 0u); }
  void text(const std::string& s);   ///< u64 length, then the characters
  void fixed(const char* s, size_t n);  ///< exactly n bytes (a char[n] field)
  void array(const Array& a);        ///< u64 length, then the bytes through `copy`
  size_t size() const { return at_; }

 private:
  void raw(const void* p, size_t n);
  uint8_t* out_;
  size_t capacity_, at_ = 0;
  Copy copy_;
};

class Reader {
 public:
  /// `what` starts every message ("serialized plan").
  Reader(const uint8_t* data, size_t size, const char* what);

  uint32_t u32(const char* field) { return scalar<uint32_t>(field); }
  int32_t i32(const char* field) { return scalar<int32_t>(field); }
  uint64_t u64(const char* field) { return scalar<uint64_t>(field); }
  int64_t i64(const char* field) { return scalar<int64_t>(field); }
  double f64(const char* field) { return scalar<double>(field); }
  bool flag(const char* field);  ///< 0 or 1, anything else INVALID_VALUE
  /// An integer in [lo, hi], else INVALID_VALUE naming the field and the range.
  int64_t i64_in(const char* field, int64_t lo, int64_t hi);
  int32_t i32_in(const char* field, int32_t lo, int32_t hi);
  std::string text(const char* field, size_t max_length);
  /// n bytes into dst, the last forced to '\0' (a char[n] field).
  void fixed(const char* field, char* dst, size_t n);
  Array array(const char* field);
  /// An array of exactly `bytes` bytes (a length the record's other fields fix).
  Array array_of(const char* field, uint64_t bytes);
  size_t offset() const { return at_; }
  size_t left() const { return size_ - at_; }
  /// INVALID_VALUE when bytes are left over (every field read, nothing may follow).
  void finish();

 private:
  const uint8_t* take(size_t n, const char* field);
  /// The next sizeof(T) bytes as a T (fixed-width, little-endian as written).
  template <class T>
  T scalar(const char* field) {
    T v;
    std::memcpy(&v, take(sizeof v, field), sizeof v);
    return v;
  }
  const uint8_t* data_;
  size_t size_, at_ = 0;
  const char* what_;
};

/// Writes a record's fields: `record.visit(Save{w})` (the same visit reads them with Load).
struct Save {
  Writer& w;
  void operator()(const char*, int64_t& v) { w.i64(v); }
  void operator()(const char*, int32_t& v) { w.i32(v); }
  void operator()(const char*, double& v) { w.f64(v); }
  void operator()(const char*, bool& v) { w.flag(v); }
  void operator()(const char*, Array& a) { w.array(a); }
  template <class E, class = std::enable_if_t<std::is_enum_v<E>>>
  void operator()(const char*, E& v) { w.i32(static_cast<int32_t>(v)); }
};
/// Reads what Save wrote (enums unchecked: each record's validate() checks their range).
struct Load {
  Reader& r;
  void operator()(const char* f, int64_t& v) { v = r.i64(f); }
  void operator()(const char* f, int32_t& v) { v = r.i32(f); }
  void operator()(const char* f, double& v) { v = r.f64(f); }
  void operator()(const char* f, bool& v) { v = r.flag(f); }
  void operator()(const char* f, Array& a) { a = r.array(f); }
  template <class E, class = std::enable_if_t<std::is_enum_v<E>>>
  void operator()(const char* f, E& v) { v = static_cast<E>(r.i32(f)); }
};

/// a * b, saturating at UINT64_MAX (sizes from untrusted fields never wrap around).
inline uint64_t mul(uint64_t a, uint64_t b) {
  return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}
/// INVALID_VALUE "<what> is invalid: <field> ..." unless `ok`.
void expect(bool ok, const char* what, const char* field, const char* why);

/// The 64-bit checksum of serialized plans: 1 MiB chunks each hashed with four multiply-rotate
/// lanes (xxHash64's round), the chunk hashes folded in order. Chunks are hashed in parallel
/// on large buffers (the result does not depend on the number of threads): ~100 MB in a few ms.
uint64_t checksum(const uint8_t* data, size_t size, uint64_t seed = 0);

}  // namespace spx::serial
