"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict against torch.nn: indexing,
mutation, arithmetic, reprs, errors, and registration (parameters/state_dict see the items)."""
from __future__ import annotations

from collections import OrderedDict

import torch

import torchlite as tl
from tests.conftest import assert_same, from_torch

LIBS = [torch, tl]


def both(fn):
    got, want = fn(tl), fn(torch)
    assert _norm(got) == _norm(want)
    return got


def _norm(x):
    return str(x).replace("torchlite.", "torch.")


def _err(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - comparing the exception itself
        return (type(e).__name__, _norm(e))
    return "ok"


def _seq(lib):
    nn = lib.nn
    return nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.ELU())


def test_sequential_indexing_like_torch():
    both(lambda lib: [repr(_seq(lib)[1]), repr(_seq(lib)[-1]), repr(_seq(lib)[1:3]),
                      repr(_seq(lib)[::-2]), type(_seq(lib)[1:]).__name__, len(_seq(lib)),
                      [type(m).__name__ for m in _seq(lib)], _err(lambda: _seq(lib)[4]),
                      _err(lambda: _seq(lib)[-5]), _err(lambda: _seq(lib)["a"])])


def test_sequential_mutation_like_torch():
    def report(lib):
        nn = lib.nn
        out = []
        s = _seq(lib)
        s[0] = nn.GELU()
        del s[1]
        out.append(repr(s))
        del s[0:2]
        out.append(repr(s))
        s = _seq(lib)
        out.append((repr(s.pop(1)), repr(s)))
        s.insert(0, nn.Identity())
        s.insert(-1, nn.SELU())
        out.append(repr(s))
        out.append(_err(lambda: s.insert(9, nn.ReLU())))
        out.append(_err(lambda: s.insert(0, 3)))
        s.append(nn.Softsign()).extend([nn.Mish(), nn.SiLU()])
        out.append(repr(s))
        s = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
        out.append((repr(s), repr(s[1]), repr(s[:1])))
        return out
    both(report)


def test_sequential_arithmetic_like_torch():
    def report(lib):
        nn = lib.nn
        a, b = nn.Sequential(nn.ReLU()), nn.Sequential(nn.Tanh(), nn.Sigmoid())
        out = [repr(a + b), repr(a * 3), repr(2 * b), _err(lambda: a + nn.ReLU()),
               _err(lambda: a * 0), _err(lambda: a * 1.5)]
        c = nn.Sequential(nn.ReLU(), nn.Tanh())
        c *= 2
        out.append(repr(c))
        c += b
        out.append(repr(c))
        out.append(len(a * 3) == 3 and (a * 3)[0] is (a * 3)[2])
        return out
    both(report)


def test_sequential_forward_and_parameters():
    t = torch.nn.Sequential(torch.nn.PReLU(3), torch.nn.Softplus(), torch.nn.Flatten(0))
    l = tl.nn.Sequential(tl.nn.PReLU(3), tl.nn.Softplus(), tl.nn.Flatten(0))
    x = torch.linspace(-2, 2, 12).reshape(4, 3)
    assert_same(l(from_torch(x)).detach(), t(x).detach())
    assert [n for n, _ in l.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert list(l.state_dict()) == list(t.state_dict()) == ["0.weight"]


def test_module_list_like_torch():
    def report(lib):
        nn = lib.nn
        ml = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh(), nn.ReLU()])
        out = [repr(ml), repr(ml[1:]), repr(ml[-1]), len(ml), _err(lambda: ml[4]),
               repr(nn.ModuleList()), repr(nn.ModuleList([nn.PReLU()] * 3))]
        ml.append(nn.GELU())
        ml.insert(1, nn.SELU())
        ml.extend([nn.Mish()])
        ml += [nn.SiLU()]
        out.append(repr(ml))
        del ml[0]
        ml[0] = nn.Softsign()
        out.append((repr(ml), repr(ml.pop(-1)), repr(ml)))
        del ml[1:3]
        out.append(repr(ml))
        out.append(repr(ml + nn.ModuleList([nn.Tanh()])))
        out.append(_err(lambda: ml.extend(3)))
        out.append(_err(lambda: ml(1)))
        out.append([k for k in dir(ml) if k.isdigit()])
        return out
    both(report)


def test_module_dict_like_torch():
    def report(lib):
        nn = lib.nn
        md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
        out = [repr(md), list(md), list(md.keys()), "a" in md, len(md)]
        md["c"] = nn.GELU()
        md.update([("d", nn.SiLU())])
        md.update(OrderedDict(e=nn.Mish()))
        out.append((repr(md.pop("b")), list(md)))
        del md["a"]
        out.append([(k, type(v).__name__) for k, v in md.items()])
        out.append([type(v).__name__ for v in md.values()])
        out.append(_err(lambda: md.update(3)))
        out.append(_err(lambda: md.update([("x",)])))
        out.append(_err(lambda: md.update([1])))
        md.clear()
        out.append((len(md), repr(md)))
        return out
    both(report)


def test_parameter_list_like_torch():
    def report(lib):
        nn = lib.nn
        pl = nn.ParameterList([lib.ones(2), nn.Parameter(lib.zeros(3, 4)), "text",
                               lib.ones(1, dtype=lib.float64)])
        out = [repr(pl), len(pl), type(pl[0]).__name__, pl[0].requires_grad,
               [n for n, _ in pl.named_parameters()], list(pl.state_dict()),
               repr(pl[1:3]), _err(lambda: pl[4]), _err(lambda: pl(1)),
               _err(lambda: pl.extend(lib.ones(2)))]
        pl.append(lib.zeros(5))
        pl[0] = lib.full((2,), 3.0)
        pl += [nn.Parameter(lib.ones(1), requires_grad=False)]
        out.append((repr(pl), [tuple(p.shape) for p in pl.parameters()]))
        return out
    both(report)


def test_parameter_dict_like_torch():
    def report(lib):
        nn = lib.nn
        pd = nn.ParameterDict({"b": lib.ones(2), "a": nn.Parameter(lib.zeros(1, 3)), "s": "x"})
        out = [repr(pd), list(pd), list(pd.keys()), len(pd), "a" in pd,
               type(pd["b"]).__name__, list(pd.state_dict()), _err(lambda: pd[1]),
               _err(lambda: pd(1)), list(reversed(pd))]
        pd["c"] = lib.ones(4)
        pd.update([("d", lib.ones(1))])
        out.append((pd.get("zz", 5), tuple(pd.get("c").shape), list(pd)))
        k, v = pd.popitem()
        out.append((k, tuple(v.shape), list(pd)))
        out.append((tuple(pd.pop("b").shape), list(pd)))
        out.append(tuple(pd.setdefault("e", lib.ones(2, 2)).shape))
        c = pd.copy()
        out.append((list(c), c["a"] is pd["a"]))
        merged = pd | nn.ParameterDict({"z": lib.ones(1)})
        out.append(list(merged))
        out.append(list(pd.fromkeys(["x", "y"], lib.ones(1))))
        out.append(_err(lambda: pd.update(3)))
        pd.clear()
        out.append((len(pd), repr(pd)))
        return out
    both(report)


def test_containers_deepcopy_and_state_dict_round_trip():
    import copy
    net = tl.nn.Sequential(tl.nn.PReLU(2), tl.nn.ModuleList([tl.nn.PReLU(), tl.nn.PReLU()]),
                           tl.nn.ModuleDict({"x": tl.nn.PReLU(4)}))
    with tl.no_grad():
        for i, p in enumerate(net.parameters()):
            p.fill_(i)
    twin = copy.deepcopy(net)
    fresh = tl.nn.Sequential(tl.nn.PReLU(2), tl.nn.ModuleList([tl.nn.PReLU(), tl.nn.PReLU()]),
                             tl.nn.ModuleDict({"x": tl.nn.PReLU(4)}))
    fresh.load_state_dict(twin.state_dict())
    assert [p.tolist() for p in fresh.parameters()] == [p.tolist() for p in net.parameters()]
    assert list(fresh.state_dict()) == ["0.weight", "1.0.weight", "1.1.weight", "2.x.weight"]
