#pragma once
// A byte buffer for what crosses MPI or the process executor's mailboxes: orders, replies and system
// descriptions. Values are copied as they are in memory (all ranks run the same binary on the same
// kind of machine). The reader trusts no length it reads: a size, a count or a matrix shape the
// remaining bytes cannot hold is an Error, before anything is allocated for it.
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Dense>

#include "core/error.hpp"

namespace cosima::exec::wire {

class Writer {
 public:
  explicit Writer(std::vector<char>& bytes) : bytes_(bytes) {}
  template <typename T>
  requires std::is_trivially_copyable_v<T>
  void put(const T& value) {
    const auto* p = reinterpret_cast<const char*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void put(const std::string& text) {
    put(static_cast<std::uint64_t>(text.size()));
    bytes_.insert(bytes_.end(), text.begin(), text.end());
  }
  template <typename Derived>
  void put_matrix(const Eigen::DenseBase<Derived>& m) {
    put(static_cast<std::int64_t>(m.rows()));
    put(static_cast<std::int64_t>(m.cols()));
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      for (Eigen::Index r = 0; r < m.rows(); ++r) put(static_cast<double>(m(r, c)));
    }
  }

 private:
  std::vector<char>& bytes_;
};

class Reader {
 public:
  Reader(const char* data, std::size_t size) : data_(data), size_(size) {}
  template <typename T>
  requires std::is_trivially_copyable_v<T> T get() {
    need(sizeof(T));
    T value;
    std::memcpy(&value, data_ + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  std::string get_string() {
    const auto size = static_cast<std::size_t>(get<std::uint64_t>());
    need(size);
    std::string text(data_ + at_, size);
    at_ += size;
    return text;
  }
  /// A count of items, each at least `item_bytes` long on the wire: negative, or more than the
  /// remaining bytes can hold, is an Error before anything is allocated for it.
  std::size_t get_count(std::size_t item_bytes) {
    const auto count = get<std::int32_t>();
    if (count < 0 || static_cast<std::uint64_t>(count) > (size_ - at_) / item_bytes) {
      throw Error("a message announcing " + std::to_string(count) + " items its bytes do not hold (a protocol error)");
    }
    return static_cast<std::size_t>(count);
  }
  /// A shape `Matrix` cannot take (a vector of two columns) is refused too; an empty matrix holds no
  /// bytes, so its other dimension has no bound here, and no loop runs over it.
  template <typename Matrix>
  void get_matrix(Matrix& m) {
    const auto rows = get<std::int64_t>(), cols = get<std::int64_t>();
    if (rows < 0 || cols < 0 || (Matrix::RowsAtCompileTime != Eigen::Dynamic && rows != Matrix::RowsAtCompileTime) ||
        (Matrix::ColsAtCompileTime != Eigen::Dynamic && cols != Matrix::ColsAtCompileTime) ||
        (cols > 0 &&
         static_cast<std::uint64_t>(rows) > (size_ - at_) / sizeof(double) / static_cast<std::uint64_t>(cols))) {
      throw Error(fmt_shape(rows, cols));
    }
    m.resize(rows, cols);
    if (rows == 0) return;
    for (Eigen::Index c = 0; c < cols; ++c) {
      for (Eigen::Index r = 0; r < rows; ++r) m(r, c) = get<double>();
    }
  }
  [[nodiscard]] bool done() const { return at_ == size_; }
  /// Throws Error unless `bytes` more bytes are there (checked before what they fill is allocated).
  void need(std::size_t bytes) const {
    if (bytes > size_ - at_) throw Error("a message shorter than its contents (a protocol error)");
  }

 private:
  static std::string fmt_shape(std::int64_t rows, std::int64_t cols) {
    return "a message announcing a " + std::to_string(rows) + "×" + std::to_string(cols) +
           " matrix its bytes do not hold (a protocol error)";
  }
  const char* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

}  // namespace cosima::exec::wire
