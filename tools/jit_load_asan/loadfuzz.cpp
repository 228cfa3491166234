// Loads every archive given on the command line and runs its forward on a random input of the
// model's shape (from the file name); every error must be a tl::Error (or std::bad_alloc).
#include <cstdio>
#include <string>
#include "aten/jit/Serialization.h"
#include "aten/core/Exception.h"
#include "generated/ops/randn.h"

using namespace tl;
int main(int argc, char** argv) {
  int loaded = 0, refused = 0, ran = 0, run_errors = 0;
  for (int i = 1; i < argc; ++i) {
    std::string path = argv[i];
    std::vector<int64_t> shape = path.find("mlp") != std::string::npos ? std::vector<int64_t>{3, 6}
                               : path.find("cnn") != std::string::npos ? std::vector<int64_t>{2, 3, 8, 8}
                                                                     : std::vector<int64_t>{2, 4, 5};
    jit::Loaded l;
    try {
      l = jit::load_module_file(path);
      loaded++;
    } catch (const tl::Error& e) {
      refused++;
      continue;
    }
    try {
      auto out = l.module->run_method("forward", {jit::IValue(tl::randn(shape))});
      ran++;
    } catch (const tl::Error&) {
      run_errors++;
    } catch (const std::bad_alloc&) {
      run_errors++;
    }
  }
  std::printf("loaded %d refused %d ran %d run_errors %d\n", loaded, refused, ran, run_errors);
}
