#include "aten/core/Layout.h"

#include <algorithm>

#include "aten/core/Exception.h"

namespace tl {

const char* memory_format_name(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous: return "contiguous_format";
    case MemoryFormat::Preserve: return "preserve_format";
    case MemoryFormat::ChannelsLast: return "channels_last";
    case MemoryFormat::ChannelsLast3d: return "channels_last_3d";
  }
  return "?";
}

DimVector strides_for_memory_format(IntArrayRef sizes, MemoryFormat format) {
  const size_t n = sizes.size();
  DimVector strides(n);
  // Dimensions from the fastest-varying to the slowest: C last for the channels-last formats.
  DimVector order(n);
  switch (format) {
    case MemoryFormat::Contiguous:
      for (size_t i = 0; i < n; ++i) order[i] = static_cast<int64_t>(n - 1 - i);
      break;
    case MemoryFormat::ChannelsLast:
      TL_CHECK(n == 4, "required rank 4 tensor to use channels_last format");
      order = {1, 3, 2, 0};
      break;
    case MemoryFormat::ChannelsLast3d:
      TL_CHECK(n == 5, "required rank 5 tensor to use channels_last_3d format");
      order = {1, 4, 3, 2, 0};
      break;
    case MemoryFormat::Preserve:
      TL_CHECK(false, "unsupported memory format Preserve");
  }
  int64_t stride = 1;
  for (int64_t d : order) {
    strides[d] = stride;
    stride *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

bool is_contiguous_in(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format) {
  const DimVector expected = strides_for_memory_format(sizes, format);
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return true;
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] != 1 && strides[d] != expected[d]) return false;
  }
  return true;
}

}  // namespace tl
