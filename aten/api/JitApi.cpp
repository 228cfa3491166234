// The C++ frontend's module loader (aten/api/jit.h): a thin owner of the archive reader's Module.
#include "aten/api/jit.h"

namespace tl::jit {

IValue ScriptModule::run_method(const std::string& name, std::vector<IValue> inputs) const {
  std::vector<IValue> out = module_->run_method(name, std::move(inputs));
  if (out.size() == 1) return std::move(out[0]);
  return IValue::tuple(std::move(out));
}

namespace {

void collect(const Module& m, const std::string& prefix, bool buffers,
             std::vector<std::pair<std::string, Tensor>>& out) {
  for (const auto& [name, t] : buffers ? m.buffers : m.parameters) out.emplace_back(prefix + name, t);
  for (const auto& [name, sub] : m.submodules) collect(*sub, prefix + name + ".", buffers, out);
}

}  // namespace

std::vector<std::pair<std::string, Tensor>> ScriptModule::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect(*module_, "", false, out);
  return out;
}

std::vector<std::pair<std::string, Tensor>> ScriptModule::named_buffers() const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect(*module_, "", true, out);
  return out;
}

ScriptModule load(const std::string& path, std::optional<Device> device) {
  return ScriptModule(load_module_file(path, device).module);
}

}  // namespace tl::jit
