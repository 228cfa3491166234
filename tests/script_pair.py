"""Compiles one source text twice, as a module of torchlite and a module of torch (the names `torch` and `Tensor`
bound to each library), so a script test writes each case once and checks torchlite's result against
torch.jit.script's. Both compilers read the source through inspect, so each copy is a real file."""
import importlib.util
import os
import sys
import tempfile
import textwrap

import torch

import torchlite as tl

_DIR = tempfile.mkdtemp(prefix="tl_script_pair_")
_HEADER = ("from typing import Any, Dict, List, Optional, Tuple, Union\n"
           "import {lib} as torch\nfrom {lib} import Tensor\n")
_count = [0]


def load(src, lib):
    """The module made of src with `torch` bound to lib ("torch" or "torchlite")."""
    _count[0] += 1
    name = f"_pair_{lib}_{_count[0]}"
    path = os.path.join(_DIR, name + ".py")
    with open(path, "w") as f:
        f.write(_HEADER.format(lib=lib) + textwrap.dedent(src))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # (inspect finds a class's source through its module)
    spec.loader.exec_module(mod)
    return mod


def both(src, name="f"):
    """(torchlite's scripted `name`, torch's) from one source."""
    return tl.jit.script(getattr(load(src, "torchlite"), name)), torch.jit.script(getattr(load(src, "torch"), name))


def errors(src, name="f"):
    """The compile errors of scripting `name` with torchlite and with torch: (tl exception, torch exception)."""
    out = []
    for lib, script in (("torchlite", tl.jit.script), ("torch", torch.jit.script)):
        fn = getattr(load(src, lib), name)
        try:
            script(fn)
        except Exception as e:  # noqa: BLE001 (the test compares the two)
            out.append(e)
        else:
            out.append(None)
    return tuple(out)
