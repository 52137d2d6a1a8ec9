#include "arrow_batch.hpp"

#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "flat_fields.hpp"
#include "trunk/describe.hpp"
#include "trunk/time.hpp"

namespace trunk::python {

namespace {

// ---- a column while it is built: its type, its buffers and its children -----------------------------------

/// One Arrow array under construction. buffers[0] is the validity bitmap (empty: no nulls, exported as a null
/// pointer); the others follow the layout of `format`.
struct Column {
  std::string format;
  std::string name;
  std::int64_t length = 0;
  std::int64_t null_count = 0;
  std::vector<std::vector<std::uint8_t>> buffers{};  // {}: built as Column{format, name, length}
  std::vector<Column> children{};
};

/// Bit i of an Arrow bitmap (least significant bit first).
void set_bit(std::vector<std::uint8_t>& bitmap, std::size_t i) {
  bitmap[i / 8] |= static_cast<std::uint8_t>(1U << (i % 8));
}

/// The validity bitmap of `rows` values, present(i) telling which are there; empty when none is missing.
template <typename Present>
std::vector<std::uint8_t> validity(std::size_t rows, std::int64_t& null_count, Present present) {
  std::vector<std::uint8_t> bitmap((rows + 7) / 8, 0);
  null_count = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    if (present(i)) {
      set_bit(bitmap, i);
    } else {
      ++null_count;
    }
  }
  if (null_count == 0) bitmap.clear();
  return bitmap;
}

template <typename T>
std::vector<std::uint8_t> bytes_of(std::size_t count) {
  return std::vector<std::uint8_t>(count * sizeof(T));
}

template <typename T>
T* as(std::vector<std::uint8_t>& buffer) {
  return reinterpret_cast<T*>(buffer.data());
}

/// The text of a string or an open enumeration (its wire value, unknown ones included).
template <typename Value>
const std::string* text_of(const Value* value) {
  if (value == nullptr) return nullptr;
  if constexpr (std::is_same_v<Value, std::string>) {
    return value;
  } else {
    return &value->wire();
  }
}

/// Strings with Offset-sized offsets: "u" (int32) or, for a column past 2 GiB of text, "U" (int64).
template <typename Offset, typename Get>
Column text_column(std::string name, std::size_t rows, Get get, std::size_t total_bytes) {
  Column column{std::is_same_v<Offset, std::int32_t> ? "u" : "U", std::move(name),
                static_cast<std::int64_t>(rows)};
  column.buffers.push_back(validity(rows, column.null_count, [&](std::size_t i) { return get(i) != nullptr; }));
  column.buffers.push_back(bytes_of<Offset>(rows + 1));
  column.buffers.emplace_back(total_bytes);
  Offset* offsets = as<Offset>(column.buffers[1]);
  char* data = reinterpret_cast<char*>(column.buffers[2].data());
  Offset end = 0;
  offsets[0] = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    if (const std::string* text = get(i); text != nullptr && !text->empty()) {
      std::memcpy(data + end, text->data(), text->size());
      end += static_cast<Offset>(text->size());
    }
    offsets[i + 1] = end;
  }
  return column;
}

/// A fixed-width column: `format`, values converted by to_value (0 where absent).
template <typename Stored, typename Get, typename ToValue>
Column fixed_column(std::string format, std::string name, std::size_t rows, Get get, ToValue to_value) {
  Column column{std::move(format), std::move(name), static_cast<std::int64_t>(rows)};
  column.buffers.push_back(validity(rows, column.null_count, [&](std::size_t i) { return get(i) != nullptr; }));
  column.buffers.push_back(bytes_of<Stored>(rows));
  Stored* values = as<Stored>(column.buffers[1]);
  for (std::size_t i = 0; i < rows; ++i) {
    const auto* value = get(i);
    values[i] = value != nullptr ? to_value(*value) : Stored{};
  }
  return column;
}

template <typename Value, typename Get>
Column build_column(std::string name, std::size_t rows, Get get);

/// A struct column of a described model: one child per field (a nested model stays a struct here, inside a
/// list, where flattening would lose which summary a count belongs to).
template <schema::Described Model, typename Get>
Column struct_column(std::string name, std::size_t rows, Get get) {
  Column column{"+s", std::move(name), static_cast<std::int64_t>(rows)};
  column.buffers.push_back(validity(rows, column.null_count, [&](std::size_t i) { return get(i) != nullptr; }));
  schema::for_each_field<Model>([&](const auto& field) {
    using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
    using Value = schema::unwrap_optional_t<Member>;
    column.children.push_back(build_column<Value>(std::string(field.name), rows, [&](std::size_t i) {
      const Model* model = get(i);
      return model == nullptr ? nullptr : leaf(&(model->*(field.member)));
    }));
  });
  return column;
}

/// The column of `rows` values of type Value; get(i) gives the i-th value or nullptr where it is absent.
template <typename Value, typename Get>
Column build_column(std::string name, std::size_t rows, Get get) {
  if constexpr (std::is_same_v<Value, std::string> || requires { typename Value::is_open_enum; }) {
    auto text = [&](std::size_t i) { return text_of(get(i)); };
    std::size_t total = 0;
    for (std::size_t i = 0; i < rows; ++i) {
      if (const std::string* value = text(i)) total += value->size();
    }
    if (total <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
      return text_column<std::int32_t>(std::move(name), rows, text, total);
    }
    return text_column<std::int64_t>(std::move(name), rows, text, total);
  } else if constexpr (std::is_same_v<Value, double>) {
    return fixed_column<double>("g", std::move(name), rows, get, [](double value) { return value; });
  } else if constexpr (std::is_same_v<Value, std::int64_t>) {
    return fixed_column<std::int64_t>("l", std::move(name), rows, get, [](std::int64_t value) { return value; });
  } else if constexpr (std::is_same_v<Value, Timestamp>) {
    // Microseconds since the epoch, UTC: the decoder's own resolution, so nothing is rounded.
    return fixed_column<std::int64_t>("tsu:UTC", std::move(name), rows, get,
                                      [](Timestamp value) { return value.time_since_epoch().count(); });
  } else if constexpr (std::is_same_v<Value, bool>) {
    Column column{"b", std::move(name), static_cast<std::int64_t>(rows)};
    column.buffers.push_back(validity(rows, column.null_count, [&](std::size_t i) { return get(i) != nullptr; }));
    column.buffers.emplace_back((rows + 7) / 8, 0);
    for (std::size_t i = 0; i < rows; ++i) {
      if (const bool* value = get(i); value != nullptr && *value) set_bit(column.buffers[1], i);
    }
    return column;
  } else if constexpr (schema::IsVector<Value>::value) {
    using Element = typename Value::value_type;
    Column column{"+l", std::move(name), static_cast<std::int64_t>(rows)};
    column.buffers.push_back(validity(rows, column.null_count, [&](std::size_t i) { return get(i) != nullptr; }));
    column.buffers.push_back(bytes_of<std::int32_t>(rows + 1));
    std::int32_t* offsets = as<std::int32_t>(column.buffers[1]);
    std::vector<const Element*> elements;
    offsets[0] = 0;
    for (std::size_t i = 0; i < rows; ++i) {
      if (const Value* list = get(i)) {
        for (const Element& element : *list) elements.push_back(&element);
      }
      if (elements.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
        throw std::length_error("to_arrow: more than 2^31 list elements in column " + column.name);
      }
      offsets[i + 1] = static_cast<std::int32_t>(elements.size());
    }
    column.children.push_back(
        build_column<Element>("item", elements.size(), [&](std::size_t j) { return elements[j]; }));
    return column;
  } else if constexpr (schema::Described<Value>) {
    return struct_column<Value>(std::move(name), rows, get);
  } else {
    static_assert(sizeof(Value) == 0, "arrow_batch.cpp: no Arrow type for this field type; add one");
  }
}

// ---- export: the Column tree as ArrowSchema / ArrowArray trees that own what they point to -----------------

struct SchemaParts {
  std::string format;
  std::string name;
  std::unique_ptr<ArrowSchema[]> children;
  std::vector<ArrowSchema*> child_pointers;
};

struct ArrayParts {
  std::vector<std::vector<std::uint8_t>> buffers{};  // {}: built as Column{format, name, length}
  std::vector<const void*> buffer_pointers;
  std::unique_ptr<ArrowArray[]> children;
  std::vector<ArrowArray*> child_pointers;
};

// The release callbacks release the children still here (a consumer may have moved some out, leaving them
// released), then free this level, and mark the struct released, as the interface requires.
void release_schema(ArrowSchema* schema) {
  auto* parts = static_cast<SchemaParts*>(schema->private_data);
  for (ArrowSchema* child : parts->child_pointers) {
    if (child->release != nullptr) child->release(child);
  }
  delete parts;
  schema->release = nullptr;
}

void release_array(ArrowArray* array) {
  auto* parts = static_cast<ArrayParts*>(array->private_data);
  for (ArrowArray* child : parts->child_pointers) {
    if (child->release != nullptr) child->release(child);
  }
  delete parts;
  array->release = nullptr;
}

void export_schema(const Column& column, ArrowSchema& out) {
  auto parts = std::make_unique<SchemaParts>();
  parts->format = column.format;
  parts->name = column.name;
  parts->children = std::make_unique<ArrowSchema[]>(column.children.size());
  for (std::size_t i = 0; i < column.children.size(); ++i) {
    export_schema(column.children[i], parts->children[i]);
    parts->child_pointers.push_back(&parts->children[i]);
  }
  out = ArrowSchema{};
  out.format = parts->format.c_str();
  out.name = parts->name.c_str();
  out.metadata = nullptr;
  out.flags = ARROW_FLAG_NULLABLE;  // every field is optional on the wire
  out.n_children = static_cast<std::int64_t>(column.children.size());
  out.children = parts->child_pointers.empty() ? nullptr : parts->child_pointers.data();
  out.dictionary = nullptr;
  out.release = release_schema;
  out.private_data = parts.release();
}

void export_array(Column& column, ArrowArray& out) {
  auto parts = std::make_unique<ArrayParts>();
  parts->buffers = std::move(column.buffers);
  for (const auto& buffer : parts->buffers) {
    parts->buffer_pointers.push_back(buffer.empty() ? nullptr : buffer.data());
  }
  parts->children = std::make_unique<ArrowArray[]>(column.children.size());
  for (std::size_t i = 0; i < column.children.size(); ++i) {
    export_array(column.children[i], parts->children[i]);
    parts->child_pointers.push_back(&parts->children[i]);
  }
  out = ArrowArray{};
  out.length = column.length;
  out.null_count = column.null_count;
  out.offset = 0;
  out.n_buffers = static_cast<std::int64_t>(parts->buffer_pointers.size());
  out.n_children = static_cast<std::int64_t>(column.children.size());
  out.buffers = parts->buffer_pointers.data();
  out.children = parts->child_pointers.empty() ? nullptr : parts->child_pointers.data();
  out.dictionary = nullptr;
  out.release = release_array;
  out.private_data = parts.release();
}

}  // namespace

ArrowRecordBatch::ArrowRecordBatch(ArrowRecordBatch&& other) noexcept
    : schema_(other.take_schema()), array_(other.take_array()) {}

ArrowRecordBatch& ArrowRecordBatch::operator=(ArrowRecordBatch&& other) noexcept {
  if (this != &other) {
    ArrowRecordBatch released(take_schema(), take_array());  // this batch's own parts, released at the end
    schema_ = other.take_schema();
    array_ = other.take_array();
  }
  return *this;
}

ArrowRecordBatch::~ArrowRecordBatch() {
  if (schema_.release != nullptr) schema_.release(&schema_);
  if (array_.release != nullptr) array_.release(&array_);
}

ArrowSchema ArrowRecordBatch::take_schema() noexcept {
  ArrowSchema taken = schema_;
  schema_.release = nullptr;
  return taken;
}

ArrowArray ArrowRecordBatch::take_array() noexcept {
  ArrowArray taken = array_;
  array_.release = nullptr;
  return taken;
}

template <typename Item>
ArrowRecordBatch arrow_record_batch(const std::vector<Item>& items) {
  // The batch is a struct array without nulls whose children are the flat columns.
  Column batch{"+s", "", static_cast<std::int64_t>(items.size())};
  batch.buffers.emplace_back();  // no validity bitmap: every row is there
  auto add = [&](const std::string& name, auto get) {
    using Member = std::remove_cvref_t<decltype(*get(items.front()))>;
    using Value = schema::unwrap_optional_t<Member>;
    batch.children.push_back(
        build_column<Value>(name, items.size(), [&](std::size_t i) { return leaf(get(items[i])); }));
  };
  for_each_flat_column<Item>(add);
  ArrowSchema schema;
  ArrowArray array;
  export_schema(batch, schema);
  export_array(batch, array);
  return ArrowRecordBatch(schema, array);
}

// Instantiated for every listing's items (a listing added to operations.hpp needs a line here, as for
// columns_of in to_columns.cpp).
template ArrowRecordBatch arrow_record_batch(const std::vector<TestCase>&);
template ArrowRecordBatch arrow_record_batch(const std::vector<QuarantinedTest>&);
template ArrowRecordBatch arrow_record_batch(const std::vector<PullRequest>&);

}  // namespace trunk::python
