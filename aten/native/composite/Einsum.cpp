// einsum: Einstein summation contracted pairwise through matrix products, as opt_einsum does.
//
//   1. Parse the equation: one term per operand (letters, at most one "..."), an explicit output
//      after "->" or PyTorch's implicit one (the ellipsis dims, then the letters used once, A-Z
//      before a-z). Ellipsis dims become labels of their own, aligned from the right.
//   2. Per operand: repeated labels become diagonals (views); labels used by no other operand and
//      not in the output are summed away at once.
//   3. Pairs of operands are contracted in the order `path` gives (opt_einsum's format: pairs of
//      positions in the current list, the result appended at its end) or, without one, in the
//      order with the fewest multiply-adds (every order for up to 6 operands, greedy beyond).
//      One pairwise contraction: labels both sides keep are batch dims, labels only they share
//      are summed over; both sides are permuted and reshaped to [batch, rows, depth] and
//      [batch, depth, cols] for one bmm (mm without batch labels). Size-1 dims broadcast.
//   4. The last tensor's labels are permuted into the output's order.
// Everything is public ops (diagonal, sum, permute, reshape, expand, mm, bmm), so autograd comes
// from them.
#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/bmm.h"
#include "generated/ops/diagonal.h"
#include "generated/ops/einsum.h"
#include "generated/ops/expand.h"
#include "generated/ops/mm.h"
#include "generated/ops/mul.h"
#include "generated/ops/permute.h"
#include "generated/ops/reshape.h"
#include "generated/ops/sum.h"

namespace tl::native {

namespace {

constexpr int kLetters = 52;      // A-Z are labels 0..25, a-z 26..51
constexpr int kEllipsis = -1;     // marks "..." in a parsed term
constexpr int kMaxLabels = kLetters + 64;  // ellipsis dims are labels 52, 53, ...

int label_of(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : c - 'a' + 26; }
char letter_of(int l) { return static_cast<char>(l < 26 ? 'A' + l : 'a' + (l - 26)); }
bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// One term ("ij...k") as labels, kEllipsis where "..." is. `what` names it in messages.
std::vector<int> parse_term(std::string_view term, const std::string& what) {
  std::vector<int> labels;
  bool ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    const char c = term[i];
    if (c == ' ') continue;
    if (c == '.') {
      TL_CHECK(!ellipsis, "einsum(): found '.' for ", what, " for which an ellipsis was already found");
      TL_CHECK(i + 2 < term.size() + 0 && term[i + 1] == '.' && term[i + 2] == '.', "einsum(): found '.' for ",
               what, " that is not part of any ellipsis");
      ellipsis = true;
      labels.push_back(kEllipsis);
      i += 2;
      continue;
    }
    TL_CHECK(is_letter(c), "einsum(): invalid subscript given at index ", i, " in the equation string, subscripts must be in [a-zA-Z]");
    labels.push_back(label_of(c));
  }
  return labels;
}

std::string label_name(int l) { return l < kLetters ? std::string(1, letter_of(l)) : std::string("..."); }

// An operand during the contraction: a tensor and the label of each of its dims (all distinct).
struct Term {
  Tensor t;
  std::vector<int> labels;
};

using LabelSet = std::array<bool, kMaxLabels>;

// Labels of `terms` other than i and j, plus the output's: those a contraction must keep.
LabelSet kept_labels(const std::vector<std::vector<int>>& terms, size_t i, size_t j, const std::vector<int>& output) {
  LabelSet keep{};
  for (int l : output) keep[size_t(l)] = true;
  for (size_t k = 0; k < terms.size(); ++k)
    if (k != i && k != j)
      for (int l : terms[k]) keep[size_t(l)] = true;
  return keep;
}

// The labels of contracting a and b (the kept ones of both) and the multiply-adds it costs.
std::vector<int> contracted_labels(const std::vector<int>& a, const std::vector<int>& b, const LabelSet& keep,
                                   const std::vector<int64_t>& size, double* cost) {
  LabelSet seen{};
  std::vector<int> out;
  double c = 1;
  for (const auto* side : {&a, &b})
    for (int l : *side) {
      if (seen[size_t(l)]) continue;
      seen[size_t(l)] = true;
      c *= double(size[size_t(l)]);
      if (keep[size_t(l)]) out.push_back(l);
    }
  *cost = c;
  return out;
}

// The order of fewest multiply-adds, as a flat list of position pairs (opt_einsum's format).
void best_path(std::vector<std::vector<int>> terms, const std::vector<int>& output, const std::vector<int64_t>& size,
               double so_far, std::vector<int64_t>& path, double& best, std::vector<int64_t>& best_path_out) {
  if (terms.size() <= 1) {
    if (so_far < best) best = so_far, best_path_out = path;
    return;
  }
  for (size_t i = 0; i < terms.size(); ++i)
    for (size_t j = i + 1; j < terms.size(); ++j) {
      double cost = 0;
      const auto labels = contracted_labels(terms[i], terms[j], kept_labels(terms, i, j, output), size, &cost);
      if (so_far + cost >= best) continue;
      std::vector<std::vector<int>> next;
      for (size_t k = 0; k < terms.size(); ++k)
        if (k != i && k != j) next.push_back(terms[k]);
      next.push_back(labels);
      path.push_back(int64_t(i)), path.push_back(int64_t(j));
      best_path(std::move(next), output, size, so_far + cost, path, best, best_path_out);
      path.resize(path.size() - 2);
    }
}

std::vector<int64_t> choose_path(const std::vector<Term>& ops, const std::vector<int>& output,
                                 const std::vector<int64_t>& size) {
  std::vector<std::vector<int>> terms;
  for (const auto& op : ops) terms.push_back(op.labels);
  std::vector<int64_t> path;
  if (terms.size() <= 6) {
    std::vector<int64_t> scratch;
    double best = std::numeric_limits<double>::infinity();
    best_path(terms, output, size, 0.0, scratch, best, path);
    return path;
  }
  // Greedy: the cheapest next contraction each time.
  while (terms.size() > 1) {
    double best = std::numeric_limits<double>::infinity();
    size_t bi = 0, bj = 1;
    std::vector<int> best_labels;
    for (size_t i = 0; i < terms.size(); ++i)
      for (size_t j = i + 1; j < terms.size(); ++j) {
        double cost = 0;
        auto labels = contracted_labels(terms[i], terms[j], kept_labels(terms, i, j, output), size, &cost);
        if (cost < best) best = cost, bi = i, bj = j, best_labels = std::move(labels);
      }
    terms.erase(terms.begin() + long(bj));
    terms.erase(terms.begin() + long(bi));
    terms.push_back(best_labels);
    path.push_back(int64_t(bi)), path.push_back(int64_t(bj));
  }
  return path;
}

// Sums away the dims of `op` whose labels are not in `keep`: in its own dtype between products
// (both sides of a product need one dtype), else as `sum` does (integers in int64, as PyTorch).
void sum_unkept(Term& op, const LabelSet& keep, bool keep_dtype = true) {
  DimVector dims;
  std::vector<int> labels;
  for (size_t d = 0; d < op.labels.size(); ++d) {
    if (keep[size_t(op.labels[d])]) labels.push_back(op.labels[d]);
    else dims.push_back(int64_t(d));
  }
  if (dims.empty()) return;
  op.t = keep_dtype ? tl::sum(op.t, dims, false, op.t.dtype()) : tl::sum(op.t, dims, false);
  op.labels = std::move(labels);
}

int64_t dim_of(const Term& op, int l) {
  for (size_t d = 0; d < op.labels.size(); ++d)
    if (op.labels[d] == l) return int64_t(d);
  return -1;
}

// permute/reshape that skip the call when nothing changes: a contraction is a handful of ops
// around one product, and for small operands their per-call cost is what einsum adds to it.
Tensor permuted(const Tensor& t, IntArrayRef perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != int64_t(i)) return tl::permute(t, perm);
  return t;
}
Tensor reshaped(const Tensor& t, IntArrayRef shape) { return t.sizes() == shape ? t : tl::reshape(t, shape); }

// One pairwise contraction (step 3 of the header).
Term contract(Term a, Term b, const LabelSet& keep) {
  // Labels only one side has and nobody keeps are summed first; so are shared labels nobody
  // keeps where one side has size 1 (a size-1 dim broadcasts: sum the other side over it).
  LabelSet in_a{}, in_b{};
  for (int l : a.labels) in_a[size_t(l)] = true;
  for (int l : b.labels) in_b[size_t(l)] = true;
  LabelSet keep_a = keep, keep_b = keep;
  for (int l : a.labels) {
    if (!in_b[size_t(l)]) continue;
    const int64_t sa = a.t.sizes()[dim_of(a, l)], sb = b.t.sizes()[dim_of(b, l)];
    const bool one_sided = sa != sb && (sa == 1 || sb == 1);
    keep_a[size_t(l)] = keep[size_t(l)] || !one_sided;
    keep_b[size_t(l)] = keep[size_t(l)] || !one_sided;
  }
  sum_unkept(a, keep_a);
  sum_unkept(b, keep_b);
  in_a = {}, in_b = {};
  for (int l : a.labels) in_a[size_t(l)] = true;
  for (int l : b.labels) in_b[size_t(l)] = true;

  std::vector<int> batch, free_a, free_b, depth;
  for (int l : a.labels) {
    if (!in_b[size_t(l)]) free_a.push_back(l);
    else if (keep[size_t(l)]) batch.push_back(l);
    else depth.push_back(l);
  }
  for (int l : b.labels)
    if (!in_a[size_t(l)]) free_b.push_back(l);
  // Batch dims broadcast: a size-1 side is expanded to the other's size.
  DimVector ea(a.t.sizes()), eb(b.t.sizes());
  for (int l : batch) {
    int64_t& sa = ea[size_t(dim_of(a, l))];
    int64_t& sb = eb[size_t(dim_of(b, l))];
    sa = sb = std::max(sa, sb);
  }
  if (ea != DimVector(a.t.sizes())) a.t = tl::expand(a.t, ea);
  if (eb != DimVector(b.t.sizes())) b.t = tl::expand(b.t, eb);

  auto gather = [](const Term& op, std::initializer_list<const std::vector<int>*> groups, DimVector& perm,
                   std::vector<int64_t>& group_sizes) {
    for (const auto* g : groups) {
      int64_t n = 1;
      for (int l : *g) {
        const int64_t d = dim_of(op, l);
        perm.push_back(d);
        n *= op.t.sizes()[d];
      }
      group_sizes.push_back(n);
    }
  };
  DimVector perm_a, perm_b;
  std::vector<int64_t> ga, gb;  // [batch, rows, depth] and [batch, depth, cols]
  gather(a, {&batch, &free_a, &depth}, perm_a, ga);
  gather(b, {&batch, &depth, &free_b}, perm_b, gb);
  Term r;
  DimVector out_shape;
  for (const auto* g : {&batch, &free_a})
    for (int l : *g) r.labels.push_back(l), out_shape.push_back(a.t.sizes()[dim_of(a, l)]);
  for (int l : free_b) r.labels.push_back(l), out_shape.push_back(b.t.sizes()[dim_of(b, l)]);
  const Tensor pa = permuted(a.t, perm_a), pb = permuted(b.t, perm_b);
  Tensor product;
  if (depth.empty()) {
    // Nothing summed: a broadcast product (as PyTorch, which also lets bool through here).
    product = tl::mul(reshaped(pa, DimVector{ga[0], ga[1], 1}), reshaped(pb, DimVector{gb[0], 1, gb[2]}));
  } else if (batch.empty()) {
    product = tl::mm(reshaped(pa, DimVector{ga[1], ga[2]}), reshaped(pb, DimVector{gb[1], gb[2]}));
  } else {
    product = tl::bmm(reshaped(pa, DimVector{ga[0], ga[1], ga[2]}), reshaped(pb, DimVector{gb[0], gb[1], gb[2]}));
  }
  r.t = reshaped(product, out_shape);
  return r;
}

}  // namespace

Tensor einsum_composite(std::string_view equation, TensorList tensors, OptionalIntArrayRef path) {
  const size_t arrow = equation.find("->");
  const std::string_view lhs = equation.substr(0, arrow);
  std::vector<std::string_view> inputs;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    inputs.push_back(lhs.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  TL_CHECK(!tensors.empty(), "einsum(): must provide at least one operand");
  TL_CHECK(inputs.size() <= tensors.size(), "einsum(): fewer operands were provided than specified in the equation");
  TL_CHECK(inputs.size() >= tensors.size(), "einsum(): more operands were provided than specified in the equation");

  // 1. Terms, with ellipsis dims given labels 52.. aligned from the right.
  std::vector<std::vector<int>> parsed;
  int64_t ell_dims = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    parsed.push_back(parse_term(inputs[i], "operand " + std::to_string(i)));
    const auto& p = parsed.back();
    const bool has_ell = std::find(p.begin(), p.end(), kEllipsis) != p.end();
    const int64_t letters = int64_t(p.size()) - (has_ell ? 1 : 0), nd = tensors[i].dim();
    if (has_ell) {
      TL_CHECK(letters <= nd, "einsum(): the number of subscripts in the equation (", letters,
               ") is more than the number of dimensions (", nd, ") for operand ", i);
      ell_dims = std::max(ell_dims, nd - letters);
    } else {
      TL_CHECK(letters == nd, "einsum(): the number of subscripts in the equation (", letters,
               ") does not match the number of dimensions (", nd, ") for operand ", i, " and no ellipsis was given");
    }
  }
  TL_CHECK(ell_dims <= kMaxLabels - kLetters, "einsum(): too many dimensions covered by the ellipsis");
  std::vector<Term> ops;
  std::array<int, kMaxLabels> count{};
  for (size_t i = 0; i < parsed.size(); ++i) {
    Term op{tensors[i], {}};
    const int64_t nd = tensors[i].dim(), here = nd - (int64_t(parsed[i].size()) - 1);
    for (int l : parsed[i]) {
      if (l != kEllipsis) {
        op.labels.push_back(l);
        continue;
      }
      for (int64_t e = 0; e < here; ++e) op.labels.push_back(int(kLetters + ell_dims - here + e));
    }
    ops.push_back(std::move(op));
  }

  // 2. Diagonals of repeated labels, then sizes (size-1 dims broadcast).
  std::vector<int64_t> size(kMaxLabels, -1);
  for (size_t i = 0; i < ops.size(); ++i) {
    Term& op = ops[i];
    for (bool again = true; again;) {
      again = false;
      for (size_t p = 0; p < op.labels.size() && !again; ++p)
        for (size_t q = p + 1; q < op.labels.size() && !again; ++q) {
          if (op.labels[p] != op.labels[q]) continue;
          const int64_t sp = op.t.sizes()[int64_t(p)], sq = op.t.sizes()[int64_t(q)];
          TL_CHECK(sp == sq, "einsum(): subscript ", label_name(op.labels[p]), " is repeated for operand ", i,
                   " but the sizes don't match, ", sp, " != ", sq);
          const int l = op.labels[p];
          op.t = tl::diagonal(op.t, 0, int64_t(p), int64_t(q));  // the diagonal becomes the last dim
          op.labels.erase(op.labels.begin() + long(q));
          op.labels.erase(op.labels.begin() + long(p));
          op.labels.push_back(l);
          again = true;
        }
    }
    for (size_t d = 0; d < op.labels.size(); ++d) {
      const int l = op.labels[d];
      const int64_t s = op.t.sizes()[int64_t(d)];
      int64_t& seen = size[size_t(l)];
      if (l < kLetters) {
        TL_CHECK(seen == -1 || seen == s || seen == 1 || s == 1, "einsum(): subscript ", letter_of(l), " has size ",
                 s, " for operand ", i, " which does not broadcast with previously seen size ", seen);
      } else {
        TL_CHECK(seen == -1 || seen == s || seen == 1 || s == 1,
                 "einsum(): operands do not broadcast: the dimensions covered by the ellipsis have sizes ", seen,
                 " and ", s, " (operand ", i, ")");
      }
      seen = seen == -1 || seen == 1 ? s : seen;
      ++count[size_t(l)];
    }
  }

  // The output's labels.
  std::vector<int> output;
  if (arrow != std::string_view::npos) {
    LabelSet used{};
    for (int l : parse_term(equation.substr(arrow + 2), "the output")) {
      if (l == kEllipsis) {
        for (int64_t e = 0; e < ell_dims; ++e) output.push_back(int(kLetters + e));
        continue;
      }
      TL_CHECK(!used[size_t(l)], "einsum(): output subscript ", letter_of(l), " appears more than once in the output");
      TL_CHECK(count[size_t(l)] > 0, "einsum(): output subscript ", letter_of(l),
               " does not appear in the equation for any input operand");
      used[size_t(l)] = true;
      output.push_back(l);
    }
  } else {
    for (int64_t e = 0; e < ell_dims; ++e) output.push_back(int(kLetters + e));
    for (int l = 0; l < kLetters; ++l) {
      bool repeated_in_one = false;
      for (const auto& p : parsed) repeated_in_one |= std::count(p.begin(), p.end(), l) > 1;
      if (count[size_t(l)] == 1 && !repeated_in_one) output.push_back(l);
    }
  }

  // Labels no other operand uses and the output drops are summed away at once.
  std::vector<std::vector<int>> all_labels;
  for (const auto& op : ops) all_labels.push_back(op.labels);
  if (ops.size() > 1)
    for (size_t i = 0; i < ops.size(); ++i) sum_unkept(ops[i], kept_labels(all_labels, i, i, output));

  // 3. Pairwise contractions.
  std::vector<int64_t> order;
  if (path.has_value()) {
    order.assign(path->begin(), path->end());
    TL_CHECK(order.size() == 2 * (ops.size() - 1), "einsum(): the path must have ", 2 * (ops.size() - 1),
             " entries (a pair per contraction) for ", ops.size(), " operands, but got ", order.size());
  } else if (ops.size() == 2) {
    order = {0, 1};  // the only pair
  } else if (ops.size() > 2) {
    // The order depends only on the equation and the operands' shapes: remembered per thread (a
    // few recent ones), since models call einsum with the same ones over and over.
    std::string key(equation);
    for (const auto& t : tensors) {
      key += ';';
      for (int64_t d : t.sizes()) key += std::to_string(d) + ',';
    }
    thread_local std::unordered_map<std::string, std::vector<int64_t>> cache;
    if (auto hit = cache.find(key); hit != cache.end()) {
      order = hit->second;
    } else {
      order = choose_path(ops, output, size);
      if (cache.size() >= 64) cache.clear();
      cache.emplace(std::move(key), order);
    }
  }
  for (size_t s = 0; s < order.size(); s += 2) {
    int64_t i = order[s], j = order[s + 1];
    const int64_t n = int64_t(ops.size());
    TL_CHECK(i >= 0 && j >= 0 && i < n && j < n && i != j, "einsum(): path entry (", i, ", ", j,
             ") is not a pair of distinct operand positions below ", n);
    if (i > j) std::swap(i, j);
    std::vector<std::vector<int>> labels;
    for (const auto& op : ops) labels.push_back(op.labels);
    // The side whose free labels come first in the output goes first, so that the product's rows
    // and columns are already in the output's order (no transposed result to permute back).
    auto first_in_output = [&](const Term& t, const Term& other) {  // over t's labels other lacks
      size_t best = output.size();
      for (int l : t.labels)
        if (dim_of(other, l) < 0)
          for (size_t k = 0; k < output.size(); ++k)
            if (output[k] == l) best = std::min(best, k);
      return best;
    };
    const Term &ti = ops[size_t(i)], &tj = ops[size_t(j)];
    const bool swap = first_in_output(tj, ti) < first_in_output(ti, tj);
    const Term& first = ops[size_t(swap ? j : i)];
    const Term& second = ops[size_t(swap ? i : j)];
    Term r = contract(first, second, kept_labels(labels, size_t(i), size_t(j), output));
    ops.erase(ops.begin() + long(j));
    ops.erase(ops.begin() + long(i));
    ops.push_back(std::move(r));
  }

  // 4. The output's order.
  Term& last = ops[0];
  LabelSet keep{};
  for (int l : output) keep[size_t(l)] = true;
  sum_unkept(last, keep, /*keep_dtype=*/false);
  DimVector perm;
  for (int l : output) perm.push_back(dim_of(last, l));
  // A single operand's result must still be a new view of it; a contraction's is a new tensor already.
  return tensors.size() == 1 ? tl::permute(last.t, perm) : permuted(last.t, perm);
}

}  // namespace tl::native
