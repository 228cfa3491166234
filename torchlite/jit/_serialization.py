"""torchlite.jit.save / load, as torch.jit's: one zip archive per compiled module (its graphs,
parameters, buffers and module tree), written and read by C++ (aten/jit/Serialization.cpp;
format in docs/jit.md, "Saving and loading"). Loading runs no code from the file."""
from __future__ import annotations

import os

import torchlite as _tl
from torchlite._C import _jit
from torchlite.jit._script_module import RecursiveScriptModule


def save(m, f, _extra_files=None):
    """Saves a compiled module or function (traced, loaded, frozen) to `f`, a path or a binary file
    object. A plain nn.Module has no `save` method and raises AttributeError, as in torch.jit."""
    if _extra_files is None:
        _extra_files = {}
    if isinstance(f, (str, os.PathLike)):
        m.save(os.fspath(f), _extra_files=_extra_files)
    elif callable(getattr(m, "_cpp_module", None)):  # streamed to the file object, record by record
        from torchlite.jit._script_module import _extra_bytes
        _jit._save_module_to(m._cpp_module(), f, _extra_bytes(_extra_files))
    else:
        f.write(m.save_to_buffer(_extra_files=_extra_files))


def _validate_map_location(map_location):
    if isinstance(map_location, str):
        map_location = _tl.device(map_location)
    elif not (map_location is None or isinstance(map_location, _tl.device)):
        raise ValueError("map_location should be either None, string or torch.device, but got type: "
                         + str(type(map_location)))
    if map_location is not None and map_location.type not in ("cpu", "meta"):
        raise RuntimeError(f"jit.load: cannot map tensors to device {map_location}: torchlite runs on the CPU "
                           "(and the meta device)")
    return map_location


def _seekable(f):
    try:
        return hasattr(f, "readinto") and f.seekable()
    except Exception:  # a closed or odd file object: read() gives its own error
        return False


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Loads a torchlite.jit archive from `f` (a path or a binary file object) into a
    RecursiveScriptModule that runs in the interpreter. `map_location`: None or 'cpu', or 'meta'
    (shapes and dtypes only). `_extra_files`: a dict whose keys are filled with the archive's
    extra files of those names (bytes). A corrupt, truncated or foreign file raises RuntimeError."""
    if isinstance(f, (str, os.PathLike)):
        if not os.path.exists(f):
            raise ValueError(f"The provided filename {f} does not exist")
        if os.path.isdir(f):
            raise ValueError(f"The provided filename {f} is a directory")
    map_location = _validate_map_location(map_location)
    device = None if map_location is None else map_location.type
    if isinstance(f, (str, os.PathLike)):
        cpp, extra = _jit._load_module_file(os.fspath(f), device)
    elif _seekable(f):  # read record by record from where the file object stands
        cpp, extra = _jit._load_module_from(f, device, "the buffer")
        f.seek(0, os.SEEK_END)  # where reading the whole file would have left it
    else:
        cpp, extra = _jit._load_module(f.read(), device, "the buffer")
    if _extra_files is not None:
        for key in list(_extra_files):
            if key in extra:
                _extra_files[key] = extra[key]
    return RecursiveScriptModule(cpp)
