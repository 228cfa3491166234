"""`import torchlite` from a source checkout that was never built says how to build it (not a circular import)."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_import_without_the_extension_says_how_to_build(tmp_path):
    shutil.copytree(os.path.join(ROOT, "torchlite"), tmp_path / "torchlite",
                    ignore=shutil.ignore_patterns("_C.*.so", "_C.*.pyd", "csrc", "__pycache__"))
    assert not [p for p in (tmp_path / "torchlite").iterdir() if p.name.startswith("_C.") and p.suffix == ".so"]
    # -S: no site-packages, so an installed torchlite (an editable install's import hook included) cannot
    # stand in for the copy in the working directory
    out = subprocess.run([sys.executable, "-S", "-c", "import torchlite"], cwd=tmp_path, capture_output=True,
                         text=True, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, timeout=120)
    assert out.returncode != 0
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: torchlite's C++ extension (torchlite/_C) is not built"), last
    assert "setup.py build_ext --inplace" in last and "circular" not in out.stderr
