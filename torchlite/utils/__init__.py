"""torchlite.utils: helpers outside the tensor core: data loading (torchlite.utils.data), activation
checkpointing, DLPack exchange, the safetensors format (torchlite.utils.safetensors), and
`cmake_prefix_path` for C++ programs built against libtorchlite.so (docs/cpp.md)."""
import os as _os
from torchlite.utils import data  # noqa: F401
from torchlite.utils import checkpoint  # noqa: F401,E402
from torchlite.utils import dlpack  # noqa: F401,E402

# The directory to give CMake as CMAKE_PREFIX_PATH so that find_package(torchlite) finds the
# package's torchliteConfig.cmake (share/cmake/torchlite/ inside the package), as torch.utils's.
cmake_prefix_path = _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))), "share", "cmake")
del _os
