// Loads every archive given on the command line and runs its forward on a random input of the
// model's shape (from the file name); every error must be a tl::Error (or std::bad_alloc). Each forward runs in a
// child process stopped after 20 s (counted as a timeout: a valid graph may loop for ages).
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include "aten/jit/Serialization.h"
#include "aten/core/Exception.h"
#include "generated/ops/randn.h"

using namespace tl;
int main(int argc, char** argv) {
  int loaded = 0, refused = 0, ran = 0, run_errors = 0, timeouts = 0;
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
    // The forward runs in a child process with a time limit: an archive may hold a valid graph that loops for
    // ages (a loop count or an argument default edited to 2**62), which is no fault of the reader. A sanitizer
    // report in the child aborts it, and aborts this program too.
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      alarm(20);
      int code = 0;
      try {
        auto out = l.module->run_method("forward", {jit::IValue(tl::randn(shape))});
      } catch (const tl::Error&) {
        code = 1;
      } catch (const std::bad_alloc&) {
        code = 1;
      }
      _exit(code);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      ran++;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 1) {
      run_errors++;
    } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
      timeouts++;
    } else {
      std::printf("forward of %s died (status %d)\n", path.c_str(), status);
      std::abort();
    }
  }
  std::printf("loaded %d refused %d ran %d run_errors %d timeouts %d\n", loaded, refused, ran, run_errors, timeouts);
}
