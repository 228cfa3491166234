"""The C++ frontend (docs/cpp.md): the package's libtorchlite.so, headers and CMake config build a
C++ program with `find_package(torchlite)`; the program loads a model saved from Python and runs it
with autograd (examples/cpp), and calls ops, operators, autograd and the error types from C++
(tests/cpp/api_checks.cpp). Results are compared with PyTorch (the oracle) and with torchlite's
Python API on the same inputs."""
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import torchlite
import torchlite.utils

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(torchlite.__file__).resolve().parent
LIBRARY = PACKAGE / "lib" / "libtorchlite.so"


def cmake() -> str:
    beside = Path(sys.executable).parent / "cmake"  # the `cmake` PyPI package (test extra)
    found = str(beside) if beside.exists() else shutil.which("cmake")
    assert found, "the tests need cmake (pip install cmake: it is in torchlite's test extra)"
    return found


def build(source: Path, build_dir: Path) -> None:
    configure = [cmake(), "-S", str(source), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                 f"-DCMAKE_PREFIX_PATH={torchlite.utils.cmake_prefix_path}", f"-DPython3_EXECUTABLE={sys.executable}"]
    # The compilers run without tools/sanitize.sh's preloaded sanitizer runtimes (only the programs need them).
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    for cmd in (configure, [cmake(), "--build", str(build_dir), "-j", "2"]):
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    work = tmp_path_factory.mktemp("cpp")
    build(ROOT / "examples" / "cpp", work / "example")
    build(ROOT / "tests" / "cpp", work / "checks")
    return {"run_model": work / "example" / "run_model", "api_checks": work / "checks" / "api_checks", "work": work}


def run(program, *args) -> dict[str, str]:
    # The program must find its libraries by itself: no PYTHONPATH or LD_LIBRARY_PATH. (LD_PRELOAD stays:
    # under tools/sanitize.sh it holds the sanitizer runtimes that the instrumented libtorchlite.so needs first.)
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "PYTHONPATH")}
    proc = subprocess.run([str(program), *map(str, args)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, f"{program} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    rows = {}
    for line in proc.stdout.splitlines():
        name, _, rest = line.partition(" ")
        rows.setdefault(name, rest)
    return rows


def numbers(text: str) -> np.ndarray:
    return np.array([float(v) for v in text.split()])


def test_package_carries_library_headers_and_cmake_config():
    assert LIBRARY.is_file()
    assert (Path(torchlite.utils.cmake_prefix_path) / "torchlite" / "torchliteConfig.cmake").is_file()
    include = PACKAGE / "include"
    for header in ("aten/api/torchlite.h", "aten/api/jit.h", "aten/core/Tensor.h", "generated/Functions.h",
                   "generated/ops/add.h"):
        assert (include / header).is_file(), header
    assert not (include / "generated" / "python").exists()  # the Python bindings stay out


def test_library_does_not_need_python():
    needed = subprocess.run(["readelf", "-d", str(LIBRARY)], capture_output=True, text=True, check=True).stdout
    assert "libpython" not in needed
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(LIBRARY)], capture_output=True, text=True,
                               check=True).stdout.split()
    assert not [s for s in undefined if s.startswith(("Py", "_Py"))]


def test_example_runs_a_model_saved_from_python(programs, tmp_path):
    model = tmp_path / "model.pt"
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "cpp" / "export_model.py"), str(model), "--print"],
                          capture_output=True, text=True, check=True)
    expected = dict(line.split(" ", 1) for line in proc.stdout.splitlines())
    got = run(programs["run_model"], model)
    np.testing.assert_allclose(numbers(got["output"]), numbers(expected["output"]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(numbers(got["input_grad"]), numbers(expected["input_grad"]), rtol=1e-5, atol=1e-6)
    assert got["parameters"] == "6"  # conv, bn and linear: a weight and a bias each
    a = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    np.testing.assert_allclose(numbers(got["eager"]), torch.softmax(a @ a.T * 0.5 + 1, -1).flatten().numpy(), rtol=1e-6)


def test_ops_operators_and_autograd_from_cpp(programs):
    got = run(programs["api_checks"])
    a = torch.tensor([[1., 2, 3], [4, 5, 6]])
    b = torch.tensor([10., 20, 30])
    for name, value in {"broadcast_add": a + b, "scalar_ops": (a * 2 - 1) / 4, "matmul": a @ a.T,
                        "int_plus_float": torch.arange(3) + torch.tensor([0.5, 0.5, 0.5]),
                        "sum_dim": a.sum(1), "softmax": torch.softmax(a, -1)}.items():
        np.testing.assert_allclose(numbers(got[name]), value.flatten().numpy(), rtol=1e-6, err_msg=name)
    assert got["int_plus_float_dtype"] == "float32"
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (torch.tanh(x) * x).sum().backward()
    np.testing.assert_allclose(numbers(got["backward_grad"]), x.grad.numpy(), rtol=1e-12)
    xv = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(numbers(got["grad_first"]), 3 * xv ** 2, rtol=1e-12)
    np.testing.assert_allclose(numbers(got["grad_second"]), 6 * xv, rtol=1e-12)
    assert got["no_grad_requires_grad"] == "0"
    assert got["done"] == ""


def python_error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return f"{type(info.value).__name__}: {info.value}"


def test_errors_reach_cpp_with_the_types_and_messages_python_shows(programs, tmp_path):
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(b"PK\x03\x04" + bytes(range(200)))
    got = run(programs["api_checks"], corrupt)
    tl = torchlite
    a = tl.tensor([[1., 2, 3], [4, 5, 6]])
    assert got["error_shapes"] == python_error(lambda: tl.add(a, tl.tensor([1., 2])))
    assert got["error_matmul"] == python_error(lambda: tl.matmul(a, a))
    assert got["error_dim"] == python_error(lambda: tl.sum(a, [5]))
    assert got["error_tensor_from"].startswith("RuntimeError: tensor_from: shape [2, 2] holds 4 elements")
    assert got["error_load"].startswith("RuntimeError: ") and "/nonexistent/model.pt" in got["error_load"]
    assert got["error_corrupt"].startswith("RuntimeError: ")
    assert got["error_corrupt"] == python_error(lambda: tl.jit.load(str(corrupt)))


STATEFUL = """
import sys
from typing import Optional
import torchlite as tl


class Sub(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.x = 0.5

    def forward(self, t):
        self.x = self.x * 2.0
        return t * self.x


class Stateful(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.count = 0
        self.sub = Sub()
        self.register_buffer("total", tl.zeros(3))

    def forward(self, x, scale: float = 2.0, mask: Optional[tl.Tensor] = None):
        self.count += 1
        self.total = self.total + x
        y = self.sub(x) * scale + self.count
        if self.training:
            y = y + 100
        if mask is not None:
            y = y * mask
        return y


tl.jit.save(tl.jit.script(Stateful()), sys.argv[1])
"""


def test_cpp_keeps_assigned_attributes_and_uses_defaults(programs, tmp_path):
    """Script's attribute assignment and the archive's argument defaults from C++: the same values as the
    Python module loaded from the same archive, the state carried between calls and saved from C++."""
    model, saved, script = tmp_path / "stateful.pt", tmp_path / "from_cpp.pt", tmp_path / "make.py"
    script.write_text(STATEFUL)
    subprocess.run([sys.executable, str(script), str(model)], check=True)
    got = run(programs["api_checks"], tmp_path / "none.pt", model, saved)
    tl = torchlite
    m = tl.jit.load(str(model))
    x = tl.tensor([1., 2, 3])
    expected = {"stateful_first": m(x), "stateful_second": m(x, 0.5), "stateful_masked": m(x, 1.0, tl.tensor([0., 1, 0]))}
    for name, value in expected.items():
        np.testing.assert_allclose(numbers(got[name]), value.numpy(), rtol=1e-7, err_msg=name)
    assert int(got["stateful_count"]) == m.count == 3
    assert float(got["stateful_sub_x"]) == m.sub.x == 4.0
    np.testing.assert_allclose(numbers(got["stateful_buffer"]), m.total.numpy())
    m.count = 10
    np.testing.assert_allclose(numbers(got["stateful_after_set"]), m(x).numpy(), rtol=1e-7)
    assert int(got["stateful_count_after_set"]) == m.count == 11
    assert got["stateful_missing"] == "RuntimeError: forward() is missing value for argument 'x'."
    assert got["stateful_too_many"] == "RuntimeError: forward() expected at most 3 argument(s) but received 4 argument(s)"
    assert got["stateful_bad_set"].startswith("TypeError: jit: attribute 'count' of __torch__.Stateful has type int")
    again = tl.jit.load(str(saved))  # saved by C++ after its calls: the state at save time
    assert (again.count, again.sub.x) == (11, 8.0)
    np.testing.assert_allclose(again.total.numpy(), m.total.numpy())
    m.eval()  # C++'s eval() too: the graph reads the training flags
    np.testing.assert_allclose(numbers(got["stateful_eval"]), m(x).numpy(), rtol=1e-7)
    assert got["stateful_training"] == "0"
