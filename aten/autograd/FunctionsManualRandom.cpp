#include "aten/autograd/FunctionsManualRandom.h"

#include "aten/core/Exception.h"

namespace tl::autograd::generated {

Tensor not_implemented(const char* op) { TL_CHECK(false, "derivative for ", op, " is not implemented"); }

}  // namespace tl::autograd::generated
