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
#include "trunk/listings.hpp"
#include "trunk/describe.hpp"
#include "trunk/time.hpp"

namespace trunk::python {

// ---- a column while it is built: its type, its buffers and its children -----------------------------------

/// One Arrow array under construction, grown page by page (ArrowBatchBuilder::append). buffers[0] is the
/// validity bitmap, kept for every row while building and dropped at finish() when nothing is missing (exported
/// as a null pointer); the others follow the layout of `format`. A text column keeps 64-bit offsets while it
/// grows, since how much text a listing holds is only known at the end; finish() narrows them to the 32-bit
/// offsets of "u" unless the column passed 2 GiB, which makes it "U".
namespace arrow_building {  // named, not anonymous: ArrowBatchBuilder's Root holds one
struct Column {
  std::string format;
  std::string name;
  std::int64_t length = 0;
  std::int64_t null_count = 0;
  std::vector<std::vector<std::uint8_t>> buffers{};  // {}: built as Column{format, name}
  std::vector<Column> children{};
};
}  // namespace arrow_building

namespace {

using arrow_building::Column;

/// Bit i of an Arrow bitmap (least significant bit first).
void set_bit(std::vector<std::uint8_t>& bitmap, std::size_t i) {
  bitmap[i / 8] |= static_cast<std::uint8_t>(1U << (i % 8));
}

/// Room for `count` more values of T at the end of `buffer` (zeroed); a pointer to the first of them.
template <typename T>
T* grow(std::vector<std::uint8_t>& buffer, std::size_t count) {
  const std::size_t old = buffer.size();
  buffer.resize(old + count * sizeof(T));
  return reinterpret_cast<T*>(buffer.data() + old);
}

template <typename T>
T* as(std::vector<std::uint8_t>& buffer) {
  return reinterpret_cast<T*>(buffer.data());
}

/// Extends the validity bitmap over `rows` more rows, present(i) telling which are there; the column's length
/// grows by `rows`.
template <typename Present>
void append_validity(Column& column, std::size_t rows, Present present) {
  const auto first = static_cast<std::size_t>(column.length);
  std::vector<std::uint8_t>& bitmap = column.buffers[0];
  bitmap.resize((first + rows + 7) / 8, 0);
  for (std::size_t i = 0; i < rows; ++i) {
    if (present(i)) {
      set_bit(bitmap, first + i);
    } else {
      ++column.null_count;
    }
  }
  column.length += static_cast<std::int64_t>(rows);
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

template <typename Value>
constexpr bool is_text = std::is_same_v<Value, std::string> || requires { typename Value::is_open_enum; };

/// The empty column of Value (format, buffers and children), before any row.
template <typename Value>
Column make_column(std::string name) {
  Column column{"", std::move(name)};
  column.buffers.emplace_back();  // validity
  if constexpr (is_text<Value>) {
    column.format = "u";
    column.buffers.emplace_back(sizeof(std::int64_t), 0);  // offsets: the first one, 0
    column.buffers.emplace_back();                          // characters
  } else if constexpr (std::is_same_v<Value, double>) {
    column.format = "g";
    column.buffers.emplace_back();
  } else if constexpr (std::is_same_v<Value, std::int64_t>) {
    column.format = "l";
    column.buffers.emplace_back();
  } else if constexpr (std::is_same_v<Value, Timestamp>) {
    // Microseconds since the epoch, UTC: the decoder's own resolution, so nothing is rounded.
    column.format = "tsu:UTC";
    column.buffers.emplace_back();
  } else if constexpr (std::is_same_v<Value, bool>) {
    column.format = "b";
    column.buffers.emplace_back();
  } else if constexpr (schema::IsVector<Value>::value) {
    column.format = "+l";
    column.buffers.emplace_back(sizeof(std::int32_t), 0);  // offsets: the first one, 0
    column.children.push_back(make_column<typename Value::value_type>("item"));
  } else if constexpr (schema::Described<Value>) {
    // A nested model stays a struct here, inside a list, where flattening would lose which summary a count
    // belongs to.
    column.format = "+s";
    schema::for_each_field<Value>([&](const auto& field) {
      using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
      column.children.push_back(make_column<schema::unwrap_optional_t<Member>>(std::string(field.name)));
    });
  } else {
    static_assert(sizeof(Value) == 0, "arrow_batch.cpp: no Arrow type for this field type; add one");
  }
  return column;
}

/// Appends `rows` values of type Value to `column` (made by make_column<Value>); get(i) gives the i-th value or
/// nullptr where it is absent.
template <typename Value, typename Get>
void append_column(Column& column, std::size_t rows, Get get) {
  const auto first = static_cast<std::size_t>(column.length);
  append_validity(column, rows, [&](std::size_t i) { return get(i) != nullptr; });
  if constexpr (is_text<Value>) {
    std::vector<std::uint8_t>& characters = column.buffers[2];
    std::int64_t* offsets = grow<std::int64_t>(column.buffers[1], rows);  // after the `first + 1` already there
    for (std::size_t i = 0; i < rows; ++i) {
      if (const std::string* text = text_of(get(i)); text != nullptr && !text->empty()) {
        const std::size_t at = characters.size();
        characters.resize(at + text->size());
        std::memcpy(characters.data() + at, text->data(), text->size());
      }
      offsets[i] = static_cast<std::int64_t>(characters.size());
    }
  } else if constexpr (std::is_same_v<Value, bool>) {
    std::vector<std::uint8_t>& bits = column.buffers[1];
    bits.resize((first + rows + 7) / 8, 0);
    for (std::size_t i = 0; i < rows; ++i) {
      if (const bool* value = get(i); value != nullptr && *value) set_bit(bits, first + i);
    }
  } else if constexpr (std::is_same_v<Value, double> || std::is_same_v<Value, std::int64_t>) {
    Value* values = grow<Value>(column.buffers[1], rows);
    for (std::size_t i = 0; i < rows; ++i) {
      if (const Value* value = get(i)) values[i] = *value;
    }
  } else if constexpr (std::is_same_v<Value, Timestamp>) {
    std::int64_t* values = grow<std::int64_t>(column.buffers[1], rows);
    for (std::size_t i = 0; i < rows; ++i) {
      if (const Timestamp* value = get(i)) values[i] = value->time_since_epoch().count();
    }
  } else if constexpr (schema::IsVector<Value>::value) {
    using Element = typename Value::value_type;
    Column& items = column.children[0];
    std::vector<const Element*> elements;
    std::int32_t* offsets = grow<std::int32_t>(column.buffers[1], rows);
    const auto before = static_cast<std::size_t>(items.length);
    for (std::size_t i = 0; i < rows; ++i) {
      if (const Value* list = get(i)) {
        for (const Element& element : *list) elements.push_back(&element);
      }
      if (before + elements.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
        throw std::length_error("to_arrow: more than 2^31 list elements in column " + column.name);
      }
      offsets[i] = static_cast<std::int32_t>(before + elements.size());
    }
    append_column<Element>(items, elements.size(), [&](std::size_t j) { return elements[j]; });
  } else if constexpr (schema::Described<Value>) {
    std::size_t child = 0;
    schema::for_each_field<Value>([&](const auto& field) {
      using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
      append_column<schema::unwrap_optional_t<Member>>(column.children[child++], rows, [&](std::size_t i) {
        const Value* model = get(i);
        return model == nullptr ? nullptr : leaf(&(model->*(field.member)));
      });
    });
  }
}

/// Ends building: drops validity bitmaps with nothing missing and settles the text columns' offset width.
void finish_column(Column& column) {
  if (column.null_count == 0) std::vector<std::uint8_t>().swap(column.buffers[0]);
  if (column.format == "u") {
    std::vector<std::uint8_t>& wide = column.buffers[1];
    if (column.buffers[2].size() <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
      const std::size_t count = wide.size() / sizeof(std::int64_t);
      std::vector<std::uint8_t> narrow(count * sizeof(std::int32_t));
      const std::int64_t* from = as<std::int64_t>(wide);
      std::int32_t* to = as<std::int32_t>(narrow);
      for (std::size_t i = 0; i < count; ++i) to[i] = static_cast<std::int32_t>(from[i]);
      wide.swap(narrow);
    } else {
      column.format = "U";  // large_utf8: 64-bit offsets, as built
    }
  }
  for (Column& child : column.children) finish_column(child);
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

/// The batch while it is built: a struct array without nulls whose children are the flat columns.
template <typename Item>
struct ArrowBatchBuilder<Item>::Root {
  arrow_building::Column batch{"+s", ""};
};

template <typename Item>
ArrowBatchBuilder<Item>::ArrowBatchBuilder() : root_(std::make_unique<Root>()) {
  root_->batch.buffers.emplace_back();  // no validity bitmap: every row is there
  auto add = [&](const std::string& name, auto get) {
    using Member = std::remove_cvref_t<decltype(*get(std::declval<const Item&>()))>;
    root_->batch.children.push_back(make_column<schema::unwrap_optional_t<Member>>(name));
  };
  for_each_flat_column<Item>(add);
}

template <typename Item>
ArrowBatchBuilder<Item>::~ArrowBatchBuilder() = default;
template <typename Item>
ArrowBatchBuilder<Item>::ArrowBatchBuilder(ArrowBatchBuilder&&) noexcept = default;
template <typename Item>
ArrowBatchBuilder<Item>& ArrowBatchBuilder<Item>::operator=(ArrowBatchBuilder&&) noexcept = default;

template <typename Item>
std::int64_t ArrowBatchBuilder<Item>::rows() const noexcept {
  return root_ ? root_->batch.length : 0;
}

template <typename Item>
void ArrowBatchBuilder<Item>::append(std::span<const Item> items) {
  if (!root_) throw std::logic_error("ArrowBatchBuilder::append after finish()");
  arrow_building::Column& batch = root_->batch;
  std::size_t child = 0;
  auto add = [&](const std::string&, auto get) {
    using Member = std::remove_cvref_t<decltype(*get(std::declval<const Item&>()))>;
    append_column<schema::unwrap_optional_t<Member>>(batch.children[child++], items.size(),
                                                     [&](std::size_t i) { return leaf(get(items[i])); });
  };
  for_each_flat_column<Item>(add);
  batch.length += static_cast<std::int64_t>(items.size());
}

template <typename Item>
ArrowRecordBatch ArrowBatchBuilder<Item>::finish() {
  if (!root_) throw std::logic_error("ArrowBatchBuilder::finish called twice");
  const std::unique_ptr<Root> root = std::move(root_);
  arrow_building::Column& batch = root->batch;
  for (arrow_building::Column& column : batch.children) finish_column(column);
  ArrowSchema schema;
  ArrowArray array;
  export_schema(batch, schema);
  export_array(batch, array);
  return ArrowRecordBatch(schema, array);
}

template <typename Item>
ArrowRecordBatch arrow_record_batch(const std::vector<Item>& items) {
  ArrowBatchBuilder<Item> builder;
  builder.append(items);
  return builder.finish();
}

// Instantiated for the items of every page of listings.hpp.
#define TRUNK_INSTANTIATE_ARROW_(Page, ...)                          \
  template class ArrowBatchBuilder<PageTraits<Page>::Item>;          \
  template ArrowRecordBatch arrow_record_batch(const std::vector<PageTraits<Page>::Item>&);
TRUNK_LISTING_PAGES(TRUNK_INSTANTIATE_ARROW_)
#undef TRUNK_INSTANTIATE_ARROW_

}  // namespace trunk::python
