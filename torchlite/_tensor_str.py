"""repr() of tensors, in PyTorch's format, and set_printoptions.

The rules (matching PyTorch): floating-point values share one format chosen from the nonzero
finite values: integer-valued data prints as ``1.``; otherwise ``precision`` digits after the
point (``0.5000``), or scientific notation (``1.0000e+10``) when the largest magnitude exceeds
1e8, or largest/smallest exceeds 1000, or (non-integer data) the smallest is below 1e-4.
Complex values print as ``real+imagj``, the real and the imaginary parts each with their own
format chosen that way (``tensor([1.+2.j, 3.-4.j])``).
Tensors with more than ``threshold`` elements show ``edgeitems`` values at each end of each
dimension with ``...`` between. Lines wrap at ``linewidth``.
"""
from __future__ import annotations

import math

from torchlite import _C

_slice = _C._internal.slice  # a view of a range of one dim (no Tensor.slice, as in PyTorch)


class _PrintOptions:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


PRINT_OPTS = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Sets how tensors print: digits after the point, the element count above which output is
    summarized, values shown at each end when summarizing, line width, and forced scientific
    notation (True/False; None picks automatically). ``profile`` is "default", "short" or "full"."""
    if profile == "default":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 4, 1000, 3, 80
    elif profile == "short":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 2, 1000, 2, 80
    elif profile == "full":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 4, math.inf, 3, 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


class _Ellipsis:
    """Marks the elided middle of a summarized dimension."""


_ELIDED = _Ellipsis()


class _Formatter:
    def __init__(self, values, floating: bool):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        p = PRINT_OPTS.precision
        if not floating:
            for v in values:
                self.max_width = max(self.max_width, len(str(v)))
        else:
            nonzero_finite = [v for v in values if math.isfinite(v) and v != 0]
            if nonzero_finite:
                magnitudes = [abs(v) for v in nonzero_finite]
                lo, hi = min(magnitudes), max(magnitudes)
                self.int_mode = all(v == math.ceil(v) for v in nonzero_finite)
                if self.int_mode:
                    if hi / lo > 1000.0 or hi > 1.0e8:
                        self.sci_mode = True
                        self.max_width = max(len(f"{v:.{p}e}") for v in nonzero_finite)
                    else:
                        self.max_width = max(len(f"{v:.0f}") + 1 for v in nonzero_finite)
                elif hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4:
                    self.sci_mode = True
                    self.max_width = max(len(f"{v:.{p}e}") for v in nonzero_finite)
                else:
                    self.max_width = max(len(f"{v:.{p}f}") for v in nonzero_finite)
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        p = PRINT_OPTS.precision
        if self.floating:
            if self.sci_mode:
                s = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                s = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    s += "."
            else:
                s = f"{value:.{p}f}"
        else:
            s = f"{value}"
        return (self.max_width - len(s)) * " " + s


def _summarized_data(t, summarize: bool):
    """Nested lists of the values to print (``_ELIDED`` where a summarized dimension skips values)."""
    if not summarize or t.dim() == 0:
        return t.tolist()
    edge = PRINT_OPTS.edgeitems
    n = t.shape[0]
    if t.dim() == 1:
        if n > 2 * edge:
            return _slice(t, 0, 0, edge).tolist() + [_ELIDED] + _slice(t, 0, n - edge, n).tolist()
        return t.tolist()
    if n > 2 * edge:
        rows = list(range(edge)) + [None] + list(range(n - edge, n))
    else:
        rows = list(range(n))
    return [_ELIDED if i is None else _summarized_data(t.select(0, i), summarize) for i in rows]


def _flatten(data, ndim, out):
    if ndim == 0:
        out.append(data)
        return out
    for item in data:
        if item is not _ELIDED:
            _flatten(item, ndim - 1, out)
    return out


class _ComplexFormatter:
    """Formats complex values as PyTorch does: a formatter for the real parts, one for the
    imaginary parts, joined with the imaginary part's sign."""

    def __init__(self, values):
        self.real = _Formatter([v.real for v in values], True)
        self.imag = _Formatter([v.imag for v in values], True)

    def width(self) -> int:
        return self.real.width() + self.imag.width() + 1

    def format(self, value) -> str:
        real_str = self.real.format(value.real)
        imag_str = (self.imag.format(value.imag) + "j").lstrip()
        if imag_str[0] in "+-":
            return real_str + imag_str
        return real_str + "+" + imag_str


def _vector_str(data, indent: int, formatter) -> str:
    element_length = formatter.width() + 2
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / element_length)))
    items = [" ..." if v is _ELIDED else formatter.format(v) for v in data]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(data, ndim: int, indent: int, formatter: _Formatter) -> str:
    if ndim == 0:
        return formatter.format(data)
    if ndim == 1:
        return _vector_str(data, indent, formatter)
    parts = ["..." if sub is _ELIDED else _nested_str(sub, ndim - 1, indent + 1, formatter) for sub in data]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _tensor_str(t, indent: int) -> str:
    if t.numel() == 0:
        return "[]"
    summarize = t.numel() > PRINT_OPTS.threshold
    data = _summarized_data(t, summarize)
    values = _flatten(data, t.dim(), [])
    if t.is_complex():
        formatter = _ComplexFormatter(values)
    else:
        formatter = _Formatter(values, t.is_floating_point())
    return _nested_str(data, t.dim(), indent, formatter)


def _add_suffixes(tensor_str: str, suffixes, indent: int) -> str:
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            tensor_str += ",\n" + " " * indent + suffix
            last_line_len = indent + len(suffix)
        else:
            tensor_str += ", " + suffix
            last_line_len += len(suffix) + 2
    return tensor_str + ")"


def _str(self) -> str:
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    default = _C.get_default_dtype()
    # As PyTorch's printing: complex128 under a float64 default, complex64 otherwise (complex32 included).
    default_complex = _C.complex128 if default == _C.float64 else _C.complex64
    if self.device.type != "cpu":
        suffixes.append(f"device='{self.device}'")
    if self.is_meta:
        suffixes.append(f"size={tuple(self.shape)}")
        if self.dtype != default:
            suffixes.append(f"dtype={self.dtype}")
        tensor_str = "..."
    elif self.numel() == 0:
        if self.dim() != 1:
            suffixes.append(f"size={tuple(self.shape)}")
        if self.dtype != default:
            suffixes.append(f"dtype={self.dtype}")
        tensor_str = "[]"
    else:
        if self.dtype not in (default, default_complex, _C.int64, _C.bool):
            suffixes.append(f"dtype={self.dtype}")
        # detach(): reading the values must not record autograd history.
        tensor_str = _tensor_str(self.detach() if self.requires_grad else self, indent)
    try:
        grad_fn_name = type(self.grad_fn).__name__ if self.grad_fn is not None else None
    except RuntimeError:
        # A split/unbind output whose base changed in place has no valid history (as PyTorch prints).
        grad_fn_name = "Invalid"
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif self.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + tensor_str, suffixes, indent)
