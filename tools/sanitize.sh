#!/usr/bin/env bash
# Builds torchlite with AddressSanitizer and UndefinedBehaviorSanitizer and runs the tests, or the
# fuzzer, under it:
#   tools/sanitize.sh [pytest arguments]        (default: the whole suite, tests/)
#   tools/sanitize.sh --fuzz [fuzzer arguments] (python -m tests.fuzz ..., see docs/testing.md)
# The sanitized objects live in build/native/sanitize-<list>/ and the package is put
# together in build/sanitize/site/, so the normal build (build/native/release/, torchlite/_C*.so)
# is never touched. Python itself is not built with ASan, so the sanitizer runtimes are preloaded.
# Needs Python >= 3.11 (-P keeps the source tree's torchlite off sys.path) and g++.
# Environment: PYTHON (default: python3 on PATH), SANITIZE (default: address,undefined),
# TORCHLITE_BUILD_JOBS as for any build. SANITIZE=none: the same optimization choices, no instrumentation.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
sanitize=${SANITIZE:-address,undefined}
# SANITIZE=none: the sanitized build's optimization choices without instrumentation (setup.py), its own site
site="$root/build/sanitize/site"; [[ "$sanitize" == none ]] && site="$root/build/sanitize/site-none"
cd "$root"

start=$(date +%s)
TORCHLITE_SANITIZE="$sanitize" "$py" setup.py -q build_py --build-lib "$site" build_ext --build-lib "$site"
echo "== sanitizer build ($sanitize) took $(( $(date +%s) - start ))s"

preload=()
[[ ",$sanitize," == *",address,"* ]] && preload+=("$(g++ -print-file-name=libasan.so)")
[[ ",$sanitize," == *",undefined,"* ]] && preload+=("$(g++ -print-file-name=libubsan.so)")
# libstdc++ from the start too: ASan's __cxa_throw interceptor needs the real one loaded when it starts
# (Python does not link it), or the first C++ exception fails an ASan CHECK (libubsan happens to pull it in).
preload+=("$(g++ -print-file-name=libstdc++.so)")
export LD_PRELOAD="${preload[*]}"
# Every report is fatal: the process aborts (SIGABRT) at the first one, so a report fails the test
# run, and kills a fuzz worker, which the fuzzer reports as a crash with its reproducer (the
# sanitized objects are also built with -fno-sanitize-recover).
# Leak detection is off on purpose: CPython does not free its interned objects, module state and
# type objects at exit, and the extension's Python objects are owned by it, so LeakSanitizer would
# report thousands of leaks at every interpreter exit that are not bugs (and a suppressions file
# cannot tell them from torchlite's own: its allocations are reached through those objects).
# allocator_may_return_null: an impossible allocation (a list of 2**40 tensors) throws std::bad_alloc, as
# in the normal build, instead of ASan aborting; real out-of-bounds accesses still abort.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:verify_asan_link_order=0:allocator_may_return_null=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1:${UBSAN_OPTIONS:-}"
export PYTHONPATH="$site:$root"
"$py" -P -c "import torchlite._C as c; assert c.__file__.startswith('$site'), c.__file__"
start=$(date +%s)
status=0
if [[ "${1:-}" == "--fuzz" ]]; then
  shift
  "$py" -P -m tests.fuzz "$@" || status=$?
  what="fuzz"
else
  "$py" -P -m pytest -q -p no:cacheprovider "${@:-tests}" || status=$?
  what="tests"
fi
echo "== $what under sanitizers took $(( $(date +%s) - start ))s (exit $status)"
exit $status
