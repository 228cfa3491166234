// Layout and MemoryFormat: the `Layout?` and `MemoryFormat?` arguments of ops (torchlite.strided,
// torchlite.contiguous_format, ... in Python). torchlite has dense (strided) tensors only.
#pragma once
#include <cstdint>

#include "aten/core/ArrayRef.h"

namespace tl {

enum class Layout : int8_t { Strided };

enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

const char* memory_format_name(MemoryFormat f);  // "contiguous_format", "channels_last", ...

// Strides of a new dense tensor of `sizes` in `format` (Contiguous, ChannelsLast for 4-D,
// ChannelsLast3d for 5-D). RuntimeError as PyTorch for Preserve ("unsupported memory format
// Preserve") and for a rank the format does not fit ("required rank 4 tensor to use channels_last
// format").
DimVector strides_for_memory_format(IntArrayRef sizes, MemoryFormat format);
// Whether a tensor of (sizes, strides) is already laid out in `format` (dims of size 1 do not
// matter, as in PyTorch's is_contiguous(memory_format=...)).
bool is_contiguous_in(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format);

}  // namespace tl
