#pragma once
// The flat columns of a listing's item, derived from its declaration (describe.hpp): one walk shared by every
// tabular form (to_pandas() columns, CSV, Arrow), so that they all have the same names in the same order. A
// field is a column under its name; a nested single model is flattened into "<field>_<its field>" columns
// (status_value, repository_html_url); a list stays one column.

#include <string>
#include <type_traits>

#include "trunk/describe.hpp"

namespace trunk::python {

/// The value a member holds, or nullptr when the member is an empty optional (or the member itself is absent).
template <typename Member>
const schema::unwrap_optional_t<Member>* leaf(const Member* member) {
  if (member == nullptr) return nullptr;
  if constexpr (schema::IsOptional<Member>::value) {
    return member->has_value() ? &**member : nullptr;
  } else {
    return member;
  }
}

/// Calls f(name, get) for every flat column of T, where get(item) gives a pointer to the leaf member
/// (nullptr when a nested model on the way is absent). Nested single models are flattened with a prefix.
template <schema::Described T, typename Item, typename Get, typename F>
void for_each_leaf(const std::string& prefix, Get get, F& f) {
  schema::for_each_field<T>([&](const auto& field) {
    using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
    using Value = schema::unwrap_optional_t<Member>;
    const std::string name = prefix.empty() ? std::string(field.name) : prefix + "_" + std::string(field.name);
    auto get_member = [get, member = field.member](const Item& item) -> const Member* {
      const T* owner = get(item);
      return owner == nullptr ? nullptr : &(owner->*member);
    };
    if constexpr (schema::Described<Value>) {
      for_each_leaf<Value, Item>(name, [get_member](const Item& item) -> const Value* {
        return leaf(get_member(item));
      }, f);
    } else {
      f(name, get_member);
    }
  });
}

/// for_each_leaf over a whole item.
template <schema::Described T, typename F>
void for_each_flat_column(F& f) {
  for_each_leaf<T, T>("", [](const T& item) -> const T* { return &item; }, f);
}

}  // namespace trunk::python
