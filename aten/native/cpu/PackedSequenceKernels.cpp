// Packed sequences (torch.nn.utils.rnn): _pack_padded_sequence, its inverse _pad_packed_sequence (whose
// composite _pack_padded_sequence_backward is the input gradient of packing), and pad_sequence.
//
// A packed sequence keeps, step after step, the rows of the sequences still running at that step:
// with the batch sorted by decreasing length, step t holds batch rows 0 .. batch_sizes[t] - 1. In a
// (T, B, *) padded batch those rows are contiguous, so packing and unpacking copy one block per step.
#include <cstring>
#include <string_view>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/_pack_padded_sequence.h"
#include "generated/ops/_pack_padded_sequence_backward.h"
#include "generated/ops/_pad_packed_sequence.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/full.h"
#include "generated/ops/narrow.h"
#include "generated/ops/pad_sequence.h"
#include "generated/ops/select.h"
#include "generated/ops/transpose.h"

namespace tl::native {
namespace {

// PyTorch's requirement on lengths and batch_sizes: a 1-D int64 CPU tensor.
void check_long_vector(const char* op, const Tensor& t) {
  TL_CHECK(t.dim() == 1 && t.is_cpu() && t.dtype() == ScalarType::Int64, op,
           ": 'lengths' argument should be a 1D CPU int64 tensor, but got ", t.dim(), "D ",
           t.is_cpu() ? "cpu" : "meta", " ", scalar_type_name(t.dtype()), " tensor");
}

std::vector<int64_t> to_vector(const Tensor& t) {
  const Tensor c = tl::contiguous(t);
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

// The bytes of one (batch) row of a (T, B, *) tensor: the product of the trailing sizes.
size_t row_bytes(const Tensor& t, int64_t first_trailing_dim) {
  int64_t n = 1;
  for (int64_t d = first_trailing_dim; d < t.dim(); ++d) n *= t.sizes()[d];
  return static_cast<size_t>(n) * t.itemsize();
}

}  // namespace

std::tuple<Tensor, Tensor> pack_padded_sequence_kernel(const Tensor& input, const Tensor& lengths, bool batch_first) {
  const char* op = "_pack_padded_sequence";
  // PyTorch's order: the batch_first transpose, the lengths check, then the input's batch size.
  const bool is_2d = input.dim() >= 2;
  TL_CHECK_INDEX(is_2d || !batch_first, op, ": Dimension out of range (expected to be in range of [",
                 -std::max<int64_t>(input.dim(), 1), ", ", std::max<int64_t>(input.dim(), 1) - 1, "], but got 1)");
  check_long_vector(op, lengths);
  TL_CHECK_INDEX(is_2d, op, ": Dimension out of range (expected to be in range of [",
                 -std::max<int64_t>(input.dim(), 1), ", ", std::max<int64_t>(input.dim(), 1) - 1, "], but got 1)");
  const Tensor x = batch_first ? tl::transpose(input, 0, 1) : input;  // (T, B, *)
  const int64_t steps = x.sizes()[0], batch = x.sizes()[1];
  TL_CHECK(input.numel() > 0, op, ": Cannot pack empty tensors.");
  TL_CHECK(lengths.sizes()[0] == batch, op, ": Expected `len(lengths)` to be equal to batch_size, but got ",
           lengths.sizes()[0], " (batch_size=", batch, ")");
  const std::vector<int64_t> len = to_vector(lengths);
  TL_CHECK(len[batch - 1] > 0, op, ": Length of all samples has to be greater than 0, but found an element in "
           "'lengths' that is <= 0");
  for (int64_t i = 0; i + 1 < batch; ++i)
    TL_CHECK(len[i] >= len[i + 1], op, ": `lengths` array must be sorted in decreasing order when `enforce_sorted` "
             "is True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep "
             "this requirement if you do not need ONNX exportability.");
  // PyTorch reads past the input here; torchlite refuses.
  TL_CHECK(len[0] <= steps, op, ": a length (", len[0], ") exceeds the padded sequence length ", steps);

  Tensor batch_sizes = empty_tensor({len[0]}, ScalarType::Int64);
  int64_t* bs = batch_sizes.data_ptr<int64_t>();
  int64_t total = 0;
  for (int64_t t = 0, b = batch; t < len[0]; ++t) {
    while (len[b - 1] <= t) --b;  // the sequences still running at step t
    bs[t] = b;
    total += b;
  }
  DimVector shape{total};
  for (int64_t d = 2; d < x.dim(); ++d) shape.push_back(x.sizes()[d]);
  Tensor data = empty_tensor(shape, input.dtype(), input.device());
  const Tensor xc = tl::contiguous(x);
  const size_t row = row_bytes(xc, 2);
  const char* src = static_cast<const char*>(xc.data_ptr());
  char* dst = static_cast<char*>(data.data_ptr());
  for (int64_t t = 0; t < len[0]; ++t) {
    std::memcpy(dst, src + static_cast<size_t>(t * batch) * row, static_cast<size_t>(bs[t]) * row);
    dst += static_cast<size_t>(bs[t]) * row;
  }
  return {data, batch_sizes};
}

std::tuple<Tensor, Tensor> pad_packed_sequence_kernel(const Tensor& data, const Tensor& batch_sizes, bool batch_first,
                                                      const Scalar& padding_value, int64_t total_length) {
  const char* op = "_pad_packed_sequence";
  check_long_vector(op, batch_sizes);
  const std::vector<int64_t> bs = to_vector(batch_sizes);
  TL_CHECK(!bs.empty(), op, ": batch_sizes must not be empty");
  TL_CHECK(data.dim() >= 1, op, ": expected packed data of at least one dimension, got a 0-D tensor");
  int64_t total = 0;
  for (size_t t = 0; t < bs.size(); ++t) {
    TL_CHECK(bs[t] > 0 && (t == 0 || bs[t] <= bs[t - 1]), op,
             ": batch_sizes must be positive and non-increasing, got ", batch_sizes.sizes()[0] > 0 ? bs[t] : 0,
             " at step ", t);
    total += bs[t];
  }
  TL_CHECK(total == data.sizes()[0], op, ": batch_sizes sum to ", total, " but data has ", data.sizes()[0], " rows");
  const int64_t real_steps = static_cast<int64_t>(bs.size()), batch = bs[0];
  int64_t steps = real_steps;
  if (total_length > 0) {
    TL_CHECK(total_length >= real_steps, op, ": Expected total_length to be at least the length of the longest "
             "sequence in input, but got total_length=", total_length, " and max sequence length being ", real_steps);
    steps = total_length;
  }
  DimVector shape{steps, batch};
  for (int64_t d = 1; d < data.dim(); ++d) shape.push_back(data.sizes()[d]);
  Tensor out = tl::full(shape, padding_value, data.dtype(), data.device());
  const Tensor dc = tl::contiguous(data);
  const size_t row = row_bytes(dc, 1);
  const char* src = static_cast<const char*>(dc.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  for (int64_t t = 0; t < real_steps; ++t) {
    std::memcpy(dst + static_cast<size_t>(t * batch) * row, src, static_cast<size_t>(bs[t]) * row);
    src += static_cast<size_t>(bs[t]) * row;
  }
  // Sequence b runs for as many steps as have more than b rows.
  Tensor lengths = empty_tensor({batch}, ScalarType::Int64);
  int64_t* len = lengths.data_ptr<int64_t>();
  for (int64_t b = 0, t = real_steps; b < batch; ++b) {
    while (bs[t - 1] <= b) --t;
    len[b] = t;
  }
  return {batch_first ? tl::transpose(out, 0, 1) : out, lengths};
}

Tensor pack_padded_sequence_backward_composite(const Tensor& grad_output, IntArrayRef input_size, const Tensor& batch_sizes,
                                               bool batch_first) {
  const char* op = "_pack_padded_sequence_backward";
  TL_CHECK_INDEX(grad_output.dim() > 0, op, ": slice() cannot be applied to a 0-dim tensor.");  // PyTorch's
  TL_CHECK(input_size.size() >= 2, op, ": expected an input size of at least 2 dimensions, got ", input_size);
  const int64_t steps = input_size[batch_first ? 1 : 0], batch = input_size[batch_first ? 0 : 1];
  check_long_vector(op, batch_sizes);
  TL_CHECK(batch_sizes.numel() > 0 && batch_sizes.numel() <= steps, op, ": ", batch_sizes.numel(),
           " batch sizes for a padded sequence of length ", steps);
  TL_CHECK(to_vector(batch_sizes)[0] == batch, op, ": batch_sizes[0] (", to_vector(batch_sizes)[0],
           ") must equal the batch size ", batch);
  // Unpacking is the transpose of packing: the packed gradient unpacked over zeros.
  Tensor padded = std::get<0>(tl::_pad_packed_sequence(grad_output, batch_sizes, batch_first, 0, steps));
  TL_CHECK(padded.sizes() == input_size, op, ": grad of shape ", grad_output.sizes(), " does not unpack to the input size ",
           input_size);
  return padded;
}

Tensor pad_sequence_kernel(TensorList sequences, bool batch_first, double padding_value,
                           std::string_view padding_side) {
  const char* op = "pad_sequence";
  TL_CHECK(!sequences.empty(), op, ": received an empty list of sequences");
  TL_CHECK(padding_side == "left" || padding_side == "right", op,
           ": Expected padding_side to be one of left or right, but got ", padding_side, ".");
  // PyTorch's errors for 0-d sequences: the first one's trailing sizes, then any one's length.
  TL_CHECK(sequences[0].dim() >= 1, op, ": ArrayRef: invalid slice, N = 1; size = 0");
  int64_t max_len = 0;
  for (const Tensor& s : sequences) {
    TL_CHECK_INDEX(s.dim() >= 1, op, ": Dimension specified as 0 but tensor has no dimensions");
    max_len = std::max(max_len, s.sizes()[0]);
  }
  const Tensor& first = sequences[0];
  DimVector shape = batch_first ? DimVector{static_cast<int64_t>(sequences.size()), max_len}
                                : DimVector{max_len, static_cast<int64_t>(sequences.size())};
  for (int64_t d = 1; d < first.dim(); ++d) shape.push_back(first.sizes()[d]);
  Tensor out = tl::full(shape, padding_value, first.dtype(), first.device());
  for (size_t i = 0; i < sequences.size(); ++i) {
    const int64_t len = sequences[i].sizes()[0];
    const Tensor row = tl::select(out, batch_first ? 0 : 1, static_cast<int64_t>(i));
    // copy_ casts to the first sequence's dtype and broadcasts, as PyTorch's.
    tl::copy_(tl::narrow(row, 0, padding_side == "left" ? max_len - len : 0, len), sequences[i]);
  }
  return out;
}

}  // namespace tl::native
