"""torchlite.nn: PyTorch's ``torch.nn`` namespace: Module and its containers and layers,
Parameter/Buffer, ``init``, ``utils`` and ``functional``."""
from torchlite.nn import functional  # noqa: F401
from torchlite.nn.parameter import (  # noqa: F401
    Buffer, Parameter, UninitializedBuffer, UninitializedParameter)
from torchlite.nn.modules import *  # noqa: F401,F403
from torchlite.nn import init, utils  # noqa: F401,E402
from torchlite.nn import parallel  # noqa: F401,E402
from torchlite.nn.parallel import DataParallel  # noqa: F401,E402
# torchlite.func (functional_call) is imported here, as the package is imported with torchlite.nn,
# so `torchlite.func.functional_call` works after `import torchlite` as torch.func does; the name
# stays off torch.nn's namespace (torch has no torch.nn.func).
from torchlite import func  # noqa: E402

del func
