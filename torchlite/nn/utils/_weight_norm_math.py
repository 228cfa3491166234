"""The weight-norm formula both weight_norm APIs use: ``v * (g / ||v||)`` with the norm taken over
every dimension except ``dim`` (``dim=-1``: over the whole tensor, PyTorch's convention for
norm_except_dim/_weight_norm). Written with differentiable ops, so it has a gradient."""
import torchlite as _tl


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over all dimensions but ``dim``, kept as size-1 dimensions (a 0-dim
    tensor for ``dim=-1``)."""
    if dim == -1:
        return _tl.linalg.vector_norm(v, pow)
    dim = dim % v.dim()
    others = [d for d in range(v.dim()) if d != dim]
    if not others:
        return v.abs() if pow != 0 else (v != 0).to(v.dtype)
    return _tl.linalg.vector_norm(v, pow, dim=others, keepdim=True)


def weight_norm(v, g, dim=0):
    return v * (g / norm_except_dim(v, 2, dim))
