"""Audit of complex32 (chalf) against PyTorch: ~250 functions and methods called with complex32 tensors in
both libraries, each call classified as

  ok        both compute the same result (complex32 bit for bit, NaNs as NaNs), or both refuse with the same
            exception type (torchlite's may be a subclass of PyTorch's);
  gap       PyTorch computes, torchlite refuses (the list to close);
  extra     torchlite computes where PyTorch refuses;
  mismatch  both compute, results differ (dtype, shape or values), or the exception types differ.

    python tools/complex32_audit.py            # the table of everything that is not ok
    python tools/complex32_audit.py --all      # every call

tests/test_complex32_audit.py runs it and fails on anything not ok beyond its list of known differences.
"""
from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

import torchlite as tl

import torch

warnings.filterwarnings("ignore")


def _values(shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    v = np.empty(n, np.complex64)
    v.real, v.imag = rng.standard_normal(n) * 3, rng.standard_normal(n) * 3
    v[::7] = 0  # some zeros (any/all, count_nonzero, nonzero)
    return v.reshape(shape)


def _operands(m):
    """The arguments every call draws from, made the same way in both libraries."""
    c32 = m.complex32
    x = m.tensor(_values((3, 4), 1)).to(c32)
    y = m.tensor(_values((3, 4), 2)).to(c32)
    return {
        "x": x, "y": y, "v": m.tensor(_values((4,), 3)).to(c32), "w": m.tensor(_values((4,), 4)).to(c32),
        "sq": m.tensor(_values((3, 3), 5)).to(c32), "z0": m.tensor(_values((), 6)).to(c32),
        "h": m.tensor(np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)).to(m.float16),
        "f": m.tensor(np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)),
        "i": m.tensor([2, 0]), "mask": m.tensor(np.arange(12).reshape(3, 4) % 3 == 0),
        "g": m.tensor([[0, 1, 2, 0], [1, 1, 0, 2], [2, 0, 1, 1]]), "m": m,
    }


def _calls():
    """name -> f(ops) (ops: the dict of _operands)."""
    c = {}
    unary = ["abs", "absolute", "neg", "negative", "positive", "conj", "conj_physical", "resolve_conj", "resolve_neg",
             "real", "imag", "angle", "sgn", "sign", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
             "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
             "sigmoid", "reciprocal", "square", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal",
             "signbit", "logical_not", "bitwise_not", "clone", "flatten", "ravel", "t", "squeeze", "sum", "mean",
             "prod", "nansum", "nanmean", "any", "all", "count_nonzero", "var", "std", "norm", "trace", "diag",
             "diagonal", "tril", "triu", "fliplr", "flipud", "rot90", "argmax", "argmin", "max", "min", "amax",
             "amin", "sort", "argsort", "msort", "unique", "nonzero", "argwhere", "view_as_real", "round", "floor",
             "ceil", "trunc", "frac", "sinc", "erf", "erfc", "lgamma", "digamma", "deg2rad", "rad2deg", "nan_to_num",
             "relu", "logsumexp_all", "cumsum0", "cumprod0", "logcumsumexp0", "cummax0", "zeros_like", "ones_like",
             "rand_like", "randn_like", "is_nonzero_z0", "numel", "is_complex", "is_floating_point", "isclose_self",
             "atleast_1d", "atleast_2d", "atleast_3d", "unbind", "corrcoef", "cov", "median", "nanmedian", "mode",
             "logit", "exp_z0", "fix", "histc", "bincount", "matrix_exp", "det", "inverse", "pinverse", "svd",
             "kthvalue", "renorm", "flatten_1", "square_sq", "tensor_split", "i0", "erfinv", "polygamma1", "mvlgamma",
             "nonzero_static", "bucketize", "count_nonzero0", "std_mean", "var_mean", "aminmax", "cumulative_trapezoid",
             "trapezoid", "diff", "gradient", "vander", "tril_indices_like", "combinations", "cartesian_prod",
             "block_diag", "chain_matmul", "cdist", "pdist", "frexp", "ldexp_h", "logdet", "slogdet"]
    special = {
        "logsumexp_all": lambda o: o["m"].logsumexp(o["x"], 1), "cumsum0": lambda o: o["m"].cumsum(o["x"], 0),
        "cumprod0": lambda o: o["m"].cumprod(o["x"], 0), "logcumsumexp0": lambda o: o["m"].logcumsumexp(o["x"], 0),
        "cummax0": lambda o: o["m"].cummax(o["x"], 0), "is_nonzero_z0": lambda o: o["m"].is_nonzero(o["z0"]),
        "isclose_self": lambda o: o["m"].isclose(o["x"], o["x"]), "exp_z0": lambda o: o["m"].exp(o["z0"]),
        "rot90": lambda o: o["m"].rot90(o["x"], -1), "flatten_1": lambda o: o["m"].flatten(o["x"], 1),
        "square_sq": lambda o: o["m"].square(o["sq"]), "tensor_split": lambda o: o["m"].tensor_split(o["x"], 2, 1),
        "polygamma1": lambda o: o["m"].polygamma(1, o["x"]), "mvlgamma": lambda o: o["m"].mvlgamma(o["x"], 1),
        "nonzero_static": lambda o: o["m"].nonzero_static(o["x"], size=4), "bucketize": lambda o: o["m"].bucketize(o["x"], o["v"]),
        "count_nonzero0": lambda o: o["m"].count_nonzero(o["x"], 0), "kthvalue": lambda o: o["m"].kthvalue(o["x"], 1),
        "renorm": lambda o: o["m"].renorm(o["x"], 2, 0, 1.0), "cumulative_trapezoid": lambda o: o["m"].cumulative_trapezoid(o["x"]),
        "trapezoid": lambda o: o["m"].trapezoid(o["x"]), "diff": lambda o: o["m"].diff(o["x"]),
        "gradient": lambda o: o["m"].gradient(o["x"]), "vander": lambda o: o["m"].vander(o["v"]),
        "tril_indices_like": lambda o: o["m"].tril(o["sq"], -1), "combinations": lambda o: o["m"].combinations(o["v"]),
        "cartesian_prod": lambda o: o["m"].cartesian_prod(o["v"], o["w"]), "block_diag": lambda o: o["m"].block_diag(o["x"], o["v"]),
        "chain_matmul": lambda o: o["m"].chain_matmul(o["sq"], o["sq"]), "cdist": lambda o: o["m"].cdist(o["x"], o["y"]),
        "pdist": lambda o: o["m"].pdist(o["x"]), "ldexp_h": lambda o: o["m"].ldexp(o["x"], o["g"]),
        "median": lambda o: o["m"].median(o["x"]), "mode": lambda o: o["m"].mode(o["x"]), "histc": lambda o: o["m"].histc(o["x"]),
        "bincount": lambda o: o["m"].bincount(o["x"]), "matrix_exp": lambda o: o["m"].matrix_exp(o["sq"]),
        "det": lambda o: o["m"].det(o["sq"]), "inverse": lambda o: o["m"].inverse(o["sq"]), "pinverse": lambda o: o["m"].pinverse(o["sq"]),
        "svd": lambda o: o["m"].svd(o["sq"]), "logdet": lambda o: o["m"].logdet(o["sq"]), "slogdet": lambda o: o["m"].slogdet(o["sq"]),
        "trace": lambda o: o["m"].trace(o["sq"]), "t": lambda o: o["m"].t(o["x"]),
    }
    for name in unary:
        c[f"torch.{name}(x)"] = special.get(name, lambda o, name=name: getattr(o["m"], name)(o["x"]))
    binary = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "atan2", "hypot",
              "logaddexp", "logaddexp2", "eq", "ne", "lt", "le", "gt", "ge", "maximum", "minimum", "fmax", "fmin",
              "isclose", "allclose", "equal", "xlogy", "copysign", "nextafter", "dist", "logical_and", "logical_or",
              "logical_xor", "bitwise_and", "heaviside", "rsub", "subtract", "multiply", "divide", "float_power",
              "polar_like", "complex_like", "kron", "outer_like", "inner", "dot_like", "vdot_like", "mm_like",
              "matmul_like", "bmm_like", "mv_like", "tensordot_like", "einsum_like", "cat", "stack", "hstack", "vstack",
              "dstack", "column_stack", "where", "lerp", "addcmul", "addcdiv", "addmm_like", "clamp_like", "clip_like",
              "masked_fill_like", "masked_select_like", "masked_scatter_like", "index_select_like", "index_add_like",
              "index_fill_like", "index_copy_like", "index_put_like", "gather_like", "scatter_like", "scatter_add_like",
              "take_like", "put_like", "take_along_dim_like", "roll_like", "flip_like", "narrow_like", "select_like",
              "repeat_interleave_like", "tile_like", "movedim_like", "swapaxes_like", "broadcast_to_like", "chunk_like",
              "split_like", "diag_embed_like", "add_scalar", "mul_scalar", "sub_scalar", "div_scalar", "pow_scalar",
              "add_half", "mul_half", "add_float", "mul_float", "eq_scalar", "ne_scalar", "full_like_c", "cross_like"]
    pairwise = {
        "polar_like": lambda o: o["m"].polar(o["h"], o["h"]), "complex_like": lambda o: o["m"].complex(o["h"], o["h"]),
        "outer_like": lambda o: o["m"].outer(o["v"], o["w"]), "dot_like": lambda o: o["m"].dot(o["v"], o["w"]),
        "vdot_like": lambda o: o["m"].vdot(o["v"], o["w"]), "mm_like": lambda o: o["m"].mm(o["x"], o["y"].t()),
        "matmul_like": lambda o: o["m"].matmul(o["x"], o["v"]), "bmm_like": lambda o: o["m"].bmm(o["x"][None], o["y"].t()[None]),
        "mv_like": lambda o: o["m"].mv(o["x"], o["v"]), "tensordot_like": lambda o: o["m"].tensordot(o["x"], o["y"], 2),
        "einsum_like": lambda o: o["m"].einsum("ij,ij->i", o["x"], o["y"]), "cat": lambda o: o["m"].cat([o["x"], o["y"]]),
        "stack": lambda o: o["m"].stack([o["x"], o["y"]]), "hstack": lambda o: o["m"].hstack([o["x"], o["y"]]),
        "vstack": lambda o: o["m"].vstack([o["x"], o["y"]]), "dstack": lambda o: o["m"].dstack([o["x"], o["y"]]),
        "column_stack": lambda o: o["m"].column_stack([o["x"], o["y"]]), "where": lambda o: o["m"].where(o["mask"], o["x"], o["y"]),
        "lerp": lambda o: o["m"].lerp(o["x"], o["y"], 0.3), "addcmul": lambda o: o["m"].addcmul(o["x"], o["x"], o["y"], value=2),
        "addcdiv": lambda o: o["m"].addcdiv(o["x"], o["x"], o["y"]), "addmm_like": lambda o: o["m"].addmm(o["sq"], o["x"], o["y"].t()),
        "clamp_like": lambda o: o["m"].clamp(o["x"], min=0), "clip_like": lambda o: o["m"].clip(o["x"], max=1),
        "masked_fill_like": lambda o: o["x"].masked_fill(o["mask"], 1 + 2j),
        "masked_select_like": lambda o: o["m"].masked_select(o["x"], o["mask"]),
        "masked_scatter_like": lambda o: o["x"].masked_scatter(o["mask"], o["y"]),
        "index_select_like": lambda o: o["m"].index_select(o["x"], 1, o["i"]),
        "index_add_like": lambda o: o["x"].index_add(1, o["i"], o["y"][:, :2], alpha=2),
        "index_fill_like": lambda o: o["x"].index_fill(1, o["i"], 2 - 1j),
        "index_copy_like": lambda o: o["x"].index_copy(1, o["i"], o["y"][:, :2]),
        "index_put_like": lambda o: o["x"].index_put((o["i"],), o["y"][:2]),
        "gather_like": lambda o: o["m"].gather(o["x"], 1, o["g"]),
        "scatter_like": lambda o: o["x"].scatter(1, o["g"], o["y"]),
        "scatter_add_like": lambda o: o["x"].scatter_add(1, o["g"], o["y"]),
        "take_like": lambda o: o["m"].take(o["x"], o["i"]), "put_like": lambda o: o["x"].put(o["i"], o["v"][:2]),
        "take_along_dim_like": lambda o: o["m"].take_along_dim(o["x"], o["g"], 1),
        "roll_like": lambda o: o["m"].roll(o["x"], 1, 1), "flip_like": lambda o: o["m"].flip(o["x"], (0,)),
        "narrow_like": lambda o: o["m"].narrow(o["x"], 1, 1, 2), "select_like": lambda o: o["m"].select(o["x"], 1, 2),
        "repeat_interleave_like": lambda o: o["m"].repeat_interleave(o["x"], 2, 0),
        "tile_like": lambda o: o["m"].tile(o["x"], (2, 1)), "movedim_like": lambda o: o["m"].movedim(o["x"], 0, 1),
        "swapaxes_like": lambda o: o["m"].swapaxes(o["x"], 0, 1),
        "broadcast_to_like": lambda o: o["m"].broadcast_to(o["v"], (3, 4)), "chunk_like": lambda o: o["m"].chunk(o["x"], 2, 1),
        "split_like": lambda o: o["m"].split(o["x"], 1, 0), "diag_embed_like": lambda o: o["m"].diag_embed(o["v"]),
        "add_scalar": lambda o: o["m"].add(o["x"], 2 - 1j), "mul_scalar": lambda o: o["m"].mul(o["x"], 0.5 + 3j),
        "sub_scalar": lambda o: o["m"].sub(o["x"], 2), "div_scalar": lambda o: o["m"].div(o["x"], 2),
        "pow_scalar": lambda o: o["m"].pow(o["x"], 2), "add_half": lambda o: o["m"].add(o["x"], o["h"]),
        "mul_half": lambda o: o["m"].mul(o["h"], o["x"]), "add_float": lambda o: o["m"].add(o["x"], o["f"]),
        "mul_float": lambda o: o["m"].mul(o["x"], o["f"]), "eq_scalar": lambda o: o["m"].eq(o["x"], 0),
        "ne_scalar": lambda o: o["m"].ne(o["x"], 0), "full_like_c": lambda o: o["m"].full_like(o["x"], 1 + 1j),
        "cross_like": lambda o: o["m"].linalg.cross(o["x"][:, :3], o["y"][:, :3]),
        "dist": lambda o: o["m"].dist(o["x"], o["y"]), "float_power": lambda o: o["m"].float_power(o["x"], 2),
    }
    for name in binary:
        c[f"torch.{name}(x, y)"] = pairwise.get(name, lambda o, name=name: getattr(o["m"], name)(o["x"], o["y"]))
    methods = {
        "x.fill_(1+2j)": lambda o: o["x"].clone().fill_(1 + 2j), "x.zero_()": lambda o: o["x"].clone().zero_(),
        "x.copy_(y)": lambda o: o["x"].clone().copy_(o["y"]), "x.copy_(f)": lambda o: o["x"].clone().copy_(o["f"]),
        "x.add_(y)": lambda o: o["x"].clone().add_(o["y"]), "x.mul_(y)": lambda o: o["x"].clone().mul_(o["y"]),
        "x.sub_(y, alpha=2)": lambda o: o["x"].clone().sub_(o["y"], alpha=2), "x.neg_()": lambda o: o["x"].clone().neg_(),
        "x.conj_physical_()": lambda o: o["x"].clone().conj_physical_(),
        "x.masked_fill_(mask, 2)": lambda o: o["x"].clone().masked_fill_(o["mask"], 2),
        "x.index_fill_(1, i, 3)": lambda o: o["x"].clone().index_fill_(1, o["i"], 3),
        "x.index_add_(1, i, y)": lambda o: o["x"].clone().index_add_(1, o["i"], o["y"][:, :2]),
        "x.addcmul_(x, y)": lambda o: o["x"].clone().addcmul_(o["x"], o["y"]),
        "x.item()": lambda o: o["z0"].item(), "x.tolist()": lambda o: o["x"].tolist(),
        "complex(z0)": lambda o: complex(o["z0"]), "x.numpy()": lambda o: o["x"].numpy(),
        "x.to(complex64)": lambda o: o["x"].to(o["m"].complex64), "x.to(complex128)": lambda o: o["x"].to(o["m"].complex128),
        "x.cfloat()": lambda o: o["x"].cfloat(), "x.cdouble()": lambda o: o["x"].cdouble(), "x.chalf()": lambda o: o["x"].chalf(),
        "h.chalf()": lambda o: o["h"].chalf(), "x.half()": lambda o: o["x"].half(), "x.float()": lambda o: o["x"].float(),
        "x.double()": lambda o: o["x"].double(), "x.bool()": lambda o: o["x"].bool(), "x.int()": lambda o: o["x"].int(),
        "x.long()": lambda o: o["x"].long(), "x.bfloat16()": lambda o: o["x"].bfloat16(),
        "x.to(uint8)": lambda o: o["x"].to(o["m"].uint8), "x.view(12)": lambda o: o["x"].view(12),
        "x.reshape(4, 3)": lambda o: o["x"].reshape(4, 3), "x.permute(1, 0)": lambda o: o["x"].permute(1, 0),
        "x.transpose(0, 1)": lambda o: o["x"].transpose(0, 1), "x.unsqueeze(1)": lambda o: o["x"].unsqueeze(1),
        "x.expand(2, 3, 4)": lambda o: o["x"].expand(2, 3, 4), "x.repeat(2, 1)": lambda o: o["x"].repeat(2, 1),
        "x.contiguous()": lambda o: o["x"].t().contiguous(), "x.T": lambda o: o["x"].T, "x.mT": lambda o: o["x"].mT,
        "x.mH": lambda o: o["x"].mH, "x.H": lambda o: o["x"].H, "x.adjoint()": lambda o: o["x"].adjoint(),
        "x.real.add_(1)": lambda o: o["x"].clone().real.add_(1), "x[mask]": lambda o: o["x"][o["mask"]],
        "x[i]": lambda o: o["x"][o["i"]], "x[:, i]": lambda o: o["x"][:, o["i"]], "x[1:, ::2]": lambda o: o["x"][1:, ::2],
        "x[mask] = 3": lambda o: _setitem(o["x"].clone(), o["mask"], 3),
        "x[i] = y[:2]": lambda o: _setitem(o["x"].clone(), o["i"], o["y"][:2]),
        "x.unfold(1, 2, 1)": lambda o: o["x"].unfold(1, 2, 1), "x.as_strided((2, 2), (1, 2))": lambda o: o["x"].as_strided((2, 2), (1, 2)),
        "x.new_zeros(2)": lambda o: o["x"].new_zeros(2), "x.new_ones(2)": lambda o: o["x"].new_ones(2),
        "x.new_full((2,), 1j)": lambda o: o["x"].new_full((2,), 1j), "x.new_tensor([1j])": lambda o: o["x"].new_tensor([1j]),
        "x.sum(1)": lambda o: o["x"].sum(1), "x.mean(0)": lambda o: o["x"].mean(0), "x.any(1)": lambda o: o["x"].any(1),
        "x.all(0)": lambda o: o["x"].all(0), "x.var(1)": lambda o: o["x"].var(1), "x.std(0)": lambda o: o["x"].std(0),
        "x.norm(dim=1)": lambda o: o["x"].norm(dim=1), "x.abs_()": lambda o: o["x"].clone().abs_(),
        "x.sgn_()": lambda o: o["x"].clone().sgn_(), "x.exp_()": lambda o: o["x"].clone().exp_(),
        "x.eq(y)": lambda o: o["x"].eq(o["y"]), "x == x": lambda o: o["x"] == o["x"], "x != y": lambda o: o["x"] != o["y"],
        "x + y": lambda o: o["x"] + o["y"], "x - y": lambda o: o["x"] - o["y"], "x * y": lambda o: o["x"] * o["y"],
        "x / y": lambda o: o["x"] / o["y"], "-x": lambda o: -o["x"], "x ** 2": lambda o: o["x"] ** 2,
        "x @ y.T": lambda o: o["x"] @ o["y"].T, "2 * x": lambda o: 2 * o["x"], "1j + x": lambda o: 1j + o["x"],
        "abs(x)": lambda o: abs(o["x"]), "x.isnan()": lambda o: o["x"].isnan(), "x.is_conj()": lambda o: o["x"].is_conj(),
        "x.element_size()": lambda o: o["x"].element_size(), "x.nbytes": lambda o: o["x"].nbytes,
        "x.type()": lambda o: o["x"].type(), "x.dtype.itemsize": lambda o: o["x"].dtype.itemsize,
        "x.dtype.to_real()": lambda o: str(o["x"].dtype.to_real()).split(".")[-1],
        "finfo(complex32).eps": lambda o: o["m"].finfo(o["m"].complex32).eps,
        "promote_types(c32, f32)": lambda o: str(o["m"].promote_types(o["m"].complex32, o["m"].float32)).split(".")[-1],
        "result_type(x, 1.5)": lambda o: str(o["m"].result_type(o["x"], 1.5)).split(".")[-1],
        "zeros(2, dtype=c32)": lambda o: o["m"].zeros(2, dtype=o["m"].complex32),
        "ones(2, dtype=c32)": lambda o: o["m"].ones(2, dtype=o["m"].complex32),
        "full((2,), 1j, dtype=c32)": lambda o: o["m"].full((2,), 1j, dtype=o["m"].complex32),
        "eye(2, dtype=c32)": lambda o: o["m"].eye(2, dtype=o["m"].complex32),
        "arange(3, dtype=c32)": lambda o: o["m"].arange(3, dtype=o["m"].complex32),
        "linspace(0, 1, 3, dtype=c32)": lambda o: o["m"].linspace(0, 1, 3, dtype=o["m"].complex32),
        "tensor([1j], dtype=c32)": lambda o: o["m"].tensor([1j, 2], dtype=o["m"].complex32),
        "view_as_complex(h)": lambda o: o["m"].view_as_complex(o["h"].reshape(6, 2)),
        "fft.fft(x)": lambda o: o["m"].fft.fft(o["x"]), "linalg.norm(x)": lambda o: o["m"].linalg.norm(o["x"]),
        "linalg.vector_norm(x)": lambda o: o["m"].linalg.vector_norm(o["x"]),
        "linalg.matrix_norm(x)": lambda o: o["m"].linalg.matrix_norm(o["x"]),
        "linalg.svdvals(sq)": lambda o: o["m"].linalg.svdvals(o["sq"]), "linalg.det(sq)": lambda o: o["m"].linalg.det(o["sq"]),
        "nn.functional.linear(x, y)": lambda o: o["m"].nn.functional.linear(o["x"], o["y"]),
        "nn.functional.pad(x, (1, 1))": lambda o: o["m"].nn.functional.pad(o["x"], (1, 1)),
        "nn.functional.dropout(x, 0.0)": lambda o: o["m"].nn.functional.dropout(o["x"], 0.0),
        "nn.functional.relu(x)": lambda o: o["m"].nn.functional.relu(o["x"]),
    }
    c.update(methods)
    return c


def _setitem(t, key, value):
    t[key] = value
    return t


def _canon(r):
    """A result as comparable Python/NumPy values."""
    if isinstance(r, (tuple, list)):
        return [_canon(e) for e in r]
    if isinstance(r, (tl.Tensor, torch.Tensor)):
        dtype = str(r.dtype).split(".")[-1]
        shape = tuple(r.shape)
        if r.device.type == "meta":
            return (dtype, shape)
        if dtype == "complex32":
            real = (tl if isinstance(r, tl.Tensor) else torch).view_as_real(r.detach().resolve_conj()).contiguous()
            bits = real.numpy().view(np.uint16)
            nan = ((bits & 0x7C00) == 0x7C00) & ((bits & 0x03FF) != 0)
            return (dtype, shape, np.where(nan, np.uint16(0x7E00), bits).tobytes())
        if dtype == "bfloat16":
            r = r.float()
        a = r.detach().resolve_conj().numpy() if hasattr(r, "resolve_conj") else r.detach().numpy()
        a = np.where(np.isnan(a), np.nan, a) if a.dtype.kind in "fc" else a
        return (dtype, shape, a.tobytes() if a.dtype.kind not in "fc" else np.nan_to_num(a, nan=7.25e9).tobytes())
    if isinstance(r, float) and r != r:
        return "nan"
    return r


def run():
    """[(name, status, detail)] for every call."""
    ops_tl, ops_torch = _operands(tl), _operands(torch)
    rows = []
    for name, f in _calls().items():
        torch.manual_seed(0)  # random factories draw the same streams in both libraries
        tl.manual_seed(0)
        try:
            want, want_exc = f(ops_torch), None
        except Exception as e:  # noqa: BLE001 - any refusal is a result to compare
            want, want_exc = None, e
        torch.manual_seed(0)
        tl.manual_seed(0)
        try:
            got, got_exc = f(ops_tl), None
        except Exception as e:  # noqa: BLE001
            got, got_exc = None, e
        if want_exc is not None and got_exc is not None:
            ok = isinstance(got_exc, type(want_exc)) or type(got_exc).__name__ == type(want_exc).__name__
            rows.append((name, "ok" if ok else "mismatch",
                         "" if ok else f"PyTorch {type(want_exc).__name__}, torchlite {type(got_exc).__name__}: {got_exc}"))
        elif want_exc is None and got_exc is not None:
            rows.append((name, "gap", f"{type(got_exc).__name__}: {str(got_exc)[:100]}"))
        elif want_exc is not None:
            rows.append((name, "extra", f"PyTorch {type(want_exc).__name__}: {str(want_exc)[:100]}"))
        else:
            try:
                same = _canon(got) == _canon(want)
            except Exception as e:  # noqa: BLE001 - an uncomparable result is a mismatch
                same, e_msg = False, str(e)
            rows.append((name, "ok" if same else "mismatch", "" if same else "different results"))
    return rows


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--all", action="store_true", help="list every call, not only those that are not ok")
    args = p.parse_args()
    rows = run()
    counts = {}
    for name, status, detail in rows:
        counts[status] = counts.get(status, 0) + 1
        if args.all or status != "ok":
            print(f"{status:9} {name:40} {detail}")
    print(f"\n{len(rows)} calls: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
