"""torchlite.func against torch.func: grad/grad_and_value (argnums, has_aux, pytrees, nesting),
vjp, jvp, linearize, jacrev, jacfwd, hessian, vmap (in_dims/out_dims/randomness/chunk_size and
errors), functional_call with vmap over stacked module state."""
import pytest
import torch
import torch.func as tf

import torchlite as tl
import torchlite.func as lf
from tests.conftest import assert_same, from_torch


def _same(ours, theirs):
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, tl.Tensor), type(ours)
        assert_same(ours.detach(), theirs.detach(), atol=1e-9, rtol=1e-7)
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs)
        for k in theirs:
            _same(ours[k], theirs[k])
    elif isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), (type(ours), type(theirs))
        for a, b in zip(ours, theirs):
            _same(a, b)
    else:
        assert ours == theirs


def _pair(shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.rand(shape, generator=g, dtype=torch.float64) + 0.5
    return from_torch(t), t


def f_scalar(lib):
    return lambda x, y: (x.sin() * y.sum() + x.pow(2)).sum()


def f_vector(lib):
    return lambda x, y: (x.unsqueeze(1) * y).tanh()


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0), -1])
def test_grad_and_value_argnums(argnums):
    x, xt = _pair((3,))
    y, yt = _pair((2,), 1)
    _same(lf.grad(f_scalar(tl), argnums=argnums)(x, y), tf.grad(f_scalar(torch), argnums=argnums)(xt, yt))
    _same(lf.grad_and_value(f_scalar(tl), argnums=argnums)(x, y),
          tf.grad_and_value(f_scalar(torch), argnums=argnums)(xt, yt))


def test_grad_has_aux_pytrees_kwargs_and_nesting():
    x, xt = _pair((3,))
    y, yt = _pair((3,), 1)

    def f(lib):
        return lambda d, scale=1.0: ((d["a"] * d["b"][0]).sum() * scale, {"aux": d["a"] * 2})

    _same(lf.grad(f(tl), has_aux=True)({"a": x, "b": [y]}, scale=3.0),
          tf.grad(f(torch), has_aux=True)({"a": xt, "b": [yt]}, scale=3.0))
    cube = lambda a: a.pow(3).sum()  # noqa: E731
    _same(lf.grad(lambda a: lf.grad(cube)(a).sum())(x), tf.grad(lambda a: tf.grad(cube)(a).sum())(xt))
    # third order, and a gradient that stays differentiable for ordinary autograd
    _same(lf.grad(lambda a: lf.grad(lambda b: lf.grad(cube)(b).sin().sum())(a).sum())(x),
          tf.grad(lambda a: tf.grad(lambda b: tf.grad(cube)(b).sin().sum())(a).sum())(xt))
    xr = x.clone().requires_grad_()
    g = lf.grad(cube)(xr)
    assert g.requires_grad
    (gg,) = tl.autograd.grad(g.sum(), xr)
    assert tl.allclose(gg, 6 * x)


def test_grad_unused_input_is_zero_and_errors():
    x, xt = _pair((3,))
    _same(lf.grad(lambda a, b: (a * 2).sum(), argnums=1)(x, x), tf.grad(lambda a, b: (a * 2).sum(), argnums=1)(xt, xt))
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor, got tensor with 1 dims"):
        lf.grad(lambda a: a * 2)(x)
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a Tensor, got <class 'float'>"):
        lf.grad(lambda a: 1.0)(x)
    with pytest.raises(RuntimeError, match="output of function f should be a tuple: \\(output, aux\\) if has_aux is "
                                           "True"):
        lf.grad(lambda a: a.sum(), has_aux=True)(x)
    with pytest.raises(RuntimeError, match="Got argnum=2, but only 1 positional inputs"):
        lf.grad(lambda a: a.sum(), argnums=2)(x)
    with pytest.raises(RuntimeError, match="argnums must be int or Tuple\\[int, ...\\], got: <class 'list'>"):
        lf.grad(lambda a: a.sum(), argnums=[0])(x)
    with pytest.raises(RuntimeError, match="argnums elements must be unique, got \\(0, 0\\)"):
        lf.grad(lambda a: a.sum(), argnums=(0, 0))(x)
    with pytest.raises(ValueError, match="Thing passed to transform API must be Tensor, got <class 'int'>"):
        lf.grad(lambda a: a)(3)


def test_vjp_and_jvp_and_linearize():
    x, xt = _pair((3,))
    y, yt = _pair((2,), 1)
    out, fn = lf.vjp(f_vector(tl), x, y)
    out_t, fn_t = tf.vjp(f_vector(torch), xt, yt)
    _same(out, out_t)
    ct, ct_t = _pair((3, 2), 2)
    _same(fn(ct), fn_t(ct_t))
    _same(fn(ct), fn_t(ct_t))  # callable again
    tx, txt = _pair((3,), 3)
    ty, tyt = _pair((2,), 4)
    _same(lf.jvp(f_vector(tl), (x, y), (tx, ty)), tf.jvp(f_vector(torch), (xt, yt), (txt, tyt)))
    out, jfn = lf.linearize(f_vector(tl), x, y)
    out_t, jfn_t = tf.linearize(f_vector(torch), xt, yt)
    _same(out, out_t)
    _same(jfn(tx, ty), jfn_t(txt, tyt))
    o, f2, aux = lf.vjp(lambda a: (a.exp(), a.sum()), x, has_aux=True)
    ot, f2t, auxt = tf.vjp(lambda a: (a.exp(), a.sum()), xt, has_aux=True)
    _same((o, f2(tl.ones(3, dtype=tl.float64)), aux), (ot, f2t(torch.ones(3, dtype=torch.float64)), auxt))
    with pytest.raises(RuntimeError, match="All outputs of f must be floating-point or complex Tensors"):
        lf.vjp(lambda a: a.long(), x)
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple. E.g. it should be valid to call "
                                           "f\\(\\*primals\\)."):
        lf.jvp(lambda a: a, x, (x,))
    with pytest.raises(RuntimeError, match="Expected primals and tangents to have the same python structure"):
        lf.jvp(lambda a, b: a, (x, x), (x,))
    with pytest.raises(RuntimeError, match="Expected pytree structure of cotangents to be the same"):
        lf.vjp(lambda a: (a, a), x)[1](x)


@pytest.mark.parametrize("argnums", [0, (0, 1)])
def test_jacrev_jacfwd_hessian(argnums):
    x, xt = _pair((3,))
    y, yt = _pair((2,), 1)
    _same(lf.jacrev(f_vector(tl), argnums)(x, y), tf.jacrev(f_vector(torch), argnums)(xt, yt))
    _same(lf.jacfwd(f_vector(tl), argnums)(x, y), tf.jacfwd(f_vector(torch), argnums)(xt, yt))
    _same(lf.hessian(f_scalar(tl), argnums)(x, y), tf.hessian(f_scalar(torch), argnums)(xt, yt))
    two = lambda a, b: (a.exp(), {"s": (a * b.sum()).sum()})  # noqa: E731
    _same(lf.jacrev(two, argnums)(x, y), tf.jacrev(two, argnums)(xt, yt))
    _same(lf.jacfwd(two, argnums)(x, y), tf.jacfwd(two, argnums)(xt, yt))
    _same(lf.jacrev(lf.jacrev(f_scalar(tl)))(x, y), tf.jacrev(tf.jacrev(f_scalar(torch)))(xt, yt))
    with pytest.raises(ValueError, match="jacrev: `chunk_size` should be greater than 0."):
        lf.jacrev(f_vector(tl), chunk_size=0)


@pytest.mark.parametrize("in_dims,out_dims", [(0, 0), (1, 0), (0, 1), ((0, None), 0), ((1, 0), -1), (-1, 0)])
def test_vmap_dims(in_dims, out_dims):
    x, xt = _pair((4, 4))
    y, yt = _pair((4, 4), 1)
    f = lambda a, b: a * b.sum(-1) + a.max()  # noqa: E731
    _same(lf.vmap(f, in_dims, out_dims)(x, y), tf.vmap(f, in_dims, out_dims)(xt, yt))
    scalar = lambda a, b: (a * b).sum()  # noqa: E731
    if out_dims in (0, -1):
        _same(lf.vmap(scalar, in_dims, out_dims)(x, y), tf.vmap(scalar, in_dims, out_dims)(xt, yt))
    else:
        with pytest.raises(IndexError, match="Dimension out of range \\(expected to be in range of \\[-1, 0\\], but got 1\\)"):
            lf.vmap(scalar, in_dims, out_dims)(x, y)


def test_vmap_pytrees_kwargs_nesting_and_none_outputs():
    x, xt = _pair((3, 5))
    y, yt = _pair((5,), 1)
    f = lambda d, k=1.0: {"p": d["a"] @ d["b"] * k, "q": (d["a"].sum(), d["b"])}  # noqa: E731
    in_dims = ({"a": 0, "b": None},)
    _same(lf.vmap(f, in_dims)({"a": x, "b": y}, k=2.0), tf.vmap(f, in_dims)({"a": xt, "b": yt}, k=2.0))
    g = lambda a, b: a.dot(b)  # noqa: E731
    _same(lf.vmap(lf.vmap(g, (0, None)), (None, 0))(x, x), tf.vmap(tf.vmap(g, (0, None)), (None, 0))(xt, xt))
    _same(lf.vmap(lambda a: (a * 2, 5), out_dims=(0, None))(x), tf.vmap(lambda a: (a * 2, 5), out_dims=(0, None))(xt))
    _same(lf.vmap(lf.grad(lambda a: a.pow(3).sum()))(x), tf.vmap(tf.grad(lambda a: a.pow(3).sum()))(xt))
    _same(lf.vmap(lambda a: a.sum(), chunk_size=2)(x), tf.vmap(lambda a: a.sum(), chunk_size=2)(xt))
    e, et = tl.ones(0, 3, dtype=tl.float64), torch.ones(0, 3, dtype=torch.float64)
    _same(lf.vmap(lambda a: a * 2)(e), tf.vmap(lambda a: a * 2)(et))
    _same(lf.vmap(lambda a: (a.sum(), a), out_dims=(0, 1))(e), tf.vmap(lambda a: (a.sum(), a), out_dims=(0, 1))(et))


def test_vmap_randomness():
    x = tl.zeros(4, 3)
    with pytest.raises(RuntimeError, match="vmap: called random operation while in randomness error mode"):
        lf.vmap(lambda a: a + tl.rand(3))(x)
    same = lf.vmap(lambda a: a + tl.rand(3), randomness="same")(x)
    assert all(tl.equal(same[0], same[i]) for i in range(4))
    different = lf.vmap(lambda a: a + tl.rand(3), randomness="different")(x)
    assert not tl.equal(different[0], different[1])
    with pytest.raises(RuntimeError, match="Only allowed values for randomness are 'error', 'different', or 'same'. "
                                           "Got foo"):
        lf.vmap(lambda a: a, randomness="foo")


def _vmap_error(ours_call, theirs_call):
    with pytest.raises(Exception) as theirs:
        theirs_call()
    with pytest.raises(type(theirs.value)) as ours:
        ours_call()
    return str(ours.value), str(theirs.value)


def test_vmap_errors_like_torch():
    x, xt = _pair((3, 2))

    def f(a, b=None):
        return a

    cases = [
        (lambda: lf.vmap(f, in_dims="a")(x), lambda: tf.vmap(f, in_dims="a")(xt)),
        (lambda: lf.vmap(f)(), lambda: tf.vmap(f)()),
        (lambda: lf.vmap(f, in_dims=(0, None, 1))(x), lambda: tf.vmap(f, in_dims=(0, None, 1))(xt)),
        (lambda: lf.vmap(f, in_dims=(0.5,))(x), lambda: tf.vmap(f, in_dims=(0.5,))(xt)),
        (lambda: lf.vmap(f, in_dims=(0, 0))(x, 3), lambda: tf.vmap(f, in_dims=(0, 0))(xt, 3)),
        (lambda: lf.vmap(f, in_dims=2)(x), lambda: tf.vmap(f, in_dims=2)(xt)),
        (lambda: lf.vmap(f, in_dims=None)(x), lambda: tf.vmap(f, in_dims=None)(xt)),
        (lambda: lf.vmap(f, in_dims=(0, 1))(x, x), lambda: tf.vmap(f, in_dims=(0, 1))(xt, xt)),
        (lambda: lf.vmap(lambda a: (a, 5))(x), lambda: tf.vmap(lambda a: (a, 5))(xt)),
        (lambda: lf.vmap(f, chunk_size=0), lambda: tf.vmap(f, chunk_size=0)),
        (lambda: lf.vmap(f, out_dims="x")(x), lambda: tf.vmap(f, out_dims="x")(xt)),
    ]
    for i, (ours_call, theirs_call) in enumerate(cases):
        ours, theirs = _vmap_error(ours_call, theirs_call)
        if "structure" in theirs:  # torch prints its TreeSpec; the text before it is the same
            assert ours.split("structure")[0] == theirs.split("structure")[0], i
        else:
            assert ours == theirs, i


def test_functional_call_with_stacked_state_matches_a_loop_and_torch():
    torch.manual_seed(0)
    models_t = [torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)) for _ in range(3)]
    models = [tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.Tanh(), tl.nn.Linear(4, 2)) for _ in range(3)]
    for m, mt in zip(models, models_t):
        m.load_state_dict({k: from_torch(v) for k, v in mt.state_dict().items()})
    params, buffers = lf.stack_module_state(models)
    params_t, buffers_t = tf.stack_module_state(models_t)
    _same(params, params_t)
    assert all(p.requires_grad and p.is_leaf for p in params.values())
    x, xt = _pair((5, 3))
    x, xt = x.float(), xt.float()
    base = models[0]
    base_t = models_t[0]

    def run(p, b, data):
        return lf.functional_call(base, (p, b), (data,))

    def run_t(p, b, data):
        return tf.functional_call(base_t, (p, b), (data,))

    out = lf.vmap(run, in_dims=(0, 0, None))(params, buffers, x)
    out_t = tf.vmap(run_t, in_dims=(0, 0, None))(params_t, buffers_t, xt)
    assert_same(out.detach(), out_t.detach(), atol=1e-6, rtol=1e-5)
    # per-model gradients through vmap + functional_call equal torch's
    out.sum().backward()
    out_t.sum().backward()
    for k in params:
        assert_same(params[k].grad, params_t[k].grad, atol=1e-5, rtol=1e-5)
    with pytest.raises(RuntimeError, match="stack_module_state: Expected at least one model, got 0."):
        lf.stack_module_state([])
    models[1].eval()
    with pytest.raises(RuntimeError, match="Expected all models to have the same training/eval mode."):
        lf.stack_module_state(models)


def test_per_sample_gradients():
    torch.manual_seed(1)
    model_t = torch.nn.Linear(3, 2)
    model = tl.nn.Linear(3, 2)
    model.load_state_dict({k: from_torch(v) for k, v in model_t.state_dict().items()})
    x, xt = _pair((6, 3))
    x, xt = x.float(), xt.float()
    params = {k: v.detach() for k, v in model.named_parameters()}
    params_t = {k: v.detach() for k, v in model_t.named_parameters()}

    def loss(p, sample):
        return lf.functional_call(model, p, (sample.unsqueeze(0),)).pow(2).sum()

    def loss_t(p, sample):
        return tf.functional_call(model_t, p, (sample.unsqueeze(0),)).pow(2).sum()

    g = lf.vmap(lf.grad(loss), in_dims=(None, 0))(params, x)
    gt = tf.vmap(tf.grad(loss_t), in_dims=(None, 0))(params_t, xt)
    for k in gt:
        assert_same(g[k], gt[k], atol=1e-5, rtol=1e-5)


def test_remaining_names():
    x = tl.randn(3)
    assert lf.functionalize(lambda a: a.add_(1))(x.clone()).sub(1).allclose(x)
    assert lf.debug_unwrap(x) is x
    m = tl.nn.Sequential(tl.nn.Linear(2, 2), tl.nn.BatchNorm1d(2))
    lf.replace_all_batch_norm_modules_(m)
    assert m[1].running_mean is None and not m[1].track_running_stats
    assert sorted(set(tf.__all__) - set(lf.__all__)) == ["rearrange"]
