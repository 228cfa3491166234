// Helpers that inline composite bodies (`impl:` in native_functions.yaml) may call besides ops.
#pragma once
#include "aten/native/TensorIterator.h"  // empty_like_preserve
