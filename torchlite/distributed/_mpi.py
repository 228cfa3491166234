"""MPI under torchlite.distributed: mpi4py loaded on first use (importing mpi4py.MPI initializes MPI, so
`import torchlite` never does), tensors handed to MPI as buffers over their own storage, and torchlite's
dtypes and ReduceOps translated to MPI datatypes and ops."""
import importlib.util

import torchlite as _tl

_MPI = None


def available() -> bool:
    """mpi4py is installed (found without importing it: the import initializes MPI)."""
    return importlib.util.find_spec("mpi4py") is not None


def mpi():
    """The mpi4py.MPI module, imported (and MPI initialized) on the first call."""
    global _MPI
    if _MPI is None:
        from mpi4py import MPI  # MPI_Init_thread happens here
        _MPI = MPI
    return _MPI


def buffer(tensor):
    """A writable MPI buffer over a contiguous tensor's bytes: its storage itself, no copy."""
    return mpi().buffer.fromaddress(tensor.data_ptr(), tensor.numel() * tensor.element_size())


def byte_spec(tensor):
    """[buffer, MPI.BYTE]: how the collectives that only move data (broadcast, gathers, scatters,
    all-to-all, send/recv) hand over a tensor of any dtype. No count: mpi4py takes the buffer's length
    (split evenly between the ranks where MPI wants a count per rank)."""
    return [buffer(tensor), mpi().BYTE]


_DATATYPES = None


def _datatypes():
    global _DATATYPES
    if _DATATYPES is None:
        MPI = mpi()
        _DATATYPES = {_tl.bool: MPI.C_BOOL, _tl.uint8: MPI.UINT8_T, _tl.int8: MPI.INT8_T, _tl.int16: MPI.INT16_T,
                      _tl.int32: MPI.INT32_T, _tl.int64: MPI.INT64_T, _tl.float32: MPI.FLOAT,
                      _tl.float64: MPI.DOUBLE, _tl.uint16: MPI.UINT16_T, _tl.uint32: MPI.UINT32_T,
                      _tl.uint64: MPI.UINT64_T}
    return _DATATYPES


# 16-bit floats have no MPI reduction type: they are reduced in float32 and rounded back once (for
# 2 ranks that is exactly gloo's per-step half arithmetic; for more it is the more accurate result).
STAGED_DTYPES = (_tl.float16, _tl.bfloat16)


def reduce_spec(tensor):
    """[buffer, MPI datatype] for a reduction over a contiguous tensor of an MPI-reducible dtype."""
    return [buffer(tensor), _datatypes()[tensor.dtype]]


_LEGACY_NAMES = {"uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
                 "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}


def _dtype_name(dtype):
    return str(dtype).replace("torchlite.", "")


_REDUCE_OPS = {}  # (RedOpType, dtype) -> MPI op, once checked


def reduce_op(op, dtype, opname):
    """The MPI op for a ReduceOp on `dtype` (AVG is a SUM followed by a division, done by the caller)."""
    try:
        return _REDUCE_OPS[op, dtype]
    except (KeyError, TypeError):
        pass
    from torchlite.distributed._reduce_op import ReduceOp
    MPI = mpi()
    red = ReduceOp._coerce(op, opname)
    name = red.name
    if name == "PREMUL_SUM":
        raise ValueError(f"{opname}: ReduceOp.PREMUL_SUM is not supported by the MPI backend")
    if dtype == _tl.bool:
        if name == "AVG":
            raise RuntimeError(f"{opname}: ReduceOp.AVG: result type Float can't be cast to the desired output "
                               "type Bool")
        # PyTorch's bool arithmetic saturates: a sum is a logical or, a product a logical and
        result = {"SUM": MPI.LOR, "MAX": MPI.LOR, "BOR": MPI.LOR, "PRODUCT": MPI.LAND, "MIN": MPI.LAND,
                  "BAND": MPI.LAND, "BXOR": MPI.LXOR}[name]
    elif name in ("BAND", "BOR", "BXOR"):
        if dtype.is_floating_point:
            raise RuntimeError(f"{opname}: Cannot use ReduceOp.{name} with non-integral dtype {_dtype_name(dtype)}")
        result = {"BAND": MPI.BAND, "BOR": MPI.BOR, "BXOR": MPI.BXOR}[name]
    elif name == "AVG" and not dtype.is_floating_point:
        # gloo divides the integer sum in place, which PyTorch's casting rules refuse
        raise RuntimeError(f"{opname}: ReduceOp.AVG: result type Float can't be cast to the desired output type "
                           f"{_LEGACY_NAMES.get(_dtype_name(dtype), _dtype_name(dtype))}")
    else:
        result = {"SUM": MPI.SUM, "AVG": MPI.SUM, "PRODUCT": MPI.PROD, "MIN": MPI.MIN, "MAX": MPI.MAX}[name]
    if isinstance(op, ReduceOp.RedOpType):
        _REDUCE_OPS[op, dtype] = result
    return result


def staged(tensor, *, reduce=False):
    """(buffer tensor, write-back or None). A contiguous tensor of an MPI type is its own buffer; a
    non-contiguous one (or a 16-bit float one being reduced) gets a contiguous temporary, copied back
    into the tensor by the write-back once MPI has filled it."""
    if reduce and tensor.dtype in STAGED_DTYPES:
        tmp = tensor.to(_tl.float32).contiguous()
    elif not tensor.is_contiguous():
        tmp = tensor.contiguous()
    else:
        return tensor, None
    return tmp, (lambda: tensor.copy_(tmp))


def contiguous_input(tensor):
    """A contiguous tensor of `tensor`'s values, for buffers MPI only reads (no write-back)."""
    return tensor if tensor.is_contiguous() else tensor.contiguous()
