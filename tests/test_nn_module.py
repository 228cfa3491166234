"""torchlite.nn.Module and nn.Parameter/Buffer against torch.nn: registration, iteration, modes,
state dicts, conversions, hooks (their order and effects), repr, pickling and deepcopy.

Most tests build the same model in both libraries (``lib`` is torch or torchlite) and compare
what each reports: names, reprs, messages and values.
"""
from __future__ import annotations

import copy
import pickle
import warnings
from collections import OrderedDict

import pytest
import torch

import torchlite as tl
from tests.conftest import assert_same, from_torch

LIBS = [torch, tl]


def _norm(text):
    """Text with torchlite's own names turned into torch's (``torchlite.Size`` -> ``torch.Size``)."""
    return str(text).replace("torchlite.", "torch.")


def _net_class(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(lib.ones(2, 3))
            self.register_buffer("running", lib.zeros(3))
            self.register_buffer("scratch", lib.zeros(1), persistent=False)
            self.body = nn.Sequential(nn.ReLU(), nn.PReLU(3), nn.Tanh())
            self.alias = self.body          # shared submodule
            self.tied = self.scale          # shared parameter
            self.count = 5                  # plain attribute

        def forward(self, x):
            return self.body(x * self.scale)

    return Net


# module-level classes, so that pickle finds them
NetTorch = _net_class(torch)
NetTorch.__qualname__ = "NetTorch"
NetTL = _net_class(tl)
NetTL.__qualname__ = "NetTL"


def make_net(lib):
    return (NetTL if lib is tl else NetTorch)()


def both(fn):
    """fn(lib) for torch and torchlite."""
    return fn(torch), fn(tl)


# ---- Parameter / Buffer ------------------------------------------------------------------

def test_parameter_basics_like_torch():
    for lib in LIBS:
        p = lib.nn.Parameter(lib.ones(2, 2))
        assert p.requires_grad and p.is_leaf and isinstance(p, lib.Tensor)
        assert not lib.nn.Parameter(lib.ones(2), requires_grad=False).requires_grad
        assert lib.nn.Parameter().shape == (0,)
    t, p = lib_pair = both(lambda lib: repr(lib.nn.Parameter(lib.tensor([1.0, 2.0]))))
    assert p == t
    assert both(lambda lib: str(lib.nn.Parameter(lib.tensor([1.0]), requires_grad=False))) == \
        ("Parameter containing:\ntensor([1.])",) * 2


def test_parameter_shares_data_and_detaches():
    x = tl.ones(3).requires_grad_()
    y = x * 2
    p = tl.nn.Parameter(y)
    assert p.grad_fn is None and p.is_leaf
    with tl.no_grad():
        p.add_(1)
    assert y.tolist() == [3.0, 3.0, 3.0]    # same storage


def test_parameter_deepcopy_and_pickle():
    p = tl.nn.Parameter(tl.tensor([1.0, 2.0]))
    p.tag = "w"
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(q) is tl.nn.Parameter and q.requires_grad and q.tag == "w"
        assert q.tolist() == [1.0, 2.0]
        with tl.no_grad():
            q.add_(1)
        assert p.tolist() == [1.0, 2.0]
    frozen = pickle.loads(pickle.dumps(tl.nn.Parameter(tl.ones(1), requires_grad=False)))
    assert not frozen.requires_grad
    memo = {}
    assert copy.deepcopy(p, memo) is copy.deepcopy(p, memo)


def test_buffer_like_torch():
    for lib in LIBS:
        b = lib.nn.Buffer(lib.ones(2), persistent=False)
        assert isinstance(b, lib.nn.Buffer) and not isinstance(lib.ones(2), lib.nn.Buffer)
        assert type(b) is lib.Tensor and b.persistent is False
        m = lib.nn.Module()
        m.b = b
        m.c = lib.nn.Buffer(lib.zeros(1))
        assert [n for n, _ in m.named_buffers()] == ["b", "c"]
        assert list(m.state_dict()) == ["c"]


def test_uninitialized_parameter():
    u = tl.nn.UninitializedParameter()
    assert repr(u) == "<UninitializedParameter>" == repr(torch.nn.UninitializedParameter())
    assert tl.nn.parameter.is_lazy(u)
    with pytest.raises(RuntimeError, match="uninitialized parameter"):
        u.shape
    u.materialize((2, 3))
    assert type(u) is tl.nn.Parameter and u.shape == (2, 3) and u.requires_grad
    b = tl.nn.UninitializedBuffer(dtype=tl.float64)
    b.materialize((4,))
    assert type(b) is tl.Tensor and b.dtype == tl.float64


# ---- registration and iteration ------------------------------------------------------------

def test_names_and_iteration_like_torch():
    def report(lib):
        m = make_net(lib)
        return (
            [n for n, _ in m.named_parameters()],
            [n for n, _ in m.named_parameters(remove_duplicate=False)],
            [n for n, _ in m.named_parameters(prefix="net", recurse=False)],
            [n for n, _ in m.named_buffers()],
            [n for n, _ in m.named_buffers(recurse=False)],
            [n for n, _ in m.named_children()],
            [n for n, _ in m.named_modules()],
            [n for n, _ in m.named_modules(prefix="root", remove_duplicate=False)],
            len(list(m.parameters())), len(list(m.buffers())), len(list(m.children())),
            len(list(m.modules())),
            [k for k in dir(m) if not k.startswith("_") and not callable(getattr(type(m), k, None))
             and k not in ("T_destination", "dump_patches", "call_super_init", "training")],
        )
    assert _norm(report(tl)) == _norm(report(torch))


def test_setattr_routes_and_errors_like_torch():
    def report(lib):
        nn = lib.nn
        m = nn.Module()
        out = []
        m.w = nn.Parameter(lib.ones(1))
        m.sub = nn.ReLU()
        m.register_buffer("b", lib.ones(1))
        for stmt in [lambda: setattr(m, "w", lib.ones(1)), lambda: setattr(m, "sub", 3),
                     lambda: setattr(m, "b", 3), lambda: m.register_buffer("w", lib.ones(1)),
                     lambda: m.register_buffer("a.b", lib.ones(1)),
                     lambda: m.register_buffer("", lib.ones(1)),
                     lambda: m.register_buffer(1, lib.ones(1)),
                     lambda: m.register_buffer("c", [1]),
                     lambda: m.register_parameter("c", lib.ones(1)),
                     lambda: m.register_parameter("c", nn.Parameter(lib.ones(1)) * 2),
                     lambda: m.add_module("w", nn.ReLU()), lambda: m.add_module("a.b", nn.ReLU()),
                     lambda: m.add_module("x", 3), lambda: m.nothing,
                     lambda: m.register_parameter("d", (lib.ones(1, requires_grad=True) * 2))]:
            try:
                stmt()
                out.append("ok")
            except Exception as e:  # noqa: BLE001 - comparing the exception itself
                out.append((type(e).__name__, _norm(e)))
        m.w = None              # an absent parameter stays registered as None
        m.sub = None
        m.b = None
        out.append((list(m._parameters), list(m._modules), list(m._buffers)))
        m.v = 1
        m.v = nn.ReLU()          # a module replaces a plain attribute of the same name
        out.append((list(m._parameters), list(m._modules), "v" in m.__dict__))
        m.plain = 1
        del m.plain, m.w, m.b
        out.append((list(m._parameters), list(m._modules), list(m._buffers), hasattr(m, "plain")))
        return out
    got, want = report(tl), report(torch)
    for g, w in zip(got, want):
        if isinstance(w, tuple) and len(w) == 2 and isinstance(w[0], str):
            assert g[0] == w[0], (g, w)
            # the typename of a tensor differs only in the library prefix
            assert g[1] == w[1] or "Tensor" in w[1], (g, w)
        else:
            assert g == w


def test_init_not_called_errors_like_torch():
    for lib in LIBS:
        class Bad(lib.nn.Module):
            def __init__(self):
                self.p = lib.nn.Parameter(lib.ones(1))

        with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
            Bad()
        with pytest.raises(TypeError, match="unexpected keyword argument 'x'"):
            lib.nn.Module(x=1)


def test_get_submodule_parameter_buffer_like_torch():
    def report(lib):
        m = make_net(lib)
        out = [type(m.get_submodule("body.1")).__name__, tuple(m.get_parameter("body.1.weight").shape),
               tuple(m.get_buffer("running").shape), m.get_submodule("") is m]
        for call in [lambda: m.get_submodule("body.7"), lambda: m.get_submodule("count"),
                     lambda: m.get_parameter("running"), lambda: m.get_parameter("body.nope"),
                     lambda: m.get_buffer("scale"), lambda: m.get_buffer("nope")]:
            try:
                call()
            except AttributeError as e:
                out.append(str(e))
        m.set_submodule("body.0", lib.nn.Sigmoid())
        out.append(type(m.body[0]).__name__)
        return out
    assert report(tl) == report(torch)


def test_train_eval_requires_grad_zero_grad():
    m = make_net(tl)
    assert m.training and m.body[1].training
    assert m.eval() is m and not m.body[2].training
    m.train()
    assert m.body[0].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        m.train(1)
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    m.requires_grad_()
    m(tl.ones(2, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(p.grad.abs().sum().item() == 0 for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_apply_order_like_torch():
    def report(lib):
        seen = []
        make_net(lib).apply(lambda mod: seen.append(type(mod).__name__))
        return seen
    assert report(tl) == report(torch)


# ---- state dict -----------------------------------------------------------------------------

def test_state_dict_like_torch():
    t, l = make_net(torch), make_net(tl)
    st, sl = t.state_dict(), l.state_dict()
    assert type(sl) is OrderedDict and list(sl) == list(st)
    assert sl._metadata == st._metadata
    for k in st:
        assert_same(sl[k], st[k])
        assert not sl[k].requires_grad and not isinstance(sl[k], tl.nn.Parameter)
    kv = l.state_dict(keep_vars=True)
    assert kv["scale"] is l.scale
    assert list(l.state_dict(prefix="net.")) == list(t.state_dict(prefix="net."))


def test_load_state_dict_round_trip_and_result():
    a, b = make_net(tl), make_net(tl)
    with tl.no_grad():
        a.scale.mul_(3)
        a.body[1].weight.fill_(0.7)
        a.running.fill_(2)
    result = b.load_state_dict(a.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert b.scale.tolist() == a.scale.tolist() and b.running.tolist() == [2.0] * 3
    assert b.scale is b.tied                       # loaded in place: same objects
    # a state dict from PyTorch's model, converted tensor by tensor
    t = make_net(torch)
    b.load_state_dict({k: from_torch(v) for k, v in t.state_dict().items()})
    assert b.body[1].weight.tolist() == [0.25] * 3


def test_load_state_dict_errors_like_torch():
    def report(lib):
        m = make_net(lib)
        sd = m.state_dict()
        del sd["scale"]
        sd["extra"] = lib.ones(1)
        sd["body.1.weight"] = lib.ones(3)
        sd["body.9.bias"] = lib.ones(1)
        out = []
        try:
            m.load_state_dict(sd)
        except RuntimeError as e:
            out.append(str(e))
        r = m.load_state_dict({k: v for k, v in sd.items() if k != "body.1.weight"}, strict=False)
        out.append((r.missing_keys, r.unexpected_keys, repr(r)))
        try:
            m.load_state_dict([1])
        except TypeError as e:
            out.append(str(e))
        try:
            m.load_state_dict({"scale": 3, "running": lib.ones(3), "body.1.weight": lib.ones(2)})
        except RuntimeError as e:
            out.append(str(e))
        return out
    assert report(tl) == report(torch)


def test_load_state_dict_assign_and_scalar_shape():
    m = make_net(tl)
    new = tl.full((2, 3), 5.0)
    m.load_state_dict({**m.state_dict(), "scale": new}, assign=True)
    assert type(m.scale) is tl.nn.Parameter and m.scale.requires_grad
    assert m.scale.tolist() == new.tolist()
    m2 = tl.nn.Module()
    m2.s = tl.nn.Parameter(tl.tensor(1.0))
    m2.load_state_dict({"s": tl.tensor([4.0])})      # a (1,) entry loads into a 0-d parameter
    assert m2.s.item() == 4.0


def test_load_from_state_dict_override_and_version():
    calls = []

    class Old(tl.nn.Module):
        _version = 2

        def __init__(self):
            super().__init__()
            self.w = tl.nn.Parameter(tl.zeros(2))

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing,
                                  unexpected, errors):
            calls.append(local_metadata.get("version"))
            if local_metadata.get("version", 1) < 2 and prefix + "weight" in state_dict:
                state_dict[prefix + "w"] = state_dict.pop(prefix + "weight")
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing,
                                          unexpected, errors)

    m = Old()
    sd = OrderedDict(weight=tl.ones(2))
    sd._metadata = OrderedDict({"": {"version": 1}})
    m.load_state_dict(sd)
    assert calls == [1] and m.w.tolist() == [1.0, 1.0]
    assert m.state_dict()._metadata[""] == {"version": 2}


def test_extra_state():
    class WithExtra(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.value = 1

        def get_extra_state(self):
            return {"value": self.value}

        def set_extra_state(self, state):
            self.value = state["value"]

    a, b = WithExtra(), WithExtra()
    a.value = 7
    sd = a.state_dict()
    assert list(sd) == ["_extra_state"]
    b.load_state_dict(sd)
    assert b.value == 7
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "_extra_state"'):
        b.load_state_dict({})


def test_state_dict_hooks_order():
    log = []
    m = tl.nn.Sequential(tl.nn.PReLU())
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre", prefix)))
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: log.append(("post", list(sd))))
    m[0].register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre0", prefix)))
    m.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *rest: log.append(("lpre", prefix)))
    h = m.register_load_state_dict_post_hook(lambda mod, keys: log.append(("lpost", keys.missing_keys)))
    m.load_state_dict(m.state_dict())
    assert log == [("pre", ""), ("pre0", "0."), ("post", ["0.weight"]), ("lpre", ""),
                   ("lpost", [])]
    h.remove()
    m.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.clear())
    m.load_state_dict({}, strict=True) if False else None
    m.register_state_dict_post_hook(lambda *a: 1)
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        m.state_dict()


# ---- conversions -----------------------------------------------------------------------------

@pytest.mark.parametrize("method,dtype", [("double", "float64"), ("half", "float16"),
                                          ("bfloat16", "bfloat16"), ("float", "float32")])
def test_dtype_conversions(method, dtype):
    m = make_net(tl)
    m.register_buffer("steps", tl.tensor(3))
    m(tl.ones(2, 3)).sum().backward()
    if method == "float":
        m.double()
    getattr(m, method)()
    assert all(str(p.dtype) == "torchlite." + dtype for p in m.parameters())
    assert all(str(p.grad.dtype) == "torchlite." + dtype for p in m.parameters())
    assert str(m.running.dtype) == "torchlite." + dtype and m.steps.dtype == tl.int64
    assert m.scale is m.tied


def test_dtype_conversion_keeps_the_parameter_objects():
    # As PyTorch's `param.data = fn(param)`: an optimizer made before .double() still holds the parameters.
    m = make_net(tl)
    before = list(m.parameters())
    m.double()
    after = list(m.parameters())
    assert all(a is b for a, b in zip(before, after)) and all(p.dtype == tl.float64 for p in after)


def test_to_and_type():
    m = make_net(tl)
    assert m.to(tl.float64) is m and m.scale.dtype == tl.float64
    m.to("cpu", tl.float32)
    assert m.scale.dtype == tl.float32
    m.to(tl.zeros(1, dtype=tl.float64))
    assert m.running.dtype == tl.float64
    m.to(device="cpu", dtype=tl.float32)
    assert m.scale.dtype == tl.float32
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes"):
        m.to(tl.int32)
    m.type(tl.float64)
    assert m.body[1].weight.dtype == tl.float64
    assert m.cpu() is m
    e = make_net(tl).to_empty(device="meta")
    assert e.scale.is_meta and e.scale.shape == (2, 3)


# ---- calling and hooks -------------------------------------------------------------------

def test_forward_missing_like_torch():
    for lib in LIBS:
        with pytest.raises(NotImplementedError, match='Module \\[Module\\] is missing the required "forward" function'):
            lib.nn.Module()(1)


def _hook_log(lib, with_grad_input=True):
    log = []
    m = lib.nn.Sequential(lib.nn.PReLU(), lib.nn.Softplus())

    def fmt(gs):
        return [None if g is None else round(float(g.sum()), 3) for g in gs]

    m.register_forward_pre_hook(lambda mod, args: log.append("pre"))
    m.register_forward_pre_hook(lambda mod, args: log.append("pre-first"), prepend=True)
    m.register_forward_pre_hook(lambda mod, args, kwargs: log.append(("pre-kw", sorted(kwargs))),
                                with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: log.append(("post", round(float(out.detach().sum()), 3))))
    m.register_forward_hook(lambda mod, args, kwargs, out: log.append("post-kw"), with_kwargs=True,
                            prepend=True)
    m[0].register_forward_hook(lambda mod, args, out: log.append("inner-post"))
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("bw-pre", fmt(go))))
    m.register_full_backward_hook(lambda mod, gi, go: log.append(("bw", fmt(gi), fmt(go))))
    m[0].register_full_backward_hook(lambda mod, gi, go: log.append(("inner-bw", fmt(gi), fmt(go))))
    x = lib.linspace(-1, 1, 6).reshape(2, 3).requires_grad_(with_grad_input)
    y = m(x)
    (y * lib.arange(6.0).reshape(2, 3)).sum().backward()
    return log


@pytest.mark.parametrize("input_requires_grad", [True, False])
def test_hooks_order_and_arguments_like_torch(input_requires_grad):
    def logged(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            log = _hook_log(lib, input_requires_grad)
        return log, [str(x.message) for x in w if "Full backward hook" in str(x.message)]
    got, want = logged(tl), logged(torch)
    assert got == want
    assert len(got[1]) == (0 if input_requires_grad else 2)


def test_hooks_replace_values_like_torch():
    def report(lib):
        m = lib.nn.Tanh()
        m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        m.register_forward_hook(lambda mod, args, out: out + 1)
        m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 3,))
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10,))
        x = lib.tensor([0.5, -0.25], requires_grad=True)
        y = m(x)
        y.sum().backward()
        return y.tolist(), x.grad.tolist()
    got, want = report(tl), report(torch)
    torch.testing.assert_close(torch.tensor(got[0]), torch.tensor(want[0]))
    torch.testing.assert_close(torch.tensor(got[1]), torch.tensor(want[1]))


def test_forward_pre_hook_with_kwargs_replaces_both():
    class Add(tl.nn.Module):
        def forward(self, x, *, y=0):
            return x + y

    m = Add()
    m.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] * 10,), {"y": 1}),
                                with_kwargs=True)
    assert m(tl.tensor(2.0), y=5).item() == 21.0
    bad = Add()
    bad.register_forward_pre_hook(lambda mod, args, kwargs: 3, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
        bad(tl.tensor(1.0))


def test_handle_remove_and_context_manager():
    log = []
    m = tl.nn.ReLU()
    h = m.register_forward_hook(lambda *a: log.append(1), with_kwargs=False, always_call=True)
    with m.register_forward_pre_hook(lambda *a: log.append(0)):
        m(tl.ones(1))
    m(tl.ones(1))
    h.remove()
    h.remove()                               # twice is harmless
    m(tl.ones(1))
    assert log == [0, 1, 1]
    assert not m._forward_hooks and not m._forward_hooks_always_called and not m._forward_pre_hooks


def test_always_call_hook_runs_when_forward_raises():
    for lib in LIBS:
        log = []

        class Boom(lib.nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        m = Boom()
        m.register_forward_hook(lambda mod, args, out: log.append(out), always_call=True)
        m.register_forward_hook(lambda mod, args, out: log.append("never"))
        with pytest.raises(ValueError, match="boom"):
            m(1)
        assert log == [None]


def test_global_forward_hooks():
    log = []
    h1 = tl.nn.modules.module.register_module_forward_pre_hook(lambda mod, args: log.append(("gpre", type(mod).__name__)))
    h2 = tl.nn.modules.module.register_module_forward_hook(lambda mod, args, out: log.append(("gpost", type(mod).__name__)))
    h3 = tl.nn.modules.module.register_module_forward_hook(
        lambda mod, args, kwargs, out: log.append(("gkw", kwargs)), with_kwargs=True)
    try:
        tl.nn.Sequential(tl.nn.ReLU())(tl.ones(1))
    finally:
        h1.remove()
        h2.remove()
        h3.remove()
    assert log == [("gpre", "Sequential"), ("gpre", "ReLU"), ("gpost", "ReLU"), ("gkw", {}),
                   ("gpost", "Sequential"), ("gkw", {})]
    tl.nn.ReLU()(tl.ones(1))
    assert len(log) == 6 and not tl.nn.modules.module._global_forward_hooks_with_kwargs


def test_backward_hook_mixing_is_refused():
    for lib in LIBS:
        m = lib.nn.ReLU()
        m.register_full_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks"):
            m.register_backward_hook(lambda *a: None)


# ---- repr, pickling, copying ---------------------------------------------------------------

def test_nested_repr_like_torch():
    def build(lib):
        nn = lib.nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.act = nn.LeakyReLU(0.2, inplace=True)
                self.inner = nn.Sequential(nn.Softmax(dim=1), nn.Identity())

            def extra_repr(self):
                return "width=4,\ndepth=2"

        return nn.Sequential(OrderedDict(first=Block(), second=nn.ModuleList([nn.ReLU()] * 2),
                                         third=nn.ModuleDict({"a": nn.GELU()}), empty=nn.Sequential()))
    assert repr(build(tl)) == repr(build(torch))
    assert repr(make_net(tl)) == repr(make_net(torch))


def test_deepcopy_keeps_sharing_and_copies_data():
    m = make_net(tl)
    m.register_forward_hook(lambda *a: None)
    c = copy.deepcopy(m)
    assert c.body is c.alias and c.scale is c.tied and c.scale is not m.scale
    assert type(c.scale) is tl.nn.Parameter and c.scale.requires_grad
    with tl.no_grad():
        c.scale.fill_(9)
    assert m.scale.sum().item() == 6.0
    assert len(c._forward_hooks) == 1
    assert c(tl.ones(2, 3)).shape == (2, 3)


def test_pickle_round_trip():
    m = make_net(tl)
    with tl.no_grad():
        m.scale.mul_(2)
    r = pickle.loads(pickle.dumps(m))
    assert repr(r) == repr(m)
    assert r.scale.tolist() == m.scale.tolist() and type(r.scale) is tl.nn.Parameter
    assert r.scale.requires_grad and r.count == 5
    assert r.scale is r.tied and r.body is r.alias          # sharing survives
    assert [n for n, _ in r.named_buffers()] == ["running", "scratch"]
    assert list(r.state_dict()) == list(m.state_dict())
    assert r.training


def test_setstate_fills_missing_registries():
    m = tl.nn.ReLU()
    state = dict(m.__dict__)
    del state["_forward_hooks_with_kwargs"], state["_state_dict_pre_hooks"]
    fresh = tl.nn.ReLU.__new__(tl.nn.ReLU)
    fresh.__setstate__(state)
    fresh.register_forward_hook(lambda *a: None, with_kwargs=True)
    assert fresh(tl.tensor([-1.0])).tolist() == [0.0]


def test_functional_call_like_torch():
    from torch.func import functional_call as torch_call
    t, l = make_net(torch), make_net(tl)
    xt = torch.linspace(-1, 1, 6).reshape(2, 3)
    want = torch_call(t, {"scale": torch.full((2, 3), 2.0)}, (xt,))
    got = tl.func.functional_call(l, {"scale": tl.full((2, 3), 2.0)}, (from_torch(xt),))
    assert_same(got.detach(), want.detach())
    assert l.scale.sum().item() == 6.0                  # restored afterwards
    assert l.tied is l.scale
    # a sequence of dicts, a single non-tuple argument, tied weights follow
    w = torch_call(t, ({"scale": torch.full((2, 3), 0.5)}, {"running": torch.ones(3)}), xt)
    g = tl.func.functional_call(l, ({"scale": tl.full((2, 3), 0.5)}, {"running": tl.ones(3)}),
                                from_torch(xt))
    assert_same(g.detach(), w.detach())
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        tl.func.functional_call(l, ({"scale": tl.ones(2, 3)}, {"scale": tl.ones(2, 3)}), (1,))
    def errors(lib, net, x):
        out = []
        for d in [{"scale": lib.ones(2, 3), "tied": lib.ones(2, 3)},
                  {"scale": lib.ones(2, 3), "bogus": lib.ones(1), "running": lib.ones(3)}]:
            try:
                lib.func.functional_call(net, d, (x,), strict=True)
            except Exception as e:  # noqa: BLE001 - comparing the exception itself
                out.append((type(e).__name__, str(e)))
        return out
    assert errors(tl, l, from_torch(xt)) == errors(torch, t, xt)
    with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated"):
        tl.nn.utils.stateless.functional_call(l, {"scale": tl.ones(2, 3)}, (from_torch(xt),))


def test_legacy_backward_hook_like_torch():
    def report(lib):
        log = []
        m = lib.nn.Tanh()
        m.register_backward_hook(lambda mod, gi, go: log.append(
            ([round(float(g.sum()), 4) for g in gi], [round(float(g.sum()), 4) for g in go])))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            x = lib.linspace(-1, 1, 4).requires_grad_()
            m(x).sum().backward()               # a leaf input: "multiple autograd Nodes"
            m(x * 2).sum().backward()           # a non-leaf input: no warning
        return log, [str(x.message) for x in w]
    assert report(tl) == report(torch)


def test_full_backward_hook_grad_input_slots_like_torch():
    # grad_input has a slot per tensor argument: zeros for those without a gradient, while
    # grad_output has None for outputs that got none; a hook returning Nones drops the gradient
    def report(lib):
        log = []

        class Two(lib.nn.Module):
            def forward(self, a, b, scale, c):
                return a * b * scale, c

        def fmt(gs):
            return [None if g is None else g.tolist() for g in gs]

        t = Two()
        t.register_full_backward_hook(lambda mod, gi, go: log.append((fmt(gi), fmt(go))))
        a, b = lib.tensor([1.0], requires_grad=True), lib.tensor([2.0])
        c = lib.tensor([5.0], requires_grad=True)
        o1, _ = t(a, b, 3, c)
        o1.sum().backward()
        t.register_full_backward_hook(lambda mod, gi, go: (None,) * 4)
        o1, _ = t(a, b, 3, c)
        o1.sum().backward()
        log.append(a.grad.tolist())
        return log
    assert report(tl) == report(torch)


def _lazy_classes(lib):
    nn = lib.nn
    from importlib import import_module
    mixin = import_module(lib.__name__ + ".nn.modules.lazy").LazyModuleMixin

    class Scale(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.weight = nn.Parameter(lib.empty(n))
            self.register_buffer("seen", lib.zeros(n))

        def forward(self, x):
            return x * self.weight

    class LazyScale(mixin, Scale):
        cls_to_become = Scale

        def __init__(self):
            super().__init__(0)
            self.weight = nn.UninitializedParameter()
            self.seen = nn.UninitializedBuffer()

        def initialize_parameters(self, x):
            if self.has_uninitialized_params():
                with lib.no_grad():
                    self.weight.materialize((x.shape[-1],))
                    self.seen.materialize((x.shape[-1],))
                    self.weight.fill_(2.0)
                    self.seen.zero_()

    return Scale, LazyScale


def test_lazy_module_like_torch():
    def report(lib):
        Scale, LazyScale = _lazy_classes(lib)
        m = LazyScale()
        out = [m.has_uninitialized_params(), [type(v).__name__ for v in m.state_dict().values()]]
        y = m(lib.ones(2, 3))
        out += [type(m).__name__, tuple(m.weight.shape),
                type(m.weight).__name__, y.tolist(), list(m._forward_pre_hooks),
                hasattr(m, "_initialize_hook")]
        # loading a checkpoint materializes a fresh lazy module with the checkpoint's shapes
        fresh = LazyScale()
        fresh.load_state_dict({"weight": lib.full((4,), 3.0), "seen": lib.ones(4)})
        out += [tuple(fresh.weight.shape), fresh.weight.tolist(), type(fresh).__name__,
                fresh(lib.ones(4)).tolist(), type(fresh).__name__]
        # converted before its first call, a lazy module keeps its placeholders, in the new dtype
        d = LazyScale().double()
        out += [type(d.weight).__name__, str(d.weight.dtype).split(".")[-1],
                type(d.seen).__name__]
        y = d(lib.ones(2, 5, dtype=lib.float64))
        out += [str(y.dtype).split(".")[-1], str(d.seen.dtype).split(".")[-1], tuple(d.seen.shape)]
        return out
    assert report(tl) == report(torch)


def test_global_registration_hooks_like_torch():
    def report(lib):
        mm = lib.nn.modules.module
        log = []
        handles = [
            mm.register_module_buffer_registration_hook(lambda m, n, v: log.append(("buffer", n))),
            mm.register_module_parameter_registration_hook(lambda m, n, v: log.append(("param", n))),
            mm.register_module_module_registration_hook(
                lambda m, n, v: lib.nn.Tanh() if n == "swap" else log.append(("module", n))),
        ]
        try:
            m = lib.nn.Module()
            m.register_buffer("b", lib.ones(1))
            m.p = lib.nn.Parameter(lib.ones(1))
            m.c = lib.nn.ReLU()
            m.add_module("d", None)
            m.swap = lib.nn.ReLU()
            kinds = type(m.swap).__name__
        finally:
            for h in handles:
                h.remove()
        m.e = lib.nn.ReLU()
        return log, kinds
    assert report(tl) == report(torch)


def _mlp(lib):
    nn = lib.nn

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.w1 = nn.Parameter(lib.empty(8, 4))
            self.b1 = nn.Parameter(lib.zeros(8))
            self.act = nn.Sequential(nn.PReLU(8), nn.GELU(approximate="tanh"))
            self.w2 = nn.Parameter(lib.empty(1, 8))
            nn.init.kaiming_uniform_(self.w1, a=5 ** 0.5)
            nn.init.xavier_normal_(self.w2)

        def forward(self, x):
            return self.act(x @ self.w1.t() + self.b1) @ self.w2.t()

    return MLP()


def test_training_loop_matches_torch_step_for_step():
    # a small model initialised after manual_seed, trained with hand-written SGD and gradient
    # clipping: the same losses as PyTorch's, step for step
    def run(lib):
        lib.manual_seed(0)
        model = _mlp(lib).double()
        x = lib.linspace(-2, 2, 40, dtype=lib.float64).reshape(10, 4)
        target = (x.sum(1, keepdim=True) > 0).to(lib.float64)
        losses = []
        for _ in range(6):
            model.zero_grad()
            loss = ((model(x) - target) ** 2).mean()
            loss.backward()
            lib.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            with lib.no_grad():
                for p in model.parameters():
                    p -= 0.1 * p.grad
            losses.append(loss.item())
        return losses, model.state_dict()
    (lt, sd_tl), (tt, sd_torch) = run(tl), run(torch)
    # float64 throughout: only summation order (BLAS) can differ
    assert lt == pytest.approx(tt, rel=1e-10, abs=1e-12)
    for k in sd_torch:
        assert_same(sd_tl[k], sd_torch[k], rtol=1e-10, atol=1e-12)


def test_data_assignment_may_change_dtype_as_torch():
    for lib in (tl, torch):
        x = lib.ones(2, requires_grad=True)
        x.data = lib.arange(3, dtype=lib.float64)
        assert x.dtype == lib.float64 and tuple(x.shape) == (3,) and x.requires_grad and x.is_leaf
        assert x.tolist() == [0.0, 1.0, 2.0]
