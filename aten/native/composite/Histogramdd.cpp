// histogramdd, as PyTorch's composite: the bin edges and the histogram come from the underscore
// ops (cpu/HistogramKernels.cpp). The overload taking the edges (histogramdd.TensorList_bins) is
// not declared yet: its C++ API call from the binding is ambiguous with the int[] one (both
// IntArrayRef and TensorList convert from either list); _histogramdd_from_bin_tensors is there.
#include <optional>
#include <tuple>
#include <vector>

#include "aten/core/Exception.h"
#include "generated/ops/_histogramdd_bin_edges.h"
#include "generated/ops/_histogramdd_from_bin_cts.h"
#include "generated/ops/histogramdd.h"

namespace tl::native {

std::tuple<Tensor, std::vector<Tensor>> histogramdd_composite(const Tensor& self, IntArrayRef bins,
                                                              std::optional<ArrayRef<double>> range,
                                                              const std::optional<Tensor>& weight, bool density) {
  std::vector<Tensor> edges = tl::_histogramdd_bin_edges(self, bins, range, weight, density);
  Tensor hist = tl::_histogramdd_from_bin_cts(self, bins, range, weight, density);
  return {hist, edges};
}

std::tuple<Tensor, std::vector<Tensor>> histogramdd_int_bins_composite(const Tensor& self, int64_t bins,
                                                                       std::optional<ArrayRef<double>> range,
                                                                       const std::optional<Tensor>& weight,
                                                                       bool density) {
  TL_CHECK_INDEX(self.dim() > 0, "histogramdd: dimension specified as -1 but tensor has no dimensions");
  const std::vector<int64_t> per_dim(static_cast<size_t>(self.sizes().back()), bins);
  return histogramdd_composite(self, per_dim, range, weight, density);
}

}  // namespace tl::native
