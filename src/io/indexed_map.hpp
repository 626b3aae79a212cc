#pragma once
// The object type of cosima's JSON documents (io/json.hpp: Json): keys in the order they were
// written, as cosima::Json keeps them — the systems of a scenario are numbered in that
// order — but found in constant time. nlohmann's ordered_map finds a key by a linear scan, so
// building an object of n keys took O(n²): a 40 000-system scenario parsed in 2.6 s, 10⁶ systems
// did not parse in 300 s.
//
// Small objects (most of a document's) are searched linearly; from kIndexedFrom keys on, a hash
// index maps each key to its position. The index is rebuilt lazily after an erase (which shifts the
// positions), so a document that erases one key after another from a large object pays O(n) each.
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cosima {

template <class Key, class T, class IgnoredLess = std::less<Key>,
          class Allocator = std::allocator<std::pair<const Key, T>>>
class IndexedMap : public std::vector<std::pair<const Key, T>, Allocator> {
 public:
  using key_type = Key;
  using mapped_type = T;
  using Container = std::vector<std::pair<const Key, T>, Allocator>;
  using iterator = typename Container::iterator;
  using const_iterator = typename Container::const_iterator;
  using size_type = typename Container::size_type;
  using value_type = typename Container::value_type;
  using key_compare = std::equal_to<>;  // transparent: nlohmann looks keys up by string_view too

  static constexpr size_type kIndexedFrom = 16;

  IndexedMap() = default;
  explicit IndexedMap(const Allocator& allocator) : Container(allocator) {}
  template <class It>
  IndexedMap(It first, It last, const Allocator& allocator = Allocator()) : Container(first, last, allocator) {}
  IndexedMap(std::initializer_list<value_type> values, const Allocator& allocator = Allocator())
      : Container(values, allocator) {}

  template <class K, class V>
  std::pair<iterator, bool> emplace(K&& key, V&& value) {
    if (const auto at = position(key); at != npos) return {this->begin() + static_cast<std::ptrdiff_t>(at), false};
    Container::emplace_back(std::forward<K>(key), std::forward<V>(value));
    note_appended();
    return {std::prev(this->end()), true};
  }

  template <class K>
  T& operator[](K&& key) {
    return emplace(std::forward<K>(key), T{}).first->second;
  }
  template <class K>
  const T& operator[](K&& key) const {
    return at(std::forward<K>(key));
  }

  template <class K>
  T& at(const K& key) {
    const auto at = position(key);
    if (at == npos) throw std::out_of_range("key not found");
    return Container::operator[](at).second;
  }
  template <class K>
  const T& at(const K& key) const {
    const auto at = position(key);
    if (at == npos) throw std::out_of_range("key not found");
    return Container::operator[](at).second;
  }

  template <class K>
  iterator find(const K& key) {
    const auto at = position(key);
    return at == npos ? this->end() : this->begin() + static_cast<std::ptrdiff_t>(at);
  }
  template <class K>
  const_iterator find(const K& key) const {
    const auto at = position(key);
    return at == npos ? this->end() : this->begin() + static_cast<std::ptrdiff_t>(at);
  }
  template <class K>
  size_type count(const K& key) const {
    return position(key) == npos ? 0 : 1;
  }

  template <class K, class = std::enable_if_t<!std::is_convertible_v<K, const_iterator>>>
  size_type erase(const K& key) {
    const auto at = position(key);
    if (at == npos) return 0;
    erase(this->begin() + static_cast<std::ptrdiff_t>(at));
    return 1;
  }
  iterator erase(iterator at) { return erase(at, std::next(at)); }
  /// Shifts the later entries down in place (a pair with a const key cannot be move-assigned).
  iterator erase(iterator first, iterator last) {
    if (first == last) return first;
    const auto removed = std::distance(first, last);
    const auto offset = std::distance(this->begin(), first);
    for (auto it = first; std::next(it, removed) != this->end(); ++it) {
      it->~value_type();
      new (&*it) value_type{std::move(*std::next(it, removed))};
    }
    Container::resize(this->size() - static_cast<size_type>(removed));
    index_.clear();  // positions moved: rebuilt at the next lookup
    return this->begin() + offset;
  }

  void clear() noexcept {
    Container::clear();
    index_.clear();
  }

  std::pair<iterator, bool> insert(value_type&& value) { return emplace(value.first, std::move(value.second)); }
  std::pair<iterator, bool> insert(const value_type& value) {
    T copy = value.second;
    return emplace(value.first, std::move(copy));
  }
  template <class It>
  void insert(It first, It last) {
    for (; first != last; ++first) insert(*first);
  }

 private:
  static constexpr size_type npos = static_cast<size_type>(-1);

  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view key) const noexcept { return std::hash<std::string_view>{}(key); }
  };

  template <class K>
  size_type position(const K& key) const {
    const std::string_view wanted(key);
    if (this->size() < kIndexedFrom) {
      for (size_type k = 0; k < this->size(); ++k) {
        if (std::string_view(Container::operator[](k).first) == wanted) return k;
      }
      return npos;
    }
    if (index_.size() != this->size()) rebuild();
    const auto found = index_.find(wanted);
    return found == index_.end() ? npos : found->second;
  }

  void note_appended() {
    if (this->size() < kIndexedFrom) return;
    if (index_.size() + 1 == this->size()) {
      index_.emplace(this->back().first, this->size() - 1);
    } else {
      rebuild();
    }
  }

  void rebuild() const {
    index_.clear();
    index_.reserve(this->size());
    for (size_type k = 0; k < this->size(); ++k) index_.emplace(Container::operator[](k).first, k);
  }

  mutable std::unordered_map<Key, size_type, Hash, std::equal_to<>> index_;
};

}  // namespace cosima
