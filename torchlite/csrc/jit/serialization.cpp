// Bindings of torchlite.jit archives: the Module tree that is saved and loaded, and the C++
// reader/writer. Python only converts; the bytes are read and checked in aten/jit/Serialization.cpp.
#include "torchlite/csrc/jit/serialization.h"

#include "aten/jit/Serialization.h"
#include "aten/jit/ZipArchive.h"
#include "torchlite/csrc/jit/pybind_utils.h"

namespace py = pybind11;
using namespace tl::jit;

namespace tl::python {
namespace {

std::map<std::string, std::string> extra_map(const py::dict& d) {
  std::map<std::string, std::string> out;
  for (auto item : d) {
    py::handle v = item.second;
    out[item.first.cast<std::string>()] = PyUnicode_Check(v.ptr()) ? v.cast<std::string>()
                                                                    : std::string(v.cast<py::bytes>());
  }
  return out;
}

std::optional<Device> device_arg(const std::optional<std::string>& d) {
  if (!d) return std::nullopt;
  return Device::parse(*d);
}

// jit.save to a Python binary file object: each chunk is handed to f.write as a memoryview of the
// storage (no copy on this side); a sink that cannot seek back gets each record's CRC computed first.
class PyFileSink : public ZipSink {
 public:
  explicit PyFileSink(py::object f) : f_(std::move(f)) {}
  void write(const char* data, size_t n) override {
    py::gil_scoped_acquire gil;
    while (n > 0) {
      py::object view = py::reinterpret_steal<py::object>(
          PyMemoryView_FromMemory(const_cast<char*>(data), static_cast<Py_ssize_t>(n), PyBUF_READ));
      if (!view) throw py::error_already_set();
      py::object k = f_.attr("write")(view);
      // Raw files may write less than asked (and say how much); buffered ones return n or None.
      size_t done = k.is_none() ? n : k.cast<size_t>();
      TL_CHECK(done > 0 && done <= n, "jit.save: the file object's write() wrote ", done, " of ", n, " bytes");
      data += done;
      n -= done;
    }
  }

 private:
  py::object f_;
};

// jit.load from a seekable Python binary file object: the archive starts at its current position;
// records are read with seek + readinto into the destination (a tensor's storage included).
class PyFileSource : public ZipSource {
 public:
  explicit PyFileSource(py::object f) : f_(std::move(f)) {
    base_ = f_.attr("tell")().cast<uint64_t>();
    uint64_t end = f_.attr("seek")(0, 2).cast<uint64_t>();
    size_ = end >= base_ ? end - base_ : 0;
  }
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, void* dst, size_t n) const override {
    py::gil_scoped_acquire gil;
    f_.attr("seek")(base_ + offset);
    auto* p = static_cast<char*>(dst);
    while (n > 0) {
      py::object view = py::reinterpret_steal<py::object>(
          PyMemoryView_FromMemory(p, static_cast<Py_ssize_t>(n), PyBUF_WRITE));
      if (!view) throw py::error_already_set();
      py::object k = f_.attr("readinto")(view);
      size_t got = k.is_none() ? 0 : k.cast<size_t>();
      TL_CHECK(got > 0 && got <= n, "jit.load: the file object ended early (truncated while it was read)");
      p += got;
      n -= got;
    }
  }

 private:
  py::object f_;
  uint64_t base_ = 0, size_ = 0;
};

py::tuple loaded_to_py(Loaded l) {
  py::dict extra;
  for (const auto& [k, v] : l.extra_files) extra[py::str(k)] = py::bytes(v);
  return py::make_tuple(l.module, extra);
}

}  // namespace

void bind_serialization(py::module_& m) {
  py::class_<Method>(m, "Method", "A module method: its graph, whether the graph takes the module first, and "
                                  "its arguments' names and defaults ((value,) or None for none).")
      .def(py::init([](std::shared_ptr<Graph> g, bool takes_self, std::vector<std::string> names,
                       const py::sequence& defaults) {
             Method method{std::move(g), takes_self, std::move(names), {}};
             for (py::handle d : defaults)
               method.defaults.push_back(d.is_none() ? std::nullopt
                                                     : std::optional<IValue>(jit::to_ivalue(d.cast<py::tuple>()[0])));
             TL_CHECK_VALUE(method.defaults.size() == method.arg_names.size(), "jit: Method got ",
                            method.arg_names.size(), " argument names and ", method.defaults.size(), " defaults");
             return method;
           }),
           py::arg("graph"), py::arg("takes_self") = true, py::arg("arg_names") = std::vector<std::string>{},
           py::arg("defaults") = py::list())
      .def_readwrite("graph", &Method::graph)
      .def_readwrite("takes_self", &Method::takes_self)
      .def_readonly("arg_names", &Method::arg_names)
      .def_property("enums", [](const Method& method) {
        py::list out;
        for (const Method::EnumClass& e : method.enums) {
          py::list members;
          for (const auto& [name, value] : e.members) members.append(py::make_tuple(name, jit::to_py(value)));
          out.append(py::make_tuple(e.position, e.path, e.qualname, members));
        }
        return out;
      }, [](Method& method, const py::sequence& enums) {
        std::vector<Method::EnumClass> out;
        for (py::handle item : enums) {
          auto t = item.cast<py::tuple>();
          Method::EnumClass e{t[0].cast<int64_t>(), t[1].cast<std::vector<int64_t>>(), t[2].cast<std::string>(), {}};
          for (py::handle m : t[3].cast<py::sequence>()) {
            auto pair = m.cast<py::tuple>();
            e.members.emplace_back(pair[0].cast<std::string>(), jit::to_ivalue(pair[1]));
          }
          out.push_back(std::move(e));
        }
        method.enums = std::move(out);
      }, "[(position, path, qualified name, [(member, value)])]: the Enum classes of the arguments (index after "
         "self) and the return (-1), `path` the steps to the Enum inside containers (docs/jit.md)")
      .def_property_readonly("defaults", [](const Method& method) {
        py::list out;
        for (const auto& d : method.defaults)
          out.append(d ? py::object(py::make_tuple(jit::to_py(*d))) : py::object(py::none()));
        return out;
      });

  py::class_<Module, std::shared_ptr<Module>>(m, "Module",
                                              "A compiled module as saved and loaded (aten/jit/Serialization.h).")
      .def(py::init([](std::string type_name, bool training) {
             auto mod = std::make_shared<Module>();
             mod->type_name = std::move(type_name);
             mod->training = training;
             return mod;
           }),
           py::arg("type_name"), py::arg("training") = true)
      .def_readwrite("type_name", &Module::type_name)
      .def_readwrite("training", &Module::training)
      .def_readwrite("parameters", &Module::parameters)
      .def_readwrite("buffers", &Module::buffers)
      .def_readwrite("none_parameters", &Module::none_parameters)
      .def_readwrite("none_buffers", &Module::none_buffers)
      .def_readwrite("submodules", &Module::submodules)
      .def_readwrite("methods", &Module::methods)
      .def_property("attributes", [](const Module& mod) {
        py::list out;
        for (const Attribute& a : mod.attributes) out.append(py::make_tuple(a.name, std::const_pointer_cast<Type>(a.type), jit::to_py(a.value)));
        return out;
      }, [](Module& mod, const py::sequence& attrs) {
        std::vector<Attribute> out;
        for (py::handle item : attrs) {
          auto t = item.cast<py::tuple>();
          out.push_back(Attribute{t[0].cast<std::string>(), t[1].cast<std::shared_ptr<const Type>>(), jit::to_ivalue(t[2])});
        }
        mod.attributes = std::move(out);
      }, "[(name, Type, value)]: the attributes compiled code reads and assigns at run time")
      .def_property("constants", [](const Module& mod) {
        py::list out;
        for (const Attribute& a : mod.constants) out.append(py::make_tuple(a.name, std::const_pointer_cast<Type>(a.type), jit::to_py(a.value)));
        return out;
      }, [](Module& mod, const py::sequence& attrs) {
        std::vector<Attribute> out;
        for (py::handle item : attrs) {
          auto t = item.cast<py::tuple>();
          out.push_back(Attribute{t[0].cast<std::string>(), t[1].cast<std::shared_ptr<const Type>>(), jit::to_ivalue(t[2])});
        }
        mod.constants = std::move(out);
      }, "[(name, Type, value)]: the Final / __constants__ attributes, folded into the graphs (format version 6)")
      .def_readwrite("classes", &Module::classes, "The root's TorchScript classes: Modules named after each class, "
                     "holding its methods compiled with the object as self (format version 5)")
      .def("object", &Module::object)
      .def("attr", [](const Module& mod, const std::string& name) { return jit::to_py(mod.attr(name)); })
      .def("setattr", [](Module& mod, const std::string& name, py::handle v) { mod.setattr(name, jit::to_ivalue(v)); })
      .def("run_method", [](Module& mod, const std::string& name, const py::sequence& inputs) {
        std::vector<IValue> args;
        for (py::handle x : inputs) args.push_back(jit::to_ivalue(x));
        std::vector<IValue> outs;
        {
          py::gil_scoped_release no_gil;
          outs = mod.run_method(name, std::move(args));
        }
        py::list out;
        for (const IValue& v : outs) out.append(jit::to_py(v));
        return out;
      });

  m.def("_save_module", [](const Module& mod, const py::dict& extra) {
    auto files = extra_map(extra);
    std::string bytes;
    {
      py::gil_scoped_release no_gil;
      bytes = save_module(mod, files);
    }
    return py::bytes(bytes);
  }, py::arg("module"), py::arg("extra_files") = py::dict());
  m.def("_save_module_file", [](const Module& mod, const std::string& path, const py::dict& extra) {
    auto files = extra_map(extra);
    py::gil_scoped_release no_gil;
    save_module(mod, path, files);
  }, py::arg("module"), py::arg("path"), py::arg("extra_files") = py::dict());
  m.def("_save_module_to", [](const Module& mod, py::object f, const py::dict& extra) {
    auto files = extra_map(extra);
    PyFileSink sink(std::move(f));
    py::gil_scoped_release no_gil;
    save_module(mod, sink, files);
  }, py::arg("module"), py::arg("file"), py::arg("extra_files") = py::dict());
  m.def("_load_module_from", [](py::object f, const std::optional<std::string>& device, const std::string& what) {
    auto dev = device_arg(device);
    auto source = std::make_shared<PyFileSource>(std::move(f));
    Loaded l;
    {
      py::gil_scoped_release no_gil;
      l = load_module(source, dev, what);
    }
    return loaded_to_py(std::move(l));
  }, py::arg("file"), py::arg("device") = py::none(), py::arg("what") = "the buffer");
  m.def("_load_module", [](const py::bytes& data, const std::optional<std::string>& device, const std::string& what) {
    std::string_view view(data);  // the bytes object stays alive for the call
    auto dev = device_arg(device);
    Loaded l;
    {
      py::gil_scoped_release no_gil;
      l = load_module(view, dev, what);
    }
    return loaded_to_py(std::move(l));
  }, py::arg("data"), py::arg("device") = py::none(), py::arg("what") = "the archive");
  // Tests: sizes and offsets at or above this many bytes are written as zip64 (default 2^32 - 1).
  m.def("_set_zip64_threshold", [](uint64_t bytes) { return ZipWriter::set_zip64_threshold(bytes); },
        py::arg("bytes"));
  m.def("_load_module_file", [](const std::string& path, const std::optional<std::string>& device) {
    auto dev = device_arg(device);
    Loaded l;
    {
      py::gil_scoped_release no_gil;
      l = load_module_file(path, dev);
    }
    return loaded_to_py(std::move(l));
  }, py::arg("path"), py::arg("device") = py::none());
  m.def("_graph_to_text", [](const Graph& g) {
    std::vector<Tensor> tensors;
    std::string text = graph_to_text(g, tensors);
    return py::make_tuple(text, tensors);
  }, "The archive's text form of a graph and the tensors its constants index.");
  m.def("_graph_from_text", [](const std::string& text, const std::vector<Tensor>& tensors) {
    return graph_from_text(text, tensors, "graph");
  });
}

}  // namespace tl::python
