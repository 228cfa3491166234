"""torchlite.backends: the flags scripts set for PyTorch's backends (cudnn.benchmark, ...). torchlite has no
such backends; the flags are kept as plain attributes so the assignments and reads of such scripts work."""
from types import SimpleNamespace as _SimpleNamespace

# torch.backends.cudnn: assignable flags, never available.
cudnn = _SimpleNamespace(enabled=True, benchmark=False, deterministic=False, allow_tf32=True,
                         is_available=lambda: False, version=lambda: None)
# torch.backends.cuda.matmul.allow_tf32 and friends.
cuda = _SimpleNamespace(matmul=_SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                                                allow_bf16_reduced_precision_reduction=True),
                        is_built=lambda: False)
mps = _SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
mkldnn = _SimpleNamespace(enabled=True, is_available=lambda: False)
openmp = _SimpleNamespace(is_available=lambda: True)
opt_einsum = _SimpleNamespace(enabled=True, strategy="auto", is_available=lambda: True)
