"""str() of a constant as TorchScript prints it, for folding str(), f-strings, '{}'.format() and print() at compile
time. The same rules as the interpreter's (aten/jit/PrimOps.cpp `py_str`, after torch's IValue operator<<):
a float with an integral value that fits an int64 prints as `3.`, another with 17 significant digits
(`0.10000000000000001`, `1e+20`); strings print as they are, inside containers too; dicts as `{k: v}`."""
import math

_INT64 = 2.0 ** 63


def float_str(d: float) -> str:
    if math.isnan(d):
        return "-nan" if math.copysign(1.0, d) < 0 else "nan"  # glibc's ostream keeps nan's sign
    normal = d == 0.0 or abs(d) >= 2.2250738585072014e-308  # C's FP_NORMAL or FP_ZERO (not subnormal, not inf)
    if normal and -_INT64 <= d < _INT64 and d == int(d):
        return f"{int(d)}."
    if math.isinf(d):
        return "inf" if d > 0 else "-inf"
    return "%.17g" % d


def script_str(v):
    """The text, or None for a value that only the interpreter formats (tensors, dtypes, devices, objects)."""
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return float_str(v)
    if isinstance(v, str):
        return v
    if isinstance(v, type):  # type(x) in a message: the class as Python prints it (torch has no such value)
        return str(v)
    if isinstance(v, (list, tuple)):
        parts = [script_str(x) for x in v]
        if any(p is None for p in parts):
            return None
        if isinstance(v, list):
            return "[" + ", ".join(parts) + "]"
        return "(" + ", ".join(parts) + (",)" if len(parts) == 1 else ")")
    if isinstance(v, dict):
        parts = [(script_str(k), script_str(x)) for k, x in v.items()]
        if any(k is None or x is None for k, x in parts):
            return None
        return "{" + ", ".join(f"{k}: {x}" for k, x in parts) + "}"
    return None
