// Loads a module saved by torchlite.jit.save (see export_model.py), runs its forward on a fixed
// input, backpropagates the sum of the output to the input, and prints both; then a few eager ops.
// No Python is involved: the program links libtorchlite.so only.
#include <cmath>
#include <cstdio>
#include <iostream>

#include <aten/api/jit.h>
#include <aten/api/torchlite.h>

static void print_row(const char* label, const tl::Tensor& t) {
  std::printf("%s", label);
  for (double v : tl::values_of(t)) std::printf(" %.9g", v);
  std::printf("\n");
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s model.pt\n", argv[0]);
    return 2;
  }
  try {
    tl::jit::ScriptModule model = tl::jit::load(argv[1]);

    // The input export_model.py documents: 2x1x8x8 values sin(0.1 * i).
    std::vector<double> values(2 * 1 * 8 * 8);
    for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.1 * static_cast<double>(i));
    tl::Tensor x = tl::tensor_from(values, {2, 1, 8, 8});
    x.set_requires_grad(true);

    tl::Tensor y = model.forward({x}).toTensor();
    print_row("output", y);
    tl::backward(tl::sum(y));
    print_row("input_grad", x.grad());
    std::printf("parameters %zu\n", model.named_parameters().size());

    // Eager ops and operators from C++.
    tl::Tensor a = tl::reshape(tl::arange(6, tl::ScalarType::Float32), {2, 3});
    tl::Tensor b = tl::matmul(a, tl::t(a)) * 0.5 + 1;
    print_row("eager", tl::softmax(b, -1));
    std::cout << b << "\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
