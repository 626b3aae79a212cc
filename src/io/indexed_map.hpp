#pragma once
// The object type of cosima's JSON documents (io/json.hpp: Json): keys in the order they were
// written, as cosima::io::Json keeps them — the systems of a scenario are numbered in that
// order — but found in constant time. nlohmann's ordered_map finds a key by a linear scan, so
// building an object of n keys took O(n²): a 40 000-system scenario parsed in 2.6 s, 10⁶ systems
// did not parse in 300 s.
//
// Small objects (most of a document's) are searched linearly; from kIndexedFrom keys on, a hash
// index over positions (core/position_index.hpp) finds a key's position. The index is rebuilt lazily after an erase
// (which shifts the positions), so a document that erases one key after another from a large object pays O(n) each.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/position_index.hpp"

namespace cosima::io {

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
    grow_if_full();
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

  /// std::vector grows by copying a pair with a const key (its move may throw), which copies the whole
  /// value — a document's every system subtree, at every doubling. Here the values are moved and only
  /// the keys copied.
  void grow_if_full() {
    if (this->size() < this->capacity()) return;
    Container grown(this->get_allocator());
    grown.reserve(std::max<size_type>(4, 2 * this->capacity()));
    for (auto& entry : static_cast<Container&>(*this)) grown.emplace_back(entry.first, std::move(entry.second));
    Container::swap(grown);
  }

  const Key& key_at(size_type position) const { return Container::operator[](position).first; }

  template <class K>
  size_type position(const K& key) const {
    const std::string_view wanted(key);
    if (this->size() < kIndexedFrom) {
      for (size_type k = 0; k < this->size(); ++k) {
        if (std::string_view(key_at(k)) == wanted) return k;
      }
      return npos;
    }
    const auto name_at = [this](size_type k) -> const Key& { return key_at(k); };
    if (index_.size() != this->size()) index_.rebuild(this->size(), name_at);
    return index_.find(wanted, name_at);
  }

  void note_appended() {
    if (this->size() < kIndexedFrom) return;
    index_.append(this->size(), [this](size_type k) -> const Key& { return key_at(k); });
  }

  mutable PositionIndex index_;  ///< from kIndexedFrom entries on (core/position_index.hpp)
};

}  // namespace cosima::io
