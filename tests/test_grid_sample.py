"""affine_grid and grid_sample (part nnf11 of issue 11): what the generated suites, which run every YAML
sample of affine_grid_generator / grid_sampler_{2d,3d} against PyTorch, cannot say: the F.* wrappers'
defaults, warnings and errors, every mode/padding/align_corners combination with gradients against
PyTorch's, non-contiguous inputs, points far outside the image, and a small spatial transformer network.
"""
from __future__ import annotations

import itertools
import warnings

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch, to_torch


def _pair(t, requires_grad=False):
    a = from_torch(t.detach()).requires_grad_(requires_grad)
    b = t.detach().clone().requires_grad_(requires_grad)
    return a, b


def _grid(shape, scale=1.2, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(*shape, generator=g, dtype=dtype) * 2 - 1) * scale


@pytest.mark.parametrize("name", ["grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "affine_grid_generator"])
def test_placement_as_torch(name):
    assert hasattr(tl, name) == hasattr(torch, name), name
    assert hasattr(tl._C._nn, name) == hasattr(torch._C._nn, name), name


CASES_2D = list(itertools.product(["bilinear", "nearest", "bicubic"], ["zeros", "border", "reflection"],
                                  [False, True]))


@pytest.mark.parametrize("mode,padding_mode,align_corners", CASES_2D)
def test_grid_sample_2d_values_and_grads_like_torch(mode, padding_mode, align_corners):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 3, 5, 6, dtype=torch.float64, generator=g)
    grid = _grid((2, 4, 7, 2), scale=1.6)
    xl, xt = _pair(x, True)
    gl, gt = _pair(grid, True)
    out_l = TF.grid_sample(xl, gl, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    out_t = F.grid_sample(xt, gt, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    assert_same(out_l.detach(), out_t.detach(), atol=1e-12, rtol=1e-10)
    w = torch.randn(out_t.shape, dtype=torch.float64, generator=g)
    (out_l * from_torch(w)).sum().backward()
    (out_t * w).sum().backward()
    assert_same(xl.grad, xt.grad, atol=1e-12, rtol=1e-10)
    assert_same(gl.grad, gt.grad, atol=1e-10, rtol=1e-8)


@pytest.mark.parametrize("mode,padding_mode,align_corners",
                         list(itertools.product(["bilinear", "nearest"], ["zeros", "border", "reflection"],
                                                [False, True])))
def test_grid_sample_3d_values_and_grads_like_torch(mode, padding_mode, align_corners):
    g = torch.Generator().manual_seed(2)
    x = torch.randn(2, 2, 3, 4, 5, dtype=torch.float64, generator=g)
    grid = _grid((2, 3, 2, 4, 3), scale=1.6, seed=3)
    xl, xt = _pair(x, True)
    gl, gt = _pair(grid, True)
    out_l = TF.grid_sample(xl, gl, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    out_t = F.grid_sample(xt, gt, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    assert_same(out_l.detach(), out_t.detach(), atol=1e-12, rtol=1e-10)
    w = torch.randn(out_t.shape, dtype=torch.float64, generator=g)
    (out_l * from_torch(w)).sum().backward()
    (out_t * w).sum().backward()
    assert_same(xl.grad, xt.grad, atol=1e-12, rtol=1e-10)
    assert_same(gl.grad, gt.grad, atol=1e-10, rtol=1e-8)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_float32_non_contiguous(mode):
    g = torch.Generator().manual_seed(4)
    x = torch.randn(3, 6, 5, 2, generator=g).permute(3, 2, 1, 0)  # (2, 5, 6, 3), channels-last-like strides
    grid = _grid((4, 2, 3, 2), dtype=torch.float32).transpose(0, 2)[:2]  # (2, 2, 4, 2), not contiguous
    assert not x.is_contiguous() and not grid.is_contiguous()
    xl = from_torch(x.contiguous()).permute(0, 1, 2, 3)
    xl = from_torch(x.permute(3, 2, 1, 0).contiguous()).permute(3, 2, 1, 0)
    gl = from_torch(grid.transpose(0, 2).contiguous()).transpose(0, 2)
    for pm in ["zeros", "border", "reflection"]:
        assert_same(TF.grid_sample(xl, gl, mode=mode, padding_mode=pm, align_corners=False),
                    F.grid_sample(x, grid, mode=mode, padding_mode=pm, align_corners=False), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("seed", range(8))
def test_grid_sample_half_types(dtype, seed):
    x = torch.randn(1, 2, 4, 5, generator=torch.Generator().manual_seed(seed)).to(dtype)
    grid = _grid((1, 3, 3, 2), seed=seed, dtype=torch.float32).to(dtype)
    # PyTorch rounds each intermediate (weights, products) to the 16-bit type, torchlite rounds once at the
    # end: a few 16-bit ulps apart (bfloat16's ulp at 1 is 2**-7; 2.5 ulps were seen)
    tol = 4e-2 if dtype == torch.bfloat16 else 1e-2
    assert_same(TF.grid_sample(from_torch(x), from_torch(grid), align_corners=True),
                F.grid_sample(x, grid, align_corners=True), atol=tol, rtol=tol)


def test_far_and_non_finite_points():
    x = torch.randn(1, 1, 3, 4, dtype=torch.float64)
    grid = torch.tensor([[[[1e3, -7.5], [-31.25, 2e9], [0.3, 5.5]]]], dtype=torch.float64)
    for mode, pm, ac in CASES_2D:
        assert_same(TF.grid_sample(from_torch(x), from_torch(grid), mode=mode, padding_mode=pm, align_corners=ac),
                    F.grid_sample(x, grid, mode=mode, padding_mode=pm, align_corners=ac))
    nan_grid = torch.tensor([[[[float("nan"), 0.0], [float("inf"), 0.5]]]], dtype=torch.float64)
    assert_same(TF.grid_sample(from_torch(x), from_torch(nan_grid), align_corners=False),
                F.grid_sample(x, nan_grid, align_corners=False))


def test_single_pixel_axes_and_empty_batch():
    x = torch.randn(2, 2, 1, 4, dtype=torch.float64)
    grid = _grid((2, 3, 2, 2))
    for mode, pm, ac in CASES_2D:
        assert_same(TF.grid_sample(from_torch(x), from_torch(grid), mode=mode, padding_mode=pm, align_corners=ac),
                    F.grid_sample(x, grid, mode=mode, padding_mode=pm, align_corners=ac))
    e = torch.zeros(0, 2, 3, 4)
    assert_same(TF.grid_sample(from_torch(e), tl.zeros(0, 5, 2, 2), align_corners=False),
                F.grid_sample(e, torch.zeros(0, 5, 2, 2), align_corners=False))


def test_meta_shapes():
    out = tl.grid_sampler(tl.empty(2, 3, 4, 5, device="meta"), tl.empty(2, 6, 7, 2, device="meta"), 0, 0, False)
    assert out.shape == (2, 3, 6, 7) and out.device.type == "meta"
    out = tl.grid_sampler(tl.empty(2, 3, 4, 5, 6, device="meta"), tl.empty(2, 1, 6, 7, 3, device="meta"), 1, 2, True)
    assert out.shape == (2, 3, 1, 6, 7)
    assert tl.affine_grid_generator(tl.empty(2, 2, 3, device="meta"), [2, 1, 4, 5], False).shape == (2, 4, 5, 2)


def test_align_corners_none_warns_like_torch():
    x, grid = tl.zeros(1, 1, 2, 2), tl.zeros(1, 1, 1, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        TF.grid_sample(x, grid)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        TF.affine_grid(tl.zeros(1, 2, 3), [1, 1, 2, 2])
    with pytest.warns(UserWarning, match="unit-size grids"):
        TF.affine_grid(tl.zeros(1, 2, 3), [1, 1, 1, 2], align_corners=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TF.grid_sample(x, grid, align_corners=False)


def _raises_like_torch(fn_tl, fn_torch):
    with pytest.raises(Exception) as e_torch:
        fn_torch()
    with pytest.raises(type(e_torch.value)) as e_tl:
        fn_tl()
    return str(e_tl.value), str(e_torch.value)


@pytest.mark.parametrize("case", [
    lambda m, f: f.grid_sample(m.zeros(1, 1, 2, 2), m.zeros(1, 1, 1, 2), mode="area", align_corners=False),
    lambda m, f: f.grid_sample(m.zeros(1, 1, 2, 2), m.zeros(1, 1, 1, 2), padding_mode="wrap", align_corners=False),
    lambda m, f: f.grid_sample(m.zeros(2, 1, 2, 2), m.zeros(1, 1, 1, 2), align_corners=False),
    lambda m, f: f.grid_sample(m.zeros(1, 1, 2, 2), m.zeros(1, 1, 1, 3), align_corners=False),
    lambda m, f: f.grid_sample(m.zeros(1, 1, 0, 2), m.zeros(1, 1, 1, 2), align_corners=False),
    lambda m, f: f.grid_sample(m.zeros(1, 1, 2, 2, 2), m.zeros(1, 1, 1, 1, 3), mode="bicubic", align_corners=False),
    lambda m, f: f.grid_sample(m.zeros(1, 1, 2), m.zeros(1, 1, 1), align_corners=False),
    lambda m, f: f.grid_sample(m.zeros(1, 1, 2, 2), m.zeros(1, 1, 1, 2, dtype=m.float64), align_corners=False),
    lambda m, f: f.grid_sample(m.zeros(1, 1, 2, 2, dtype=m.int64), m.zeros(1, 1, 1, 2, dtype=m.int64),
                               align_corners=False),
    lambda m, f: f.affine_grid(m.zeros(1, 2, 3, dtype=m.int64), [1, 1, 2, 2], align_corners=False),
    lambda m, f: f.affine_grid(m.zeros(1, 3, 3), [1, 1, 2, 2], align_corners=False),
    lambda m, f: f.affine_grid(m.zeros(1, 2, 3), [1, 1, 2, 2, 2], align_corners=False),
    lambda m, f: f.affine_grid(m.zeros(1, 2, 3), [1, 1, 2], align_corners=False),
    lambda m, f: f.affine_grid(m.zeros(1, 2, 3), [1, 1, 0, 2], align_corners=False),
])
def test_errors_like_torch(case):
    got, want = _raises_like_torch(lambda: case(tl, TF), lambda: case(torch, F))
    if want.startswith(("grid_sampler()", "nn.functional", "Expected", "affine_grid")):
        assert got.replace("torchlite.", "torch.") == want, (got, want)
    else:  # PyTorch's dispatch messages carry no op name; torchlite's start with it
        assert got.startswith("grid_sampler"), got


@pytest.mark.parametrize("size,align_corners", [([2, 3, 4, 5], False), ([2, 3, 4, 5], True), ([1, 1, 1, 3], False),
                                                ([2, 1, 3, 4, 5], False), ([2, 1, 3, 4, 5], True),
                                                ([1, 2, 1, 2, 1], False)])
def test_affine_grid_values_and_grads_like_torch(size, align_corners):
    k = len(size) - 2
    theta = torch.randn(size[0], k, k + 1, dtype=torch.float64)
    tl_theta, t_theta = _pair(theta, True)
    out_l = TF.affine_grid(tl_theta, size, align_corners=align_corners)
    out_t = F.affine_grid(t_theta, size, align_corners=align_corners)
    assert_same(out_l.detach(), out_t.detach(), atol=1e-14, rtol=1e-12)
    w = torch.randn(out_t.shape, dtype=torch.float64)
    (out_l * from_torch(w)).sum().backward()
    (out_t * w).sum().backward()
    assert_same(tl_theta.grad, t_theta.grad, atol=1e-12, rtol=1e-10)
    assert out_l.grad_fn.name() == out_t.grad_fn.name()


def test_spatial_transformer_network_like_torch():
    """A small STN: a localization net regresses theta from the image, affine_grid + grid_sample warp it,
    a classifier head reads the warped image. Forward and every parameter's gradient as PyTorch's."""
    torch.manual_seed(0)
    loc_t = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(2 * 8 * 8, 16), torch.nn.Tanh(),
                                torch.nn.Linear(16, 6))
    head_t = torch.nn.Linear(2 * 6 * 6, 3)
    loc_l = tl.nn.Sequential(tl.nn.Flatten(), tl.nn.Linear(2 * 8 * 8, 16), tl.nn.Tanh(), tl.nn.Linear(16, 6))
    head_l = tl.nn.Linear(2 * 6 * 6, 3)
    for mt, ml in ((loc_t, loc_l), (head_t, head_l)):
        for pt, pl in zip(mt.parameters(), ml.parameters()):
            with tl.no_grad():
                pl.copy_(from_torch(pt.detach()))
    with torch.no_grad():  # start near the identity transform, as STNs are initialized
        loc_t[3].weight.mul_(0.1)
        loc_t[3].bias.copy_(torch.tensor([1.0, 0.1, 0.0, -0.1, 0.9, 0.05]))
    with tl.no_grad():
        loc_l[3].weight.copy_(from_torch(loc_t[3].weight.detach()))
        loc_l[3].bias.copy_(from_torch(loc_t[3].bias.detach()))
    x = torch.randn(4, 2, 8, 8)
    target = torch.tensor([0, 2, 1, 2])

    def run(m, nn_f, loc, head, xin, tgt):
        theta = loc(xin).view(-1, 2, 3)
        grid = nn_f.affine_grid(theta, [xin.shape[0], 2, 6, 6], align_corners=False)
        warped = nn_f.grid_sample(xin, grid, align_corners=False, padding_mode="border")
        logits = head(warped.flatten(1))
        loss = nn_f.cross_entropy(logits, tgt)
        loss.backward()
        return loss, warped

    loss_t, warped_t = run(torch, F, loc_t, head_t, x, target)
    loss_l, warped_l = run(tl, TF, loc_l, head_l, from_torch(x), from_torch(target))
    assert_same(warped_l.detach(), warped_t.detach(), atol=1e-5, rtol=1e-5)
    assert abs(loss_l.item() - loss_t.item()) < 1e-5
    for mt, ml in ((loc_t, loc_l), (head_t, head_l)):
        for pt, pl in zip(mt.parameters(), ml.parameters()):
            assert_same(pl.grad, pt.grad, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("mode,padding_mode,align_corners", CASES_2D + [
    (m, p, a) for m, p, a in itertools.product(["bilinear", "nearest"], ["zeros", "reflection"], [False, True])])
def test_double_backward_like_torch(mode, padding_mode, align_corners):
    """Second-order gradients (a gradient penalty on both grads), 2-D (all modes) and 3-D, as PyTorch's."""
    three_d = (mode, padding_mode, align_corners) not in CASES_2D
    g = torch.Generator().manual_seed(5)
    x = torch.randn(*((2, 2, 3, 4, 5) if three_d else (2, 2, 4, 5)), dtype=torch.float64, generator=g)
    grid = _grid((2, 2, 3, 2, 3) if three_d else (2, 3, 2, 2), scale=1.4, seed=6)
    results = []
    for lib, f, conv in ((tl, TF, from_torch), (torch, F, lambda t: t)):
        xi, gi = conv(x).requires_grad_(), conv(grid).requires_grad_()
        out = f.grid_sample(xi, gi, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
        gx, gg = lib.autograd.grad((out * out).sum(), (xi, gi), create_graph=True)
        penalty = (gx * gx).sum() + (gg * gg).sum() + (gx * xi).sum()
        results.append(lib.autograd.grad(penalty, (xi, gi)))
    for a, b in zip(*results):
        assert_same(a, b, atol=1e-9, rtol=1e-7)
