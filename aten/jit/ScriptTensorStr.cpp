#include "aten/jit/ScriptTensorStr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "aten/autograd/GradMode.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/to.h"

namespace tl::jit {

std::string shortest_double_str(double d) {
  if (std::isnan(d)) return std::signbit(d) ? "-nan" : "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  char buf[64];
  int p = 1;
  for (; p <= 17; ++p) {  // the fewest significant digits that read back as d
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  // buf is [-]D[.DDD]e±XX: the digits and the decimal exponent.
  std::string s(buf);
  const bool neg = s[0] == '-';
  const size_t e = s.find('e');
  std::string digits;
  for (size_t i = neg ? 1 : 0; i < e; ++i)
    if (s[i] != '.') digits += s[i];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int exp = std::atoi(s.c_str() + e + 1);
  std::string out = neg ? "-" : "";
  if (exp < -4 || exp >= 16) {  // scientific: 1e+16, 1.5e-07
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    std::snprintf(buf, sizeof buf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    return out + buf;
  }
  const int n = static_cast<int>(digits.size());
  if (exp < 0) return out + "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  if (exp + 1 >= n) return out + digits + std::string(static_cast<size_t>(exp + 1 - n), '0');
  return out + digits.substr(0, static_cast<size_t>(exp + 1)) + "." + digits.substr(static_cast<size_t>(exp + 1));
}

namespace {

enum class Style { General, Scientific, Fixed };  // %g, %.4e, %.4f
struct Layout {
  double scale = 1;
  int width = 0;
  Style style = Style::General;
};

// ATen's choice of one format for all the values: integral values as %g (scientific past 10 digits); others
// fixed with 4 decimals, scaled by a power of ten when large or small, or scientific when magnitudes spread.
Layout choose_layout(const double* p, int64_t n) {
  if (n == 0) return {1, 0, Style::General};
  bool int_mode = true;
  for (int64_t i = 0; i < n; ++i)
    if (std::isfinite(p[i]) && p[i] != std::ceil(p[i])) {
      int_mode = false;
      break;
    }
  int64_t first = 0;
  while (first < n && !std::isfinite(p[first])) ++first;
  double exp_min = 1, exp_max = 1;
  if (first != n) {
    exp_min = exp_max = std::fabs(p[first]);
    for (int64_t i = first; i < n; ++i) {
      double z = std::fabs(p[i]);
      if (std::isfinite(z)) {
        exp_min = std::min(exp_min, z);
        exp_max = std::max(exp_max, z);
      }
    }
    exp_min = exp_min != 0 ? std::floor(std::log10(exp_min)) + 1 : 1;
    exp_max = exp_max != 0 ? std::floor(std::log10(exp_max)) + 1 : 1;
  }
  if (int_mode) {
    if (exp_max > 9) return {1, 11, Style::Scientific};
    return {1, static_cast<int>(exp_max) + 1, Style::General};
  }
  if (exp_max - exp_min > 4) {
    int w = (std::fabs(exp_max) > 99 || std::fabs(exp_min) > 99) ? 12 : 11;
    return {1, w, Style::Scientific};
  }
  if (exp_max > 5 || exp_max < 0) return {std::pow(10, exp_max - 1), 7, Style::Fixed};
  return {1, exp_max == 0 ? 7 : static_cast<int>(exp_max) + 6, Style::Fixed};
}

void put_value(std::string& out, double v, const Layout& l) {
  char buf[512];
  const double x = v / l.scale;
  const char* f = l.style == Style::General ? "%*g" : l.style == Style::Scientific ? "%*.4e" : "%*.4f";
  std::snprintf(buf, sizeof buf, f, l.width, x);
  out += buf;
}

void put_scale(std::string& out, const Layout& l, int64_t indent) {
  if (l.scale != 1) out += shortest_double_str(l.scale) + " *\n" + std::string(static_cast<size_t>(indent), ' ');
}

// A matrix (rows x cols at p, row-major), in chunks of columns that fit 80 characters, as ATen's __printMatrix.
void put_matrix(std::string& out, const double* p, int64_t rows, int64_t cols, int64_t indent) {
  const Layout l = choose_layout(p, rows * cols);
  const std::string pad(static_cast<size_t>(indent), ' ');
  const int64_t per_line = std::max<int64_t>((80 - indent) / (l.width + 1), 1);
  for (int64_t first = 0; first < cols;) {
    const int64_t last = std::min(first + per_line, cols) - 1;
    if (per_line < cols) {
      if (first != 0) out += '\n';
      out += "Columns " + std::to_string(first + 1) + " to " + std::to_string(last + 1) + pad;
    }
    put_scale(out, l, indent);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = first; c <= last; ++c) {
        put_value(out, p[r * cols + c], l);
        if (c != last) {
          out += ' ';
          continue;
        }
        out += '\n';
        if (r != rows - 1) out += l.scale != 1 ? pad + " " : pad;
      }
    }
    first = last + 1;
  }
}

}  // namespace

std::string script_tensor_str(const Tensor& t) {
  if (!t.defined()) return "[ Tensor (undefined) ]";
  const std::string type = std::string("[ CPU") + legacy_type_name(t.dtype()) + "Type{";
  std::string dims;
  for (size_t i = 0; i < t.sizes().size(); ++i) dims += (i ? "," : "") + std::to_string(t.sizes()[i]);
  if (t.is_meta() || is_complex_type(t.dtype())) return "<Tensor>";  // (no values / complex: not printed here)
  Tensor d;
  {
    autograd::NoGradGuard no_grad;
    d = tl::contiguous(tl::to(t, ScalarType::Float64, false, true));
  }
  const double* p = d.data_ptr<double>();
  const int64_t n = d.numel(), dim = d.dim();
  std::string out;
  if (dim == 0) {
    out = shortest_double_str(p[0]) + "\n";
  } else if (dim == 1 && n > 0) {
    const Layout l = choose_layout(p, n);
    put_scale(out, l, 0);
    for (int64_t i = 0; i < n; ++i) {
      put_value(out, p[i], l);
      out += '\n';
    }
  } else if (dim == 2 && n > 0) {
    put_matrix(out, p, d.sizes()[0], d.sizes()[1], 0);
  } else if (n > 0) {  // one "(i,j,.,.) = " matrix per index of the leading dimensions, the first fastest (ATen's order)
    const int64_t rows = d.sizes()[dim - 2], cols = d.sizes()[dim - 1];
    const size_t lead = static_cast<size_t>(dim - 2);
    std::vector<int64_t> idx(lead, 0);
    for (bool first = true;; first = false) {
      int64_t offset = 0;  // the matrix's position in the contiguous values
      for (size_t k = 0; k < lead; ++k) offset = offset * d.sizes()[k] + idx[k];
      if (!first) out += '\n';
      out += '(';
      for (int64_t v : idx) out += std::to_string(v + 1) + ",";
      out += ".,.) = \n";
      put_matrix(out, p + offset * rows * cols, rows, cols, 1);
      size_t k = 0;
      for (; k < lead; ++k) {
        if (++idx[k] < d.sizes()[k]) break;
        idx[k] = 0;
      }
      if (k == lead) break;
    }
  }
  return out + type + dims + "} ]";
}

}  // namespace tl::jit
