// Helpers that inline composite bodies (`impl:` in native_functions.yaml) may call besides ops.
#pragma once
#include "aten/native/Resize.h"          // resize_output (out= overloads written with impl:)
#include "aten/native/TensorIterator.h"  // empty_like_preserve
#include "aten/native/AdvancedIndexComposites.h"  // where(condition), where with numbers, take_along_dim
#include "aten/core/Warning.h"     // warn (PyTorch's TORCH_WARN)
