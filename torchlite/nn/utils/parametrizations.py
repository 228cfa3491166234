"""Parametrizations built on torchlite.nn.utils.parametrize: orthogonal, spectral_norm and
weight_norm (PyTorch's torch.nn.utils.parametrizations; same state-dict keys and buffers)."""
from enum import Enum, auto

import torchlite as _tl
import torchlite.nn.functional as F
from torchlite.autograd.grad_mode import no_grad as _no_grad
from torchlite.nn.modules.module import Module
from torchlite.nn.utils import parametrize
from torchlite.nn.utils._weight_norm_math import norm_except_dim as _norm_except_dim
from torchlite.nn.utils._weight_norm_math import weight_norm as _weight_norm

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _is_orthogonal(q):
    k = q.size(-1)
    eye = _tl.eye(k, dtype=q.dtype)
    return _tl.allclose(q.mH @ q, eye, atol=10.0 * q.size(-2) * _tl.finfo(q.dtype).eps)


def _make_orthogonal(a):
    """The Q of a's QR decomposition with R's diagonal made positive (Q times the signs of R's
    diagonal, which is what PyTorch gets from geqrf + householder_product)."""
    q, r = _tl.linalg.qr(a)
    return q * r.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """Maps an unconstrained matrix (or batch) to an orthogonal one (columns orthonormal for tall
    matrices, rows for wide ones). With the trivialization, a buffer ``base`` keeps the orthogonal
    matrix assigned last and the map is applied around it."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x):
        n, k = x.size(-2), x.size(-1)
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            # a skew-symmetric (skew-Hermitian) matrix from the lower triangle, padded to square
            x = x.tril()
            if n != k:
                x = _tl.cat([x, x.new_zeros(n, n - k).expand(*x.shape[:-2], -1, -1)], dim=-1)
            a = x - x.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = _tl.matrix_exp(a)
            else:
                eye = _tl.eye(n, dtype=a.dtype)
                q = _tl.linalg.solve(_tl.add(eye, a, alpha=-0.5), _tl.add(eye, a, alpha=0.5))
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (a * a).sum(dim=-2))
            q = _tl.linalg.householder_product(a, tau)
            q = q * x.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            q = self.base @ q
        return q.mT if transposed else q

    @_no_grad()
    def right_inverse(self, q):
        if q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {q.shape}.")
        q_init = q
        n, k = q.size(-2), q.size(-1)
        if n < k:
            q = q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            # needs geqrf's reflectors, which torchlite does not have
            raise NotImplementedError("orthogonal: assigning to the householder parametrization with "
                                      "use_trivialization=False needs torch.geqrf, which torchlite does not have")
        if n == k:
            q = q.clone() if _is_orthogonal(q) else _make_orthogonal(q)
        else:
            # complete the columns to a square matrix at random, then orthogonalise
            extra = _tl.randn(*(q.size()[:-2] + (n, n - k)), dtype=q.dtype)
            q = _make_orthogonal(_tl.cat([q, extra], dim=-1))
        self.base = q
        # every map sends -Id to Id, so the parametrized value is base itself
        neg_id = _tl.zeros_like(q_init)
        neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Makes ``module.<name>`` an orthogonal (unitary) matrix or batch of matrices.
    ``orthogonal_map``: "matrix_exp" (default for square or complex), "cayley" or "householder"."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _tl.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    kind = getattr(_OrthMaps, orthogonal_map, None)
    if kind is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrize.register_parametrization(module, name, _Orthogonal(weight, kind, use_trivialization=use_trivialization),
                                         unsafe=True)
    return module


class _WeightNorm(Module):
    """``weight = g * v / ||v||``, the originals being (g, v) = original0, original1."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Weight normalization of ``module.<name>`` as a parametrization: magnitude
    ``parametrizations.<name>.original0`` and direction ``...original1``. State dicts saved with the
    old ``<name>_g``/``<name>_v`` keys load too."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_old_keys(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(load_old_keys)
    return module


class _SpectralNorm(Module):
    """``weight / sigma``, sigma the largest singular value of the weight seen as a matrix
    (dimension ``dim`` first), estimated by power iteration on the buffers ``_u`` and ``_v``
    (one step per forward in training mode)."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._reshape_weight_to_matrix(weight)
            h, w = mat.size()
            u = mat.new_empty(h).normal_(0, 1)
            v = mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    @_no_grad()
    def _power_method(self, mat, n_power_iterations):
        # in place: the buffers stay the same tensors
        for _ in range(n_power_iterations):
            self._u.copy_(F.normalize(_tl.mv(mat, self._v), dim=0, eps=self.eps))
            self._v.copy_(F.normalize(_tl.mv(mat.H, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = _tl.vdot(u, _tl.mv(mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalization of ``module.<name>`` as a parametrization (``dim`` defaults to 1 for
    transposed convolutions, else 0)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _tl.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        transposed = (_tl.nn.ConvTranspose1d, _tl.nn.ConvTranspose2d, _tl.nn.ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
