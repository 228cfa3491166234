// torchlite.jit archives: a compiled module (its hierarchy, parameters, buffers and method graphs)
// in one zip file, read and written here in C++ so that a program without Python can load and run
// a model (docs/jit.md, "Saving and loading", describes the records and the text format of graphs).
// Loading trusts nothing in the file: no code runs, every op named must be registered with the
// node's input and output counts, every value must be defined before it is used, every tensor view
// must lie inside its storage; any violation raises tl::RuntimeError naming the record.
#pragma once
#include <map>
#include <memory>
#include <mutex>
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
  // The arguments after `self` as a scripted method declares them: names and defaults (nullopt: no
  // default), so a caller may leave trailing ones out. Empty for traced graphs (flattened tensor
  // inputs) and for archives of format version 1.
  std::vector<std::string> arg_names;
  std::vector<std::optional<IValue>> defaults;
  // The Enum classes of a scripted method's arguments and return (members run as their values in the
  // graph): where (an argument's index after self, or -1 for the return; then `path`, the steps from that
  // type down to the Enum's place inside containers: the element of a List or Optional is 0, a Dict's key
  // 0 and value 1, a Tuple's element k is k), the class's qualified name and its members' names and
  // values, so that Python can give and take members (format version 4; paths since version 5, where
  // version 4 wrote element k of a returned tuple as position -2 - k, read as -1 with path {k}).
  struct EnumClass {
    int64_t position;
    std::vector<int64_t> path;
    std::string qualname;
    std::vector<std::pair<std::string, IValue>> members;
  };
  std::vector<EnumClass> enums;
};

// A module attribute that compiled code reads at run time (prim::GetAttr) and may write (script's
// `self.count += 1`): its type is fixed when the module is compiled. Since format version 6 a scripted
// module's archive has every attribute script can type (as torch's), not only the assigned ones.
struct Attribute {
  std::string name;
  TypePtr type;
  IValue value;
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
  std::vector<Attribute> attributes;
  // Its `Final` / `__constants__` attributes (format version 6): folded into the graphs, so read-only; kept so
  // the loaded module has them (reading works, setting raises torch's "Can't set constant").
  std::vector<Attribute> constants;
  // The root's only (format version 5, record `classes`): the TorchScript classes whose instances its methods
  // take, return or hold, each as a Module whose type_name is the class's and whose methods are the class's
  // methods compiled with the object as `self`, so a process that never scripted the class can call them on
  // the objects it gets (torch's ScriptObject methods).
  std::vector<std::shared_ptr<Module>> classes;
  // Concurrent run_method calls (C++ threads): a tree whose methods assign attributes or buffers
  // (prim::SetAttr) or that has run-time attributes is run one call at a time (each call builds the
  // object from the tree and writes back what it assigned: overlapping calls would lose updates and
  // race on the attribute values); other trees run concurrently. Shared by copies of the Module.
  struct CallState {
    std::mutex lock;
    std::once_flag checked;
    bool stateful = false;
  };
  std::shared_ptr<CallState> call_state = std::make_shared<CallState>();

  // The attributes as prim::GetAttr reads them (parameters, buffers, attributes, the training flag
  // and submodules, recursively).
  std::shared_ptr<Object> object() const;
  // Runs a method through the interpreter (the C++ frontend's `module.forward(inputs)`). Missing
  // trailing arguments take the method's defaults. What the graph assigns (prim::SetAttr: attributes,
  // buffers) is written back into this tree, so the next call and a save see it.
  std::vector<IValue> run_method(const std::string& name, std::vector<IValue> inputs);
  // Whether run_method takes call_state->lock (decided at the first call).
  bool stateful() const;
  // Fills `inputs` (without self) up to the method's arguments from its defaults; raises torch's
  // errors for too many or a missing one.
  static void bind_defaults(const std::string& name, const Method& m, std::vector<IValue>& inputs);
  // An attribute by name ("count", or "sub.count" through submodules): attributes, parameters,
  // buffers; raises when there is none.
  IValue attr(const std::string& path) const;
  void setattr(const std::string& path, IValue value);
};

class ZipSink;
class ZipSource;

// Writes the archive to `sink` record by record (tensor data straight from the storages: nothing is
// built in memory). `extra_files` are stored as extra/<name> (torch.jit.save's _extra_files).
void save_module(const Module& m, ZipSink& sink, const std::map<std::string, std::string>& extra_files);
// The archive's bytes.
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
// Reads the directory, then each record as it is needed (tensor data into its storage).
Loaded load_module(std::shared_ptr<const ZipSource> source, std::optional<Device> device = std::nullopt,
                   const std::string& what = "the archive");
Loaded load_module_file(const std::string& path, std::optional<Device> device = std::nullopt);

// The graph text of the archive format (for tests and debugging): tensor constants are written
// as indices into `tensors`, which the writer appends to and the reader reads from.
std::string graph_to_text(const Graph& g, std::vector<Tensor>& tensors);
std::shared_ptr<Graph> graph_from_text(std::string_view text, const std::vector<Tensor>& tensors,
                                       const std::string& what = "graph");

}  // namespace tl::jit
