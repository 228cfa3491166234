// Formula helpers for the index family (FunctionsManualIndex.h).
#include "aten/autograd/FunctionsManualIndex.h"

#include "aten/core/Exception.h"

namespace tl::autograd::generated {

Tensor not_implemented(const char* aten_op) {
  throw RuntimeError(str("derivative for ", aten_op, " is not implemented"));
}

}  // namespace tl::autograd::generated
