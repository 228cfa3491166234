// Checks of the C++ frontend (aten/api/): each line printed is `name value...`, compared by
// tests/test_cpp_frontend.py with what torchlite's Python API computes for the same inputs.
#include <cstdio>
#include <string>

#include <aten/api/jit.h>
#include <aten/api/torchlite.h>

static void row(const char* name, const tl::Tensor& t) {
  std::printf("%s", name);
  for (double v : tl::values_of(t)) std::printf(" %.17g", v);
  std::printf("\n");
}

// Runs f and prints `name <exception kind>: <message>` (or `name no error`).
template <typename F>
static void error_row(const char* name, F f) {
  try {
    f();
    std::printf("%s no error\n", name);
  } catch (const tl::TypeError& e) {
    std::printf("%s TypeError: %s\n", name, e.what());
  } catch (const tl::IndexError& e) {
    std::printf("%s IndexError: %s\n", name, e.what());
  } catch (const tl::ValueError& e) {
    std::printf("%s ValueError: %s\n", name, e.what());
  } catch (const tl::NotImplementedError& e) {
    std::printf("%s NotImplementedError: %s\n", name, e.what());
  } catch (const tl::RuntimeError& e) {
    std::printf("%s RuntimeError: %s\n", name, e.what());
  } catch (const std::exception& e) {
    std::printf("%s other: %s\n", name, e.what());
  }
}

int main(int argc, char** argv) {
  // Eager ops with broadcasting, dtype promotion and the operators.
  tl::Tensor a = tl::tensor_from({1, 2, 3, 4, 5, 6}, {2, 3});
  tl::Tensor b = tl::tensor_from({10, 20, 30});
  row("broadcast_add", a + b);
  row("scalar_ops", (a * 2 - 1) / 4);
  row("matmul", tl::matmul(a, tl::t(a)));
  row("int_plus_float", tl::arange(3) + tl::tensor_from({0.5, 0.5, 0.5}));
  std::printf("int_plus_float_dtype %s\n", tl::scalar_type_name((tl::arange(3) + tl::tensor_from({0.5})).dtype()));
  row("sum_dim", tl::sum(a, std::vector<int64_t>{1}));
  row("softmax", tl::softmax(a, -1));

  // Autograd: backward and grad, second order through create_graph, no_grad.
  tl::Tensor x = tl::tensor_from({0.5, -1.0, 2.0}, {3}, tl::ScalarType::Float64);
  x.set_requires_grad(true);
  tl::Tensor y = tl::sum(tl::tanh(x) * x);
  tl::backward(y);
  row("backward_grad", x.grad());
  tl::Tensor g = tl::grad({tl::sum(x * x * x)}, {x}, {}, false, true)[0];
  row("grad_first", g);
  row("grad_second", tl::grad({tl::sum(g)}, {x})[0]);
  {
    tl::autograd::NoGradGuard no_grad;
    std::printf("no_grad_requires_grad %d\n", static_cast<int>((x * 2).requires_grad()));
  }

  // Errors reach C++ as the exceptions Python maps to PyTorch's types.
  error_row("error_shapes", [&] { tl::add(a, tl::tensor_from({1, 2})); });
  error_row("error_matmul", [&] { tl::matmul(a, a); });
  error_row("error_dim", [&] { tl::sum(a, std::vector<int64_t>{5}); });
  error_row("error_tensor_from", [&] { tl::tensor_from({1, 2, 3}, {2, 2}); });
  error_row("error_load", [&] { tl::jit::load("/nonexistent/model.pt"); });
  if (argc > 1) error_row("error_corrupt", [&] { tl::jit::load(argv[1]); });

  // A scripted module that assigns its attributes and has argument defaults (argv[2]; argv[3]: where
  // to save it after the calls): its state carries over between calls and into the saved archive.
  if (argc > 3) {
    tl::jit::ScriptModule m = tl::jit::load(argv[2]);
    tl::Tensor in = tl::tensor_from({1, 2, 3});
    row("stateful_first", m.forward({in}).toTensor());           // defaults: scale=2.0, mask=None
    row("stateful_second", m.forward({in, 0.5}).toTensor());     // scale given
    row("stateful_masked", m.forward({in, 1.0, tl::tensor_from({0, 1, 0})}).toTensor());
    std::printf("stateful_count %lld\n", static_cast<long long>(m.attr("count").toInt()));
    std::printf("stateful_sub_x %.17g\n", m.attr("sub.x").toDouble());
    row("stateful_buffer", m.attr("total").toTensor());
    m.setattr("count", 10);
    row("stateful_after_set", m.forward({in}).toTensor());
    std::printf("stateful_count_after_set %lld\n", static_cast<long long>(m.attr("count").toInt()));
    error_row("stateful_missing", [&] { m.forward({}); });
    error_row("stateful_too_many", [&] { m.forward({in, 1.0, tl::jit::IValue(), 4}); });
    error_row("stateful_bad_set", [&] { m.setattr("count", 1.5); });
    tl::jit::save_module(m.module(), argv[3], {});
    m.eval();  // (format version 6: the graph reads the flag)
    row("stateful_eval", m.forward({in}).toTensor());
    std::printf("stateful_training %d\n", static_cast<int>(m.is_training()));
  }

  std::printf("done\n");
  return 0;
}
