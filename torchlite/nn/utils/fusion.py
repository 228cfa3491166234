"""Folding an eval-mode batch norm into the convolution or linear layer before it:
``bn(conv(x)) == fused_conv(x)`` with ``w' = w * gamma / sqrt(var + eps)`` per output channel and
``b' = (b - mean) * gamma / sqrt(var + eps) + beta``."""
import copy

import torchlite as _tl

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of ``conv`` (eval mode, as ``bn``) that also applies ``bn``. ``transpose``: ``conv`` is
    a transposed convolution (output channels on the weight's dimension 1)."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps,
                                                    bn.weight, bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The fused (weight, bias) Parameters; missing conv bias / bn affine parameters count as 0 / 1.
    The results keep the conv's dtypes and requires_grad."""
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    if conv_b is None:
        conv_b = _tl.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = _tl.ones_like(bn_rm)
    if bn_b is None:
        bn_b = _tl.zeros_like(bn_rm)
    inv_std = _tl.rsqrt(bn_rv + bn_eps)
    channel_dim = [1, -1] if transpose else [-1, 1]
    shape = channel_dim + [1] * (conv_w.dim() - 2)
    w = (conv_w * (bn_w * inv_std).reshape(shape)).to(dtype=w_dtype)
    b = ((conv_b - bn_rm) * inv_std * bn_w + bn_b).to(dtype=b_dtype)
    return _tl.nn.Parameter(w, conv_w.requires_grad), _tl.nn.Parameter(b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` (eval mode, as ``bn``) that also applies the BatchNorm1d ``bn``."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                             f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The fused (weight, bias) Parameters of a linear layer followed by an eval-mode batch norm."""
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    if linear_b is None:
        linear_b = _tl.zeros_like(bn_rm)
    scale = bn_w * _tl.rsqrt(bn_rv + bn_eps)
    w = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)
    b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return _tl.nn.Parameter(w, linear_w.requires_grad), _tl.nn.Parameter(b, linear_b.requires_grad)
