// The headers (nearly) every source of the build includes, compiled once per build variant into a
// precompiled header that each source reads before its first line (build_support/ninja_build.py):
// parsing them was most of the time of a small source (~0.5 of 0.7-2 CPU-s for a generated shard).
// Only headers that ~all sources include anyway belong here: a change to any of them recompiles
// every source that reads the precompiled header. No source includes this file itself.
#pragma once

#include <functional>
#include <mutex>
#include <numeric>
#include <unordered_map>

#include "aten/core/Layout.h"
#include "aten/core/OpSupport.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
