// tl::LinAlgError: a failed linear algebra computation (a singular matrix in inv/solve ...).
// Python sees torchlite.linalg.LinAlgError (torchlite._C._LinAlgError), a RuntimeError subclass,
// as PyTorch's torch.linalg.LinAlgError. Its own header, so that Exception.h stays untouched.
#pragma once
#include "aten/core/Exception.h"

namespace tl {

struct LinAlgError : RuntimeError {
  using RuntimeError::RuntimeError;
};

}  // namespace tl
