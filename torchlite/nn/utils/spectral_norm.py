"""The hook-based spectral normalization (PyTorch's torch.nn.utils.spectral_norm): parameter
``<name>_orig``, buffers ``<name>_u``/``<name>_v`` for the power iteration, and a forward pre-hook
that sets ``module.<name> = <name>_orig / sigma`` before every call (one power-iteration step per
call in training mode)."""
import torchlite as _tl
import torchlite.nn.functional as F

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "spectral_norm",
           "remove_spectral_norm"]


class SpectralNorm:
    _version = 1  # of the state-dict layout: version 1 has <name>_v

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with _tl.no_grad():
                for _ in range(self.n_power_iterations):
                    # in place: the buffers stay the same tensors (and DataParallel-style replicas see it)
                    v.copy_(F.normalize(_tl.mv(mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(_tl.mv(mat, v), dim=0, eps=self.eps))
                # clones, so the next in-place update does not change tensors this graph saved
                u = u.clone()
                v = v.clone()
        sigma = _tl.dot(u, _tl.mv(mat, v))
        return weight / sigma

    def remove(self, module):
        with _tl.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, _tl.nn.Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, mat, u, target_sigma):
        # v with u = normalize(W v) and u^T W v = target_sigma, for state dicts older than version 1
        v = _tl.linalg.multi_dot([mat.t().mm(mat).pinverse(), mat.t(), u.unsqueeze(1)]).squeeze(1)
        return v.mul_(target_sigma / _tl.dot(u, _tl.mv(mat, v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, _tl.nn.parameter.UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. Make sure to "
                             "run the dummy forward before applying spectral normalization")
        with _tl.no_grad():
            mat = fn.reshape_weight_to_matrix(weight)
            h, w = mat.size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain attribute until the first forward (PyTorch's weight.data)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Loads state dicts of the layout before version 1 (``<name>`` saved, no ``<name>_v``)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        key = prefix + fn.name
        if version is None and all(key + s in state_dict for s in ("_orig", "_u", "_v")) and key not in state_dict:
            return  # saved without metadata, but already in the new layout
        missing = False
        for suffix in ("_orig", "", "_u"):
            if key + suffix not in state_dict:
                missing = True
                if strict:
                    missing_keys.append(key + suffix)
        if missing:
            return
        with _tl.no_grad():
            weight_orig = state_dict[key + "_orig"]
            weight = state_dict.pop(key)
            sigma = (weight_orig / weight).mean()
            mat = fn.reshape_weight_to_matrix(weight_orig)
            state_dict[key + "_v"] = fn._solve_v_and_rescale(mat, state_dict[key + "_u"], sigma)


class SpectralNormStateDictHook:
    """Records the layout version in the state dict's metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalization of ``module.<name>`` with hooks (``dim`` defaults to 1 for transposed
    convolutions, else 0)."""
    if dim is None:
        transposed = (_tl.nn.ConvTranspose1d, _tl.nn.ConvTranspose2d, _tl.nn.ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undoes spectral_norm: ``module.<name>`` is a plain parameter holding the normalized weight."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for key, hook in module._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[key]
            break
    for key, hook in module._load_state_dict_pre_hooks.items():
        if isinstance(hook, SpectralNormLoadStateDictPreHook) and hook.fn.name == name:
            del module._load_state_dict_pre_hooks[key]
            break
    return module
