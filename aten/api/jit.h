// Loading and running a model saved from Python with torchlite.jit.save (docs/cpp.md):
//
//   #include <aten/api/jit.h>
//   tl::jit::ScriptModule m = tl::jit::load("model.pt");
//   tl::Tensor y = m.forward({tl::randn({1, 64})}).toTensor();
//
// The archive is read by the same code as torchlite.jit.load (aten/jit/Serialization.h): nothing in
// it runs as code, and a corrupt file raises tl::RuntimeError naming the record.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aten/api/torchlite.h"
#include "aten/jit/IValue.h"
#include "aten/jit/Serialization.h"

namespace tl::jit {

class ScriptModule {
 public:
  explicit ScriptModule(std::shared_ptr<Module> module) : module_(std::move(module)) {}

  // Runs `forward` (or another saved method) through the interpreter, with autograd as in eager
  // code. A method with several results returns them as one tuple, as torch::jit does.
  IValue forward(std::vector<IValue> inputs) const { return run_method("forward", std::move(inputs)); }
  IValue run_method(const std::string& name, std::vector<IValue> inputs) const;

  // A module attribute by name ("count", or "sub.count" through submodules): what scripted code
  // assigns (`self.count += 1`) is kept between calls, as torch::jit::Module::attr gives it.
  IValue attr(const std::string& name) const { return module_->attr(name); }
  void setattr(const std::string& name, IValue value) const { module_->setattr(name, std::move(value)); }

  // The parameters and buffers of the module and its submodules, named as state_dict names them.
  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  std::vector<std::pair<std::string, Tensor>> named_buffers() const;
  const Module& module() const { return *module_; }

  // torch::jit::Module's train / eval / is_training: the flag of the module and its submodules, which the graphs
  // of a format version 6 archive read (dropout, batch_norm, script's `self.training`).
  void train(bool on = true) const { set_training(*module_, on); }
  void eval() const { train(false); }
  bool is_training() const { return module_->training; }

 private:
  static void set_training(Module& m, bool on) {
    m.training = on;
    for (auto& [name, sub] : m.submodules) set_training(*sub, on);
  }
  std::shared_ptr<Module> module_;
};

// `device`: where the tensors go (cpu, or meta: shapes and dtypes only).
ScriptModule load(const std::string& path, std::optional<Device> device = std::nullopt);

}  // namespace tl::jit
