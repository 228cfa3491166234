#include "aten/jit/FusionExecutor.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "aten/autograd/Engine.h"
#include "aten/autograd/GradMode.h"
#include "aten/autograd/Node.h"
#include "aten/autograd/SavedVariable.h"
#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/jit/FusionLayout.h"
#include "aten/jit/Interpreter.h"
#include "generated/ops/copy.h"

namespace tl::jit {
namespace {

std::atomic<bool> g_can_fuse_on_cpu{false};
std::atomic<bool> g_texpr_fuser_enabled{true};
// 16384 elements: a float32 block is 64 KiB, so a chain's intermediates stay in L2 (1 MiB a core
// here) while each op call (dispatch, TensorIterator) is spread over enough elements; on the
// 10M-element benchmark 1024-element blocks ran at eager's speed, 4096 10-15% slower than 16384,
// 32768 as 16384 (docs/jit.md, "Fusion").
std::atomic<int64_t> g_block_size{16384};
// Below this many elements a group runs node by node: the meta run and per-block calls cost
// about what the saved memory traffic gains (equal at 4096 elements on the benchmark chain).
std::atomic<int64_t> g_min_numel{16384};
std::atomic<int64_t> g_fused{0};
std::atomic<int64_t> g_fallback{0};
std::atomic<int64_t> g_planned{0};

// How the blocked run sees each subgraph input.
enum class InputKind : uint8_t {
  Pass,    // not a tensor, or a 0-d tensor: given to the ops as it is (type promotion as eager's)
  Flat,    // a tensor whose elements follow the iteration order: a block is a 1-D view
  Gather,  // any other tensor (broadcast, permuted, sliced): a block is copied into a buffer
};

// One op of the subgraph, as the blocked run calls it.
struct Step {
  const Node* node;
  const Operator* out_op = nullptr;  // the op's out= overload (writes into a buffer we own), if any
  ScalarType dtype{};                // the result's dtype (meta run)
  int output = -1;                   // which group output this result is, or -1
};

// How a group runs on inputs of one signature (dtypes, sizes, strides, ...: see signature()),
// made once per signature and kept (the type guard cache): the meta run and the layout are not
// redone on each call.
struct Plan {
  bool blocked = false;            // false: the group runs node by node on such inputs
  int64_t numel = 0;
  std::vector<int64_t> shape;
  std::vector<InputKind> kinds;    // per subgraph input
  std::vector<size_t> operand_of;  // per subgraph input: its operand index in `layout` (Flat/Gather)
  std::vector<Step> steps;
  std::vector<std::vector<int64_t>> out_strides;  // per output: eager's strides
  std::vector<ScalarType> out_dtypes;
  std::vector<size_t> out_operand; // per output: its operand index in `layout`
  std::vector<size_t> step_of_output;  // per output: the step computing it
  FusionLayout layout;
};

// The out= overload of a functional op, found by its schema alone: the same name, the same
// arguments followed by one written Tensor `out`, one return. Null when the YAML has none.
const Operator* out_variant(const Operator& op) {
  const auto& args = op.schema.arguments;
  for (const Operator* cand : overloads_of(op.schema.name)) {
    const auto& cargs = cand->schema.arguments;
    if (cargs.size() != args.size() + 1 || cand->schema.returns.size() != 1) continue;
    const SchemaArgument& out = cargs.back();
    if (out.name != "out" || out.type != "Tensor" || !out.alias || !out.alias->is_write) continue;
    bool same = true;
    for (size_t i = 0; same && i < args.size(); ++i)
      same = cargs[i].name == args[i].name && cargs[i].type == args[i].type && !cargs[i].alias;
    if (same) return cand;
  }
  return nullptr;
}

bool same_sizes(IntArrayRef a, IntArrayRef b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

Tensor meta_like(const Tensor& t) {
  Tensor m = empty_strided_tensor(t.sizes(), t.strides(), t.dtype(), Device(DeviceType::Meta));
  m.impl()->set_wrapped_number(t.impl()->is_wrapped_number());
  return m;
}

// Runs the subgraph's nodes in order on `env` (indexed by Value::unique), calling each op's boxed
// function. `check` sees each op node with its outputs' values. With `meta`, tensor constants
// (the 0-d tensors a trace records for Python numbers) are replaced by meta tensors like them.
template <typename F>
void walk(const std::vector<Node*>& nodes, std::vector<IValue>& env, Stack& stack, bool meta, const F& check) {
  for (const Node* n : nodes) {
    if (n->kind() == "prim::Constant") {
      IValue c = n->hasAttribute("value") ? n->attr("value") : IValue();
      env[n->output()->unique()] = meta && c.isTensor() ? IValue(meta_like(c.toTensor())) : std::move(c);
      continue;
    }
    const Operator* op = n->op();
    TL_CHECK(op != nullptr, "jit: a fusion group cannot hold a ", n->kind(), " node");
    stack.clear();
    for (const Value* v : n->inputs()) stack.push_back(env[v->unique()]);
    run_op(*op, stack);
    TL_CHECK(stack.size() == n->outputs().size(), "jit: ", n->kind(), " produced ", stack.size(),
             " values for ", n->outputs().size(), " outputs");
    for (size_t i = 0; i < stack.size(); ++i) env[n->output(i)->unique()] = std::move(stack[i]);
    check(*n, env);
  }
}

// The blocked run's plan, or one saying the group must run node by node.
std::shared_ptr<const Plan> make_plan(const Graph& sub, const Stack& inputs) {
  g_planned.fetch_add(1, std::memory_order_relaxed);
  auto fallback = std::make_shared<const Plan>();
  const auto& params = sub.inputs();
  if (params.size() != inputs.size() || sub.outputs().empty()) return fallback;
  bool dimensioned = false;
  std::vector<IValue> env(sub.valueCount());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const IValue& v = inputs[i];
    if (!v.isTensor()) {
      env[params[i]->unique()] = v;
      continue;
    }
    const Tensor& t = v.toTensor();
    if (!t.defined() || !t.is_cpu()) return fallback;
    dimensioned |= t.dim() > 0;
    env[params[i]->unique()] = meta_like(t);
  }
  if (!dimensioned) return fallback;

  // Eager's dtypes, shapes and output strides, op by op, on meta tensors.
  std::vector<int64_t> shape;
  bool uniform = true;
  try {
    autograd::NoGradGuard no_grad;
    Stack stack;
    walk(sub.nodes(), env, stack, /*meta=*/true, [&](const Node& n, const std::vector<IValue>& values) {
      uniform &= n.outputs().size() == 1;
      for (const Value* out : n.outputs()) {
        const IValue& r = values[out->unique()];
        if (!r.isTensor()) {
          uniform = false;
          continue;
        }
        IntArrayRef s = r.toTensor().sizes();
        if (shape.empty() && !s.empty()) shape = s.vec();
        uniform &= !s.empty() && same_sizes(s, shape);
      }
    });
  } catch (const std::exception&) {
    return fallback;  // the node-by-node run raises the op's own error
  }
  if (!uniform || shape.empty()) return fallback;
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  auto plan = std::make_shared<Plan>();
  Plan& p = *plan;
  p.numel = numel;
  p.shape = shape;
  for (const Node* n : sub.nodes()) {
    if (n->kind() == "prim::Constant") continue;
    Step step{n, out_variant(*n->op()), env[n->output()->unique()].toTensor().dtype(), -1};
    for (size_t o = 0; o < sub.outputs().size() && step.output < 0; ++o)
      if (sub.outputs()[o] == n->output()) step.output = static_cast<int>(o);
    p.steps.push_back(step);
  }
  for (const Value* out : sub.outputs()) {  // each output must be computed by an op of the group
    size_t k = 0;
    while (k < p.steps.size() && p.steps[k].node != out->node()) ++k;
    if (k == p.steps.size()) return fallback;
    p.step_of_output.push_back(k);
  }
  std::vector<std::vector<int64_t>> operand_strides;
  p.kinds.assign(inputs.size(), InputKind::Pass);
  p.operand_of.assign(inputs.size(), 0);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].isTensor() || inputs[i].toTensor().dim() == 0) continue;
    const Tensor& t = inputs[i].toTensor();
    if (static_cast<size_t>(t.dim()) > shape.size()) return fallback;
    std::vector<int64_t> st(shape.size(), 0);  // aligned on the trailing dims; 0 where broadcast
    const size_t lead = shape.size() - t.dim();
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (t.size(d) == shape[lead + d]) {
        st[lead + d] = shape[lead + d] == 1 ? 0 : t.stride(d);
      } else if (t.size(d) != 1) {
        return fallback;
      }
      if (st[lead + d] < 0) return fallback;
    }
    p.kinds[i] = InputKind::Gather;
    p.operand_of[i] = operand_strides.size();
    operand_strides.push_back(std::move(st));
  }
  for (const Value* out : sub.outputs()) {
    const Tensor& m = env[out->unique()].toTensor();
    p.out_strides.push_back(m.strides().vec());
    p.out_dtypes.push_back(m.dtype());
    p.out_operand.push_back(operand_strides.size());
    operand_strides.push_back(m.strides().vec());
  }
  p.layout = make_fusion_layout(shape, p.out_strides[0], operand_strides);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (p.kinds[i] == InputKind::Gather && p.layout.flat[p.operand_of[i]]) p.kinds[i] = InputKind::Flat;
  p.blocked = true;
  return plan;
}

// A 1-D view of `len` elements of `base`'s storage from element `offset` (internal: no autograd,
// no version-counter sharing; the ops only read it or write fresh outputs).
Tensor block_view(const Tensor& base, int64_t offset, int64_t len) {
  const int64_t size[1] = {len}, stride[1] = {1};
  return Tensor(intrusive_ptr<TensorImpl>::make(base.storage(), base.dtype(), IntArrayRef(size, 1),
                                                IntArrayRef(stride, 1), offset));
}

// Copies a 1-D block result `r` (any stride) into the group output's elements [start, start + len).
void store_output(const Tensor& r, Tensor& out, const FusionLayout& L, size_t operand, int64_t start, int64_t len) {
  TL_CHECK(r.numel() == len && r.dim() == 1 && r.dtype() == out.dtype(), "jit: a fusion group result has ",
           r.numel(), " ", scalar_type_name(r.dtype()), " elements in a block of ", len, " (expected ",
           scalar_type_name(out.dtype()), ")");
  const size_t esz = out.itemsize();
  const char* data = static_cast<const char*>(r.data_ptr());
  std::vector<char> tmp;
  if (r.stride(0) != 1 && len > 1) {  // pointwise ops give contiguous results; be safe with others
    tmp.resize(static_cast<size_t>(len) * esz);
    for (int64_t k = 0; k < len; ++k) std::memcpy(tmp.data() + k * esz, data + k * r.stride(0) * esz, esz);
    data = tmp.data();
  }
  char* base = static_cast<char*>(out.data_ptr());
  if (L.flat[operand]) {
    std::memcpy(base + start * static_cast<int64_t>(esz), data, static_cast<size_t>(len) * esz);
  } else {
    fusion_scatter(L, operand, base, data, esz, start, len);
  }
}

std::vector<IValue> run_blocked(const Graph& sub, const Stack& inputs, const Plan& p) {
  std::vector<Tensor> outputs;
  for (size_t o = 0; o < p.out_strides.size(); ++o)
    outputs.push_back(empty_strided_tensor(p.shape, p.out_strides[o], p.out_dtypes[o], Device(DeviceType::CPU)));
  const int64_t numel = p.layout.numel;
  const int64_t block = std::min(std::max<int64_t>(g_block_size.load(), 1), numel);
  const int64_t nblocks = (numel + block - 1) / block;
  const auto& params = sub.inputs();
  const auto& results = sub.outputs();
  const std::vector<Node*> nodes = sub.nodes();
  // Blocks per thread at least: eager's grain size, so a group runs on as many threads as its ops would.
  const int64_t grain = std::max<int64_t>(1, kGrainSize / block);
  parallel_for(0, nblocks, grain, [&](int64_t b0, int64_t b1) {
    autograd::NoGradGuard no_grad;
    std::vector<IValue> env(sub.valueCount());
    for (const Node* n : nodes)
      if (n->kind() == "prim::Constant") env[n->output()->unique()] = n->hasAttribute("value") ? n->attr("value") : IValue();
    // Per-thread block buffers, allocated once: gathered inputs, and the results of ops with an
    // out= overload (so a block allocates nothing; a result that is a flat group output is
    // written straight into the output instead).
    std::vector<Tensor> in_buf(inputs.size()), step_buf(p.steps.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (p.kinds[i] == InputKind::Pass) env[params[i]->unique()] = inputs[i];
      if (p.kinds[i] == InputKind::Gather) in_buf[i] = empty_tensor({block}, inputs[i].toTensor().dtype());
    }
    for (size_t k = 0; k < p.steps.size(); ++k) {
      const Step& st = p.steps[k];
      const bool direct = st.output >= 0 && p.layout.flat[p.out_operand[st.output]];
      if (st.out_op && !direct) step_buf[k] = empty_tensor({block}, st.dtype);
    }
    Stack stack;
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t start = b * block, len = std::min(block, numel - start);
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (p.kinds[i] == InputKind::Pass) continue;
        const Tensor& t = inputs[i].toTensor();
        if (p.kinds[i] == InputKind::Flat) {
          env[params[i]->unique()] = block_view(t, t.storage_offset() + start, len);
          continue;
        }
        fusion_gather(p.layout, p.operand_of[i], static_cast<const char*>(t.data_ptr()),
                      static_cast<char*>(in_buf[i].data_ptr()), t.itemsize(), start, len);
        env[params[i]->unique()] = len == block ? in_buf[i] : block_view(in_buf[i], 0, len);
      }
      for (size_t k = 0; k < p.steps.size(); ++k) {
        const Step& st = p.steps[k];
        stack.clear();
        for (const Value* v : st.node->inputs()) stack.push_back(env[v->unique()]);
        IValue& result = env[st.node->output()->unique()];
        if (!st.out_op) {
          run_op(*st.node->op(), stack);
          TL_CHECK(stack.size() == 1, "jit: ", st.node->kind(), " produced ", stack.size(), " values, not 1");
          result = std::move(stack[0]);
          continue;
        }
        Tensor target;
        if (step_buf[k].defined()) {
          target = len == block ? step_buf[k] : block_view(step_buf[k], 0, len);
        } else {  // a flat group output: this block of it
          const Tensor& out = outputs[st.output];
          target = block_view(out, out.storage_offset() + start, len);
        }
        stack.push_back(target);
        run_op(*st.out_op, stack);
        result = std::move(target);
      }
      for (size_t o = 0; o < results.size(); ++o) {
        const size_t k = p.step_of_output[o];
        if (p.steps[k].output == static_cast<int>(o) && p.steps[k].out_op && !step_buf[k].defined()) continue;
        store_output(env[results[o]->unique()].toTensor(), outputs[o], p.layout, p.out_operand[o], start, len);
      }
    }
  });
  return std::vector<IValue>(outputs.begin(), outputs.end());
}

// The inputs' signature: everything a plan depends on. Per input its kind; for a tensor its dtype,
// device, sizes, strides, whether it is a wrapped number and whether it needs gradients now; for a
// number or bool its value (an op may raise on some values; a plan is then the node-by-node run).
// Empty when an input is of a kind not keyed (strings, lists, ...): such calls plan every time.
std::vector<int64_t> signature(const Stack& inputs) {
  std::vector<int64_t> key;
  key.reserve(inputs.size() * 8 + 1);
  const bool grad = autograd::GradMode::is_enabled();
  for (const IValue& v : inputs) {
    const IValue::Tag tag = v.tag();
    key.push_back(static_cast<int64_t>(tag));
    switch (tag) {
      case IValue::Tag::None:
        break;
      case IValue::Tag::Tensor: {
        const Tensor& t = v.toTensor();
        if (!t.defined()) {
          key.push_back(-1);
          break;
        }
        key.push_back(static_cast<int64_t>(t.dtype()));
        key.push_back(static_cast<int64_t>(t.device().type) * 65536 + t.device().index);
        key.push_back((t.impl()->is_wrapped_number() ? 1 : 0) + (grad && t.requires_grad() ? 2 : 0));
        key.push_back(t.dim());
        for (int64_t d = 0; d < t.dim(); ++d) {
          key.push_back(t.size(d));
          key.push_back(t.stride(d));
        }
        break;
      }
      case IValue::Tag::Int:
        key.push_back(v.toInt());
        break;
      case IValue::Tag::Bool:
        key.push_back(v.toBool());
        break;
      case IValue::Tag::Double: {
        const double d = v.toDouble();
        int64_t bits;
        std::memcpy(&bits, &d, sizeof bits);
        key.push_back(bits);
        break;
      }
      case IValue::Tag::ScalarType:
        key.push_back(static_cast<int64_t>(v.toScalarType()));
        break;
      default:
        return {};
    }
  }
  return key;
}

// A subgraph's plans by signature (a few: a group usually sees one or two), kept on the subgraph
// and dropped when it is edited.
struct PlanCache {
  static constexpr size_t kMaxEntries = 8;
  std::mutex mutex;
  std::vector<std::pair<std::vector<int64_t>, std::shared_ptr<const Plan>>> entries;
  size_t next_victim = 0;
};

std::shared_ptr<PlanCache> plan_cache(const Graph& sub) {
  Graph::ExecCache& ec = sub.execCache();
  std::lock_guard<std::mutex> lock(ec.mutex);
  if (!ec.fusion || ec.fusion_version != sub.version()) {
    ec.fusion = std::make_shared<PlanCache>();
    ec.fusion_version = sub.version();
  }
  return std::static_pointer_cast<PlanCache>(ec.fusion);
}

std::shared_ptr<const Plan> cached_plan(const Graph& sub, const Stack& inputs) {
  std::vector<int64_t> key = signature(inputs);
  if (key.empty()) return make_plan(sub, inputs);
  std::shared_ptr<PlanCache> cache = plan_cache(sub);
  {
    std::lock_guard<std::mutex> lock(cache->mutex);
    for (const auto& [k, plan] : cache->entries)
      if (k == key) return plan;
  }
  std::shared_ptr<const Plan> plan = make_plan(sub, inputs);  // outside the lock: it runs ops
  std::lock_guard<std::mutex> lock(cache->mutex);
  if (cache->entries.size() < PlanCache::kMaxEntries) {
    cache->entries.emplace_back(std::move(key), plan);
  } else {
    cache->entries[cache->next_victim] = {std::move(key), plan};
    cache->next_victim = (cache->next_victim + 1) % PlanCache::kMaxEntries;
  }
  return plan;
}

// The value of input `i` for the block [start, start + len): a view (Flat), a copy gathered into
// `buf` (Gather), or the input itself (Pass).
IValue input_block(const Plan& p, size_t i, const IValue& v, Tensor& buf, int64_t block, int64_t start, int64_t len) {
  if (p.kinds[i] == InputKind::Pass) return v;
  const Tensor& t = v.toTensor();
  if (p.kinds[i] == InputKind::Flat) return block_view(t, t.storage_offset() + start, len);
  if (!buf.defined()) buf = empty_tensor({block}, t.dtype());
  fusion_gather(p.layout, p.operand_of[i], static_cast<const char*>(t.data_ptr()), static_cast<char*>(buf.data_ptr()),
                t.itemsize(), start, len);
  return block_view(buf, 0, len);
}

// Whether a group run with inputs requiring grad can be recorded as one node (FusionGroupBackward):
// every input requiring grad is a dimensioned tensor of exactly the group's shape (a broadcast
// input's gradient is a reduction, left to the op-by-op record), and the first output is laid out
// in iteration order (the gradients are allocated that way).
bool one_node_autograd(const Plan& p, const Stack& inputs) {
  if (!p.layout.flat[p.out_operand[0]]) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].isTensor() || !inputs[i].toTensor().requires_grad()) continue;
    const Tensor& t = inputs[i].toTensor();
    if (p.kinds[i] == InputKind::Pass || !same_sizes(t.sizes(), p.shape)) return false;
  }
  return true;
}

// A block of tensor input `t` for a recorded forward: a view (Flat) or a gathered copy in a buffer of
// its own (Gather; the block's ops may save it). It shares t's version counter, so that a block op
// that saved it sees an in-place change of t as eager's saved tensor would.
Tensor recorded_block(const Plan& p, size_t i, const Tensor& t, int64_t start, int64_t len) {
  Tensor out;
  if (p.kinds[i] == InputKind::Flat) {
    out = block_view(t, t.storage_offset() + start, len);
  } else {
    out = empty_tensor({len}, t.dtype());
    fusion_gather(p.layout, p.operand_of[i], static_cast<const char*>(t.data_ptr()), static_cast<char*>(out.data_ptr()),
                  t.itemsize(), start, len);
  }
  out.impl()->share_version_counter(t.impl()->version_counter());
  return out;
}

// One block of a recorded forward: the leaves (its blocks of the inputs requiring grad), the block
// results with the history of the ops that made them (each op saved what its derivative formula
// reads, as in eager code), and the gradient edge of each leaf.
struct BlockRecord {
  autograd::variable_list leaves, outs;
  std::vector<size_t> leaf_edge;
};

// Runs the subgraph on block [start, start + len) with autograd on, into `rec`: its leaves (the blocks
// of the inputs with an edge) and its results, whose history is the ops' own backward nodes.
void record_block(const Graph& sub, const Stack& inputs, const Plan& p, const std::vector<int>& edge_of, int64_t start,
                  int64_t len, std::vector<IValue>& env, Stack& stack, BlockRecord& rec) {
  autograd::AutoGradMode grad_on(true);
  const auto& params = sub.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    IValue v = inputs[i];
    if (p.kinds[i] != InputKind::Pass) {
      Tensor t = recorded_block(p, i, inputs[i].toTensor(), start, len);
      if (edge_of[i] >= 0) {
        t.set_requires_grad(true);
        rec.leaves.push_back(t);
        rec.leaf_edge.push_back(static_cast<size_t>(edge_of[i]));
      }
      v = IValue(std::move(t));
    }
    env[params[i]->unique()] = std::move(v);
  }
  walk(sub.nodes(), env, stack, /*meta=*/false, [](const jit::Node&, const std::vector<IValue>&) {});
  for (const Value* o : sub.outputs()) rec.outs.push_back(env[o->unique()].toTensor());
  std::fill(env.begin(), env.end(), IValue());
}

std::atomic<bool> g_backward_recomputes{false};

// A block result as the backward needs it once copied into the output: its history (grad_fn, output
// number), shape and dtype, on the meta device, so the block's data is not kept beside the output
// (unless the op that made it saved it for its own formula, as eager's would: tanh's result).
Tensor history_only(const Tensor& r) {
  const autograd::AutogradMeta* meta = r.impl()->autograd_meta();
  if (meta == nullptr || !meta->grad_fn) return r;
  Tensor alias = empty_strided_tensor(r.sizes(), r.strides(), r.dtype(), Device(DeviceType::Meta));
  autograd::AutogradMeta& m = alias.impl()->ensure_autograd_meta();
  m.grad_fn = meta->grad_fn;
  m.output_nr = meta->output_nr;
  return alias;
}

// The group's forward with autograd on, block by block (record_block): the results are copied into
// the whole-size outputs and each block's graph is kept for the backward, which then runs no
// forward op again.
std::vector<IValue> run_recorded(const Graph& sub, const Stack& inputs, const Plan& p, const std::vector<int>& edge_of,
                                 std::vector<BlockRecord>& records) {
  std::vector<Tensor> outputs;
  for (size_t o = 0; o < p.out_strides.size(); ++o)
    outputs.push_back(empty_strided_tensor(p.shape, p.out_strides[o], p.out_dtypes[o], Device(DeviceType::CPU)));
  const int64_t numel = p.layout.numel;
  const int64_t block = std::min(std::max<int64_t>(g_block_size.load(), 1), numel);
  const int64_t nblocks = (numel + block - 1) / block;
  records.assign(static_cast<size_t>(nblocks), BlockRecord{});
  // Under anomaly mode every node made records where it was made (a hook into Python): one thread.
  const int64_t grain = autograd::AnomalyMode::is_enabled() ? nblocks : std::max<int64_t>(1, kGrainSize / block);
  parallel_for(0, nblocks, grain, [&](int64_t b0, int64_t b1) {
    std::vector<IValue> env(sub.valueCount());
    Stack stack;
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t start = b * block, len = std::min(block, numel - start);
      BlockRecord& rec = records[static_cast<size_t>(b)];
      record_block(sub, inputs, p, edge_of, start, len, env, stack, rec);
      autograd::NoGradGuard no_grad;
      for (size_t o = 0; o < outputs.size(); ++o) {
        store_output(rec.outs[o], outputs[o], p.layout, p.out_operand[o], start, len);
        rec.outs[o] = history_only(rec.outs[o]);
      }
    }
  });
  return std::vector<IValue>(outputs.begin(), outputs.end());
}

// A fusion group's backward as one autograd node. The forward ran block by block with autograd on
// and kept each block's graph (BlockRecord); the backward gives each block graph its block of the
// output gradients and writes the block's input gradients into whole-size ones. The gradients come
// from the ops' own derivative formulas on what they saved, so they are eager's bit for bit. The
// inputs are saved as eager saves tensors (version-checked): an input changed in place after the
// forward raises eager's error when a block op needs it. With create_graph the subgraph is rerun
// node by node on the saved inputs instead (so the gradient has history).
struct FusionGroupBackward final : autograd::Node {
  std::shared_ptr<Graph> sub;
  uint64_t version = 0;
  std::shared_ptr<const Plan> plan;
  std::vector<IValue> inputs;                    // as the group got them (tensors: undefined, see `saved`)
  std::vector<autograd::SavedVariable> saved;    // per input: its tensor, version-checked
  std::vector<size_t> edge_input;                // per next edge: the subgraph input it is the gradient of
  std::vector<ScalarType> edge_dtype;            // per next edge: its input's dtype
  std::vector<BlockRecord> records;
  bool released = false;

  std::string name() const override { return "FusionGroupBackward"; }
  void release_variables() override {
    inputs.clear();
    saved.clear();
    records.clear();
    records.shrink_to_fit();
    released = true;
  }

  std::vector<IValue> unpacked_inputs() {
    std::vector<IValue> out = inputs;
    for (size_t i = 0; i < out.size(); ++i)
      if (saved[i].defined()) out[i] = IValue(saved[i].unpack(shared_from_this()));
    return out;
  }

  autograd::variable_list apply(autograd::variable_list&& grads) override {
    TL_CHECK(!released, "Trying to backward through the graph a second time (or directly access saved tensors after "
             "they have already been freed). Saved intermediate values of the graph are freed when you call "
             ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph "
             "a second time or if you need to access saved tensors after calling backward.");
    TL_CHECK(sub->version() == version, "jit: the fusion group's subgraph was edited between forward and backward");
    const Plan& p = *plan;
    std::vector<Tensor> gouts(p.out_strides.size());
    for (size_t o = 0; o < gouts.size(); ++o) {
      Tensor g = o < grads.size() ? grads[o] : Tensor();
      const bool broadcast = g.defined() && g.is_cpu() && g.dtype() == p.out_dtypes[o] &&
                             std::all_of(g.strides().begin(), g.strides().end(), [](int64_t st) { return st == 0; });
      if (broadcast) {
        // one value for every element (sum().backward()'s expanded ones): kept so, as eager's kernels see it
      } else if (!g.defined()) {
        g = empty_strided_tensor(p.shape, p.out_strides[o], p.out_dtypes[o], Device(DeviceType::CPU));
        std::memset(g.data_ptr(), 0, static_cast<size_t>(p.numel) * g.itemsize());
      } else if (g.strides() != IntArrayRef(p.out_strides[o]) || g.dtype() != p.out_dtypes[o] || !g.is_cpu()) {
        Tensor laid = empty_strided_tensor(p.shape, p.out_strides[o], p.out_dtypes[o], Device(DeviceType::CPU));
        tl::copy_(laid, g);
        g = laid;
      }
      gouts[o] = g;
    }
    if (autograd::GradMode::is_enabled()) return double_backward(gouts);

    std::vector<Tensor> gins(edge_input.size());
    for (size_t e = 0; e < edge_input.size(); ++e)
      if (should_compute_output(e))
        gins[e] = empty_strided_tensor(p.shape, p.out_strides[0], edge_dtype[e], Device(DeviceType::CPU));
    std::vector<char> reached(edge_input.size(), 0);  // whether any block's gradient reached the input
    const int64_t numel = p.layout.numel;
    const int64_t block = std::min(std::max<int64_t>(g_block_size.load(), 1), numel);
    const bool recompute = records.empty();  // the forward ran without recording (recompute mode)
    std::vector<IValue> ins;
    if (recompute) ins = unpacked_inputs();  // every saved input checked: the blocks are recorded anew
    const int64_t nblocks = (numel + block - 1) / block;
    const int64_t grain = autograd::AnomalyMode::is_enabled() ? nblocks : std::max<int64_t>(1, kGrainSize / block);
    std::vector<int> edge_of(inputs.size(), -1);
    for (size_t e = 0; e < edge_input.size(); ++e)
      if (gins[e].defined()) edge_of[edge_input[e]] = static_cast<int>(e);
    try {
      parallel_for(0, nblocks, grain, [&](int64_t b0, int64_t b1) {
        std::vector<Tensor> gout_buf(gouts.size());
        std::vector<IValue> env(sub->valueCount());
        Stack stack;
        for (int64_t b = b0; b < b1; ++b) {
          const int64_t start = b * block, len = std::min(block, numel - start);
          BlockRecord fresh;
          if (recompute) record_block(*sub, ins, p, edge_of, start, len, env, stack, fresh);
          const BlockRecord& rec = recompute ? fresh : records[static_cast<size_t>(b)];
          autograd::variable_list leaves, gblocks;
          std::vector<size_t> leaf_edge;
          for (size_t k = 0; k < rec.leaves.size(); ++k)
            if (gins[rec.leaf_edge[k]].defined()) {
              leaves.push_back(rec.leaves[k]);
              leaf_edge.push_back(rec.leaf_edge[k]);
            }
          if (leaves.empty()) continue;
          for (size_t o = 0; o < gouts.size(); ++o) {
            const Tensor& g = gouts[o];
            if (g.numel() > 1 && g.dim() > 0 && std::all_of(g.strides().begin(), g.strides().end(),
                                                          [](int64_t st) { return st == 0; })) {
              const int64_t size[1] = {len}, stride[1] = {0};
              gblocks.push_back(Tensor(intrusive_ptr<TensorImpl>::make(g.storage(), g.dtype(), IntArrayRef(size, 1),
                                                                       IntArrayRef(stride, 1), g.storage_offset())));
            } else if (p.layout.flat[p.out_operand[o]]) {
              gblocks.push_back(block_view(g, g.storage_offset() + start, len));
            } else {
              if (!gout_buf[o].defined()) gout_buf[o] = empty_tensor({block}, g.dtype());
              fusion_gather(p.layout, p.out_operand[o], static_cast<const char*>(g.data_ptr()),
                            static_cast<char*>(gout_buf[o].data_ptr()), g.itemsize(), start, len);
              gblocks.push_back(block_view(gout_buf[o], 0, len));
            }
          }
          // retained: the engine releases the block graphs with this node (release_variables), so a
          // retain_graph=True backward can run again
          autograd::variable_list r = autograd::grad(rec.outs, leaves, gblocks, /*retain_graph=*/!recompute,
                                                     /*create_graph=*/false, /*allow_unused=*/true);
          autograd::NoGradGuard no_grad;
          for (size_t k = 0; k < r.size(); ++k) {
            if (!r[k].defined()) continue;
            reached[leaf_edge[k]] = 1;
            const Tensor& gi = gins[leaf_edge[k]];
            tl::copy_(block_view(gi, gi.storage_offset() + start, len), r[k]);
          }
        }
      });
    } catch (const Error& e) {
      // A block op's saved input was changed in place: raise eager's error naming the group's input.
      if (std::string(e.what()).find("modified by an inplace operation") == std::string::npos) throw;
      unpacked_inputs();
      throw;
    }
    for (size_t e = 0; e < gins.size(); ++e)
      if (gins[e].defined() && !reached[e]) gins[e] = Tensor();  // the group's outputs do not depend on it
    return gins;
  }

  autograd::variable_list double_backward(const std::vector<Tensor>& gouts) {
    std::vector<IValue> ins = unpacked_inputs();
    autograd::variable_list outs, wrt, gs(gouts.begin(), gouts.end());
    for (const IValue& v : run_graph(*sub, ins)) outs.push_back(v.toTensor());
    for (size_t e = 0; e < edge_input.size(); ++e) wrt.push_back(ins[edge_input[e]].toTensor());
    // retained, as create_graph implies: the gradient's own history reads this recomputed graph
    return autograd::grad(outs, wrt, gs, /*retain_graph=*/true, /*create_graph=*/true, /*allow_unused=*/true);
  }
};

// Runs the group block by block recording each block's graph, and gives the outputs one
// FusionGroupBackward node.
std::vector<IValue> run_with_one_node(const Node& node, const Graph& sub, const Stack& inputs,
                                      const std::shared_ptr<const Plan>& plan) {
  auto fn = std::make_shared<FusionGroupBackward>();
  fn->sub = node.g("Subgraph");
  fn->version = sub.version();
  fn->plan = plan;
  std::vector<autograd::Edge> edges;
  std::vector<int> edge_of(inputs.size(), -1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].isTensor() || !inputs[i].toTensor().requires_grad()) continue;
    edge_of[i] = static_cast<int>(fn->edge_input.size());
    fn->edge_input.push_back(i);
    fn->edge_dtype.push_back(inputs[i].toTensor().dtype());
    edges.push_back(autograd::gradient_edge(inputs[i].toTensor()));
  }
  std::vector<IValue> outs;
  if (g_backward_recomputes.load()) {  // keep only the inputs; the backward runs the blocks again
    autograd::NoGradGuard no_grad;
    outs = run_blocked(sub, inputs, *plan);
  } else {
    outs = run_recorded(sub, inputs, *plan, edge_of, fn->records);
  }
  fn->inputs = inputs;
  fn->saved.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].isTensor()) {
      fn->saved[i] = autograd::SavedVariable(inputs[i].toTensor(), /*is_output=*/false);
      fn->inputs[i] = IValue();  // held by `saved`
    }
  fn->set_next_edges(std::move(edges));
  for (const IValue& o : outs) autograd::set_history(o.toTensor(), fn);
  return outs;
}

}  // namespace

std::vector<IValue> run_fusion_group(const Node& node, Stack inputs) {
  TL_CHECK(node.hasGraphAttribute("Subgraph"), "jit: ", node.kind(), " has no Subgraph");
  const Graph& sub = *node.g("Subgraph");
  TL_CHECK_TYPE(inputs.size() == sub.inputs().size(), "jit: ", node.kind(), " takes ", sub.inputs().size(),
                " inputs, got ", inputs.size());
  const std::shared_ptr<const Plan> plan = cached_plan(sub, inputs);
  if (plan->blocked && plan->numel >= std::max<int64_t>(g_min_numel.load(), 1)) {
    bool grad = false;
    if (autograd::GradMode::is_enabled())
      for (const IValue& v : inputs) grad |= v.isTensor() && v.toTensor().requires_grad();
    if (!grad) {
      g_fused.fetch_add(1, std::memory_order_relaxed);
      return run_blocked(sub, inputs, *plan);
    }
    if (one_node_autograd(*plan, inputs)) {
      g_fused.fetch_add(1, std::memory_order_relaxed);
      return run_with_one_node(node, sub, inputs, plan);
    }
  }
  g_fallback.fetch_add(1, std::memory_order_relaxed);
  return run_graph(sub, std::move(inputs));
}

bool FusionSettings::can_fuse_on_cpu() { return g_can_fuse_on_cpu.load(); }
void FusionSettings::set_can_fuse_on_cpu(bool on) { g_can_fuse_on_cpu.store(on); }
bool FusionSettings::texpr_fuser_enabled() { return g_texpr_fuser_enabled.load(); }
void FusionSettings::set_texpr_fuser_enabled(bool on) { g_texpr_fuser_enabled.store(on); }
int64_t FusionSettings::block_size() { return g_block_size.load(); }
void FusionSettings::set_block_size(int64_t n) {
  TL_CHECK_VALUE(n >= 1, "jit: the fusion block size must be at least 1, got ", n);
  g_block_size.store(n);
}
bool FusionSettings::backward_recomputes() { return g_backward_recomputes.load(); }
void FusionSettings::set_backward_recomputes(bool on) { g_backward_recomputes.store(on); }
int64_t FusionSettings::min_numel() { return g_min_numel.load(); }
void FusionSettings::set_min_numel(int64_t n) {
  TL_CHECK_VALUE(n >= 0, "jit: the fusion minimum element count must be non-negative, got ", n);
  g_min_numel.store(n);
}

FusionStats fusion_stats() { return FusionStats{g_fused.load(), g_fallback.load(), g_planned.load()}; }
void reset_fusion_stats() {
  g_fused.store(0);
  g_fallback.store(0);
  g_planned.store(0);
}

}  // namespace tl::jit
