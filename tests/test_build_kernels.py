"""The build's check for kernels that native_functions.yaml names but no source defines."""
import subprocess
import textwrap
from pathlib import Path

import torchlite
from build_support.kernels import missing_kernel_errors, undefined_symbols

ROOT = Path(__file__).resolve().parent.parent
YAML = ROOT / "native_functions.yaml"


def yaml_line(text):
    """1-based line of the first YAML line containing `text`."""
    return next(i for i, line in enumerate(YAML.read_text().splitlines(), 1) if text in line)


def test_missing_kernel_names_its_yaml_entry():
    errors = missing_kernel_errors(["tl::native::tanh_kernel(tl::Tensor const&, tl::Tensor&)"], YAML)
    line = yaml_line("dispatch: {CPU, Meta: tanh_kernel}")
    assert errors == [f"native_functions.yaml:{line}: kernel tl::native::tanh_kernel of `tanh` is declared in "
                      "generated/ops/tanh.h but defined in no source (write it in aten/native/)"]


def test_other_undefined_symbols():
    errors = missing_kernel_errors(["PyLong_FromLong", "tl::helper_nobody_wrote(int)", "omp_get_num_threads"], YAML)
    assert errors == ["tl::helper_nobody_wrote(int) is used but defined in no source"]


def test_library_that_takes_a_missing_kernels_address(tmp_path):
    # What the generated dispatch tables do: take the kernel's address.
    src = tmp_path / "user.cpp"
    src.write_text(textwrap.dedent("""
        namespace tl { struct Tensor; namespace native { void tanh_kernel(const Tensor&, Tensor&); } }
        void* kernel_table() { return reinterpret_cast<void*>(&tl::native::tanh_kernel); }
    """))
    lib = tmp_path / "libuser.so"
    subprocess.run(["g++", "-shared", "-fPIC", str(src), "-o", str(lib)], check=True)
    errors = missing_kernel_errors(undefined_symbols(lib), YAML)
    assert len(errors) == 1 and "tl::native::tanh_kernel of `tanh`" in errors[0]


def test_built_library_defines_every_kernel():
    # The kernels live in libtorchlite.so (the C++ library torchlite._C links against).
    core = Path(torchlite._C.__file__).parent / "lib" / "libtorchlite.so"
    assert missing_kernel_errors(undefined_symbols(core), YAML) == []
