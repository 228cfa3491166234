// The dispatch of the data-moving kernels extended to complex (gather/scatter, index_*, masked_fill,
// put_, index_put): every real dtype but the wide unsigned ones, and complex64/complex128. Kept out of
// aten/core/ScalarType.h, which every file includes.
#pragma once
#include "aten/core/ScalarType.h"

#define TL_DISPATCH_ALL_AND_COMPLEX(dtype, opname, ...)                                               \
  TL_DISPATCH_SWITCH(dtype, opname, TL_CASES_FLOAT(__VA_ARGS__) TL_CASES_INTEGRAL(__VA_ARGS__)        \
                                        TL_CASES_BOOL(__VA_ARGS__) TL_CASES_COMPLEX(__VA_ARGS__))


// The same with complex32 (its element moved or filled as a 4-byte value).
#define TL_DISPATCH_ALL_AND_COMPLEX_AND_CHALF(dtype, opname, ...)                                      \
  TL_DISPATCH_SWITCH(dtype, opname, TL_CASES_FLOAT(__VA_ARGS__) TL_CASES_INTEGRAL(__VA_ARGS__)        \
                                        TL_CASES_BOOL(__VA_ARGS__) TL_CASES_COMPLEX(__VA_ARGS__)      \
                                            TL_CASES_COMPLEX_HALF(__VA_ARGS__))
