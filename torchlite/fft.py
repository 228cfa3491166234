"""torchlite.fft: discrete Fourier transforms, as torch.fft.

Every transform reduces to one of three kernels (`_fft_c2c`, `_fft_r2c`, `_fft_c2r`, oneMKL's DFTI;
docs/fft.md), whose derivative formulas give the gradients; this module does what PyTorch's
SpectralOps.cpp does around them: dtype promotion (integers to the default float dtype, real to
complex where the transform needs it), `n`/`s` (zero-padding or trimming the input), `dim` and `norm`
("backward": the inverse transforms scale by 1/n; "forward": the forward ones do; "ortho": both by
1/sqrt(n)).
"""
import builtins as _builtins

import torchlite as _tl

# _fft_* normalization codes: none, 1/sqrt(n), 1/n.
_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn",
           "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _norm_mode(norm, forward: bool) -> int:
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _wrap(d: int, ndim: int) -> int:
    if not -ndim <= d < _builtins.max(ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
    return d % ndim if ndim else 0


def _promote(x, require_complex: bool):
    """PyTorch's promote_tensor_fft: integers to the default float dtype; float32/float64 (and
    complex) pass; float16/bfloat16 raise (PyTorch computes them on CUDA only)."""
    if x.is_complex():
        return x
    if not x.is_floating_point():
        x = x.to(_tl.get_default_dtype())
    if x.dtype not in (_tl.float32, _tl.float64):
        raise RuntimeError(f"Unsupported dtype {x.dtype}")
    return x.to(x.dtype.to_complex()) if require_complex else x


def _resize(x, dims, sizes):
    """Zero-pads or trims `x` to `sizes` along `dims` (complex tensors through their real view)."""
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if n < have:
            x = x.narrow(d, 0, n)
        elif n > have:
            if x.is_complex():
                r = _tl.view_as_real(x)  # one more (last) dim: the pairs start from it
                pad = [0, 0] * (r.dim() - 1 - d) + [0, n - have]
                x = _tl.view_as_complex(_tl.constant_pad_nd(r, pad).contiguous())
            else:
                pad = [0, 0] * (x.dim() - 1 - d) + [0, n - have]
                x = _tl.constant_pad_nd(x, pad)
    return x


def _check_n(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _out(result, out):
    if out is None:
        return result
    if out.dtype != result.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {result.dtype}, but got {out.dtype} instead")
    out.resize_(result.shape)
    out.copy_(result)
    return out


def _c2c(name, x, n, dim, norm, forward, out):
    if not x.is_complex():
        raise RuntimeError(f"{name} expects a complex input tensor, but got {x.dtype}")
    d = _wrap(dim, x.dim())
    size = x.shape[d] if n is None else n
    _check_n(size)
    x = _resize(x, [d], [size])
    return _out(_tl._fft_c2c(x, [d], _norm_mode(norm, forward), forward), out)


def _r2c(name, x, n, dim, norm, forward, onesided, out):
    if x.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got {x.dtype}")
    x = _promote(x, False)
    d = _wrap(dim, x.dim())
    size = x.shape[d] if n is None else n
    _check_n(size)
    x = _resize(x, [d], [size])
    y = _tl._fft_r2c(x, [d], _norm_mode(norm, forward), onesided)
    return _out(y if forward else y.conj(), out)


def _c2r(name, x, n, dim, norm, forward, out):
    x = _promote(x, True)
    d = _wrap(dim, x.dim())
    size = 2 * (x.shape[d] - 1) if n is None else n
    _check_n(size)
    x = _resize(x, [d], [size // 2 + 1])
    if forward:
        x = x.conj()
    return _out(_tl._fft_c2r(x, [d], _norm_mode(norm, forward), size), out)


def _shape_and_dims(x, s, dim):
    """PyTorch's canonicalize_fft_shape_and_dim_args: the dims (wrapped, unique) and their sizes
    (from `s`, -1 meaning the input's; the input's where `s` is None)."""
    ndim = x.dim()
    if dim is not None:
        dims = [_wrap(d, ndim) for d in ([dim] if isinstance(dim, int) else dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = list(s)
        if dim is None:
            if len(s) > ndim:
                raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
            dims = list(range(ndim - len(s), ndim))
        elif len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        sizes = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    else:
        if dim is None:
            dims = list(range(ndim))
        sizes = [x.shape[d] for d in dims]
    for n in sizes:
        _check_n(n)
    return dims, sizes


def _fftn_c2c(x, s, dim, norm, forward, out):
    x = _promote(x, True)
    dims, sizes = _shape_and_dims(x, s, dim)
    if not dims:
        return _out(x.clone(), out)
    x = _resize(x, dims, sizes)
    return _out(_tl._fft_c2c(x, dims, _norm_mode(norm, forward), forward), out)


def _rfftn(name, x, s, dim, norm, out):
    if x.is_complex():
        raise RuntimeError(f"{name} expects a real-valued input tensor, but got {x.dtype}")
    x = _promote(x, False)
    dims, sizes = _shape_and_dims(x, s, dim)
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")
    x = _resize(x, dims, sizes)
    return _out(_tl._fft_r2c(x, dims, _norm_mode(norm, True), True), out)


def _irfftn(name, x, s, dim, norm, out):
    x = _promote(x, True)
    dims, sizes = _shape_and_dims(x, s, dim)
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")
    last = 2 * (x.shape[dims[-1]] - 1) if s is None or list(s)[-1] == -1 else sizes[-1]
    _check_n(last)
    sizes[-1] = last // 2 + 1
    x = _resize(x, dims, sizes)
    return _out(_tl._fft_c2r(x, dims, _norm_mode(norm, False), last), out)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D DFT of `input` along `dim` (real input: the full complex spectrum)."""
    if input.is_complex():
        return _c2c("fft", input, n, dim, norm, True, out)
    return _r2c("fft", input, n, dim, norm, True, False, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D inverse DFT of `input` along `dim`."""
    if input.is_complex():
        return _c2c("ifft", input, n, dim, norm, False, out)
    return _r2c("ifft", input, n, dim, norm, False, False, out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D DFT of `input` over `dim` (all dims by default; the last len(s) when only `s` is given)."""
    return _fftn_c2c(input, s, dim, norm, True, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D inverse DFT of `input`."""
    return _fftn_c2c(input, s, dim, norm, False, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D DFT of `input` over `dim` (the last two by default)."""
    return _fftn_c2c(input, s, dim, norm, True, out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D inverse DFT of `input`."""
    return _fftn_c2c(input, s, dim, norm, False, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D DFT of the real `input`: the n//2 + 1 non-negative frequencies."""
    return _r2c("rfft", input, n, dim, norm, True, True, out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of rfft: a real signal of length `n` (default 2 * (size - 1)) from its onesided spectrum."""
    return _c2r("irfft", input, n, dim, norm, False, out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D DFT of the real `input`, onesided in the last transformed dim."""
    return _rfftn("rfftn", input, s, dim, norm, out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of rfftn: a real tensor (last transformed dim 2 * (size - 1) unless `s` says)."""
    return _irfftn("irfftn", input, s, dim, norm, out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D DFT of the real `input`, onesided in the last dim."""
    return _rfftn("rfft2", input, s, dim, norm, out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The inverse of rfft2."""
    return _irfftn("irfft2", input, s, dim, norm, out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The DFT of a Hermitian-symmetric signal given by its first half: a real spectrum of length `n`."""
    return _c2r("hfft", input, n, dim, norm, True, out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of hfft: the onesided inverse DFT of the real `input`."""
    return _r2c("ihfft", input, n, dim, norm, False, True, out)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point DFT with sample spacing `d`: [0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d n)."""
    dtype = dtype or _tl.get_default_dtype()
    result = _tl.arange(n, dtype=dtype, device=device)
    half = (n + 1) // 2
    if n - half > 0:
        result[half:] = _tl.arange(-(n // 2), 0, dtype=dtype, device=device)
    result = result * (1.0 / (n * d))
    result = _out(result, out)
    if requires_grad:
        result.requires_grad_(True)
    return result


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The non-negative sample frequencies of an n-point real DFT: [0, 1, ..., n//2] / (d n)."""
    dtype = dtype or _tl.get_default_dtype()
    result = _tl.arange(n // 2 + 1, dtype=dtype, device=device) * (1.0 / (n * d))
    result = _out(result, out)
    if requires_grad:
        result.requires_grad_(True)
    return result


def _shift(input, dim, forward):
    if dim is None:
        dims = list(range(input.dim()))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    shifts = [(input.shape[d] // 2) if forward else ((input.shape[d] + 1) // 2) for d in dims]
    return _tl.roll(input, shifts, dims) if dims else input.clone()


def fftshift(input, dim=None):
    """`input` rolled so that the zero frequency is in the middle of each of `dim` (all by default)."""
    return _shift(input, dim, True)


def ifftshift(input, dim=None):
    """The inverse of fftshift."""
    return _shift(input, dim, False)
