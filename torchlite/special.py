"""torchlite.special: PyTorch's ``torch.special`` namespace.

Every name is a generated operator of native_functions.yaml: the ``special_*`` entries (kernels
such as ``special_erfcx``, or composite aliases such as ``special_expit`` -> ``sigmoid``), so each
has PyTorch's signatures, keywords and ``out=``, and is covered by the generated test suites.
``sinc`` and ``round`` forward to ``torchlite.sinc`` / ``torchlite.round`` (which belong to the
unary operators).
"""
import torchlite as _torchlite
from torchlite import _ops

bessel_j0 = _ops.special_bessel_j0
bessel_j1 = _ops.special_bessel_j1
digamma = _ops.special_digamma
entr = _ops.special_entr
erf = _ops.special_erf
erfc = _ops.special_erfc
erfcx = _ops.special_erfcx
erfinv = _ops.special_erfinv
exp2 = _ops.special_exp2
expit = _ops.special_expit
expm1 = _ops.special_expm1
gammaln = _ops.special_gammaln
i0 = _ops.special_i0
i0e = _ops.special_i0e
i1 = _ops.special_i1
i1e = _ops.special_i1e
log1p = _ops.special_log1p
log_ndtr = _ops.special_log_ndtr
log_softmax = _ops.special_log_softmax
logit = _ops.special_logit
logsumexp = _ops.special_logsumexp
multigammaln = _ops.special_multigammaln
ndtr = _ops.special_ndtr
ndtri = _ops.special_ndtri
polygamma = _ops.special_polygamma
psi = _ops.special_psi
softmax = _ops.special_softmax
xlog1py = _ops.special_xlog1py
xlogy = _ops.special_xlogy
zeta = _ops.special_zeta


def sinc(*args, **kwargs):
    """The normalized sinc function ``sin(pi x) / (pi x)`` of every element (alias of ``torchlite.sinc``)."""
    return _torchlite.sinc(*args, **kwargs)


def round(*args, **kwargs):  # noqa: A001 - PyTorch's name
    """Rounds every element to the nearest integer, or to ``decimals`` places (alias of ``torchlite.round``)."""
    return _torchlite.round(*args, **kwargs)


__all__ = [
    "bessel_j0", "bessel_j1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1",
    "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
    "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy", "zeta",
]
