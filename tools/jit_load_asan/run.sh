#!/usr/bin/env bash
# The torchlite.jit archive reader under AddressSanitizer and UBSan, without the full sanitized
# build (tools/sanitize.sh rebuilds all ~500 sources): the JIT's own sources (IR, types, values,
# registry, interpreter and its compiled code, zip reader, archive reader) are compiled instrumented and linked with the
# release build's other objects into one program (loadfuzz.cpp), which loads each archive written by
# make_cases.py and runs its forward (in a child process, 20 s at most, one OpenMP thread: a forked child must not
# inherit a thread pool). Any report aborts. Needs a release build (setup.py build_ext).
#   tools/jit_load_asan/run.sh [cases per model, default 1000]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/jit_load_asan.$$}
mkdir -p "$work/obj"
flags="-std=c++17 -fopenmp -O1 -g1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
       -DTL_BLAS_SCIPY_OPENBLAS=1 -I$root -I$root/build/blas/include/blas"
jit="IR Type IValue Interpreter Code OpRegistry Serialization ZipArchive"
for f in $jit; do g++ $flags -c "$root/aten/jit/$f.cpp" -o "$work/obj/$f.o" & done
g++ $flags -c "$root/tools/jit_load_asan/loadfuzz.cpp" -o "$work/obj/loadfuzz.o" &
wait
others=$(find "$root/build/native/release/obj" -name '*.o' | grep -v -e /torchlite/csrc/ -e /generated/python/ \
         | grep -vE "aten/jit/(${jit// /|})\.o$")
mkl=()  # torchlite.fft's MKL, when the release build has it (TORCHLITE_FFT=none builds without)
if [ -e "$root/build/fft/lib/mkl/libmkl_rt.so" ]; then
  real=$(dirname "$(readlink -f "$root/build/fft/lib/mkl/libmkl_rt.so")")  # where libmkl_rt.so.N lies
  mkl=(-L"$root/build/fft/lib/mkl" -lmkl_rt -Wl,-rpath,"$real")
fi
g++ -fopenmp -fsanitize=address,undefined "$work"/obj/*.o $others -L"$root/build/blas/lib/blas" -lscipy_openblas \
    -Wl,-rpath,"$root/build/blas/lib/blas" "${mkl[@]}" -o "$work/loadfuzz"
python "$root/tools/jit_load_asan/make_cases.py" "$work/cases" "${1:-1000}"
OMP_NUM_THREADS=1 ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allocator_may_return_null=1" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" "$work/loadfuzz" "$work"/cases/*.pt
