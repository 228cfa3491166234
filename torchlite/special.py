"""torchlite.special: PyTorch's ``torch.special`` namespace.

Every name is a generated operator of native_functions.yaml: the ``special_*`` entries (kernels
such as ``special_erfcx``, or composite aliases such as ``special_expit`` -> ``sigmoid``), bound in
``torchlite._C._special`` (``python_module: special``) as PyTorch binds them in ``torch._C._special``,
so each has PyTorch's signatures, keywords and ``out=``, and is covered by the generated test suites.
``sinc`` and ``round`` forward to ``torchlite.sinc`` / ``torchlite.round`` (which belong to the
unary operators).
"""
from torchlite._C import _special

bessel_j0 = _special.special_bessel_j0
bessel_j1 = _special.special_bessel_j1
digamma = _special.special_digamma
entr = _special.special_entr
erf = _special.special_erf
erfc = _special.special_erfc
erfcx = _special.special_erfcx
erfinv = _special.special_erfinv
exp2 = _special.special_exp2
expit = _special.special_expit
expm1 = _special.special_expm1
gammaln = _special.special_gammaln
i0 = _special.special_i0
i0e = _special.special_i0e
i1 = _special.special_i1
i1e = _special.special_i1e
log1p = _special.special_log1p
log_ndtr = _special.special_log_ndtr
log_softmax = _special.special_log_softmax
logit = _special.special_logit
logsumexp = _special.special_logsumexp
multigammaln = _special.special_multigammaln
ndtr = _special.special_ndtr
ndtri = _special.special_ndtri
polygamma = _special.special_polygamma
psi = _special.special_psi
softmax = _special.special_softmax
xlog1py = _special.special_xlog1py
xlogy = _special.special_xlogy
zeta = _special.special_zeta


def sinc(*args, **kwargs):
    """The normalized sinc function ``sin(pi x) / (pi x)`` of every element (alias of ``torchlite.sinc``)."""
    from torchlite._C._ops import sinc as op  # imported here: no module-level name torch.special lacks
    return op(*args, **kwargs)


def round(*args, **kwargs):  # noqa: A001 - PyTorch's name
    """Rounds every element to the nearest integer, or to ``decimals`` places (alias of ``torchlite.round``)."""
    from torchlite._C._ops import round as op
    return op(*args, **kwargs)


__all__ = [
    "bessel_j0", "bessel_j1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1",
    "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
    "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy", "zeta",
]
