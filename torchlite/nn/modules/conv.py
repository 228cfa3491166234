"""Convolution layers: Conv1d/2d/3d, ConvTranspose1d/2d/3d and their Lazy forms, with PyTorch's
arguments (padding ints or 'same'/'valid', padding_mode zeros/reflect/replicate/circular), checks,
default initialisation and repr."""
from __future__ import annotations

import math

import torchlite as _torchlite
from torchlite.nn import functional as F
from torchlite.nn import init
from torchlite.nn.parameter import Parameter, UninitializedParameter

from .lazy import LazyModuleMixin
from .module import Module
from .utils import _pair, _reverse_repeat_tuple, _single, _triple

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
           "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d"]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None):
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's amounts for a non-zeros padding_mode (last dim first; 'same' puts the odd one on the right).
        if isinstance(padding, str):
            pads = [0, 0] * len(kernel_size)
            if padding == "same":
                for i, (d, k) in enumerate(zip(dilation, kernel_size)):
                    total = d * (k - 1)
                    at = 2 * (len(kernel_size) - 1 - i)
                    pads[at], pads[at + 1] = total // 2, total - total // 2
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = list(_reverse_repeat_tuple(padding, 2))
        shape = ((in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups))
        self.weight = Parameter(_torchlite.empty((*shape, *kernel_size), **factory))
        if bias:
            self.bias = Parameter(_torchlite.empty(out_channels, **factory))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"

    def _conv_forward(self, input, weight, bias):
        conv = self._functional
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, self._tuple(0), self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


def _conv_class(name, n, tuple_fn, functional_name):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        padding_ = padding if isinstance(padding, str) else tuple_fn(padding)
        _ConvNd.__init__(self, in_channels, out_channels, tuple_fn(kernel_size), tuple_fn(stride), padding_,
                         tuple_fn(dilation), False, tuple_fn(0), groups, bias, padding_mode, device=device,
                         dtype=dtype)

    return type(name, (_ConvNd,), {
        "__init__": __init__, "__doc__": f"A {n}-d convolution over an input of shape (N, C, ...) or (C, ...).",
        "_functional": staticmethod(lambda *a: getattr(F, functional_name)(*a)),
        "_tuple": staticmethod(tuple_fn), "__module__": __name__})


Conv1d = _conv_class("Conv1d", 1, _single, "conv1d")
Conv2d = _conv_class("Conv2d", 2, _pair, "conv2d")
Conv3d = _conv_class("Conv3d", 3, _triple, "conv3d")


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                         output_padding, groups, bias, padding_mode, device=device, dtype=dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        """The output_padding that makes the output `output_size` (PyTorch's rule and messages)."""
        if output_size is None:
            return list(_single(self.output_padding))
        batched = input.dim() == num_spatial_dims + 2
        leading = 2 if batched else 1
        output_size = list(output_size)
        if len(output_size) == leading + num_spatial_dims:
            output_size = output_size[leading:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {leading + num_spatial_dims} elements (got {len(output_size)})")
        min_sizes: list[int] = []
        max_sizes: list[int] = []
        for d in range(num_spatial_dims):
            size = ((input.size(d + leading) - 1) * stride[d] - 2 * padding[d]
                    + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            min_sizes.append(size)
            max_sizes.append(size + stride[d] - 1)
        for size, low, high in zip(output_size, min_sizes, max_sizes):
            if size < low or size > high:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from "
                                 f"{min_sizes} to {max_sizes} (for an input of {input.size()[2:]})")
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]

    def forward(self, input, output_size: list[int] | None = None):
        if self.padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        n = len(self.kernel_size)
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, n,
                                              self.dilation)
        return self._functional(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                self.groups, self.dilation)


def _conv_transpose_class(name, n, tuple_fn, functional_name):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        _ConvTransposeNd.__init__(self, in_channels, out_channels, tuple_fn(kernel_size), tuple_fn(stride),
                                  tuple_fn(padding), tuple_fn(dilation), True, tuple_fn(output_padding), groups,
                                  bias, padding_mode, device=device, dtype=dtype)

    return type(name, (_ConvTransposeNd,), {
        "__init__": __init__, "__doc__": f"A {n}-d transposed convolution (the gradient of conv{n}d).",
        "_functional": staticmethod(lambda *a: getattr(F, functional_name)(*a)),
        "_tuple": staticmethod(tuple_fn), "__module__": __name__})


ConvTranspose1d = _conv_transpose_class("ConvTranspose1d", 1, _single, "conv_transpose1d")
ConvTranspose2d = _conv_transpose_class("ConvTranspose2d", 2, _pair, "conv_transpose2d")
ConvTranspose3d = _conv_transpose_class("ConvTranspose3d", 3, _triple, "conv_transpose3d")


class _LazyConvXdMixin(LazyModuleMixin):
    """in_channels from the first input (dim 1 when batched, 0 otherwise)."""

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            n = len(self.kernel_size)
            batched = input.dim() == n + 2
            if input.dim() not in (n + 1, n + 2):
                raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                                   f"{self.__class__.__name__}, but got input of size: {tuple(input.shape)}")
            self.in_channels = input.shape[1 if batched else 0]
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with _torchlite.no_grad():
                if self.transposed:
                    shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
                else:
                    shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
                self.weight.materialize(shape)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


def _lazy_class(name, base):
    def __init__(self, out_channels, kernel_size, *args, bias=True, device=None, dtype=None, **kwargs):
        factory = {"device": device, "dtype": dtype}
        # As PyTorch: built with 0 channels, the weight (and bias) replaced by placeholders. Through
        # LazyModuleMixin.__init__, which registers the hook materializing them at the first call.
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, *args, bias=False, **kwargs)
        self.weight = UninitializedParameter(**factory)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory)

    return type(name, (_LazyConvXdMixin, base), {"__init__": __init__, "cls_to_become": base,
                                                  "__module__": __name__})


LazyConv1d = _lazy_class("LazyConv1d", Conv1d)
LazyConv2d = _lazy_class("LazyConv2d", Conv2d)
LazyConv3d = _lazy_class("LazyConv3d", Conv3d)
LazyConvTranspose1d = _lazy_class("LazyConvTranspose1d", ConvTranspose1d)
LazyConvTranspose2d = _lazy_class("LazyConvTranspose2d", ConvTranspose2d)
LazyConvTranspose3d = _lazy_class("LazyConvTranspose3d", ConvTranspose3d)


del annotations  # torch's module has no such name
