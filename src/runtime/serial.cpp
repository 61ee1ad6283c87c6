#include "runtime/serial.hpp"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime/error.hpp"

namespace spx::serial {

Writer::Writer(uint8_t* out, size_t capacity, Copy copy)
    : out_(out), capacity_(capacity), copy_(std::move(copy)) {}

void Writer::raw(const void* p, size_t n) {
  if (out_ != nullptr) {
    SPX_EXPECTS(n <= capacity_ - at_, SPX_STATUS_INTERNAL_ERROR,
                "serializing a plan: %zu bytes do not fit the %zu left", n, capacity_ - at_);
    std::memcpy(out_ + at_, p, n);
  }
  at_ += n;
}

void Writer::text(const std::string& s) {
  u64(s.size());
  raw(s.data(), s.size());
}

void Writer::fixed(const char* s, size_t n) { raw(s, n); }

void Writer::array(const Array& a) {
  u64(a.bytes);
  if (out_ != nullptr && a.bytes > 0) {
    SPX_EXPECTS(a.bytes <= capacity_ - at_, SPX_STATUS_INTERNAL_ERROR,
                "serializing a plan: an array of %llu bytes does not fit the %zu left",
                static_cast<unsigned long long>(a.bytes), capacity_ - at_);
    if (copy_ && !a.host)
      copy_(out_ + at_, a.data, static_cast<size_t>(a.bytes));
    else
      std::memcpy(out_ + at_, a.data, static_cast<size_t>(a.bytes));
  }
  at_ += static_cast<size_t>(a.bytes);
}

Reader::Reader(const uint8_t* data, size_t size, const char* what)
    : data_(data), size_(data == nullptr ? 0 : size), what_(what) {}

const uint8_t* Reader::take(size_t n, const char* field) {
  SPX_CHECK_ARG(n <= size_ - at_,
                "%s is truncated: %s needs %zu bytes at offset %zu, %zu are left", what_, field, n,
                at_, size_ - at_);
  const uint8_t* p = data_ + at_;
  at_ += n;
  return p;
}

bool Reader::flag(const char* field) {
  const uint32_t v = u32(field);
  SPX_CHECK_ARG(v <= 1, "%s is invalid: %s (%u) is not 0 or 1", what_, field, v);
  return v == 1;
}

int64_t Reader::i64_in(const char* field, int64_t lo, int64_t hi) {
  const int64_t v = i64(field);
  SPX_CHECK_ARG(v >= lo && v <= hi, "%s is invalid: %s (%lld) is outside [%lld, %lld]", what_,
                field, static_cast<long long>(v), static_cast<long long>(lo),
                static_cast<long long>(hi));
  return v;
}

int32_t Reader::i32_in(const char* field, int32_t lo, int32_t hi) {
  const int32_t v = i32(field);
  SPX_CHECK_ARG(v >= lo && v <= hi, "%s is invalid: %s (%d) is outside [%d, %d]", what_, field, v,
                lo, hi);
  return v;
}

std::string Reader::text(const char* field, size_t max_length) {
  const uint64_t n = u64(field);
  SPX_CHECK_ARG(n <= max_length, "%s is invalid: %s has length %llu, more than %zu", what_, field,
                static_cast<unsigned long long>(n), max_length);
  const uint8_t* p = take(static_cast<size_t>(n), field);
  return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
}

void Reader::fixed(const char* field, char* dst, size_t n) {
  std::memcpy(dst, take(n, field), n);
  if (n > 0) dst[n - 1] = '\0';
}

Array Reader::array(const char* field) {
  const uint64_t n = u64(field);
  SPX_CHECK_ARG(n <= left(), "%s is truncated: %s holds %llu bytes at offset %zu, %zu are left",
                what_, field, static_cast<unsigned long long>(n), at_, left());
  return {take(static_cast<size_t>(n), field), n};
}

Array Reader::array_of(const char* field, uint64_t bytes) {
  const size_t at = at_;
  const Array a = array(field);
  SPX_CHECK_ARG(a.bytes == bytes, "%s is invalid: %s at offset %zu holds %llu bytes, not %llu",
                what_, field, at, static_cast<unsigned long long>(a.bytes),
                static_cast<unsigned long long>(bytes));
  return a;
}

void expect(bool ok, const char* what, const char* field, const char* why) {
  SPX_CHECK_ARG(ok, "%s is invalid: %s %s", what, field, why);
}

void Reader::finish() {
  SPX_CHECK_ARG(at_ == size_, "%s is invalid: %zu bytes follow its last field (offset %zu)", what_,
                size_ - at_, at_);
}

namespace {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull, kP2 = 0xC2B2AE3D27D4EB4Full,
                   kP3 = 0x165667B19E3779F9ull;
constexpr size_t kChunk = size_t{1} << 20;

uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
uint64_t round(uint64_t acc, uint64_t w) { return rotl(acc + w * kP2, 31) * kP1; }
uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint64_t avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  return h ^ (h >> 32);
}

uint64_t hash_chunk(const uint8_t* p, size_t n, uint64_t seed) {
  uint64_t a = seed + kP1 + kP2, b = seed + kP2, c = seed, d = seed - kP1;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a = round(a, load64(p + i));
    b = round(b, load64(p + i + 8));
    c = round(c, load64(p + i + 16));
    d = round(d, load64(p + i + 24));
  }
  uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + n;
  for (; i + 8 <= n; i += 8) h = rotl(h ^ round(0, load64(p + i)), 27) * kP1 + kP3;
  for (; i < n; ++i) h = rotl(h ^ (p[i] * kP3), 11) * kP1;
  return avalanche(h);
}

}  // namespace

uint64_t checksum(const uint8_t* data, size_t size, uint64_t seed) {
  const size_t chunks = (size + kChunk - 1) / kChunk;
  std::vector<uint64_t> h(chunks);
  auto work = [&](size_t first, size_t step) {
    for (size_t c = first; c < chunks; c += step)
      h[c] = hash_chunk(data + c * kChunk, std::min(kChunk, size - c * kChunk), seed + c);
  };
  // Four chunks a thread at least (a thread costs ~50 us to start), 16 threads at most.
  const size_t threads = std::min<size_t>(
      {chunks / 4, size_t{16}, std::max<size_t>(1, std::thread::hardware_concurrency())});
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work, t, threads);
  work(0, std::max<size_t>(threads, 1));
  for (std::thread& t : pool) t.join();
  uint64_t all = seed ^ (size * kP1);
  for (const uint64_t v : h) all = round(all, v);
  return avalanche(all);
}

}  // namespace spx::serial
