#include "aten/jit/Serialization.h"
#include "aten/jit/PrimOps.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "aten/core/Exception.h"
#include "aten/core/Layout.h"
#include "aten/jit/Interpreter.h"
#include "aten/jit/ZipArchive.h"

namespace tl::jit {
namespace {

// 2: module attributes, method arguments and defaults; 3: named tuple types; 4: the Enum classes of
// methods' arguments and returns; 5: dict types, Enum paths, objects, classes; 6: every attribute of every
// module (graphs read them and the training flag with prim::GetAttr), `constants`, prim::Enter/Exit
// (1 to 5 are still read)
constexpr int kFormatVersion = 6;
constexpr int64_t kMaxEnumTupleElements = 4096;  // an Enum position -2 - k: element k of a returned tuple
constexpr const char* kMagic = "torchlite.jit";
constexpr int kMaxDepth = 200;  // nesting of types, values, blocks and modules (a corrupt file could nest forever)

// ---- text writer -------------------------------------------------------------------------

class TextWriter {
 public:
  TextWriter& word(const std::string& w) {
    sep();
    out_ += w;
    return *this;
  }
  TextWriter& integer(int64_t v) { return word(std::to_string(v)); }
  TextWriter& real(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", v);  // exact; strtod reads it back, inf and nan included
    return word(buf);
  }
  TextWriter& string(const std::string& s) {
    sep();
    out_ += '"';
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += static_cast<char>(c);
      } else if (c < 0x20 || c >= 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        out_ += buf;
      } else {
        out_ += static_cast<char>(c);
      }
    }
    out_ += '"';
    return *this;
  }
  TextWriter& ints(const std::vector<int64_t>& xs) {
    integer(static_cast<int64_t>(xs.size()));
    for (int64_t x : xs) integer(x);
    return *this;
  }
  TextWriter& line(int indent) {
    out_ += '\n';
    out_.append(indent, ' ');
    fresh_ = true;
    return *this;
  }
  std::string take() {
    out_ += '\n';
    return std::move(out_);
  }

 private:
  void sep() {
    if (!fresh_ && !out_.empty()) out_ += ' ';
    fresh_ = false;
  }
  std::string out_;
  bool fresh_ = true;
};

// ---- text reader -------------------------------------------------------------------------

// Strings become Python str objects (names, constants): they must be UTF-8.
bool valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;  // the range of the second byte (no overlong forms, no surrogates)
    if (c < 0x80) n = 0;
    else if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) n = 2, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4) n = 3, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    else return false;
    if (n > s.size() - i - 1) return false;
    for (size_t k = 1; k <= n; ++k) {
      auto b = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b >> 6) != 0x2) return false;
    }
    i += n + 1;
  }
  return true;
}

class Lexer {
 public:
  Lexer(std::string_view text, std::string what) : s_(text), what_(std::move(what)) {}

  [[noreturn]] void fail(const std::string& msg) const {
    size_t line = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) line += s_[i] == '\n';
    throw RuntimeError(printable(str("jit.load: record ", what_, " is corrupt (line ", line, "): ", msg)));
  }
  bool next_is_string() {
    skip();
    return pos_ < s_.size() && s_[pos_] == '"';
  }
  bool at_end() {
    skip();
    return pos_ >= s_.size();
  }
  std::string word() {
    skip();
    if (pos_ >= s_.size()) fail("unexpected end of record");
    if (s_[pos_] == '"') fail("expected a word, found a string");
    size_t start = pos_;
    while (pos_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[pos_])) && s_[pos_] != '"') ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }
  void expect(const char* w) {
    std::string got = word();
    if (got != w) fail(str("expected '", w, "', found '", got, "'"));
  }
  int64_t integer() {
    std::string w = word();
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(w.c_str(), &end, 10);
    if (w.empty() || *end != '\0' || errno == ERANGE) fail(str("expected an integer, found '", w, "'"));
    return v;
  }
  // A count of items that follow: not negative, and no more than the bytes left (each item takes one).
  size_t count() {
    int64_t n = integer();
    if (n < 0 || static_cast<uint64_t>(n) > s_.size() - pos_) fail(str("bad count ", n));
    return static_cast<size_t>(n);
  }
  bool flag() {
    int64_t v = integer();
    if (v != 0 && v != 1) fail(str("expected 0 or 1, found ", v));
    return v == 1;
  }
  double real() {
    std::string w = word();
    char* end = nullptr;
    double v = std::strtod(w.c_str(), &end);
    if (w.empty() || *end != '\0') fail(str("expected a number, found '", w, "'"));
    return v;
  }
  std::string string() {
    skip();
    if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a quoted string");
    ++pos_;
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) fail("unterminated string");
      char c = s_[pos_++];
      if (c == '"') {
        if (!valid_utf8(out)) fail("a string is not valid UTF-8");
        return out;
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) fail("unterminated string");
      char e = s_[pos_++];
      if (e == '"' || e == '\\') {
        out += e;
      } else if (e == 'x' && pos_ + 2 <= s_.size() && std::isxdigit(static_cast<unsigned char>(s_[pos_])) &&
                 std::isxdigit(static_cast<unsigned char>(s_[pos_ + 1]))) {
        out += static_cast<char>(std::stoi(std::string(s_.substr(pos_, 2)), nullptr, 16));
        pos_ += 2;
      } else {
        fail("bad escape in a string");
      }
    }
  }
  std::vector<int64_t> ints() {
    size_t n = count();
    std::vector<int64_t> out;
    for (size_t i = 0; i < n; ++i) out.push_back(integer());
    return out;
  }
  void depth_check(int depth) const {
    if (depth > kMaxDepth) fail("nested too deeply");
  }

 private:
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  std::string_view s_;
  std::string what_;
  size_t pos_ = 0;
};

// ---- enum names --------------------------------------------------------------------------

std::optional<ScalarType> dtype_named(const std::string& name) {
  for (int i = 0; i < kNumScalarTypes; ++i)
    if (name == scalar_type_name(static_cast<ScalarType>(i))) return static_cast<ScalarType>(i);
  return std::nullopt;
}

std::optional<MemoryFormat> memory_format_named(const std::string& name) {
  for (MemoryFormat f : {MemoryFormat::Contiguous, MemoryFormat::Preserve, MemoryFormat::ChannelsLast,
                         MemoryFormat::ChannelsLast3d})
    if (name == memory_format_name(f)) return f;
  return std::nullopt;
}

Device parse_device(Lexer& in, const std::string& s) {
  try {
    return Device::parse(s);
  } catch (const Error&) {
    in.fail(str("bad device '", s, "'"));
  }
}

// ---- types -------------------------------------------------------------------------------

const std::pair<const char*, Type::Kind> kSimpleTypes[] = {
    {"Any", Type::Kind::Any}, {"int", Type::Kind::Int}, {"float", Type::Kind::Float}, {"bool", Type::Kind::Bool},
    {"str", Type::Kind::Str}, {"NoneType", Type::Kind::None}, {"Scalar", Type::Kind::Number},
    {"ScalarType", Type::Kind::ScalarType}, {"Device", Type::Kind::Device}, {"Layout", Type::Kind::Layout},
    {"MemoryFormat", Type::Kind::MemoryFormat}, {"Generator", Type::Kind::Generator}};

void write_type(TextWriter& w, const Type& t) {
  using K = Type::Kind;
  switch (t.kind) {
    case K::Tensor:
      if (!t.dtype && !t.sizes && !t.strides && !t.device && !t.requires_grad) {
        w.word("Tensor");
        return;
      }
      // TensorT <dtype|-> <sizes|-> <strides|-> <device|-> <requires_grad|->
      w.word("TensorT");
      t.dtype ? w.word(scalar_type_name(*t.dtype)) : w.word("-");
      t.sizes ? w.ints(*t.sizes) : w.word("-");
      t.strides ? w.ints(*t.strides) : w.word("-");
      t.device ? w.string(t.device->str()) : w.word("-");
      t.requires_grad ? w.integer(*t.requires_grad) : w.word("-");
      return;
    case K::List: w.word("List"); write_type(w, *t.elems.at(0)); return;
    case K::Optional: w.word("Optional"); write_type(w, *t.elems.at(0)); return;
    case K::Tuple:
      if (!t.fields.empty()) {  // NamedTuple "<class>" <n> ("<field>" <type>)*
        w.word("NamedTuple").string(t.name).integer(static_cast<int64_t>(t.elems.size()));
        for (size_t i = 0; i < t.elems.size(); ++i) {
          w.string(t.fields.at(i));
          write_type(w, *t.elems[i]);
        }
        return;
      }
      w.word("Tuple").integer(static_cast<int64_t>(t.elems.size()));
      for (const auto& e : t.elems) write_type(w, *e);
      return;
    case K::Object: w.word("Object").string(t.name); return;
    case K::Any:
      if (t.name == "Union") {  // a script Union (version 5): Union <n> <member>*; it runs as Any
        w.word("Union").integer(static_cast<int64_t>(t.elems.size()));
        for (const auto& e : t.elems) write_type(w, *e);
        return;
      }
      if (t.elems.size() == 2) {  // a script dict (version 5): Dict <K> <V>; it runs as Any
        w.word("Dict");
        write_type(w, *t.elems[0]);
        write_type(w, *t.elems[1]);
        return;
      }
      w.word("Any");
      return;
    default:
      for (const auto& [name, kind] : kSimpleTypes)
        if (kind == t.kind) {
          w.word(name);
          return;
        }
  }
  TL_ERROR("jit.save: cannot serialize the type ", t.str());
}

TypePtr read_type(Lexer& in, int depth) {
  in.depth_check(depth);
  std::string w = in.word();
  for (const auto& [name, kind] : kSimpleTypes)
    if (w == name) return Type::get(kind);
  if (w == "Tensor") return Type::tensor();
  if (w == "List") return Type::list(read_type(in, depth + 1));
  if (w == "Optional") return Type::optional(read_type(in, depth + 1));
  if (w == "Object") return Type::object(in.string());
  if (w == "Dict") {
    TypePtr key = read_type(in, depth + 1);
    return Type::dict(std::move(key), read_type(in, depth + 1));
  }
  if (w == "Union") {
    size_t n = in.count();
    std::vector<TypePtr> members;
    for (size_t i = 0; i < n; ++i) members.push_back(read_type(in, depth + 1));
    return Type::union_of(std::move(members));
  }
  if (w == "Tuple") {
    size_t n = in.count();
    std::vector<TypePtr> elems;
    for (size_t i = 0; i < n; ++i) elems.push_back(read_type(in, depth + 1));
    return Type::tuple(std::move(elems));
  }
  if (w == "NamedTuple") {
    std::string name = in.string();
    if (name.empty()) in.fail("a named tuple type without a class name");
    size_t n = in.count();
    if (n == 0) in.fail("a named tuple type without fields");
    std::vector<std::string> fields;
    std::vector<TypePtr> elems;
    for (size_t i = 0; i < n; ++i) {
      fields.push_back(in.string());
      if (fields.back().empty() || std::find(fields.begin(), fields.end() - 1, fields.back()) != fields.end() - 1)
        in.fail(str("bad or repeated field name '", printable(fields.back()), "' of named tuple ", printable(name)));
      elems.push_back(read_type(in, depth + 1));
    }
    return Type::named_tuple(std::move(name), std::move(fields), std::move(elems));
  }
  if (w == "TensorT") {
    auto t = std::make_shared<Type>();
    t->kind = Type::Kind::Tensor;
    std::string d = in.word();
    if (d != "-") {
      t->dtype = dtype_named(d);
      if (!t->dtype) in.fail(str("unknown dtype '", d, "'"));
    }
    for (auto* dims : {&t->sizes, &t->strides}) {
      std::string n = in.word();
      if (n == "-") continue;
      char* end = nullptr;
      long long count = std::strtoll(n.c_str(), &end, 10);
      if (*end != '\0' || count < 0 || count > 64) in.fail(str("bad dimension count '", n, "'"));
      std::vector<int64_t> xs;
      for (long long i = 0; i < count; ++i) xs.push_back(in.integer());
      *dims = std::move(xs);
    }
    if (in.next_is_string()) {
      std::string dev = in.string();
      t->device = parse_device(in, dev);
    } else {
      in.expect("-");
    }
    std::string rg = in.word();
    if (rg == "0" || rg == "1") t->requires_grad = rg == "1";
    else if (rg != "-") in.fail(str("bad requires_grad '", rg, "'"));
    return t;
  }
  in.fail(str("unknown type '", w, "'"));
}

// An Enum member's value: int, float or str.
bool enum_value(const IValue& v) {
  return v.tag() == IValue::Tag::Int || v.tag() == IValue::Tag::Double || v.tag() == IValue::Tag::String;
}

// ---- tensors -----------------------------------------------------------------------------

// Tensors of the archive (parameters, buffers, constants), each written once, views of one storage
// sharing its record.
class TensorTable {
 public:
  int64_t index(const Tensor& t) {
    auto it = index_.find(t.impl());
    if (it != index_.end()) return it->second;
    TL_CHECK(!t.is_meta(), "jit.save: cannot save a tensor on the meta device (it has no data)");
    TL_CHECK(t.is_cpu(), "jit.save: cannot save a tensor on ", t.device().str());
    tensors_.push_back(t);
    return index_[t.impl()] = static_cast<int64_t>(tensors_.size() - 1);
  }
  std::vector<Tensor>& tensors() { return tensors_; }

 private:
  std::unordered_map<const TensorImpl*, int64_t> index_;
  std::vector<Tensor> tensors_;
};

// The `tensors` record and the storages' data/<key> records.
void write_tensors(ZipWriter& zip, const std::vector<Tensor>& tensors) {
  TextWriter w;
  w.word("tensors").integer(static_cast<int64_t>(tensors.size()));
  // A storage is keyed by its memory and the dtype it is read as (a view with another dtype gets its own copy).
  std::map<std::pair<const StorageImpl*, ScalarType>, std::string> keys;
  for (const Tensor& t : tensors) {
    auto id = std::make_pair(t.storage().get(), t.dtype());
    auto it = keys.find(id);
    if (it == keys.end()) {
      std::string key = std::to_string(keys.size());
      const StorageImpl& s = *t.storage();
      zip.add("data/" + key, std::string_view(static_cast<const char*>(s.data()), s.data() ? s.nbytes : 0));
      it = keys.emplace(id, key).first;
    }
    std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end()), strides(t.strides().begin(), t.strides().end());
    w.line(0).word(scalar_type_name(t.dtype())).string(it->second).integer(t.storage_offset());
    w.ints(sizes).ints(strides).integer(t.requires_grad());
  }
  zip.add("tensors", w.take());
}

bool mul_ok(int64_t a, int64_t b, int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }
bool add_ok(int64_t a, int64_t b, int64_t& out) { return !__builtin_add_overflow(a, b, &out); }

std::vector<Tensor> read_tensors(const ZipReader& zip, Device device) {
  Lexer in(zip.get("tensors"), "tensors");
  in.expect("tensors");
  size_t n = in.count();
  std::map<std::pair<std::string, ScalarType>, Tensor> storages;  // the base tensor of each storage
  std::vector<Tensor> out;
  for (size_t i = 0; i < n; ++i) {
    std::string d = in.word();
    auto dtype = dtype_named(d);
    if (!dtype) in.fail(str("unknown dtype '", d, "'"));
    std::string key = in.string();
    int64_t offset = in.integer();
    std::vector<int64_t> sizes = in.ints(), strides = in.ints();
    bool requires_grad = in.flag();
    if (sizes.size() != strides.size() || sizes.size() > 64)
      in.fail(str("tensor ", i, " has ", sizes.size(), " sizes and ", strides.size(), " strides"));
    if (!zip.has("data/" + key)) in.fail(str("tensor ", i, " names a missing storage record data/", key));
    const uint64_t nbytes = zip.size_of("data/" + key);
    int64_t itemsize = static_cast<int64_t>(element_size(*dtype));
    if (nbytes % itemsize != 0)
      in.fail(str("storage data/", key, " holds ", nbytes, " bytes, not a whole number of ", d, " elements"));
    int64_t storage_numel = static_cast<int64_t>(nbytes) / itemsize;
    // The view must lie inside its storage: offset + sum((size - 1) * stride) < numel.
    int64_t numel = 1, last = offset;
    bool ok = offset >= 0;
    for (size_t k = 0; k < sizes.size() && ok; ++k) {
      ok = sizes[k] >= 0 && strides[k] >= 0 && mul_ok(numel, sizes[k], numel);
      int64_t extent = 0;
      if (ok && sizes[k] > 0) ok = mul_ok(sizes[k] - 1, strides[k], extent) && add_ok(last, extent, last);
    }
    if (!ok || offset > storage_numel || (numel > 0 && last >= storage_numel))
      in.fail(str("tensor ", i, " (offset ", offset, ") lies outside its storage data/", key, " of ",
                  storage_numel, " elements"));
    auto sid = std::make_pair(key, *dtype);
    auto it = storages.find(sid);
    if (it == storages.end()) {
      Tensor base = empty_tensor({storage_numel}, *dtype, device);
      // Straight from the file into the storage, CRC-checked on the way (no copy of the record is kept).
      if (!device.is_meta() && nbytes != 0) zip.read_into("data/" + key, base.data_ptr());
      it = storages.emplace(sid, base).first;
    }
    Tensor t = make_view(it->second, sizes, strides, offset);
    if (requires_grad) {
      if (!is_floating_type(*dtype)) in.fail(str("tensor ", i, " of dtype ", d, " cannot require grad"));
      t.set_requires_grad(true);
    }
    out.push_back(std::move(t));
  }
  if (!in.at_end()) in.fail("unexpected data after the tensor table");
  return out;
}

// ---- constants (node attributes) -----------------------------------------------------------

// `objects`: whether a TorchScript class instance may be written (`object "<class>" <n> ("<field>" <c>)*`, in
// module attribute values only: a graph constant never holds one), at most `depth` levels deep.
void write_ivalue(TextWriter& w, const IValue& v, TensorTable& tensors, bool objects = false, int depth = 0) {
  using Tag = IValue::Tag;
  TL_CHECK(depth <= kMaxDepth, "jit.save: a value nested more than ", kMaxDepth, " levels deep (an object that holds "
           "itself?) cannot be saved");
  switch (v.tag()) {
    case Tag::None: w.word("None"); return;
    case Tag::Int: w.word("int").integer(v.toInt()); return;
    case Tag::Double: w.word("float").real(v.toDouble()); return;
    case Tag::Bool: w.word("bool").integer(v.toBool()); return;
    case Tag::String: w.word("str").string(v.toStringRef()); return;
    case Tag::ScalarType: w.word("dtype").word(scalar_type_name(v.toScalarType())); return;
    case Tag::Device: w.word("device").string(v.toDevice().str()); return;
    case Tag::Layout: w.word("layout").word("strided"); return;
    case Tag::MemoryFormat: w.word("memory_format").word(memory_format_name(v.toMemoryFormat())); return;
    case Tag::Tensor: w.word("tensor").integer(tensors.index(v.toTensor())); return;
    case Tag::List:
    case Tag::Tuple: {
      const auto& xs = v.toListRef();
      w.word(v.isList() ? "list" : "tuple").integer(static_cast<int64_t>(xs.size()));
      for (const IValue& x : xs) write_ivalue(w, x, tensors, objects, depth + 1);
      return;
    }
    case Tag::Generator: TL_ERROR("jit.save: a graph with a Generator constant cannot be saved");
    case Tag::Object: {
      TL_CHECK(objects, "jit.save: a graph with a module object constant cannot be saved");
      const Object& obj = *v.toObject();
      w.word("object").string(obj.type_name).integer(static_cast<int64_t>(obj.attrs.size()));
      for (const auto& [field, x] : obj.attrs) {
        w.string(field);
        write_ivalue(w, x, tensors, objects, depth + 1);
      }
      return;
    }
  }
}

IValue read_ivalue(Lexer& in, const std::vector<Tensor>& tensors, int depth, bool objects = false) {
  in.depth_check(depth);
  std::string w = in.word();
  if (w == "None") return IValue();
  if (w == "int") return IValue(in.integer());
  if (w == "float") return IValue(in.real());
  if (w == "bool") return IValue(in.flag());
  if (w == "str") return IValue(in.string());
  if (w == "dtype") {
    std::string d = in.word();
    auto t = dtype_named(d);
    if (!t) in.fail(str("unknown dtype '", d, "'"));
    return IValue(*t);
  }
  if (w == "device") {
    std::string d = in.string();
    return IValue(parse_device(in, d));
  }
  if (w == "layout") {
    in.expect("strided");
    return IValue(Layout::Strided);
  }
  if (w == "memory_format") {
    std::string m = in.word();
    auto f = memory_format_named(m);
    if (!f) in.fail(str("unknown memory format '", m, "'"));
    return IValue(*f);
  }
  if (w == "tensor") {
    int64_t i = in.integer();
    if (i < 0 || static_cast<size_t>(i) >= tensors.size())
      in.fail(str("tensor constant ", i, " is not in the tensor table (", tensors.size(), " tensors)"));
    return IValue(tensors[i]);
  }
  if (w == "list" || w == "tuple") {
    size_t n = in.count();
    std::vector<IValue> xs;
    for (size_t i = 0; i < n; ++i) xs.push_back(read_ivalue(in, tensors, depth + 1, objects));
    return w == "list" ? IValue::list(std::move(xs)) : IValue::tuple(std::move(xs));
  }
  if (w == "object" && objects) {  // a TorchScript class instance held by a module attribute (version 5)
    auto obj = std::make_shared<Object>(Object{in.string(), {}});
    if (obj->type_name.empty()) in.fail("an object without a class name");
    size_t n = in.count();
    for (size_t i = 0; i < n; ++i) {
      std::string field = in.string();
      if (field.empty() || obj->attrs.count(field)) in.fail(str("bad or repeated field '", printable(field), "' of an ",
                                                                printable(obj->type_name), " object"));
      obj->attrs[field] = read_ivalue(in, tensors, depth + 1, objects);
    }
    return IValue(std::move(obj));
  }
  in.fail(str("unknown constant kind '", w, "'"));
}

// ---- graphs ------------------------------------------------------------------------------

class GraphWriter {
 public:
  GraphWriter(TextWriter& w, TensorTable& tensors) : w_(w), tensors_(tensors) {}

  void block(const Block& b, int indent) {
    w_.word("inputs").integer(static_cast<int64_t>(b.inputs().size()));
    for (const Value* v : b.inputs()) decl(v, indent + 2);
    auto nodes = b.nodes();
    w_.line(indent).word("nodes").integer(static_cast<int64_t>(nodes.size()));
    for (const Node* n : nodes) node(*n, indent + 2);
    w_.line(indent).word("return");
    refs(b.outputs());
    w_.word("end");
  }

 private:
  void decl(const Value* v, int indent) {
    ids_[v] = next_++;
    w_.line(indent).string(v->hasDebugName() ? v->debugName() : "");
    write_type(w_, *v->type());
  }
  void refs(const std::vector<Value*>& vs) {
    w_.integer(static_cast<int64_t>(vs.size()));
    for (const Value* v : vs) {
      auto it = ids_.find(v);
      TL_CHECK(it != ids_.end(), "jit.save: the graph uses %", v->debugName(), " before its definition");
      w_.integer(it->second);
    }
  }
  void node(const Node& n, int indent) {
    TL_CHECK(n.kind() != "prim::PythonOp", "Could not export Python function call '",
             n.hasAttribute("name") ? n.attr("name").toStringRef() : std::string("?"),
             "'. Remove calls to Python functions before export. Did you forget to add @script or @script_method "
             "annotation? If this is a nn.ModuleList, add it to __constants__");  // torch's words
    // As torch's: a module after optimize_for_inference (here: its fusion groups) is not serializable.
    TL_CHECK(n.kind() != "prim::FusionGroup", "jit.save: cannot save a prim::FusionGroup node (a graph fused by "
             "optimize_for_inference or fuse_elementwise); save the module before optimizing it");
    w_.line(indent).word("node").string(n.kind()).string(n.op() ? n.op()->schema.qualified_name() : "");
    w_.word("in");
    refs(n.inputs());
    w_.word("out").integer(static_cast<int64_t>(n.outputs().size()));
    for (const Value* v : n.outputs()) decl(v, indent + 2);
    auto names = n.attributeNames();
    w_.line(indent + 2).word("attrs").integer(static_cast<int64_t>(names.size()));
    for (const auto& name : names) {
      w_.string(name);
      write_ivalue(w_, n.attr(name), tensors_);
    }
    w_.word("blocks").integer(static_cast<int64_t>(n.blocks().size()));
    for (const Block* b : n.blocks()) {
      w_.line(indent + 2).word("block");
      block(*b, indent + 4);
    }
  }

  TextWriter& w_;
  TensorTable& tensors_;
  std::unordered_map<const Value*, int64_t> ids_;
  int64_t next_ = 0;
};

class GraphReader {
 public:
  GraphReader(Lexer& in, Graph& g, const std::vector<Tensor>& tensors) : in_(in), g_(g), tensors_(tensors) {}

  void block(Block* b, int depth) {
    in_.depth_check(depth);
    in_.expect("inputs");
    size_t first = values_.size();
    size_t n_in = in_.count();
    for (size_t i = 0; i < n_in; ++i) {
      std::string name = in_.string();
      Value* v = b->addInput();
      define(v, name);
    }
    in_.expect("nodes");
    size_t n = in_.count();
    for (size_t i = 0; i < n; ++i) node(b, depth);
    in_.expect("return");
    for (Value* v : refs()) b->registerOutput(v);
    in_.expect("end");
    // Values of this block are not visible after it.
    for (size_t i = first; i < values_.size(); ++i) visible_[i] = false;
  }

 private:
  void define(Value* v, const std::string& name) {
    v->setType(read_type(in_, 0));
    // A graph's names are unique (a repeated one would be renamed `x.1`, and probing for a free
    // suffix makes a file of many equal names quadratic to load).
    if (!name.empty() && !names_.insert(name).second) in_.fail(str("value name '", name, "' is repeated"));
    if (!name.empty()) v->setDebugName(name);
    values_.push_back(v);
    visible_.push_back(true);
  }
  std::vector<Value*> refs() {
    size_t n = in_.count();
    std::vector<Value*> out;
    for (size_t i = 0; i < n; ++i) {
      int64_t id = in_.integer();
      if (id < 0 || static_cast<size_t>(id) >= values_.size() || !visible_[id])
        in_.fail(str("value ", id, " is used where it is not defined (", values_.size(), " values defined so far)"));
      out.push_back(values_[id]);
    }
    return out;
  }
  void node(Block* b, int depth) {
    in_.expect("node");
    std::string kind = in_.string(), overload = in_.string();
    in_.expect("in");
    std::vector<Value*> inputs = refs();
    in_.expect("out");
    size_t n_out = in_.count();
    Node* n = nullptr;
    if (kind.rfind("aten::", 0) == 0) {
      const Operator* op = find_op(overload);
      if (op == nullptr || "aten::" + op->schema.name != kind)
        in_.fail(str("unknown operator ", kind, " (overload '", overload, "' is not registered in this build)"));
      if (inputs.size() != op->schema.arguments.size() || n_out != op->schema.returns.size())
        in_.fail(str(kind, ".", op->schema.overload_name, " takes ", op->schema.arguments.size(), " inputs and gives ",
                     op->schema.returns.size(), " outputs, the node has ", inputs.size(), " and ", n_out));
      n = g_.createOp(op, inputs);
    } else {
      static const char* prims[] = {"prim::Constant", "prim::ListConstruct", "prim::TupleConstruct",
                                    "prim::ListUnpack", "prim::TupleUnpack", "prim::GetAttr", "prim::If",
                                    "prim::Loop"};
      bool known = false;
      for (const char* p : prims) known |= kind == p;
      known |= find_prim(kind) != nullptr && kind != "prim::PythonOp";  // Python calls are never loaded
      if (!known) in_.fail(str("unknown node kind '", kind, "'"));
      n = g_.create(kind, inputs, n_out);
    }
    b->appendNode(n);
    for (size_t i = 0; i < n_out; ++i) define(n->output(i), in_.string());
    in_.expect("attrs");
    size_t n_attrs = in_.count();
    for (size_t i = 0; i < n_attrs; ++i) {
      std::string name = in_.string();
      n->setAttr(name, read_ivalue(in_, tensors_, depth + 1));
    }
    if (kind == "prim::Constant" && n_out == 1 && n->hasAttribute("value")) retag_named_tuple(*n);
    in_.expect("blocks");
    size_t n_blocks = in_.count();
    for (size_t i = 0; i < n_blocks; ++i) {
      in_.expect("block");
      block(n->addBlock(), depth + 1);
    }
    check_prim(*n);
  }
  // A named tuple constant (a module attribute read as a constant) is saved as a tuple with its type: tagged with
  // its class again, as the tuples the interpreter makes of that type (IValue::named_tuple).
  static void retag_named_tuple(Node& n) {
    const TypePtr& t = n.output()->type();
    const IValue& v = n.attr("value");
    if (t && t->kind == Type::Kind::Tuple && !t->fields.empty() && !t->name.empty() && v.isTuple() &&
        v.tupleClass().empty())
      n.setAttr("value", IValue::named_tuple(t->name, v.toListRef()));
  }
  // The shapes the interpreter relies on for each prim:: kind.
  void check_prim(const Node& n) {
    const std::string& k = n.kind();
    size_t ins = n.inputs().size(), outs = n.outputs().size(), nb = n.blocks().size();
    auto bad = [&](const char* why) { in_.fail(str("malformed ", k, " node: ", why)); };
    if (n.op()) {
      if (nb) bad("an operator node has no blocks");
      return;
    }
    if (k != "prim::If" && k != "prim::Loop" && k != "prim::Enter" && nb) bad("it cannot have blocks");
    if (k == "prim::Enter" && (nb != 1 || n.blocks()[0]->inputs().size() != 1 || !n.blocks()[0]->outputs().empty()))
      bad("one block taking the context and giving nothing expected");
    if (const PrimOp* prim = find_prim(k)) {
      std::string why = prim_shape_error(*prim, ins, outs);
      if (!why.empty()) in_.fail(str("malformed ", k, " node: ", why));
      return;
    }
    if (k == "prim::Constant") {
      if (ins || outs != 1) bad("no inputs and one output expected");
      for (const auto& a : n.attributeNames())
        if (a != "value") bad("its only attribute is 'value'");
    } else if (k == "prim::ListConstruct" || k == "prim::TupleConstruct") {
      if (outs != 1) bad("one output expected");
    } else if (k == "prim::ListUnpack" || k == "prim::TupleUnpack") {
      if (ins != 1) bad("one input expected");
    } else if (k == "prim::GetAttr") {
      if (ins != 1 || outs != 1 || !n.hasAttribute("name") || n.attr("name").tag() != IValue::Tag::String)
        bad("one input, one output and a str attribute 'name' expected");
    } else if (k == "prim::If") {
      if (ins != 1 || nb != 2) bad("one input and two blocks expected");
      for (const Block* b : n.blocks())
        if (!b->inputs().empty() || b->outputs().size() != outs) bad("each block gives the node's outputs");
    } else if (k == "prim::Loop") {
      if (ins < 2 || nb != 1 || outs != ins - 2) bad("(trip count, condition, carried...) -> carried expected");
      const Block* body = n.blocks()[0];
      if (body->inputs().size() != ins - 1 || body->outputs().size() != ins - 1)
        bad("its block takes (i, carried...) and gives (condition, carried...)");
    }
  }

  Lexer& in_;
  Graph& g_;
  const std::vector<Tensor>& tensors_;
  std::vector<Value*> values_;
  std::vector<bool> visible_;
  std::unordered_set<std::string> names_;
};

std::string write_graph(const Graph& g, TensorTable& tensors) {
  TextWriter w;
  w.word("graph");
  GraphWriter(w, tensors).block(*g.block(), 2);
  return w.take();
}

std::shared_ptr<Graph> read_graph(std::string_view text, const std::vector<Tensor>& tensors, const std::string& what) {
  Lexer in(text, what);
  auto g = std::make_shared<Graph>();
  in.expect("graph");
  GraphReader(in, *g, tensors).block(g->block(), 0);
  if (!in.at_end()) in.fail("unexpected data after the graph");
  try {
    g->lint();
  } catch (const Error& e) {
    in.fail(e.what());
  }
  return g;
}

// ---- modules -----------------------------------------------------------------------------

// Whether a value is of an attribute's type (a loaded attribute, a C++ setattr): module objects never are.
bool fits_type(const IValue& v, const Type& t, int depth = 0) {
  using K = Type::Kind;
  using Tag = IValue::Tag;
  if (depth > kMaxDepth) return false;
  if (v.isObject()) return t.kind == K::Object ? v.toObject()->type_name == t.name
                                                 : t.kind == K::Optional && fits_type(v, *t.elems.at(0), depth + 1);
  switch (t.kind) {
    case K::Any: return true;
    case K::Tensor: return v.isTensor();
    case K::Int: return v.tag() == Tag::Int;
    case K::Float: return v.tag() == Tag::Double;
    case K::Bool: return v.tag() == Tag::Bool;
    case K::Str: return v.tag() == Tag::String;
    case K::None: return v.isNone();
    case K::Number: return v.tag() == Tag::Int || v.tag() == Tag::Double || v.tag() == Tag::Bool;
    case K::ScalarType: return v.tag() == Tag::ScalarType;
    case K::Device: return v.tag() == Tag::Device;
    case K::Layout: return v.tag() == Tag::Layout;
    case K::MemoryFormat: return v.tag() == Tag::MemoryFormat;
    case K::Generator: return v.tag() == Tag::Generator;
    case K::Optional: return v.isNone() || fits_type(v, *t.elems.at(0), depth + 1);
    case K::List:
      if (!v.isList()) return false;
      for (const IValue& e : v.toListRef())
        if (!fits_type(e, *t.elems.at(0), depth + 1)) return false;
      return true;
    case K::Tuple: {
      if (!v.isTuple() || v.toListRef().size() != t.elems.size()) return false;
      for (size_t i = 0; i < t.elems.size(); ++i)
        if (!fits_type(v.toListRef()[i], *t.elems[i], depth + 1)) return false;
      return true;
    }
    case K::Object: return false;
  }
  return false;
}

// The value with every dict its type holds marked as a dict (IValue::dict), and every named tuple tagged with its
// class (IValue::named_tuple): dicts are stored as lists of alternating keys and values, named tuples as tuples, and
// a Union's run-time type test (prim::isinstance) takes only a marked list for a dict, a tagged tuple for a class.
IValue mark_dicts(const IValue& v, const Type& t, int depth = 0) {
  using K = Type::Kind;
  if (depth > kMaxDepth || v.isNone() || v.isObject()) return v;
  auto elems = [&](const Type& e) {
    std::vector<IValue> out;
    for (const IValue& x : v.toListRef()) out.push_back(mark_dicts(x, e, depth + 1));
    return out;
  };
  if (t.kind == K::Any && t.name != "Union" && t.elems.size() == 2 && v.isList()) {
    std::vector<IValue> out;
    const auto& xs = v.toListRef();
    for (size_t i = 0; i < xs.size(); ++i) out.push_back(mark_dicts(xs[i], *t.elems[i % 2], depth + 1));
    return IValue::dict(std::move(out));
  }
  if (t.kind == K::Optional) return mark_dicts(v, *t.elems.at(0), depth + 1);
  if (t.kind == K::List && v.isList()) {
    auto out = elems(*t.elems.at(0));
    return IValue::list(std::move(out));
  }
  if (t.kind == K::Tuple && v.isTuple() && v.toListRef().size() == t.elems.size()) {
    std::vector<IValue> out;
    for (size_t i = 0; i < t.elems.size(); ++i) out.push_back(mark_dicts(v.toListRef()[i], *t.elems[i], depth + 1));
    if (!t.fields.empty() && !t.name.empty()) return IValue::named_tuple(t.name, std::move(out));
    return IValue::tuple(std::move(out));
  }
  return v;
}

// Whether mark_dicts has anything to do for a value of type t (a dict or a named tuple in it).
bool has_dict(const Type& t, int depth = 0) {
  if (depth > kMaxDepth) return false;
  if (t.kind == Type::Kind::Any && t.name != "Union" && t.elems.size() == 2) return true;
  if (t.kind == Type::Kind::Tuple && !t.fields.empty() && !t.name.empty()) return true;
  for (const auto& e : t.elems)
    if (has_dict(*e, depth + 1)) return true;
  return false;
}

// An Enum entry's place must exist in the method's types (its path steps through Lists, Optionals, Dicts and
// Tuples) and hold values of its members' type (int, float or str; an Optional of one).
void check_enum_site(Lexer& in, const std::string& name, const Method& method, const Method::EnumClass& e) {
  using K = Type::Kind;
  const Graph& g = *method.graph;
  const size_t first = method.takes_self ? 1 : 0;
  const Type* t = nullptr;
  if (e.position >= 0 && first + static_cast<size_t>(e.position) < g.inputs().size())
    t = g.inputs()[first + e.position]->type().get();
  else if (e.position == -1 && g.outputs().size() == 1)
    t = g.outputs()[0]->type().get();
  for (int64_t step : e.path) {
    if (t == nullptr) break;
    const bool container = t->kind == K::List || t->kind == K::Optional || t->kind == K::Tuple ||
                           (t->kind == K::Any && t->elems.size() == 2 && t->name != "Union");
    t = container && step >= 0 && static_cast<size_t>(step) < t->elems.size() ? t->elems[step].get() : nullptr;
  }
  if (t != nullptr && t->kind == K::Optional) t = t->elems[0].get();
  bool fits = t != nullptr && (t->kind == K::Int || t->kind == K::Float || t->kind == K::Str);
  if (fits && !e.members.empty()) {
    const IValue::Tag tag = e.members.front().second.tag();
    fits = (t->kind == K::Int && tag == IValue::Tag::Int) || (t->kind == K::Float && tag == IValue::Tag::Double) ||
           (t->kind == K::Str && tag == IValue::Tag::String);
  }
  if (!fits) in.fail(str("method ", name, ": Enum ", e.qualname, " names a place of its types that holds no values "
                         "of its members' type"));
}

void write_module(TextWriter& w, ZipWriter& zip, const Module& m, const std::string& path, TensorTable& tensors,
                  int indent) {
  w.word("module").string(m.type_name).word("training").integer(m.training);
  for (const auto* group : {&m.parameters, &m.buffers}) {
    w.line(indent + 2).word(group == &m.parameters ? "parameters" : "buffers").integer(static_cast<int64_t>(group->size()));
    for (const auto& [name, t] : *group) {
      TL_CHECK(t.defined(), "jit.save: ", path.empty() ? "the module" : path, "'s attribute ", name, " is undefined");
      w.string(name).integer(tensors.index(t));
    }
  }
  for (const auto* group : {&m.none_parameters, &m.none_buffers}) {
    w.line(indent + 2).word(group == &m.none_parameters ? "none_parameters" : "none_buffers");
    w.integer(static_cast<int64_t>(group->size()));
    for (const auto& name : *group) w.string(name);
  }
  for (const auto* group : {&m.attributes, &m.constants}) {
    w.line(indent + 2).word(group == &m.attributes ? "attributes" : "constants");
    w.integer(static_cast<int64_t>(group->size()));
    for (const Attribute& a : *group) {
      TL_CHECK(a.type != nullptr, "jit.save: attribute ", a.name, " has no type");
      TL_CHECK(fits_type(a.value, *a.type), "jit.save: attribute ", a.name, " holds a ", a.value.tag_name(),
               ", not a value of its type ", a.type->str());
      w.line(indent + 4).string(a.name);
      write_type(w, *a.type);
      write_ivalue(w, a.value, tensors, true);
    }
  }
  w.line(indent + 2).word("methods").integer(static_cast<int64_t>(m.methods.size()));
  for (const auto& [name, method] : m.methods) {
    TL_CHECK(method.graph != nullptr, "jit.save: method ", name, " has no graph");
    TL_CHECK(method.defaults.size() == method.arg_names.size(), "jit.save: method ", name, " has ",
             method.arg_names.size(), " argument names and ", method.defaults.size(), " defaults");
    std::string record = "code/" + (path.empty() ? "" : path + ".") + name + ".graph";
    zip.add(record, write_graph(*method.graph, tensors));
    w.line(indent + 4).string(name).word("self").integer(method.takes_self).string(record);
    w.word("args").integer(static_cast<int64_t>(method.arg_names.size()));
    for (size_t i = 0; i < method.arg_names.size(); ++i) {
      w.string(method.arg_names[i]).integer(method.defaults[i].has_value());
      if (method.defaults[i]) write_ivalue(w, *method.defaults[i], tensors);
    }
    w.word("enums").integer(static_cast<int64_t>(method.enums.size()));
    for (const Method::EnumClass& e : method.enums) {
      w.integer(e.position).integer(static_cast<int64_t>(e.path.size()));
      for (int64_t step : e.path) w.integer(step);
      w.string(e.qualname).integer(static_cast<int64_t>(e.members.size()));
      for (const auto& [member, value] : e.members) {
        TL_CHECK(enum_value(value), "jit.save: Enum ", e.qualname, " member ",
                 member, " has a value of type ", value.tag_name(), " (int, float or str only)");
        w.string(member);
        write_ivalue(w, value, tensors);
      }
    }
  }
  w.line(indent + 2).word("submodules").integer(static_cast<int64_t>(m.submodules.size()));
  for (const auto& [name, sub] : m.submodules) {
    TL_CHECK(sub != nullptr, "jit.save: submodule ", name, " is null");
    w.line(indent + 4).string(name);
    write_module(w, zip, *sub, path.empty() ? name : path + "." + name, tensors, indent + 4);
  }
  w.line(indent).word("end");
}

std::shared_ptr<Module> read_module(Lexer& in, const ZipReader& zip, const std::vector<Tensor>& tensors, int depth,
                                    int version) {
  in.depth_check(depth);
  auto m = std::make_shared<Module>();
  in.expect("module");
  m->type_name = in.string();
  in.expect("training");
  m->training = in.flag();
  auto tensor_at = [&](int64_t i) {
    if (i < 0 || static_cast<size_t>(i) >= tensors.size())
      in.fail(str("tensor ", i, " is not in the tensor table (", tensors.size(), " tensors)"));
    return tensors[i];
  };
  // Attribute names become Python attributes: non-empty, without '.', unique in their module.
  std::set<std::string> names;
  auto attr_name = [&]() {
    std::string name = in.string();
    if (name.empty() || name.find('.') != std::string::npos || !names.insert(name).second)
      in.fail(str("bad or repeated attribute name '", name, "'"));
    return name;
  };
  for (auto* group : {&m->parameters, &m->buffers}) {
    in.expect(group == &m->parameters ? "parameters" : "buffers");
    size_t n = in.count();
    for (size_t i = 0; i < n; ++i) {
      std::string name = attr_name();
      group->emplace_back(name, tensor_at(in.integer()));
    }
  }
  for (auto* group : {&m->none_parameters, &m->none_buffers}) {
    in.expect(group == &m->none_parameters ? "none_parameters" : "none_buffers");
    size_t n = in.count();
    for (size_t i = 0; i < n; ++i) group->push_back(attr_name());
  }
  // attributes (version 2), constants (version 6): `training` is the header's, never one of them
  for (auto* group : {&m->attributes, &m->constants}) {
    if (version < (group == &m->attributes ? 2 : 6)) continue;
    in.expect(group == &m->attributes ? "attributes" : "constants");
    size_t n = in.count();
    for (size_t i = 0; i < n; ++i) {
      Attribute a;
      a.name = attr_name();
      // (a version 5 writer saved a flag script assigns as an attribute; since version 6 the header holds it)
      if (a.name == "training" && (version >= 6 || group == &m->constants))
        in.fail("an attribute named 'training' (the module header holds the flag)");
      a.type = read_type(in, depth + 1);
      a.value = read_ivalue(in, tensors, depth + 1, version >= 5);
      if (!fits_type(a.value, *a.type))
        in.fail(str("attribute ", a.name, " holds a ", a.value.tag_name(), ", not a value of its type ", a.type->str()));
      a.value = mark_dicts(a.value, *a.type);
      group->push_back(std::move(a));
    }
  }
  in.expect("methods");
  size_t n = in.count();
  for (size_t i = 0; i < n; ++i) {
    std::string name = in.string();
    in.expect("self");
    bool takes_self = in.flag();
    std::string record = in.string();
    if (!zip.has(record)) in.fail(str("method ", name, " names a missing record ", record));
    Method method{read_graph(zip.get(record), tensors, record), takes_self};
    if (version >= 2) {
      in.expect("args");
      size_t n_args = in.count();
      const size_t n_inputs = method.graph->inputs().size() - (takes_self ? 1 : 0);
      if (n_args != 0 && n_args != n_inputs)
        in.fail(str("method ", name, " declares ", n_args, " arguments for a graph of ", n_inputs, " inputs"));
      bool defaulted = false;
      for (size_t k = 0; k < n_args; ++k) {
        method.arg_names.push_back(in.string());
        if (in.flag()) {
          method.defaults.emplace_back(read_ivalue(in, tensors, depth + 1));
          defaulted = true;
        } else {
          if (defaulted) in.fail(str("method ", name, ": argument ", method.arg_names.back(), " without a default "
                                     "follows one with a default"));
          method.defaults.emplace_back(std::nullopt);
        }
      }
    }
    if (version >= 4) {
      in.expect("enums");
      size_t n_enums = in.count();
      std::set<std::pair<int64_t, std::vector<int64_t>>> seen;
      for (size_t k = 0; k < n_enums; ++k) {
        Method::EnumClass e;
        e.position = in.integer();
        if (version >= 5) {
          size_t n_steps = in.count();
          if (n_steps > static_cast<size_t>(kMaxDepth)) in.fail(str("method ", name, ": an Enum path nested too deeply"));
          for (size_t j = 0; j < n_steps; ++j) e.path.push_back(in.integer());
        } else if (e.position < -1 && e.position >= -2 - kMaxEnumTupleElements) {  // version 4's tuple elements
          e.path = {-2 - e.position};
          e.position = -1;
        }
        if (e.position < -1 || e.position >= static_cast<int64_t>(method.arg_names.size()) ||
            !seen.insert({e.position, e.path}).second)
          in.fail(str("method ", name, ": bad or repeated Enum position ", e.position));
        e.qualname = in.string();
        if (e.qualname.empty()) in.fail(str("method ", name, ": an Enum class without a name"));
        size_t n_members = in.count();
        std::set<std::string> member_names;
        for (size_t j = 0; j < n_members; ++j) {
          std::string member = in.string();
          IValue value = read_ivalue(in, tensors, depth + 1);
          // One value type for all members (int, float or str), as script requires of an Enum.
          if (member.empty() || !member_names.insert(member).second ||
              !enum_value(value) ||
              (!e.members.empty() && e.members.front().second.tag() != value.tag()))
            in.fail(str("method ", name, ": bad member '", member, "' of Enum ", e.qualname));
          e.members.emplace_back(std::move(member), std::move(value));
        }
        check_enum_site(in, name, method, e);
        method.enums.push_back(std::move(e));
      }
    }
    if (takes_self && method.graph->inputs().empty()) in.fail(str("method ", name, " takes self but has no inputs"));
    m->methods.emplace_back(name, std::move(method));
  }
  in.expect("submodules");
  n = in.count();
  for (size_t i = 0; i < n; ++i) {
    std::string name = attr_name();
    m->submodules.emplace_back(name, read_module(in, zip, tensors, depth + 1, version));
  }
  in.expect("end");
  return m;
}

// Why a zip that is not a torchlite.jit archive was refused.
std::string foreign_archive(const ZipReader& zip, const std::string& what) {
  bool torchscript = zip.has("constants.pkl");
  for (const std::string& name : zip.names())
    torchscript |= name.rfind("code/", 0) == 0 && name.size() > 3 && name.substr(name.size() - 3) == ".py";
  if (torchscript)
    return str(what, " is a TorchScript archive written by PyTorch's torch.jit.save; torchlite.jit.load reads only "
               "torchlite.jit archives (TorchScript source cannot be compiled by torchlite yet)");
  if (zip.has("data.pkl"))
    return str(what, " is a torch.save / torchlite.save checkpoint, not a torchlite.jit archive: load it with "
               "torchlite.load");
  return str(what, " is not a torchlite.jit archive (no 'format' record)");
}

}  // namespace

// ---- public API --------------------------------------------------------------------------

std::shared_ptr<Object> Module::object() const {
  auto obj = std::make_shared<Object>(Object{type_name, {}});
  for (const auto& [name, t] : parameters) obj->attrs[name] = t;
  for (const auto& [name, t] : buffers) obj->attrs[name] = t;
  for (const Attribute& a : attributes) obj->attrs[a.name] = a.value;
  obj->attrs["training"] = IValue(training);  // version 6 graphs read it (script's `self.training`)
  for (const auto& [name, sub] : submodules) obj->attrs[name] = sub->object();
  return obj;
}

namespace {

bool has_setattr(const Graph& g) {
  for (const Node* n : g.allNodes())
    if (n->kind() == "prim::SetAttr") return true;
  return false;
}

// Copies what a graph assigned (prim::SetAttr) from the object back into the module tree.
void write_back(Module& m, const Object& obj) {
  for (auto& [name, t] : m.buffers) {
    auto it = obj.attrs.find(name);
    if (it == obj.attrs.end()) continue;
    TL_CHECK_TYPE(it->second.isTensor(), "jit: buffer '", name, "' of ", m.type_name, " was assigned a ",
                  it->second.tag_name());
    t = it->second.toTensor();
  }
  for (Attribute& a : m.attributes) {
    auto it = obj.attrs.find(a.name);
    if (it == obj.attrs.end()) continue;
    TL_CHECK_TYPE(fits_type(it->second, *a.type), "jit: attribute '", a.name, "' of ", m.type_name,
                  " (of type ", a.type->str(), ") was assigned a ", it->second.tag_name());
    a.value = it->second;
  }
  for (auto& [name, sub] : m.submodules) {
    auto it = obj.attrs.find(name);
    if (it != obj.attrs.end() && it->second.isObject()) write_back(*sub, *it->second.toObject());
  }
}

}  // namespace

void Module::bind_defaults(const std::string& name, const Method& m, std::vector<IValue>& inputs) {
  const size_t n = m.arg_names.size();
  if (n == 0 || inputs.size() == n) return;
  TL_CHECK(inputs.size() < n, name, "() expected at most ", n, " argument(s) but received ", inputs.size(),
           " argument(s)");
  for (size_t i = inputs.size(); i < n; ++i) {
    TL_CHECK(m.defaults[i].has_value(), name, "() is missing value for argument '", m.arg_names[i], "'.");
    inputs.push_back(*m.defaults[i]);
  }
}

namespace {

bool tree_stateful(const Module& m) {
  if (!m.attributes.empty()) return true;
  for (const auto& [n, method] : m.methods)
    if (method.takes_self && has_setattr(*method.graph)) return true;
  for (const auto& [n, sub] : m.submodules)
    if (tree_stateful(*sub)) return true;
  return false;
}

}  // namespace

bool Module::stateful() const {
  std::call_once(call_state->checked, [&] { call_state->stateful = tree_stateful(*this); });
  return call_state->stateful;
}

std::vector<IValue> Module::run_method(const std::string& name, std::vector<IValue> inputs) {
  for (const auto& [n, method] : methods)
    if (n == name) {
      bind_defaults(name, method, inputs);
      const auto& params = method.graph->inputs();
      size_t first = method.takes_self ? 1 : 0;
      for (size_t i = 0; i < inputs.size() && first + i < params.size(); ++i)  // C++ gives dicts as plain lists
        if (has_dict(*params[first + i]->type())) inputs[i] = mark_dicts(inputs[i], *params[first + i]->type());
      if (!method.takes_self) return run_graph(*method.graph, std::move(inputs));
      std::unique_lock<std::mutex> lock(call_state->lock, std::defer_lock);
      if (stateful()) lock.lock();
      std::shared_ptr<Object> obj = object();
      inputs.insert(inputs.begin(), IValue(obj));
      if (!has_setattr(*method.graph)) return run_graph(*method.graph, std::move(inputs));
      std::vector<IValue> out;
      try {
        out = run_graph(*method.graph, std::move(inputs));
      } catch (...) {  // assignments made before the error stay, as Python's would
        try {
          write_back(*this, *obj);
        } catch (...) {
        }
        throw;
      }
      write_back(*this, *obj);
      return out;
    }
  throw RuntimeError(str("jit: module ", type_name, " has no method '", name, "'"));
}

namespace {

// The module holding the last component of a dotted path, and that component.
template <typename M>
std::pair<M*, std::string> owner_of(M* m, const std::string& path) {
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    if (dot == std::string::npos) return {m, path.substr(start)};
    std::string part = path.substr(start, dot - start);
    M* next = nullptr;
    for (auto& [name, sub] : m->submodules)
      if (name == part) next = sub.get();
    TL_CHECK(next != nullptr, "jit: module ", m->type_name, " has no submodule '", part, "'");
    m = next;
    start = dot + 1;
  }
}

}  // namespace

IValue Module::attr(const std::string& path) const {
  std::lock_guard<std::mutex> lock(call_state->lock);  // not while a call writes the attributes back
  auto [m, name] = owner_of(this, path);
  for (const Attribute& a : m->attributes)
    if (a.name == name) return a.value;
  for (const auto* group : {&m->parameters, &m->buffers})
    for (const auto& [n, t] : *group)
      if (n == name) return IValue(t);
  throw RuntimeError(str("jit: module ", m->type_name, " has no attribute '", name, "'"));
}

void Module::setattr(const std::string& path, IValue value) {
  std::lock_guard<std::mutex> lock(call_state->lock);
  auto [m, name] = owner_of(this, path);
  for (Attribute& a : m->attributes)
    if (a.name == name) {
      TL_CHECK_TYPE(fits_type(value, *a.type), "jit: attribute '", name, "' of ", m->type_name, " has type ",
                    a.type->str(), ", got a ", value.tag_name());
      a.value = mark_dicts(value, *a.type);  // (C++ gives dicts in their list form)
      return;
    }
  for (auto& [n, t] : m->buffers)
    if (n == name) {
      TL_CHECK_TYPE(value.isTensor(), "jit: buffer '", name, "' of ", m->type_name, " takes a Tensor, got a ",
                    value.tag_name());
      t = value.toTensor();
      return;
    }
  throw RuntimeError(str("jit: module ", m->type_name, " has no attribute '", name, "' that can be set"));
}

std::string graph_to_text(const Graph& g, std::vector<Tensor>& tensors) {
  TensorTable table;
  for (const Tensor& t : tensors) table.index(t);
  std::string text = write_graph(g, table);
  tensors = table.tensors();
  return text;
}

std::shared_ptr<Graph> graph_from_text(std::string_view text, const std::vector<Tensor>& tensors,
                                       const std::string& what) {
  return read_graph(text, tensors, what);
}

void save_module(const Module& m, ZipSink& sink, const std::map<std::string, std::string>& extra_files) {
  ZipWriter zip("archive", sink);
  zip.add("format", std::string(kMagic) + "\n");
  zip.add("version", std::to_string(kFormatVersion) + "\n");
  zip.add("byteorder", "little");
  TensorTable tensors;
  TextWriter w;
  write_module(w, zip, m, "", tensors, 0);
  zip.add("model", w.take());
  if (!m.classes.empty()) {  // classes <n> (module ... end)*: each class's methods, graphs under code/__class<i>
    TextWriter c;
    c.word("classes").integer(static_cast<int64_t>(m.classes.size()));
    for (size_t i = 0; i < m.classes.size(); ++i) {
      TL_CHECK(m.classes[i] != nullptr, "jit.save: class ", i, " is null");
      c.line(2);
      write_module(c, zip, *m.classes[i], "__class" + std::to_string(i), tensors, 2);
    }
    zip.add("classes", c.take());
  }
  write_tensors(zip, tensors.tensors());
  for (const auto& [name, data] : extra_files) {
    TL_CHECK(!name.empty() && name.find("..") == std::string::npos, "jit.save: bad extra file name '", name, "'");
    zip.add("extra/" + name, data);
  }
  zip.finish();
}

std::string save_module(const Module& m, const std::map<std::string, std::string>& extra_files) {
  StringSink sink;
  save_module(m, sink, extra_files);
  return std::move(sink.out);
}

void save_module(const Module& m, const std::string& path, const std::map<std::string, std::string>& extra_files) {
  FileSink sink(path);
  save_module(m, sink, extra_files);
  sink.close();
}

Loaded load_module(std::string_view bytes, std::optional<Device> device, const std::string& what) {
  return load_module(std::make_shared<MemorySource>(bytes), device, what);
}

Loaded load_module(std::shared_ptr<const ZipSource> source, std::optional<Device> device, const std::string& what) {
  static_assert(sizeof(int) == 4, "");
  const uint16_t probe = 1;
  TL_CHECK(*reinterpret_cast<const uint8_t*>(&probe) == 1, "jit.load: big-endian hosts are not supported");
  Device dev = device.value_or(Device(DeviceType::CPU));
  TL_CHECK(dev.is_cpu() || dev.is_meta(), "jit.load: cannot map tensors to device ", dev.str());
  ZipReader zip(std::move(source), what);
  TL_CHECK(zip.has("format"), "jit.load: ", foreign_archive(zip, what));
  TL_CHECK(zip.get("format") == std::string(kMagic) + "\n", "jit.load: ", what,
           " is not a torchlite.jit archive (unknown 'format' record)");
  std::string version(zip.has("version") ? zip.get("version") : "");
  int number = 0;
  for (int v = 1; v <= kFormatVersion; ++v)
    if (version == std::to_string(v) + "\n") number = v;
  TL_CHECK(number != 0, "jit.load: ", what,
           " has archive version '", printable(version.substr(0, 16)), "'; this build reads versions 1 to ",
           kFormatVersion);
  TL_CHECK(!zip.has("byteorder") || zip.get("byteorder") == "little", "jit.load: ", what,
           " was written on a big-endian machine, which is not supported");
  std::vector<Tensor> tensors = read_tensors(zip, dev);
  Lexer in(zip.get("model"), "model");
  Loaded out;
  out.module = read_module(in, zip, tensors, 0, number);
  if (!in.at_end()) in.fail("unexpected data after the module");
  if (number >= 5 && zip.has("classes")) {
    Lexer classes(zip.get("classes"), "classes");
    classes.expect("classes");
    size_t n = classes.count();
    std::set<std::string> names;
    for (size_t i = 0; i < n; ++i) {
      auto c = read_module(classes, zip, tensors, 1, number);
      if (c->type_name.empty() || !names.insert(c->type_name).second)
        classes.fail(str("bad or repeated class name '", c->type_name, "'"));
      // A class's methods take the object as self: no parameters, buffers or submodules of its own.
      if (!c->parameters.empty() || !c->buffers.empty() || !c->submodules.empty() || !c->attributes.empty() ||
          !c->constants.empty())
        classes.fail(str("class ", c->type_name, " has module state"));
      for (const auto& [name, method] : c->methods)
        if (!method.takes_self) classes.fail(str("method ", name, " of class ", c->type_name, " does not take self"));
      out.module->classes.push_back(std::move(c));
    }
    if (!classes.at_end()) classes.fail("unexpected data after the classes");
  }
  for (const std::string& name : zip.names())
    if (name.rfind("extra/", 0) == 0) out.extra_files[name.substr(6)] = std::string(zip.get(name));
  return out;
}

Loaded load_module_file(const std::string& path, std::optional<Device> device) {
  return load_module(std::make_shared<FileSource>(path), device, path);
}

}  // namespace tl::jit
