// torchlite._C._jit: the JIT's IR (Graph, Node, Value, Block), schemas, the interpreter and the
// tracer's entry points, bound with pybind11 as torch._C binds its JIT (torchlite.jit wraps them).
#include "torchlite/csrc/jit/init.h"

#include <sstream>

#include "aten/jit/FusionExecutor.h"
#include "aten/jit/IR.h"
#include "aten/jit/InstrProfile.h"
#include "aten/jit/Interpreter.h"
#include "aten/jit/PrimOps.h"
#include "aten/jit/Tracer.h"
#include "torchlite/csrc/dtype.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/jit/pybind_utils.h"
#include "torchlite/csrc/jit/serialization.h"
#include "torchlite/csrc/jit/tracer_warn.h"

namespace py = pybind11;
using namespace tl::jit;

namespace tl::python {
namespace {

using jit::to_ivalue;
using jit::to_py;

std::vector<IValue> to_ivalues(const py::sequence& xs) {
  std::vector<IValue> out;
  for (py::handle x : xs) out.push_back(to_ivalue(x));
  return out;
}

py::list to_py_list(const std::vector<IValue>& xs) {
  py::list out;
  for (const IValue& x : xs) out.append(to_py(x));
  return out;
}

// A list of IR objects for Python, each keeping `owner` (the Python object they came from, and
// through it their graph) alive: Nodes, Values and Blocks are owned by their Graph.
template <typename T>
py::list owned_list(const std::vector<T*>& xs, py::handle owner) {
  py::list out;
  for (T* x : xs) {
    py::object o = py::cast(x, py::return_value_policy::reference);
    py::detail::keep_alive_impl(o, owner);
    out.append(o);
  }
  return out;
}

// A node printed as one line of its graph.
std::string node_str(const Node& n) {
  std::ostringstream os;
  const auto& outs = n.outputs();
  for (size_t i = 0; i < outs.size(); ++i)
    os << (i ? ", " : "") << "%" << outs[i]->debugName() << " : " << outs[i]->type()->str();
  if (!outs.empty()) os << " = ";
  os << n.kind();
  std::vector<std::string> names;
  for (const std::string& name : n.attributeNames())
    if (!n.hasGraphAttribute(name)) names.push_back(name);  // a Subgraph prints with its graph
  if (!names.empty()) {
    os << "[";
    for (size_t i = 0; i < names.size(); ++i) os << (i ? ", " : "") << names[i] << "=" << n.attr(names[i]).repr();
    os << "]";
  }
  os << "(";
  for (size_t i = 0; i < n.inputs().size(); ++i) os << (i ? ", " : "") << "%" << n.inputs()[i]->debugName();
  os << ")";
  return os.str();
}

TypePtr type_from_py(py::handle t) {
  if (py::isinstance<py::str>(t)) return Type::from_schema(t.cast<std::string>());
  return t.cast<std::shared_ptr<const Type>>();
}

const IValue& typed_attr(const Node& n, const std::string& name, IValue::Tag tag, const char* what) {
  const IValue& v = n.attr(name);
  TL_CHECK_TYPE(v.tag() == tag, "jit: attribute '", name, "' of ", n.kind(), " is not ", what, " (it is ",
                v.tag_name(), ")");
  return v;
}

void bind_schema(py::module_& m) {
  py::class_<AliasInfo>(m, "AliasInfo")
      .def_readonly("before_set", &AliasInfo::set)
      .def_readonly("is_write", &AliasInfo::is_write)
      .def("__repr__", [](const AliasInfo& a) { return "(" + a.set + (a.is_write ? "!)" : ")"); });
  py::class_<SchemaArgument>(m, "Argument")
      .def_readonly("name", &SchemaArgument::name)
      .def_property_readonly("type", [](const SchemaArgument& a) { return a.type; })
      .def_property_readonly("default_value", [](const SchemaArgument& a) { return a.default_value; })
      .def_property_readonly("alias_info", [](const SchemaArgument& a) { return a.alias; })
      .def_readonly("kwarg_only", &SchemaArgument::kwarg_only)
      .def("__repr__", [](const SchemaArgument& a) {
        return a.type + (a.alias ? "(" + a.alias->set + (a.alias->is_write ? "!)" : ")") : "") +
               (a.name.empty() ? "" : " " + a.name) + (a.default_value ? "=" + *a.default_value : "");
      });
  py::class_<FunctionSchema>(m, "FunctionSchema")
      .def_property_readonly("name", [](const FunctionSchema& s) { return "aten::" + s.name; })
      .def_readonly("overload_name", &FunctionSchema::overload_name)
      .def_readonly("arguments", &FunctionSchema::arguments)
      .def_readonly("returns", &FunctionSchema::returns)
      .def_property_readonly("is_mutable", &FunctionSchema::is_mutable)
      .def_property_readonly("is_nondeterministic", &FunctionSchema::is_nondeterministic)
      .def_property_readonly("is_pointwise", &FunctionSchema::is_pointwise,
                             "Whether the YAML entry is tagged `pointwise` (it may join a fusion group).")
      .def("__str__", &FunctionSchema::str)
      .def("__repr__", &FunctionSchema::str);
}

void bind_ir(py::module_& m) {
  py::class_<Type, std::shared_ptr<Type>>(m, "Type")
      .def_static("parse", [](const std::string& s) { return std::const_pointer_cast<Type>(Type::from_schema(s)); },
                  "The type of a schema type string: 'Tensor', 'int[]', 'Scalar?'.")
      .def_static("of", [](py::handle v) { return std::const_pointer_cast<Type>(Type::of(to_ivalue(v))); },
                  "The type of a Python value (a tensor's with its dtype, sizes, strides, device).")
      .def_static("tuple", [](const std::vector<std::shared_ptr<Type>>& elems) {
        return std::const_pointer_cast<Type>(Type::tuple({elems.begin(), elems.end()}));
      })
      .def_static("named_tuple", [](const std::string& name, const std::vector<std::string>& fields,
                                    const std::vector<std::shared_ptr<Type>>& elems) {
        TL_CHECK(!fields.empty() && fields.size() == elems.size(), "Type.named_tuple: ", fields.size(), " field names for ",
                 elems.size(), " elements");
        return std::const_pointer_cast<Type>(Type::named_tuple(name, fields, {elems.begin(), elems.end()}));
      }, "A typing.NamedTuple's type: its class name, field names and element types.")
      .def("fields", [](const Type& t) { return t.fields; }, "A named tuple's field names (empty for other types).")
      .def("class_name", [](const Type& t) { return t.name; }, "A module object's or named tuple's class name.")
      .def("containedTypes", [](const Type& t) {
        std::vector<std::shared_ptr<Type>> out;
        for (const auto& e : t.elems) out.push_back(std::const_pointer_cast<Type>(e));
        return out;
      })
      .def_static("list", [](std::shared_ptr<Type> elem) { return std::const_pointer_cast<Type>(Type::list(elem)); })
      .def_static("optional", [](std::shared_ptr<Type> elem) { return std::const_pointer_cast<Type>(Type::optional(elem)); })
      .def_static("dict", [](std::shared_ptr<Type> key, std::shared_ptr<Type> value) {
        return std::const_pointer_cast<Type>(Type::dict(key, value));
      }, "A dict's type, printed Dict(K, V); the interpreter and archives treat it as Any.")
      .def_static("none", [] { return std::const_pointer_cast<Type>(Type::get(Type::Kind::None)); },
                  "NoneType (a Union's member; `Type.parse` gives Any for it, as script's None values have been typed)")
      .def_static("union", [](const std::vector<std::shared_ptr<Type>>& members) {
        return std::const_pointer_cast<Type>(Type::union_of({members.begin(), members.end()}));
      }, "A Union's type, printed Union(A, B); the interpreter and archives treat it as Any.")
      .def_static("object", [](const std::string& name) { return std::const_pointer_cast<Type>(Type::object(name)); },
                  "A module object's type, printed as its class name (`__torch__.Net`).")
      .def("kind", [](const Type& t) { return t.str().substr(0, t.str().find_first_of("([?")); })
      .def("isTensor", &Type::is_tensor)
      .def("sizes", [](const Type& t) { return t.sizes; })
      .def("strides", [](const Type& t) { return t.strides; })
      .def("dtype", [](const Type& t) -> py::object {
        return t.dtype ? py::reinterpret_steal<py::object>(check(dtype_object(*t.dtype))) : py::none();
      })
      .def("requires_grad", [](const Type& t) { return t.requires_grad; })
      .def("isSubtypeOf", [](const Type& a, const Type& b) { return is_subtype(a, b); })
      .def("__str__", &Type::str)
      .def("__repr__", &Type::str);

  py::class_<Use>(m, "Use")
      .def_property_readonly("user", [](const Use& u) { return u.user; }, py::return_value_policy::reference)
      .def_readonly("offset", &Use::offset);

  auto ref = py::return_value_policy::reference;
  py::class_<Value, std::unique_ptr<Value, py::nodelete>>(m, "Value")
      .def("debugName", &Value::debugName)
      .def("setDebugName", &Value::setDebugName, ref)
      .def("hasDebugName", &Value::hasDebugName)
      .def("unique", &Value::unique)
      .def("offset", &Value::offset)
      .def("node", &Value::node, ref, py::keep_alive<0, 1>())
      .def("type", [](const Value& v) { return std::const_pointer_cast<Type>(v.type()); })
      .def("setType", [](Value& v, py::handle t) { return v.setType(type_from_py(t)); }, ref)
      .def("uses", &Value::uses)
      .def("hasUses", &Value::hasUses)
      .def("replaceAllUsesWith", &Value::replaceAllUsesWith)
      .def("toIValue", [](const Value& v) -> py::object {
        auto iv = v.toIValue();
        return iv ? to_py(*iv) : py::none();
      })
      .def("isConstant", [](const Value& v) { return v.node()->kind() == "prim::Constant"; })
      .def("owningGraph", [](const Value& v) { return v.owningGraph()->shared_from_this(); })
      .def("__repr__", [](const Value& v) { return "%" + v.debugName() + " defined in (" + node_str(*v.node()) + ")"; });

  py::class_<Node, std::unique_ptr<Node, py::nodelete>>(m, "Node")
      .def("kind", &Node::kind)
      .def("inputs", [](py::object self) { return owned_list(self.cast<Node&>().inputs(), self); })
      .def("outputs", [](py::object self) { return owned_list(self.cast<Node&>().outputs(), self); })
      .def("input", [](const Node& n) {
        TL_CHECK(n.inputs().size() == 1, "jit: node ", n.kind(), " has ", n.inputs().size(), " inputs, not 1");
        return n.input(0);
      }, ref, py::keep_alive<0, 1>())
      .def("output", [](const Node& n) {
        TL_CHECK(n.outputs().size() == 1, "jit: node ", n.kind(), " has ", n.outputs().size(), " outputs, not 1");
        return n.output(0);
      }, ref, py::keep_alive<0, 1>())
      .def("inputsAt", &Node::input, ref, py::keep_alive<0, 1>())
      .def("outputsAt", &Node::output, ref, py::keep_alive<0, 1>())
      .def("inputsSize", [](const Node& n) { return n.inputs().size(); })
      .def("outputsSize", [](const Node& n) { return n.outputs().size(); })
      .def("blocks", [](py::object self) { return owned_list(self.cast<Node&>().blocks(), self); })
      .def("addBlock", &Node::addBlock, ref, py::keep_alive<0, 1>())
      .def("owningBlock", &Node::owningBlock, ref, py::keep_alive<0, 1>())
      .def("owningGraph", [](const Node& n) { return n.owningGraph()->shared_from_this(); })
      .def("next", &Node::next, ref, py::keep_alive<0, 1>())
      .def("prev", &Node::prev, ref, py::keep_alive<0, 1>())
      .def("schema", [](const Node& n) { return n.op() ? n.schema().str() : std::string("(no schema)"); })
      .def("fn_schema", [](const Node& n) -> const FunctionSchema* { return n.maybeSchema(); }, ref,
           py::keep_alive<0, 1>(), "The op's parsed schema (None for prim:: nodes).")
      .def("setOverload", [](Node& n, const std::string& name) {
        const Operator* op = find_op(name);
        TL_CHECK_VALUE(op != nullptr, "jit: unknown overload ", name);
        n.setOp(op);
      })
      .def("addInput", &Node::addInput, ref)
      .def("insertInput", &Node::insertInput, ref)
      .def("replaceInput", &Node::replaceInput)
      .def("replaceInputWith", &Node::replaceInputWith)
      .def("removeInput", &Node::removeInput)
      .def("removeAllInputs", &Node::removeAllInputs)
      .def("addOutput", &Node::addOutput, ref, py::keep_alive<0, 1>())
      .def("eraseOutput", &Node::eraseOutput)
      .def("insertBefore", &Node::insertBefore, ref)
      .def("insertAfter", &Node::insertAfter, ref)
      .def("moveBefore", &Node::moveBefore)
      .def("moveAfter", &Node::moveAfter)
      .def("isBefore", &Node::isBefore)
      .def("destroy", &Node::destroy)
      .def("hasSideEffects", &Node::hasSideEffects)
      .def("isNondeterministic", &Node::isNondeterministic)
      .def("hasAttribute", &Node::hasAttribute)
      .def("hasAttributes", [](const Node& n) { return !n.attributeNames().empty(); })
      .def("attributeNames", &Node::attributeNames)
      .def("ival", [](const Node& n, const std::string& name) -> py::object {
        if (n.hasGraphAttribute(name)) return py::cast(n.g(name));
        return to_py(n.attr(name));
      })
      .def("kindOf", [](const Node& n, const std::string& name) -> std::string {
        if (n.hasGraphAttribute(name)) return "g";
        switch (n.attr(name).tag()) {
          case IValue::Tag::Int: return "i";
          case IValue::Tag::Double: return "f";
          case IValue::Tag::String: return "s";
          case IValue::Tag::Tensor: return "t";
          default: return "ival";
        }
      }, "The attribute's kind as torch.jit names it: 'g' for a graph, 'i', 'f', 's', 't', else 'ival'.")
      .def("g", [](const Node& n, const std::string& k) { return n.g(k); }, "A graph attribute (a fusion group's Subgraph).")
      .def("g_", [](Node& n, const std::string& k, std::shared_ptr<Graph> g) { return n.g_(k, std::move(g)); }, ref)
      .def("ival_", [](Node& n, const std::string& name, py::handle v) { n.setAttr(name, to_ivalue(v)); return &n; }, ref)
      .def("i", [](const Node& n, const std::string& k) { return typed_attr(n, k, IValue::Tag::Int, "an int").toInt(); })
      .def("f", [](const Node& n, const std::string& k) { return typed_attr(n, k, IValue::Tag::Double, "a float").toDouble(); })
      .def("s", [](const Node& n, const std::string& k) { return typed_attr(n, k, IValue::Tag::String, "a str").toStringRef(); })
      .def("t", [](const Node& n, const std::string& k) { return typed_attr(n, k, IValue::Tag::Tensor, "a Tensor").toTensor(); })
      .def("s_", [](Node& n, const std::string& k, const std::string& v) { n.setAttr(k, IValue(v)); return &n; }, ref)
      .def("i_", [](Node& n, const std::string& k, int64_t v) { n.setAttr(k, IValue(v)); return &n; }, ref)
      .def("f_", [](Node& n, const std::string& k, double v) { n.setAttr(k, IValue(v)); return &n; }, ref)
      .def("t_", [](Node& n, const std::string& k, const Tensor& v) { n.setAttr(k, IValue(v)); return &n; }, ref)
      .def("__repr__", &node_str);

  py::class_<Block, std::unique_ptr<Block, py::nodelete>>(m, "Block")
      .def("nodes", [](py::object self) { return owned_list(self.cast<Block&>().nodes(), self); })
      .def("inputs", [](py::object self) { return owned_list(self.cast<Block&>().inputs(), self); })
      .def("outputs", [](py::object self) { return owned_list(self.cast<Block&>().outputs(), self); })
      .def("paramNode", &Block::paramNode, ref, py::keep_alive<0, 1>())
      .def("returnNode", &Block::returnNode, ref, py::keep_alive<0, 1>())
      .def("owningNode", &Block::owningNode, ref, py::keep_alive<0, 1>())
      .def("addInputToBlock", [](Block& b, const std::string& name) { return b.addInput(name); },
           py::arg("name") = "", ref, py::keep_alive<0, 1>())
      .def("registerOutput", &Block::registerOutput)
      .def("eraseOutput", &Block::eraseOutput);

  py::class_<Graph, std::shared_ptr<Graph>>(m, "Graph")
      .def(py::init<>())
      .def("inputs", [](py::object self) { return owned_list(self.cast<Graph&>().inputs(), self); })
      .def("outputs", [](py::object self) { return owned_list(self.cast<Graph&>().outputs(), self); })
      .def("nodes", [](py::object self) { return owned_list(self.cast<Graph&>().nodes(), self); })
      .def("allNodes", [](py::object self) { return owned_list(self.cast<Graph&>().allNodes(), self); })
      .def("block", &Graph::block, ref, py::keep_alive<0, 1>())
      .def("param_node", [](const Graph& g) { return g.block()->paramNode(); }, ref, py::keep_alive<0, 1>())
      .def("return_node", [](const Graph& g) { return g.block()->returnNode(); }, ref, py::keep_alive<0, 1>())
      .def("addInput", &Graph::addInput, py::arg("name") = "", ref, py::keep_alive<0, 1>())
      .def("registerOutput", &Graph::registerOutput)
      .def("eraseOutput", &Graph::eraseOutput)
      .def("create", [](Graph& g, const std::string& kind, const std::vector<Value*>& inputs, size_t n) {
        return g.create(kind, inputs, n);
      }, py::arg("kind"), py::arg("inputs") = std::vector<Value*>{}, py::arg("num_outputs") = 1, ref, py::keep_alive<0, 1>())
      .def("createClone", [](Graph& g, const Node& n, const std::vector<Value*>& inputs) {
        TL_CHECK_VALUE(n.op() != nullptr, "jit: createClone takes an op node, not ", n.kind());
        TL_CHECK_VALUE(inputs.size() == n.inputs().size(), "jit: createClone: ", n.kind(), " takes ",
                       n.inputs().size(), " inputs, got ", inputs.size());
        Node* c = g.createOp(n.op(), inputs);
        for (size_t i = 0; i < c->outputs().size() && i < n.outputs().size(); ++i) c->output(i)->setType(n.output(i)->type());
        return c;
      }, ref, py::keep_alive<0, 1>(), "A new op node with `n`'s overload and output types on `inputs` (not inserted).")
      .def("insertNode", &Graph::insertNode, ref, py::keep_alive<0, 1>())
      .def("insertConstant", [](Graph& g, py::handle v) { return g.insertConstant(to_ivalue(v)); }, ref,
           py::keep_alive<0, 1>())
      .def("setInsertPoint", py::overload_cast<Node*>(&Graph::setInsertPoint))
      .def("setInsertPoint", py::overload_cast<Block*>(&Graph::setInsertPoint))
      .def("insertPoint", &Graph::insertPoint, ref, py::keep_alive<0, 1>())
      .def("findNode", &Graph::findNode, py::arg("kind"), py::arg("recurse") = true, ref, py::keep_alive<0, 1>())
      .def("findAllNodes", [](py::object self, const std::string& kind, bool recurse) {
        const Graph& g = self.cast<Graph&>();
        std::vector<Node*> out;
        for (Node* n : recurse ? g.allNodes() : g.nodes())
          if (n->kind() == kind) out.push_back(n);
        return owned_list(out, self);
      }, py::arg("kind"), py::arg("recurse") = true)
      .def("copy", &Graph::copy)
      .def("insertGraph", [](py::object self, const Graph& callee, const std::vector<Value*>& inputs, Node* constants_at) {
        return owned_list(self.cast<Graph&>().insertGraph(callee, inputs, constants_at), self);
      }, py::arg("callee"), py::arg("inputs"), py::arg("constants_at") = nullptr,
         "Copies callee's nodes to the insert point, its inputs replaced by `inputs`; returns its outputs' copies.")
      .def("lint", &Graph::lint)
      .def("str", [](const Graph& g, bool loc) { return g.str(loc); }, py::arg("print_source_locations") = false)
      .def("__str__", [](const Graph& g) { return g.str(); })
      .def("__repr__", [](const Graph& g) { return g.str(); });

  py::class_<Object, std::shared_ptr<Object>>(m, "Object", "A module's attributes, as prim::GetAttr reads them.")
      .def(py::init([](const std::string& name) { return std::make_shared<Object>(Object{name, {}}); }))
      .def_readonly("type_name", &Object::type_name)
      .def("setattr", [](Object& o, const std::string& k, py::handle v) { o.attrs[k] = to_ivalue(v); })
      .def("getattr", [](const Object& o, const std::string& k) {
        auto it = o.attrs.find(k);
        TL_CHECK_VALUE(it != o.attrs.end(), "jit: ", o.type_name, " has no attribute '", k, "'");
        return to_py(it->second);
      })
      .def("hasattr", [](const Object& o, const std::string& k) { return o.attrs.count(k) > 0; });
}

// The callables of prim::PythonOp nodes (script's calls of @ignore'd functions), by the node's
// `fn_id`; never freed, as graphs holding their ids may live to the end of the process.
std::vector<PyObject*>& python_ops() {
  static std::vector<PyObject*> fns;
  return fns;
}

std::vector<IValue> run_python_op(const Node& n, Stack& inputs) {
  py::gil_scoped_acquire gil;
  const int64_t id = n.attr("fn_id").toInt();
  TL_CHECK(id >= 0 && static_cast<size_t>(id) < python_ops().size(), "jit: unknown Python op ", id);
  py::tuple args(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) args[i] = to_py(inputs[i]);
  py::object result = py::reinterpret_borrow<py::object>(python_ops()[id])(*args);
  if (n.outputs().empty()) return {};
  return {to_ivalue(result)};
}

// The Graph held by a Python Graph object (its pybind11 holder, read without a type-table lookup
// when the type is exactly Graph), or a TypeError.
std::shared_ptr<Graph> graph_arg(PyObject* o) {
  static const py::detail::type_info* info = py::detail::get_type_info(typeid(Graph));
  if (info && Py_TYPE(o) == info->type) {
    auto* inst = reinterpret_cast<py::detail::instance*>(o);
    return inst->get_value_and_holder(info).holder<std::shared_ptr<Graph>>();
  }
  if (py::isinstance<Graph>(o)) return py::reinterpret_borrow<py::object>(o).cast<std::shared_ptr<Graph>>();
  throw TypeError(str("run_graph(): argument 'graph' must be a torchlite._C._jit.Graph, not ", Py_TYPE(o)->tp_name));
}

PyObject* run_graph_py(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  try {
    TL_CHECK_TYPE(nargs == 2, "run_graph() takes 2 arguments (graph, inputs), got ", nargs);
    std::shared_ptr<Graph> g = graph_arg(args[0]);
    py::object seq = py::reinterpret_steal<py::object>(
        check(PySequence_Fast(args[1], "run_graph(): argument 'inputs' must be a sequence")));
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
    PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
    std::vector<IValue> inputs;
    inputs.reserve(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) inputs.push_back(to_ivalue(items[i]));
    std::vector<IValue> outs;
    {
      GilRelease no_gil;
      outs = run_graph(*g, std::move(inputs));
    }
    py::list result(outs.size());
    for (size_t i = 0; i < outs.size(); ++i) result[i] = to_py(outs[i]);
    return result.release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (py::builtin_exception& e) {
    e.set_error();
    return nullptr;
  } catch (...) {
    translate_exception();
    return nullptr;
  }
}

void bind_runtime(py::module_& m) {
  m.def("_register_python_op", [](py::object fn) {
    set_python_op_handler(&run_python_op);
    python_ops().push_back(fn.release().ptr());
    return static_cast<int64_t>(python_ops().size() - 1);
  }, "Keeps a Python callable for prim::PythonOp nodes; returns its fn_id.");
  // run_graph is every compiled call's entry: a plain CPython function (METH_FASTCALL) rather than
  // a pybind11 def, whose argument dispatch and type lookups cost ~0.4 us a call.
  static PyMethodDef run_graph_def = {"run_graph", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&run_graph_py)),
                                      METH_FASTCALL,
                                      "run_graph(graph, inputs) -> list: runs a graph in the interpreter on a list of "
                                      "inputs (one per graph input); returns the list of its outputs."};
  m.add_object("run_graph", py::reinterpret_steal<py::object>(check(PyCFunction_NewEx(&run_graph_def, nullptr, m.attr("__name__").ptr()))));
  m.def("run_node", [](const Node& n, const py::sequence& inputs) {
    return to_py_list(run_node(n, to_ivalues(inputs)));
  }, "Runs one node on the values of its inputs (constant folding).");
  // Fusion (torch.jit's switch names; torchlite.jit.fuser sets them).
  m.def("_jit_override_can_fuse_on_cpu", &FusionSettings::set_can_fuse_on_cpu);
  m.def("_jit_can_fuse_on_cpu", &FusionSettings::can_fuse_on_cpu);
  m.def("_jit_set_texpr_fuser_enabled", &FusionSettings::set_texpr_fuser_enabled);
  m.def("_jit_texpr_fuser_enabled", &FusionSettings::texpr_fuser_enabled);
  m.def("_jit_fusion_active", [] { return FusionSettings::can_fuse_on_cpu() && FusionSettings::texpr_fuser_enabled(); },
        "Whether traced callables run their fused graph (both switches on).");
  m.def("_jit_set_fusion_block_size", &FusionSettings::set_block_size);
  m.def("_jit_get_fusion_block_size", &FusionSettings::block_size);
  m.def("_jit_set_fusion_min_numel", &FusionSettings::set_min_numel);
  m.def("_jit_set_fusion_backward_recomputes", &FusionSettings::set_backward_recomputes,
        "True: a fusion group's backward runs its forward again per block instead of keeping each block's graph");
  m.def("_jit_get_fusion_backward_recomputes", &FusionSettings::backward_recomputes);
  m.def("_jit_get_fusion_min_numel", &FusionSettings::min_numel);
  m.def("_jit_fusion_stats", [] {
    FusionStats s = fusion_stats();
    py::dict d;
    d["fused"] = s.fused;
    d["fallback"] = s.fallback;
    return d;
  }, "Fusion-group runs so far: {'fused': blocked runs, 'fallback': node-by-node runs}.");
  m.def("_jit_fusion_plans_made", [] { return fusion_stats().planned; },
        "Fusion plans made so far (meta runs: once per subgraph and input signature, the type guard cache).");
  m.def("_jit_reset_fusion_stats", &reset_fusion_stats);
  m.def("_jit_get_schemas_for_operator", [](const std::string& name) {
    std::string base = name.rfind("aten::", 0) == 0 ? name.substr(6) : name;
    std::vector<const FunctionSchema*> out;
    for (const Operator* op : overloads_of(base)) out.push_back(&op->schema);
    return out;
  }, py::return_value_policy::reference);
  m.def("_jit_set_instruction_profiling", &set_instruction_profiling,
        "Counts and times the interpreter's instructions by node kind while on (aten/jit/InstrProfile.h).");
  m.def("_jit_instruction_profile", [] {
    py::list out;
    for (const InstrProfileEntry& e : instruction_profile()) out.append(py::make_tuple(e.kind, e.count, e.seconds));
    return out;
  }, "[(kind, instructions run, own seconds)], most time first.");
  m.def("_jit_reset_instruction_profile", &reset_instruction_profile);
  m.def("_prim_kinds", &prim_kinds, "The interpreter's non-tensor prim:: ops (aten/jit/PrimOps.h).");
  m.def("_prim_writes_first_input", [](const std::string& kind) {
    const PrimOp* p = find_prim(kind);
    return p != nullptr && (p->flags & kPrimWritesFirst);
  }, "Whether a prim:: op mutates its first input (list append, dict setitem), for alias analysis.");
  m.def("_skipped_ops", &skipped_ops, "Overloads without a boxed form, each with the reason.");
  m.def("_registered_op_count", [] { return all_ops().size(); });

  m.def("_tracer_enter", [](std::shared_ptr<Graph> g) { tracer::enter(std::move(g)); });
  m.def("_tracer_exit", &tracer::exit);
  m.def("_is_tracing", &tracer::active);
  m.def("_tracer_set_value", [](const Tensor& t, Value* v) { tracer::set_value(t, v); });
  m.def("_tracer_get_value", [](const Tensor& t) { return tracer::get_value(t); }, py::return_value_policy::reference);
  m.def("_tracer_value_for", [](py::handle obj) { return tracer::value_for(to_ivalue(obj)); },
        py::return_value_policy::reference, "The traced Value of a tensor, a list of tensors, or a new constant.");
  m.def("_set_tracer_warning_class", [](py::handle cls) { jit::set_tracer_warning_class(cls.ptr()); });
}

}  // namespace

void init_jit(PyObject* module) {
  py::module_ parent = py::reinterpret_borrow<py::module_>(module);
  py::module_ m = parent.def_submodule("_jit", "torchlite's JIT: IR, interpreter and tracer (torchlite.jit).");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tl::Error&) {
      translate_exception();
    }
  });
  bind_schema(m);
  bind_ir(m);
  bind_runtime(m);
  bind_serialization(m);
}

}  // namespace tl::python
