// prim::str_method: Python's str methods that TorchScript takes, byte-wise with ASCII character classes (as
// TorchScript's own string ops). The compiler passes every argument (defaults filled in from torch's schemas:
// `find(str self, str substr, int start=0, int end=-1)`), so each method reads a fixed number of inputs.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>

#include "aten/core/Exception.h"
#include "aten/jit/IR.h"
#include "aten/jit/ScriptPrims.h"

namespace tl::jit {
namespace {

using Tag = IValue::Tag;
using Outs = std::vector<IValue>;
const char* const kWhitespace = " \n\t\f\v";

const std::string& str_at(const Stack& s, size_t i, const std::string& fn) {
  TL_CHECK(i < s.size() && s[i].tag() == Tag::String, fn, "(): expected a str argument");
  return s[i].toStringRef();
}

// TorchScript's [start, end) range of find/count/startswith: a negative start counts from the end, a negative end
// from one past it (end=-1, the default, is the whole string; Python's s.find(x, 0, -1) would drop the last byte).
std::string window(const std::string& str, int64_t start, int64_t end) {
  const int64_t n = static_cast<int64_t>(str.size());
  if (start < 0) start = std::max<int64_t>(0, n + start);
  if (end < 0) end = std::max<int64_t>(0, n + end + 1);
  end = std::min(end, n);
  return start < end ? str.substr(static_cast<size_t>(start), static_cast<size_t>(end - start)) : std::string();
}

std::vector<IValue> strs(const std::vector<std::string>& xs) { return {xs.begin(), xs.end()}; }

std::vector<std::string> split_whitespace(const std::string& str, int64_t max) {
  std::vector<std::string> out;
  size_t i = 0;
  while (true) {
    while (i < str.size() && std::isspace(static_cast<unsigned char>(str[i]))) ++i;
    if (i == str.size()) break;
    if (max >= 0 && static_cast<int64_t>(out.size()) == max) {  // the rest, its trailing whitespace dropped
      size_t end = str.find_last_not_of(" \n\t\f\v\r");
      out.push_back(str.substr(i, end + 1 - i));
      break;
    }
    size_t j = i;
    while (j < str.size() && !std::isspace(static_cast<unsigned char>(str[j]))) ++j;
    out.push_back(str.substr(i, j - i));
    i = j;
  }
  return out;
}

std::vector<std::string> split_sep(const std::string& str, const std::string& sep, int64_t max) {
  TL_CHECK(!sep.empty(), "ValueError: empty separator");
  std::vector<std::string> out;
  size_t start = 0, pos;
  while ((max < 0 || static_cast<int64_t>(out.size()) < max) && (pos = str.find(sep, start)) != std::string::npos) {
    out.push_back(str.substr(start, pos - start));
    start = pos + sep.size();
  }
  out.push_back(str.substr(start));
  return out;
}

std::vector<std::string> rsplit_sep(const std::string& str, const std::string& sep, int64_t max) {
  TL_CHECK(!sep.empty(), "ValueError: empty separator");
  std::vector<std::string> out;
  size_t end = str.size();
  while (max < 0 || static_cast<int64_t>(out.size()) < max) {
    if (end < sep.size()) break;
    size_t pos = str.rfind(sep, end - sep.size());
    if (pos == std::string::npos) break;
    out.push_back(str.substr(pos + sep.size(), end - pos - sep.size()));
    end = pos;
  }
  out.push_back(str.substr(0, end));
  std::reverse(out.begin(), out.end());
  return out;
}

std::string strip(const std::string& str, const std::string& chars, bool left, bool right) {
  size_t b = 0, e = str.size();
  if (left)
    while (b < e && chars.find(str[b]) != std::string::npos) ++b;
  if (right)
    while (e > b && chars.find(str[e - 1]) != std::string::npos) --e;
  return str.substr(b, e - b);
}

template <typename F>
std::string map_chars(std::string str, F f) {
  for (char& c : str) c = static_cast<char>(f(static_cast<unsigned char>(c)));
  return str;
}

template <typename F>
bool all_of(const std::string& str, F f) {
  return !str.empty() && std::all_of(str.begin(), str.end(), [&](char c) { return f(static_cast<unsigned char>(c)) != 0; });
}

bool cased_check(const std::string& str, bool upper) {  // islower / isupper: some cased letter, none of the other case
  bool cased = false;
  for (unsigned char c : str) {
    if (upper ? std::islower(c) : std::isupper(c)) return false;
    cased = cased || std::isalpha(c);
  }
  return cased;
}

bool istitle(const std::string& str) {
  bool cased = false, prev_cased = false;
  for (unsigned char c : str) {
    if (std::isupper(c)) {
      if (prev_cased) return false;
      prev_cased = cased = true;
    } else if (std::islower(c)) {
      if (!prev_cased) return false;
      prev_cased = cased = true;
    } else {
      prev_cased = false;
    }
  }
  return cased;
}

std::string title(std::string str) {
  bool prev_cased = false;
  for (char& ch : str) {
    unsigned char c = static_cast<unsigned char>(ch);
    ch = static_cast<char>(prev_cased ? std::tolower(c) : std::toupper(c));
    prev_cased = std::isalpha(c) != 0;
  }
  return str;
}

// where: -1 ljust, 1 rjust, 0 center (Python's split of an odd margin)
std::string pad(const std::string& str, int64_t width, const std::string& fill, int where) {
  TL_CHECK(fill.size() == 1, "TypeError: The fill character must be exactly one character long");
  const int64_t n = static_cast<int64_t>(str.size());
  if (width <= n) return str;
  const size_t marg = static_cast<size_t>(width - n);
  size_t left = where < 0 ? 0 : where > 0 ? marg : marg / 2 + (marg & static_cast<size_t>(width) & 1);  // Python's center
  return std::string(left, fill[0]) + str + std::string(marg - left, fill[0]);
}

std::string zfill(const std::string& str, int64_t width) {  // TorchScript's: zeros in front of any sign
  const int64_t n = static_cast<int64_t>(str.size());
  return width <= n ? str : std::string(static_cast<size_t>(width - n), '0') + str;
}

std::string expandtabs(const std::string& str, int64_t tabsize) {
  std::string out;
  size_t col = 0;
  for (char c : str) {
    if (c == '\t') {
      if (tabsize > 0) {
        size_t spaces = static_cast<size_t>(tabsize) - col % static_cast<size_t>(tabsize);
        out.append(spaces, ' ');
        col += spaces;
      }
    } else {
      out.push_back(c);
      col = (c == '\n' || c == '\r') ? 0 : col + 1;
    }
  }
  return out;
}

// TorchScript's splitlines: every break byte ends a line ("\r\n" is two breaks, with an empty line between), and
// keepends gives each break as an item of its own (Python's would end the line with it).
std::vector<std::string> splitlines(const std::string& str, bool keepends) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < str.size(); ++i) {
    if (std::string_view("\n\r\v\f\x1c\x1d\x1e").find(str[i]) == std::string_view::npos) continue;
    out.push_back(str.substr(start, i - start));
    if (keepends) out.push_back(str.substr(i, 1));
    start = i + 1;
  }
  if (start < str.size()) out.push_back(str.substr(start));
  return out;
}

std::string replace(const std::string& str, const std::string& old, const std::string& repl, int64_t max) {
  std::string out;
  int64_t done = 0;
  if (old.empty()) {  // Python: the replacement before every byte and at the end
    for (size_t i = 0; i <= str.size(); ++i) {
      if (max < 0 || done < max) {
        out += repl;
        ++done;
      }
      if (i < str.size()) out.push_back(str[i]);
    }
    return out;
  }
  size_t start = 0, pos;
  while ((max < 0 || done < max) && (pos = str.find(old, start)) != std::string::npos) {
    out += str.substr(start, pos - start) + repl;
    start = pos + old.size();
    ++done;
  }
  return out + str.substr(start);
}

int64_t find(const std::string& str, const std::string& sub, int64_t start, int64_t end, bool reverse) {
  const int64_t n = static_cast<int64_t>(str.size());
  int64_t b = start < 0 ? std::max<int64_t>(0, n + start) : std::min(start, n);
  std::string w = window(str, start, end);
  size_t pos = reverse ? w.rfind(sub) : w.find(sub);
  return pos == std::string::npos ? -1 : b + static_cast<int64_t>(pos);
}

int64_t count(const std::string& str, const std::string& sub, int64_t start, int64_t end) {
  std::string w = window(str, start, end);
  if (sub.empty()) return static_cast<int64_t>(w.size()) + 1;
  int64_t k = 0;
  for (size_t pos = w.find(sub); pos != std::string::npos; pos = w.find(sub, pos + sub.size())) ++k;
  return k;
}

std::string str_slice(const std::string& str, const IValue& start_v, const IValue& stop_v, int64_t step) {
  TL_CHECK(step != 0, "slice step cannot be zero");
  const int64_t n = static_cast<int64_t>(str.size());
  auto clamp = [&](const IValue& v, int64_t dflt) {
    if (v.isNone()) return dflt;
    int64_t i = v.toInt();
    if (i < 0) i += n;
    return step > 0 ? std::min(std::max<int64_t>(i, 0), n) : std::min(std::max<int64_t>(i, -1), n - 1);
  };
  int64_t start = clamp(start_v, step > 0 ? 0 : n - 1), stop = clamp(stop_v, step > 0 ? n : -1);
  std::string out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    out.push_back(str[static_cast<size_t>(i)]);
    if (step > 0 ? static_cast<uint64_t>(stop - i) <= static_cast<uint64_t>(step)
                 : static_cast<uint64_t>(i - stop) <= uint64_t{0} - static_cast<uint64_t>(step))
      break;  // before i + step could overflow
  }
  return out;
}

}  // namespace

Outs str_method(Stack& s, const Node& n) {
  TL_CHECK(n.hasAttribute("fn") && n.attr("fn").tag() == Tag::String, "jit: prim::str_method needs a str attribute 'fn'");
  const std::string& fn = n.attr("fn").toStringRef();
  if (fn == "chr") {
    int64_t c = s.at(0).toInt();
    TL_CHECK(c >= 0 && c < 128, "chr(): only ASCII code points (0..127) are supported in script, got ", c);
    return {IValue(std::string(1, static_cast<char>(c)))};
  }
  const std::string& self = str_at(s, 0, fn);
  auto arg_str = [&](size_t i) -> const std::string& { return str_at(s, i, fn); };
  auto arg_int = [&](size_t i) { return s.at(i).toInt(); };
  // split() on whitespace takes no max in TorchScript (it splits everywhere; Python's would stop)
  if (fn == "split") return {IValue::list(strs(s.at(1).isNone() ? split_whitespace(self, -1)
                                                                : split_sep(self, arg_str(1), arg_int(2))))};
  if (fn == "rsplit") return {IValue::list(strs(rsplit_sep(self, arg_str(1), arg_int(2))))};
  if (fn == "strip" || fn == "lstrip" || fn == "rstrip")
    return {IValue(strip(self, arg_str(1), fn[0] != 'r', fn[0] != 'l'))};
  if (fn == "startswith" || fn == "endswith") {
    TL_CHECK(arg_int(2) <= static_cast<int64_t>(self.size()), fn, "(): start ", arg_int(2), " is past the end of a str of ",
             self.size(), " bytes");  // TorchScript's substr raises here
    std::string w = window(self, arg_int(2), arg_int(3));
    const std::string& sub = arg_str(1);
    bool r = sub.size() <= w.size() &&
             (fn == "startswith" ? w.compare(0, sub.size(), sub) == 0 : w.compare(w.size() - sub.size(), sub.size(), sub) == 0);
    return {IValue(r)};
  }
  if (fn == "join") {
    std::string out;
    const auto& xs = s.at(1).toListRef();
    for (size_t i = 0; i < xs.size(); ++i) {
      TL_CHECK(xs[i].tag() == Tag::String, "join(): expected str items, got ", xs[i].tag_name());
      out += (i ? self : std::string()) + xs[i].toStringRef();
    }
    return {IValue(std::move(out))};
  }
  if (fn == "lower") return {IValue(map_chars(self, ::tolower))};
  if (fn == "upper") return {IValue(map_chars(self, ::toupper))};
  if (fn == "swapcase")
    return {IValue(map_chars(self, [](int c) { return std::isupper(c) ? std::tolower(c) : std::toupper(c); }))};
  if (fn == "capitalize") {
    std::string out = map_chars(self, ::tolower);
    if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
    return {IValue(std::move(out))};
  }
  if (fn == "title") return {IValue(title(self))};
  if (fn == "replace") return {IValue(replace(self, arg_str(1), arg_str(2), arg_int(3)))};
  if (fn == "find" || fn == "rfind" || fn == "index" || fn == "rindex") {
    int64_t r = find(self, arg_str(1), arg_int(2), arg_int(3), fn[0] == 'r');
    TL_CHECK(r >= 0 || fn[1] == 'f' || fn[0] == 'f', "ValueError: substring not found");
    return {IValue(r)};
  }
  if (fn == "count") return {IValue(count(self, arg_str(1), arg_int(2), arg_int(3)))};
  if (fn == "isdigit" || fn == "isdecimal" || fn == "isnumeric") return {IValue(all_of(self, ::isdigit))};
  if (fn == "isalpha") return {IValue(all_of(self, ::isalpha))};
  if (fn == "isalnum") return {IValue(all_of(self, ::isalnum))};
  if (fn == "isspace") return {IValue(all_of(self, ::isspace))};
  if (fn == "islower") return {IValue(cased_check(self, false))};
  if (fn == "isupper") return {IValue(cased_check(self, true))};
  if (fn == "istitle") return {IValue(istitle(self))};
  if (fn == "isidentifier") {
    bool ok = !self.empty() && !std::isdigit(static_cast<unsigned char>(self[0])) &&
              all_of(self, [](int c) { return std::isalnum(c) || c == '_'; });
    return {IValue(ok)};
  }
  if (fn == "isprintable")
    return {IValue(std::all_of(self.begin(), self.end(), [](char c) { return std::isprint(static_cast<unsigned char>(c)) != 0; }))};
  if (fn == "center" || fn == "ljust" || fn == "rjust")
    return {IValue(pad(self, arg_int(1), arg_str(2), fn == "ljust" ? -1 : fn == "rjust" ? 1 : 0))};
  if (fn == "zfill") return {IValue(zfill(self, arg_int(1)))};
  if (fn == "expandtabs") return {IValue(expandtabs(self, arg_int(1)))};
  if (fn == "partition" || fn == "rpartition") {
    const std::string& sep = arg_str(1);
    TL_CHECK(!sep.empty(), "ValueError: empty separator");
    size_t pos = fn == "partition" ? self.find(sep) : self.rfind(sep);
    if (pos == std::string::npos)
      return {fn == "partition" ? IValue::tuple({IValue(self), IValue(""), IValue("")})
                                : IValue::tuple({IValue(""), IValue(""), IValue(self)})};
    return {IValue::tuple({IValue(self.substr(0, pos)), IValue(sep), IValue(self.substr(pos + sep.size()))})};
  }
  if (fn == "splitlines") return {IValue::list(strs(splitlines(self, s.at(1).toBool())))};
  if (fn == "slice") return {IValue(str_slice(self, s.at(1), s.at(2), s.at(3).toInt()))};
  if (fn == "contains") return {IValue(self.find(arg_str(1)) != std::string::npos)};
  if (fn == "int" || fn == "float") {  // int(s) / float(s): the whole str is the number (leading spaces aside, as torch)
    const std::string& body = self;
    char* end = nullptr;
    errno = 0;
    if (fn == "int") {
      long long v = body.empty() ? 0 : std::strtoll(body.c_str(), &end, 10);
      TL_CHECK(!body.empty() && end == body.c_str() + body.size() && errno == 0,
                     "ValueError: invalid literal for int() with base 10: '", self, "'");
      return {IValue(static_cast<int64_t>(v))};
    }
    double v = body.empty() ? 0 : std::strtod(body.c_str(), &end);
    TL_CHECK(!body.empty() && end == body.c_str() + body.size(), "ValueError: could not convert string to float: '",
                   self, "'");
    return {IValue(v)};
  }
  if (fn == "ord") {
    TL_CHECK(self.size() == 1, "TypeError: ord() expected a character, but string of length ", self.size(), " found");
    return {IValue(static_cast<int64_t>(static_cast<unsigned char>(self[0])))};
  }
  TL_ERROR("jit: prim::str_method: no str method '", fn, "'");
}

}  // namespace tl::jit
