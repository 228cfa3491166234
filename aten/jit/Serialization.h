// torchlite.jit archives: a compiled module (its hierarchy, parameters, buffers and method graphs)
// in one zip file, read and written here in C++ so that a program without Python can load and run
// a model (docs/jit.md, "Saving and loading", describes the records and the text format of graphs).
// Loading trusts nothing in the file: no code runs, every op named must be registered with the
// node's input and output counts, every value must be defined before it is used, every tensor view
// must lie inside its storage; any violation raises tl::RuntimeError naming the record.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aten/jit/IR.h"

namespace tl::jit {

// A method: its graph, and whether the graph's first input is the module (`%self`). A traced
// function is saved as the `forward` of an attribute-less module, without `self`.
struct Method {
  std::shared_ptr<Graph> graph;
  bool takes_self = true;
};

// A compiled module, as saved and loaded: the tree torch.jit's RecursiveScriptModule presents.
struct Module {
  std::string type_name;  // "__torch__.Net", printed as the `self` type
  bool training = true;
  std::vector<std::pair<std::string, Tensor>> parameters;
  std::vector<std::pair<std::string, Tensor>> buffers;
  // Attributes registered as None (Linear(bias=False)'s bias): kept so the loaded module has them.
  std::vector<std::string> none_parameters, none_buffers;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> submodules;
  std::vector<std::pair<std::string, Method>> methods;

  // The attributes as prim::GetAttr reads them (parameters, buffers and submodules, recursively).
  std::shared_ptr<Object> object() const;
  // Runs a method through the interpreter (the C++ frontend's `module.forward(inputs)`).
  std::vector<IValue> run_method(const std::string& name, std::vector<IValue> inputs) const;
};

// The archive's bytes. `extra_files` are stored as extra/<name> (torch.jit.save's _extra_files).
std::string save_module(const Module& m, const std::map<std::string, std::string>& extra_files = {});
void save_module(const Module& m, const std::string& path,
                 const std::map<std::string, std::string>& extra_files);

struct Loaded {
  std::shared_ptr<Module> module;
  std::map<std::string, std::string> extra_files;
};
// `device`: where tensors go (cpu, or meta: shapes and dtypes only, no data read).
// `what` names the source in error messages.
Loaded load_module(std::string_view bytes, std::optional<Device> device = std::nullopt,
                   const std::string& what = "the archive");
Loaded load_module_file(const std::string& path, std::optional<Device> device = std::nullopt);

// The graph text of the archive format (for tests and debugging): tensor constants are written
// as indices into `tensors`, which the writer appends to and the reader reads from.
std::string graph_to_text(const Graph& g, std::vector<Tensor>& tensors);
std::shared_ptr<Graph> graph_from_text(std::string_view text, const std::vector<Tensor>& tensors,
                                       const std::string& what = "graph");

}  // namespace tl::jit
