"""ReduceOp: PyTorch's reduction names (`ReduceOp.SUM` is a `ReduceOp.RedOpType` member, as in torch)."""
import enum


class ReduceOp:
    """How all_reduce, reduce and reduce_scatter combine the ranks' values: SUM, AVG, PRODUCT, MIN, MAX
    and, for integer and bool tensors, BAND, BOR, BXOR."""

    class RedOpType(enum.Enum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8

        # members are singletons compared by identity: hashing by identity is consistent, and C-level (Enum's
        # own __hash__, a Python function, was a quarter of the short all_reduce path's dict look-up)
        __hash__ = object.__hash__

        def __int__(self):
            return self.value

    def __init__(self, op=None):
        self.op = ReduceOp.RedOpType.SUM if op is None else ReduceOp._coerce(op, "ReduceOp")

    def __eq__(self, other):
        if isinstance(other, (ReduceOp, ReduceOp.RedOpType)):
            return self.op is ReduceOp._coerce(other, "ReduceOp")
        return NotImplemented

    def __hash__(self):
        return hash(self.op)

    def __repr__(self):
        return f"<torchlite.distributed.ReduceOp {self.op.name}>"

    @staticmethod
    def _coerce(op, opname):
        if isinstance(op, ReduceOp):
            return op.op
        if isinstance(op, ReduceOp.RedOpType):
            return op
        raise TypeError(f"{opname}: op must be a torchlite.distributed.ReduceOp, got {type(op).__name__}")


for _member in ReduceOp.RedOpType:
    setattr(ReduceOp, _member.name, _member)
del _member
