"""torchlite's public namespaces hold the names PyTorch 2.13's hold, and no others.

For each pair of namespaces, the names torchlite has and torch lacks (dunders aside) must be private
(a leading `_`) and listed below with the reason they exist; the YAML keys that place generated
bindings (`inplace: method`, `python_module:`, `python_binding: internal`; docs/native_functions.md)
keep the generated part in line. Names torch has and torchlite lacks are missing features, not
leaks: they are not checked here.
"""
import importlib
import types

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
import torchlite.utils.safetensors  # noqa: F401 - an extension (EXTENSIONS): imported so the check holds in any order

# Public names torchlite adds on purpose, where torch has none, one reason each.
EXTENSIONS = {
    "utils": {"safetensors": "safetensors.torch's API for torchlite tensors (the safetensors package's torch module "
                             "needs torch itself); docs/serialization.md"},
}

# Private names torchlite may have where torch has none, one reason each.
TOP_LEVEL_PRIVATE = {
    "_builtins": "the builtins module: torchlite.int / float / bool shadow Python's in the package namespace",
    "_expect_tensor": "the argument check of the package's Python functions (is_floating_point, numel, ...)",
    "_interop_threads": "the value set_num_interop_threads records (torchlite has no inter-op pool)",
    "_test_mul_add": "a `test_op` entry exercising named-tuple returns and grad_input_mask (test_schema_types)",
    "_test_mul_backward": "a `test_op` entry: the backward op of _test_mul_add, with its own derivative",
    "_test_scale_optional": "a `test_op` entry exercising Tensor? arguments in formulas",
    "_test_sum_defined": "a `test_op` entry exercising undefined gradients (materialize_grads)",
}
TEST_OPS = {name: "a `test_op` entry (see TOP_LEVEL_PRIVATE)" for name in
            ("_test_mul_add", "_test_mul_backward", "_test_scale_optional", "_test_sum_defined")}
TENSOR_PRIVATE = {
    "_numpy_holder": "the object whose __array_interface__ Tensor.numpy() wraps (keeps the storage alive)",
    "_test_mul_add": "a `test_op` entry bound as a method: test_schema_types checks a method's named tuple",
}


def _extra(ours, theirs):
    return {n for n in set(dir(ours)) - set(dir(theirs)) if not (n.startswith("__") and n.endswith("__"))}


def _is_private_submodule(obj):
    """A module of the torchlite package itself (torchlite._indexing, ...): private by its name."""
    return isinstance(obj, types.ModuleType) and obj.__name__.startswith("torchlite.")


NAMESPACES = {
    "torch": (tl, torch, TOP_LEVEL_PRIVATE),
    "Tensor": (tl.Tensor, torch.Tensor, TENSOR_PRIVATE),
    # the generated functions: torch._C._VariableFunctions is what torch re-exports at its top level
    "_C._ops": (tl._C._ops, torch._C._VariableFunctions, TEST_OPS),
    "nn.functional": (TF, F, {}),
    "_C._nn": (tl._C._nn, torch._C._nn, {}),
    "_C._special": (tl._C._special, torch._C._special, {}),
    "_C._linalg": (tl._C._linalg, torch._C._linalg, {}),
    "_C._fft": (tl._C._fft, torch._C._fft, {}),
    "return_types": (tl.return_types, torch.return_types,
                     {"_test_mul_add": TEST_OPS["_test_mul_add"], "_test_mul_backward": TEST_OPS["_test_mul_backward"],
                      "_test_mul_add_out": "the out= form of the `test_op` entry _test_mul_add"}),
    "random": (tl.random, torch.random, {"_PyGenerator": "collections.abc.Generator, fork_rng's return annotation"}),
    "special": (tl.special, torch.special, {}),
    "linalg": (tl.linalg, torch.linalg, {}),
}



def _same(reason, *names):
    return {name: reason for name in names}


IMPORT = "an import kept off the public namespace under a leading underscore"
TENSOR_METHOD = "a Tensor method this module installs on Tensor at import (_install_tensor_methods)"
HELPER = "a helper of this module's functions"
PICKLE = "the pickle format's globals, records and (un)picklers that torch keeps in other modules"

# The Python submodules torchlite shares with torch (torchlite.<name> and torch.<name>), with the
# private names torchlite's has and torch's lacks.
SUBMODULES = {
    "autograd": {
        **_same(IMPORT, "_torchlite", "_weakref"),
        **_same(TENSOR_METHOD, "_install_tensor_methods", "_tensor_detach_", "_tensor_is_inference",
                "_tensor_register_hook", "_tensor_register_post_accumulate_grad_hook", "_tensor_retain_grad"),
        **_same(HELPER, "_as_tensor_tuple", "_is_tensor", "_leaf_hook_handle"),
        "_RemovableHandle": "what Tensor.register_hook returns (torch.utils.hooks.RemovableHandle, which torchlite lacks)",
        **_same(IMPORT, "_threading"),
        "_GraphTask": "marks a running backward pass for _is_checkpoint_valid (reentrant checkpointing)",
        "_graph_tasks": "the thread's stack of running backward passes (_GraphTask)",
    },
    "autograd.function": {
        **_same(IMPORT, "_torchlite", "_no_grad"),
        "_DelayedError": "the node a once_differentiable backward's outputs get: it raises when differentiated",
        "_ONCE_DIFFERENTIABLE_MSG": "that node's message",
        "_setup_context_not_overridden": "the marker of a Function that defines no setup_context (forward takes ctx)",
    },
    "autograd.grad_mode": _same(IMPORT, "_functools", "_inspect"),
    "autograd.anomaly_mode": {"_DecoratorContextManager": "grad_mode's decorator base, which detect_anomaly extends"},
    "autograd.graph": {
        "_graph_saved_bytes": "the C walk behind _saved_bytes / _graph_size",
        "_saved_bytes": "torchlite only: the bytes a graph keeps for backward (docs/autograd.md)",
        "_graph_size": "torchlite only: the number of nodes of a graph",
        **_same(IMPORT, "_contextlib", "_threading"),
        "_disabled": "the thread's disable_saved_tensors_hooks message",
    },
    "autograd.functional": {
        **_same(IMPORT, "_tl"),
        **_same(HELPER, "_STRICT_NONE", "_STRICT_NOT_DIFFERENTIABLE", "_call", "_check_v", "_finish", "_grad",
                "_jacobian_forward", "_jacobian_reverse", "_jvp_by_double_backward", "_prepare", "_prepare_v",
                "_scalar_output_and_gradient", "_single_output_check", "_stack_rows", "_strict_check", "_untuple",
                "_zeros_for_none"),
    },
    "utils.checkpoint": {
        **_same(IMPORT, "_tl", "_saved_tensors_hooks"),
        **_same(HELPER, "_Frame", "_REENTRANT_WARNING", "_checkpoint_without_reentrant", "_rng_restored"),
        **_same("the set_checkpoint_early_stop / set_checkpoint_debug_enabled flags", "_early_stop", "_debug"),
    },
    "nn.utils.parametrize": {
        **_same(IMPORT, "_tl", "_contextlib", "_copy"),
        **_same(HELPER, "_add_property", "_deepcopy_by_dict", "_make_parametrized_class", "_refuse_pickle", "_register"),
        "_cache_depth": "how many cached() blocks are open",
    },
    "nn.utils.parametrizations": _same(IMPORT, "_tl", "_no_grad", "_norm_except_dim", "_weight_norm"),
    "nn.utils.weight_norm": _same(IMPORT, "_warnings"),
    "nn.utils.spectral_norm": _same(IMPORT, "_tl"),
    "nn.utils.fusion": _same(IMPORT, "_tl"),
    "nn": {},
    "nn.init": {
        **_same(IMPORT, "_torchlite"),
        **_same(HELPER, "_LINEAR_FNS", "_norm_cdf", "_orthogonal_"),
        "_deprecated": "makes the deprecated aliases (uniform, normal, ...) that warn and call the `_` form",
    },
    "nn.utils": {},
    "nn.modules": {"_activation_all": "activation's __all__, spliced into this package's __all__"},
    "nn.parameter": {
        **_same(IMPORT, "_Tensor", "_copy", "_torchlite"),
        "_rebuild_parameter": "what a pickled Parameter rebuilds with",
    },
    "optim": {},
    "optim.lr_scheduler": _same(HELPER, "_Composite", "_EPOCH_DEPRECATION", "_LambdaState", "_check_members",
                                "_group_values", "_lambdas", "_mark_optimizer_steps", "_momentum_option", "_per_group",
                                "_set_group_value", "_set_momentum"),
    "optim.optimizer": {
        **_same(IMPORT, "_Tensor"),
        **_same("a helper the optimizers share (optim/<name>.py imports it)", "_check_fused_foreach", "_check_nonneg",
                "_check_options", "_closure_loss", "_no_grad_step", "_params_with_grad", "_scalar_step", "_typename",
                "_use_fused", "_value", "_with_hooks", "_register"),
        "_RemovableHandle": "what the hook registrations return (torch.utils.hooks.RemovableHandle's contract)",
        "_global_step_pre_hooks": "the hooks register_optimizer_step_pre_hook adds",
        "_global_step_post_hooks": "the hooks register_optimizer_step_post_hook adds",
    },
    "utils": {},
    "utils.data": {},
    "cuda": {"_no_cuda": "raises the error of every function that needs CUDA"},
    "backends": _same(IMPORT, "_SimpleNamespace"),
    "serialization": {
        **_same(IMPORT, "_Size", "_TypedStorage", "_UntypedStorage", "_collections", "_compat_pickle", "_tl",
                "_zipfile"),
        **_same(PICKLE, "_DTYPE_GLOBALS", "_DTYPE_NAMES", "_Global", "_Pickler", "_REBUILD_PARAMETER", "_REBUILD_V2",
                "_REBUILD_V3", "_SAFE_BUILTINS", "_STORAGE_CLASS", "_STORAGE_DTYPE", "_StorageClass", "_StorageRef",
                "_TORCH_DEVICE", "_TORCH_GLOBALS", "_TORCH_SIZE", "_UNTYPED", "_Unpickler", "_rebuild_parameter",
                "_rebuild_parameter_with_state", "_rebuild_tensor", "_rebuild_tensor_v3", "_reduce_tensor"),
        **_same("the zip format's layout (PyTorch's numbers)", "_ALIGNMENT", "_AlignedZipWriter", "_VERSION",
                "_archive_name"),
        **_same(HELPER, "_apply_map_location", "_dtype_global", "_weights_only_error"),
    },
    "storage": {
        **_same(IMPORT, "_builtins", "_sys"),
        **_same(HELPER, "_check_int_index", "_converted", "_from_buffer", "_load_typed_storage",
                "_load_untyped_storage", "_make_legacy", "_repr_lines", "_slice_bounds", "_storage_class",
                "_typed_storage_warned", "_uint8"),
        **_same("the legacy classes (FloatStorage, ...) torchlite's top level takes", "_LEGACY_CLASSES", "_LEGACY_STEMS"),
        **_same(TENSOR_METHOD, "_install_tensor_methods", "_storage", "_storage_source"),
        "_is_storage": "torchlite.is_storage (torch's is top-level only)",
        "_StorageShared": "the dtype casts and fixed queries UntypedStorage and TypedStorage share",
    },
    "func": {},
    "jit": {},
}
OPTIMIZER_HELPERS = ("_check_options", "_closure_loss", "_no_grad_step", "_params_with_grad", "_scalar_step", "_value")
OPTIMIZER_FUSED = ("_check_fused_foreach", "_use_fused")
SHARED = "a helper imported from optim/optimizer.py, which every optimizer shares"
SUBMODULES.update({
    "autograd.gradcheck": {**_same(IMPORT, "_torchlite"),
                           **_same(HELPER, "_analytical_jacobians", "_check_backward_jacobians", "_differentiable_indices",
                                  "_numerical_jacobians", "_mismatch_message", "_real_numel", "_real_values")},
    "functional": {**_same(IMPORT, "_Size", "_warnings"), **_same(HELPER, "_as_list", "_atleast", "_tensor_args"),
                   "_meshgrid_warned": "meshgrid's warn-once flag"},
    "nn.modules.activation": {**_same(IMPORT, "_torchlite"),
                              **_same(HELPER, "_InplaceOnly", "_SoftmaxLike", "_inplace_suffix")},
    "nn.modules.container": {**_same(IMPORT, "_Tensor"),
                             **_same(HELPER, "_abs_index", "_dtype_name", "_entry_repr", "_tensor_type_name",
                                     "_typename")},
    "nn.modules.conv": {**_same(IMPORT, "_torchlite"),
                        **_same(HELPER, "_PADDING_MODES", "_PADDING_STRINGS", "_conv_class", "_conv_transpose_class",
                                "_lazy_class")},
    "nn.modules.distance": {},
    "nn.modules.dropout": {},
    "nn.modules.flatten": {},
    "nn.modules.lazy": _same(IMPORT, "_torchlite"),
    "nn.modules.linear": _same(IMPORT, "_torchlite"),
    "nn.modules.loss": {**_same(IMPORT, "_warnings"), "_legacy_reduction": "maps size_average/reduce to reduction"},
    "nn.modules.module": {**_same(IMPORT, "_torchlite", "_is_lazy"),
                          **_same(HELPER, "_add_global_hook", "_conversion_memo", "_convert_buffer",
                                  "_convert_parameter", "_legacy_hook_warning", "_parse_to", "_run_registration_hooks",
                                  "_torch_size_str", "_typename", "_warn_legacy_backward_hook")},
    "nn.modules.normalization": {**_same(IMPORT, "_torchlite"), **_same(HELPER, "_shape")},
    "nn.modules.padding": _same(HELPER, "_PadNd", "_SIDES", "_ZeroPad"),
    "nn.modules.pooling": _same(HELPER, "_AvgPoolWithDivisor", "_FractionalMaxPoolNd"),
    "nn.modules.rnn": {**_same(IMPORT, "_torchlite"), **_same(HELPER, "_GATES")},
    "nn.modules.sparse": {**_same(IMPORT, "_torchlite"), **_same(HELPER, "_padding_index")},
    "nn.utils.rnn": _same(IMPORT, "_torchlite"),
    "nn.utils.stateless": {**_same(IMPORT, "_warnings"), **_same(HELPER, "_ABSENT", "_owner", "_swapped")},
    **{f"optim.{name}": _same(SHARED, *OPTIMIZER_HELPERS, "_use_fused")
       for name in ("adadelta", "adamax", "nadam", "radam", "rmsprop")},
    "optim.adagrad": _same(SHARED, *OPTIMIZER_HELPERS, *OPTIMIZER_FUSED),
    "optim.sgd": _same(SHARED, "_check_options", "_closure_loss", "_no_grad_step", "_params_with_grad", "_value",
                       *OPTIMIZER_FUSED),
    "utils.data.dataloader": _same(IMPORT, "_math", "_multiprocessing", "_torchlite"),
    "utils.data.dataset": {**_same(IMPORT, "_torchlite"), **_same(HELPER, "_lengths_from_fractions")},
    "utils.data.sampler": {**_same(IMPORT, "_torchlite"), **_same(HELPER, "_is_strict_int")},
    "nn.modules.transformer": {**_same(IMPORT, "_GELU", "_Parameter", "_ReLU", "_constant_", "_torchlite",
                                       "_xavier_normal_", "_NonDynamicallyQuantizableLinear"),
                               **_same(HELPER, "_activation", "_clones", "_is_causal_mask")},
    "nn.modules.utils": {},
    "nn.utils.clip_grad": {**_same(IMPORT, "_Tensor", "_torchlite"), **_same(HELPER, "_as_list")},
    "nn.utils.convert_parameters": {**_same(IMPORT, "_Tensor", "_torchlite"), **_same(HELPER, "_check_same_device")},
    "nn.modules.batchnorm": _same(IMPORT, "_torchlite"),
    "nn.modules.instancenorm": {},
    "optim.adam": _same(SHARED, *OPTIMIZER_HELPERS, *OPTIMIZER_FUSED),
    "optim.adamw": {},
    "optim.lbfgs": {**_same(SHARED, "_check_options", "_value"),
                    "_Point": "one trial point of the line search (step, loss, gradient, slope)"},
    **{f"optim.{name}": _same(SHARED, *OPTIMIZER_HELPERS, "_use_fused") for name in ("rprop", "asgd")},
    "optim._adafactor": _same(SHARED, "_closure_loss", "_no_grad_step", "_scalar_step", "_value"),
    "optim.sparse_adam": _same(SHARED, "_closure_loss", "_no_grad_step"),
    "optim.swa_utils": {**_same(HELPER, "_check_decay", "_is_float"),
                        "_per_group": "lr_scheduler's per-group value check (PyTorch's _format_param there)"},
})

SUBMODULES.update({
    "multiprocessing": {},
    "multiprocessing.reductions": {
        **_same(IMPORT, "_ForkingPickler", "_LEGACY_CLASSES", "_TypedStorage", "_UntypedStorage", "_torchlite",
                "_weakref"),
        "_dtype_name": "a dtype as the name pickles carry (pickling a dtype object searches every module)",
        "_sent_to_children": "keeps the storages sent to a spawned child alive until it has started",
        "_shared_fd": "the fd of a storage's shared memory, or of a shared copy when it cannot move there"},
    "multiprocessing.spawn": {
        **_same(IMPORT, "_shutil", "_traceback"),
        **_same(HELPER, "_ERROR_DIR", "_error_counter", "_error_dir"),
        "_interrupt_when_parent_dies": "the child's prctl(PR_SET_PDEATHSIG) (torch: _prctl_pr_set_pdeathsig)",
        "_run_child": "what each child runs: fn(i, *args), its exception written for the parent (torch: _wrap)"},
    "nn.parallel": {},
    "nn.parallel.data_parallel": {},
    "utils.dlpack": _same(IMPORT, "_C", "_enum", "_torchlite"),
})
SUBMODULES.update({  # torchlite.distributed (docs/distributed.md): MPI's modules are private (_mpi, _groups, ...)
    "distributed": {},
    "distributed.distributed_c10d": {},
    "distributed.run": {**_same(IMPORT, "_argparse", "_shutil", "_subprocess"),
                        **_same(HELPER, "_is_open_mpi", "_mpiexec_command", "_mpiexec_path", "_nnodes", "_nproc")},
    "utils.data.distributed": _same(IMPORT, "_torchlite"),
})

SUBMODULES.update({  # torchlite.fft (docs/fft.md): Python around the _fft_c2c/_fft_r2c/_fft_c2r kernels
    "fft": {**_same(IMPORT, "_builtins", "_tl"),
            **_same("the _fft_* normalization codes", "_NONE", "_BY_ROOT_N", "_BY_N"),
            **_same(HELPER, "_norm_mode", "_wrap", "_promote", "_resize", "_check_n", "_out", "_c2c", "_r2c", "_c2r",
                    "_shape_and_dims", "_fftn_c2c", "_rfftn", "_irfftn", "_shift")},
})

for _name, _allowed in SUBMODULES.items():
    NAMESPACES[_name] = (importlib.import_module(f"torchlite.{_name}"), importlib.import_module(f"torch.{_name}"),
                         _allowed)


@pytest.mark.parametrize("where", sorted(SUBMODULES))
def test_all_holds_only_names_torchs_all_holds(where):
    """Where torch's module defines __all__, torchlite's does too, with no name torch's lacks."""
    ours, theirs, _ = NAMESPACES[where]
    assert hasattr(ours, "__all__") == hasattr(theirs, "__all__")
    if hasattr(theirs, "__all__"):
        assert sorted(set(ours.__all__) - set(theirs.__all__)) == []
        assert all(hasattr(ours, n) for n in ours.__all__)


def test_moved_names_are_where_torch_has_them():
    """Names taken off a namespace stay reachable where PyTorch keeps them."""
    assert not hasattr(tl.nn, "func") and not hasattr(torch.nn, "func")
    assert tl.func.functional_call is not None and torch.func.functional_call is not None
    for name in ("is_grad_enabled", "is_inference_mode_enabled", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"):
        assert callable(getattr(tl, name)) and callable(getattr(torch, name)), name
        assert not hasattr(tl.autograd, name) and not hasattr(torch.autograd, name), name
    assert tl.is_grad_enabled() is True and tl.is_anomaly_enabled() is False
    for name in ("FunctionCtx", "InplaceFunction", "once_differentiable"):
        assert hasattr(tl.autograd.function, name) and hasattr(torch.autograd.function, name), name
    assert tl.is_storage(tl.UntypedStorage(1)) and not tl.is_storage(tl.tensor(1.0))
    # the modules taken off their package's namespace stay importable
    assert importlib.import_module("torchlite.optim.adam").Adam is tl.optim.Adam
    assert importlib.import_module("torchlite.nn.modules.resampling").Upsample is tl.nn.Upsample


@pytest.mark.parametrize("where", sorted(NAMESPACES))
def test_no_public_names_torch_lacks(where):
    ours, theirs, _ = NAMESPACES[where]
    extensions = EXTENSIONS.get(where, {})
    assert sorted(n for n in _extra(ours, theirs) if not n.startswith("_") and n not in extensions) == []
    assert all(hasattr(ours, n) and not hasattr(theirs, n) for n in extensions)


@pytest.mark.parametrize("where", sorted(NAMESPACES))
def test_private_names_torch_lacks_are_listed(where):
    ours, theirs, allowed = NAMESPACES[where]
    extra = {n for n in _extra(ours, theirs) if n.startswith("_")}
    unlisted = sorted(n for n in extra - set(allowed) if not _is_private_submodule(getattr(ours, n)))
    assert unlisted == []
    assert set(allowed) <= extra, "a listed name is gone or torch has it now: drop it from the list"


def test_inplace_functions_only_where_torch_has_them():
    for name in ("abs_", "exp_", "relu_", "sigmoid_", "zero_", "clamp_"):
        assert hasattr(tl, name) and hasattr(torch, name), name
    for name in ("add_", "sub_", "mul_", "div_", "eq_", "lt_", "index_add_", "scatter_", "masked_fill_", "tril_",
                 "copy_", "index_reduce_", "scatter_reduce_"):
        assert not hasattr(tl, name) and not hasattr(torch, name), name
        assert hasattr(tl.Tensor, name) and hasattr(torch.Tensor, name), name
    x = tl.tensor([1.0, -2.0])
    assert x.add_(1) is x and x.tolist() == [2.0, -1.0]
    assert tl.abs_(x) is x and x.tolist() == [2.0, 1.0]
    # nn in-place ops stay functions of torch._C._nn (no Tensor.elu_), as in PyTorch
    assert hasattr(tl._C._nn, "elu_") and not hasattr(tl.Tensor, "elu_") and not hasattr(torch.Tensor, "elu_")


def test_special_and_linalg_are_bound_where_torch_binds_them():
    a = np.array([-1.5, 0.0, 0.25, 2.0])
    t, x = torch.tensor(a), tl.tensor(a.tolist(), dtype=tl.float64)
    for name in ("erf", "expit", "logit", "i0e", "ndtr", "xlogy"):
        args = (x, x) if name == "xlogy" else (x,)
        want = getattr(torch.special, name)(*((t, t) if name == "xlogy" else (t,)))
        np.testing.assert_allclose(getattr(tl.special, name)(*args).tolist(), want.tolist(), rtol=1e-12)
        assert getattr(tl.special, name) is getattr(tl._C._special, f"special_{name}")
        assert hasattr(torch._C._special, f"special_{name}")
        assert not hasattr(tl, f"special_{name}") and not hasattr(torch, f"special_{name}")
    out = tl.empty(0, dtype=tl.float64)
    assert tl.special.erf(x, out=out) is out
    for name in ("vector_norm", "cross", "vecdot", "multi_dot"):
        assert getattr(tl.linalg, name) is getattr(tl._C._linalg, f"linalg_{name}")
        assert hasattr(torch._C._linalg, f"linalg_{name}")
        assert not hasattr(tl, f"linalg_{name}") and not hasattr(torch, f"linalg_{name}")
    m = np.arange(6.0).reshape(2, 3)
    assert tl.linalg.cross(tl.tensor(m), tl.tensor(m[::-1].copy())).tolist() == \
        torch.linalg.cross(torch.tensor(m), torch.tensor(m[::-1].copy())).tolist()
    assert tl.linalg.vector_norm(tl.tensor(m)).item() == pytest.approx(torch.linalg.vector_norm(torch.tensor(m)).item())
    assert tl.special.sinc(tl.tensor([0.5])).tolist() == pytest.approx(torch.special.sinc(torch.tensor([0.5])).tolist())


def test_unbound_ops_are_internal():
    """Ops PyTorch binds nowhere in Python (torch.ops.aten only) are in torchlite._C._internal alone."""
    for name in ("sigmoid_backward", "convolution_backward", "nll_loss_forward", "elu_backward", "slice", "alias",
                 "index", "_to_copy", "_unsafe_view", "_reshape_alias", "unique_dim", "unique_dim_consecutive"):
        assert hasattr(tl._C._internal, name), name
        assert not hasattr(tl, name) and not hasattr(tl._C._ops, name) and not hasattr(tl._C._nn, name), name
        assert not hasattr(torch, name) and not hasattr(torch._C._nn, name), name
    assert not hasattr(tl.Tensor, "slice") and not hasattr(torch.Tensor, "slice")
    # a plain tuple, as torch.ops.aten returns (torch.return_types has no nll_loss_forward)
    x, target = tl.tensor([[0.5, -1.0], [2.0, 0.25]]), tl.tensor([1, 0])
    r = tl._C._internal.nll_loss_forward(x, target, None, 1, -100)
    want = torch.ops.aten.nll_loss_forward(torch.tensor(x.tolist()), torch.tensor(target.tolist()), None, 1, -100)
    assert type(r) is tuple and type(want) is tuple
    assert [t.tolist() for t in r] == [t.tolist() for t in want]
    g, y = np.array([0.5, -1.0]), np.array([0.25, 0.75])
    got = tl._C._internal.sigmoid_backward(tl.tensor(g.tolist()), tl.tensor(y.tolist()))
    want = torch.ops.aten.sigmoid_backward(torch.tensor(g, dtype=torch.float32), torch.tensor(y, dtype=torch.float32))
    assert got.tolist() == want.tolist()
    x = tl.arange(10.0)
    assert tl._C._internal.slice(x, 0, 2, 8, 3).tolist() == [2.0, 5.0]


def test_python_level_names():
    assert not hasattr(tl, "fork_rng") and not hasattr(torch, "fork_rng")
    assert tl.random.fork_rng is not None and torch.random.fork_rng is not None
    for module in (tl, TF, tl.random):
        assert not hasattr(module, "annotations")
    assert not hasattr(TF, "_nn") and not hasattr(TF, "_tl")
