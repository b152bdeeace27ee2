// Little-endian packing for the trace file and for the small messages the finalize-time
// analysis exchanges (reduction trees).
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace cpath {

class ByteWriter {
 public:
  template <class T>
  void put(T v) {
    const size_t n = buf_.size();
    buf_.resize(n + sizeof(T));
    std::memcpy(buf_.data() + n, &v, sizeof(T));
  }
  void put_bytes(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);
  }
  void put_string(const std::string& s) {
    put<uint32_t>(static_cast<uint32_t>(s.size()));
    put_bytes(s.data(), s.size());
  }
  std::vector<uint8_t>& bytes() { return buf_; }

 private:
  std::vector<uint8_t> buf_;
};

class ByteReader {
 public:
  ByteReader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  template <class T>
  bool get(T& v) {
    if (static_cast<size_t>(end_ - p_) < sizeof(T)) return ok_ = false;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return true;
  }
  bool get_string(std::string& s) {
    uint32_t n = 0;
    if (!get(n) || static_cast<size_t>(end_ - p_) < n) return ok_ = false;
    s.assign(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return true;
  }
  bool skip(size_t n) {
    if (left() < n) return ok_ = false;
    p_ += n;
    return true;
  }
  const uint8_t* pos() const { return p_; }
  size_t left() const { return static_cast<size_t>(end_ - p_); }
  bool ok() const { return ok_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

}  // namespace cpath
