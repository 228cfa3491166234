"""any(), all() and sum() of lists known only at run time (a generator expression over a run-time list compiles
to a list, as a list comprehension): small Python functions the compiler inlines at the call, as TorchScript's
aten::any/all/sum of bool/int/float lists."""
from typing import List


def any_list(xs: List[bool]) -> bool:
    for x in xs:
        if x:
            return True
    return False


def all_list(xs: List[bool]) -> bool:
    for x in xs:
        if not x:
            return False
    return True


def sum_int(xs: List[int]) -> int:
    total = 0
    for x in xs:
        total += x
    return total


def sum_float(xs: List[float]) -> float:
    total = 0.0
    for x in xs:
        total += x
    return total
