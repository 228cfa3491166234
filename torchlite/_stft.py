"""torch.stft / torch.istft and their Tensor methods (PyTorch keeps the front ends in Python: torch/functional.py,
torch/_tensor.py; the bodies are aten::stft / aten::istft in SpectralOps.cpp).

Both are composite over the fft kernels (`_fft_r2c`, `_fft_c2c`, `_fft_c2r`, docs/fft.md) and views/pads, so
autograd comes from those ops' formulas: the frames are `unfold` windows of the (padded) signal, and istft's
overlap-add is `unfold_backward` (the gradient of unfold sums the frames' entries back into the signal).
Arguments, defaults, dtypes, warnings and error messages are PyTorch 2.13's.
"""
from __future__ import annotations

import warnings as _warnings

import torchlite as _tl
from torchlite import _C

__all__ = ["stft", "istft"]

_NORM_NONE, _NORM_ROOT_N, _NORM_N = 0, 1, 2  # the _fft_* normalization codes

_WINDOW_STFT = ("A window was not provided. A rectangular window will be applied,which is known to cause spectral "
                "leakage. Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce "
                "spectral leakage.To suppress this warning and use a rectangular window, explicitly set "
                "`window=torch.ones(n_fft, device=<device>)`.")
_WINDOW_ISTFT = ("A window was not provided. A rectangular window will be applied.Please provide the same window "
                 "used by stft to make the inversion lossless.To suppress this warning and use a rectangular "
                 "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
_REAL_DEPRECATED = ("stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
                    "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
                    "still call torch.view_as_real on the complex output to recover the old return format.")
_LENGTH_PADDED = ("The length of signal is shorter than the length parameter. Result is being padded with zeros in "
                  "the tail. Please check your center and hop_length settings.")
_warned: set[str] = set()


def _warn_once(message: str) -> None:
    """PyTorch's TORCH_WARN_ONCE: each message once per process."""
    if message not in _warned:
        _warned.add(message)
        _warnings.warn(message, UserWarning, stacklevel=4)


def _opt(value) -> str:
    return "None" if value is None else str(int(value))


def _sizes(t) -> str:
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def _window_repr(window) -> str:
    return "None" if window is None else f"{window.type()}{{{_sizes(window)}}}"


def _pad_last(x, left: int, right: int, mode: str = "constant"):
    """`x` padded along its last dim; complex tensors through their real view (the pad kernels are real)."""
    from torchlite.nn.functional import pad  # torchlite.nn imports after this module

    if not x.is_complex():
        return pad(x, [left, right], mode)
    r = _tl.view_as_real(x)  # (..., L, 2): pad the L dim of the (..., 2, L) transpose
    lead = list(x.shape[:-1])
    planes = r.transpose(-1, -2).reshape([1, -1, x.shape[-1]])
    padded = pad(planes, [left, right], mode)
    out = padded.reshape(lead + [2, padded.shape[-1]]).transpose(-1, -2).contiguous()
    return _tl.view_as_complex(out)


def _center_window(window, n_fft: int, win_length: int, real_dtype):
    """The window zero-padded on both sides to n_fft (a rectangle of win_length ones when absent), or None
    for the absent full-length window."""
    if win_length >= n_fft:
        return window
    if window is None:
        window = _tl.ones(win_length, dtype=real_dtype)
    left = (n_fft - win_length) // 2
    return _pad_last(window, left, n_fft - win_length - left)


def _check_fft_dtype(x) -> None:
    if x.dtype not in (_tl.float32, _tl.float64, _tl.complex64, _tl.complex128):
        name = {_tl.float16: "Half", _tl.bfloat16: "BFloat16"}.get(x.dtype, str(x.dtype))
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: {name}")


def stft(input, n_fft: int, hop_length: int | None = None, win_length: int | None = None, window=None,
         center: bool = True, pad_mode: str = "reflect", normalized: bool = False, onesided: bool | None = None,
         return_complex: bool | None = None, align_to_window: bool | None = None):
    """The short-time Fourier transform of a 1-D signal or a batch of them (2-D): the FFT of each `n_fft`-point
    frame, `hop_length` apart, multiplied by `window` (`win_length` points, centred in the frame). Returns
    (B?, n_fft // 2 + 1 or n_fft, n_frames) complex values, or their real view when `return_complex=False`
    (required for real input). `center` pads the signal by n_fft // 2 each side with `pad_mode`;
    `normalized` scales by 1/sqrt(n_fft); `onesided` (default for real input and window) keeps the
    non-negative frequencies; `align_to_window` (only with `center=False`) starts the frames at the window."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        signal_dim = input.dim()
        extended = [1] * (3 - signal_dim) + list(input.shape)
        pad = int(n_fft // 2)
        padded = _pad_last(input.view(extended), pad, pad, pad_mode)
        input = padded.view(list(padded.shape)[-signal_dim:] if signal_dim else [])
    return _stft_frames(input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex,
                        align_to_window)


def _stft_frames(self, n_fft, hop_length, win_length, window, normalized, onesided_opt, return_complex_opt,
                 align_to_window):
    """aten::stft: the framing and the transform, on the already centred signal."""
    if window is None:
        _warn_once(_WINDOW_STFT)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length

    def fail(problem: str):
        raise RuntimeError(
            f"stft({self.type()}{_sizes(self)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
            f"window={_window_repr(window)}, normalized={int(normalized)}, onesided={_opt(onesided_opt)}, "
            f"return_complex={_opt(return_complex_opt)}, align_to_window={_opt(align_to_window)}) : {problem}")

    return_complex = return_complex_opt
    if return_complex is None:
        return_complex = self.is_complex() or (window is not None and window.is_complex())
    if not return_complex:
        if return_complex_opt is None:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will "
                               "further require that return_complex=True in a future PyTorch release.")
        _warn_once(_REAL_DEPRECATED)
    if not (self.is_floating_point() or self.is_complex()):
        fail("expected a tensor of floating point or complex values")
    if self.dim() not in (1, 2):
        fail("expected a 1D or 2D tensor")
    x = self.unsqueeze(0) if self.dim() == 1 else self
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        fail(f"expected 0 < n_fft < {length}, but got n_fft={win}")  # PyTorch prints win_length here
    if hop <= 0:
        fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        fail(f"expected a 1D window tensor of size equal to win_length={win}, but got window with size "
             f"{_sizes(window)}")
    real_dtype = self.dtype.to_real() if self.is_complex() else self.dtype
    full_window = _center_window(window, n_fft, win, real_dtype)
    if align_to_window:
        # frames start where the window's nonzero part does: n_frames counts win_length-point frames
        left = (n_fft - win) // 2
        n_frames = 1 + (length - win) // hop
        x = _pad_last(x, left, max(0, (n_frames - 1) * hop + n_fft - left - length))
    n_frames = 1 + (x.shape[1] - n_fft) // hop if not align_to_window else n_frames
    frames = x.unfold(1, n_fft, hop).narrow(1, 0, n_frames)  # (batch, n_frames, n_fft), a view
    if full_window is not None:
        frames = frames * full_window
    complex_fft = frames.is_complex()
    onesided = (not complex_fft) if onesided_opt is None else onesided_opt
    _check_fft_dtype(frames)
    norm = _NORM_ROOT_N if normalized else _NORM_NONE
    if complex_fft:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = _tl._fft_c2c(frames, [2], norm, True)
    else:
        out = _tl._fft_r2c(frames, [2], norm, onesided)
    out = out.transpose(1, 2)
    if self.dim() == 1:
        out = out.squeeze(0)
    return out if return_complex else _tl.view_as_real(out)


def istft(input, n_fft: int, hop_length: int | None = None, win_length: int | None = None, window=None,
          center: bool = True, normalized: bool = False, onesided: bool | None = None, length: int | None = None,
          return_complex: bool = False):
    """The inverse of `stft`: the inverse FFT of each frame, multiplied by `window`, overlap-added and divided by
    the overlap-added squared window (the least-squares estimate; a zero in that envelope, NOLA failing, is a
    RuntimeError). `center` drops the n_fft // 2 padding samples at both ends; `length` trims or zero-pads the
    result. Real output from a onesided or full spectrum, or complex output (`return_complex=True`, full
    spectrum)."""
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    if window is None:
        _warn_once(_WINDOW_ISTFT)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    input_dim = input.dim() + 1  # PyTorch counts the dims of the real view
    if input.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input_dim}, {input_dim - 1}], "
                         f"but got -3)")
    n_frames = input.shape[-1]
    fft_size = input.shape[-2]
    expected_len = n_fft + hop * (n_frames - 1)

    def fail(problem: str, sep: str = " : "):
        name = input.type().replace("torch.", "").replace("Tensor", "")
        raise RuntimeError(
            f"istft(CPU{name}Type{_sizes(input)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
            f"window={_window_repr(window)}, center={int(center)}, normalized={int(normalized)}, "
            f"onesided={_opt(onesided)}, length={'None' if length is None else length}, "
            f"return_complex={int(return_complex)}){sep}{problem}")

    if input.numel() == 0:
        fail("input tensor cannot be empty.")
    if input_dim not in (3, 4):
        fail(f"expected a tensor with 3 or 4 dimensions, but got {input_dim}")
    is_onesided = (fft_size != n_fft) if onesided is None else onesided
    if is_onesided:
        if n_fft // 2 + 1 != fft_size:
            fail("expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 "
                 f"when onesided=True, but got {fft_size}")
    elif n_fft != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
             f"onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        fail("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        fail("expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        fail("Invalid window shape. window has to be 1D and length of `win_length`")

    real_dtype = input.dtype.to_real()
    full_window = _center_window(window if window is not None else _tl.ones(win, dtype=real_dtype), n_fft, win,
                                 real_dtype)
    x = input.unsqueeze(0) if input_dim == 3 else input
    x = x.transpose(1, 2)  # (batch, n_frames, fft_size)
    norm = _NORM_ROOT_N if normalized else _NORM_N
    if return_complex:
        if is_onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = _tl._fft_c2c(x, [2], norm, False)
    else:
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not is_onesided:
            x = x.narrow(-1, 0, n_fft // 2 + 1)
        frames = _tl._fft_c2r(x, [2], norm, n_fft)
    frames = frames * full_window.view(1, 1, n_fft)
    unfold_backward = _C._internal.unfold_backward
    batch = frames.shape[0]
    if frames.is_complex():  # overlap-add through the real view (each part summed alike)
        planes = _tl.view_as_real(frames).permute(0, 3, 1, 2)  # (batch, 2, n_frames, n_fft)
        summed = unfold_backward(planes, [batch, 2, expected_len], 2, n_fft, hop)
        y = _tl.view_as_complex(summed.permute(0, 2, 1).contiguous())
    else:
        y = unfold_backward(frames, [batch, expected_len], 1, n_fft, hop)
    square = full_window * full_window
    envelope = unfold_backward(square.expand(1, n_frames, n_fft), [1, expected_len], 1, n_fft, hop)

    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = expected_len - n_fft // 2 if center else expected_len
    y = y[:, start:end]
    envelope = envelope[:, start:end]
    if bool((envelope.abs() < 1e-11).any()):
        fail("window overlap add min: 1\n[ CPUBoolType{} ]", sep=" ")
    y = y / envelope
    if input_dim == 3:
        y = y.squeeze(0)
    if end > expected_len:
        _warn_once(_LENGTH_PADDED)
        y = _pad_last(y, 0, end - expected_len)
    return y


def install_methods(tensor_class) -> None:
    """Tensor.stft / Tensor.istft, as torch/_tensor.py's."""

    def stft_method(self, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
                    normalized=False, onesided=None, return_complex=None, align_to_window=None):
        """See torchlite.stft."""
        return stft(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                    return_complex, align_to_window)

    def istft_method(self, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
                     onesided=None, length=None, return_complex=False):
        """See torchlite.istft."""
        return istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided, length,
                     return_complex)

    stft_method.__name__, istft_method.__name__ = "stft", "istft"
    tensor_class.stft = stft_method
    tensor_class.istft = istft_method
