"""One fuzz call as Python source, generated from a Target's schema types with a seeded random.Random.

The source is a complete reproducer: PRELUDE, then lines building the tensors, then the call, then
`touch(...)` of every tensor involved (a sum and a clone, so that a call that leaves a tensor corrupt is
caught by the next use, as it would be in a program). Call number i of seed s is always the same text.
"""
import keyword
import random

from codegen.model import BaseType, ListType, OptionalType

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
INT_RANGES = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-2**15, 2**15 - 1),
              "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}
SHAPES = [(), (0,), (1,), (3,), (2, 3), (3, 1), (1, 4), (2, 0, 3), (2, 3, 4), (4, 4)]
# No size here can be allocated under the workers' memory cap (a size that could would be work, not a bug).
HUGE_INTS = [2**40, 2**62, 2**63 - 1, 2**63, -2**63, -2**63 - 1, 2**33 + 1, -2**31 - 1, 2**64]
SMALL_INTS = [0, 1, 2, 3, -1, -2, 4, 5]
SPECIAL_FLOATS = ["nan", "inf", "-inf", "-0.0", "1e308", "-1e308", "5e-324", "1e38", "65504.0", "3.4e38"]
# Values of the wrong type for any argument: the binding must raise TypeError (or another Python error).
WRONG = ["None", "'abc'", "1.5", "2**64", "[]", "(1, 'a')", "object()", "torchlite.float32", "torchlite.device('cpu')",
         "torchlite.Size([2])", "[1.5, 2]", "1j", "{}", "b'x'"]

PRELUDE = """\
import torchlite
nan, inf = float('nan'), float('inf')
EXPECTED = (RuntimeError, TypeError, ValueError, IndexError, NotImplementedError, OverflowError, MemoryError)


def touch(*tensors):
    # Use every tensor afterwards, as a program would: a corrupt tensor crashes here. Of a huge tensor (an
    # expanded view, a meta tensor) only the last element is read: a sum would be genuinely huge work.
    for t in tensors:
        if isinstance(t, torchlite.Tensor):
            uses = [lambda: t.sum(), lambda: t.clone()] if t.numel() <= 1 << 20 else []
            if t.numel():
                uses.append(lambda: t[(-1,) * t.dim()].clone())  # the last element: cheap at any size
            if t.requires_grad and t.numel() <= 1 << 20:
                uses.append(lambda: t.sum().backward())  # the op's backward, and the engine's checks
            for use in uses + [lambda: t.shape]:
                try:
                    use()
                except EXPECTED:
                    pass
"""


class Call:
    """The generated source of one call, and what it is made of (for avoiding known bug patterns)."""

    def __init__(self, target, setup, call, touched, features):
        self.target, self.setup, self.call, self.touched, self.features = target, setup, call, touched, features

    def body(self):
        lines = list(self.setup)
        lines.append("try:")
        lines.append(f"    result = {self.call}")
        lines.append("finally:")
        touched = ", ".join(self.touched + ["globals().get('result')"])
        lines.append(f"    touch({touched})")
        return "\n".join(lines) + "\n"

    def source(self):
        return PRELUDE + "\n" + self.body()

    def shorter_sources(self):
        """Smaller reproducers to try, shortest first: the bare call, then the call followed by a plain use
        of one tensor at a time."""
        bare = ["import torchlite", "nan, inf = float('nan'), float('inf')"] + list(self.setup)
        yield "\n".join(bare + [self.call]) + "\n"
        for t in self.touched:
            yield "\n".join(bare + ["try:", f"    {self.call}", "except Exception as e:", "    print(repr(e))",
                                    f"{t}.sum()", f"{t}.clone()"]) + "\n"


class Generator:
    """Draws one call's arguments; `features` names what it produced, for tests/fuzz/known.py."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.setup, self.tensors, self.features = [], [], set()
        # Most calls keep one device and often one dtype, so that they get past the argument checks.
        self.device = "meta" if rng.random() < 0.25 else "cpu"
        self.dtype = rng.choice(DTYPES) if rng.random() < 0.6 else None
        self.shape = rng.choice(SHAPES) if rng.random() < 0.5 else None

    # -------------------------------------------------------------- tensors

    def _name(self):
        return f"t{len(self.tensors)}"

    def _values(self, dtype, n):
        r = self.rng
        if dtype == "bool":
            return [r.choice(["True", "False"]) for _ in range(n)]
        if dtype in INT_RANGES:
            lo, hi = INT_RANGES[dtype]
            return [str(r.choice([lo, hi, 0, 1, -1 if lo < 0 else 2, r.randint(lo, hi), r.randint(-9, 9) % (hi + 1)]))
                    for _ in range(n)]
        special = r.random() < 0.3
        return [r.choice(SPECIAL_FLOATS) if special and r.random() < 0.3 else repr(round(r.uniform(-5, 5), 3))
                for _ in range(n)]

    def _literal(self, dtype, shape, device):
        n = 1
        for s in shape:
            n *= s
        if device == "meta":
            return f"torchlite.empty({shape}, dtype=torchlite.{dtype}, device='meta')"
        flat = self._values(dtype, n)
        text = f"torchlite.tensor([{', '.join(flat)}], dtype=torchlite.{dtype})"
        return f"{text}.reshape({shape})" if shape != (n,) else text

    def tensor(self, dtype=None, device=None, shape=None):
        """The name of a new tensor variable (with a line in setup): any dtype, device, shape and layout."""
        r = self.rng
        dtype = dtype or self.dtype or r.choice(DTYPES)
        device = device or (self.device if r.random() < 0.9 else r.choice(["cpu", "meta"]))
        shape = tuple(shape if shape is not None else self.shape if self.shape is not None and r.random() < 0.8
                      else r.choice(SHAPES))
        layout = r.choice(["contiguous"] * 4 + ["transposed", "sliced", "expanded", "overlapping", "view"])
        name = self._name()
        if layout == "transposed" and len(shape) >= 2:
            base = shape[:-2] + (shape[-1], shape[-2])
            expr = f"{self._literal(dtype, base, device)}.transpose(-1, -2)"
        elif layout == "sliced" and len(shape) >= 1:
            expr = f"{self._literal(dtype, shape[:-1] + (2 * shape[-1],), device)}[..., ::2]"
        elif layout == "expanded" and len(shape) >= 1:
            expr = f"{self._literal(dtype, (1,) + shape[1:], device)}.expand({shape})"
            self.features.add("expanded")
        elif layout == "overlapping" and len(shape) >= 2 and all(shape):
            n = sum(s - 1 for s in shape) + 1
            expr = f"{self._literal(dtype, (n,), device)}.as_strided({shape}, {(1,) * len(shape)})"
            self.features.add("overlapping")
        elif layout == "view" and self.tensors and r.random() < 0.5:
            other = r.choice(self.tensors)
            expr = r.choice([f"{other}.view(-1)", f"{other}.t()", f"{other}[0]", f"{other}.unsqueeze(0)"])
            self.features.add("view_of_input")
        else:
            expr = self._literal(dtype, shape, device)
        if dtype.startswith(("float", "bfloat")) and r.random() < 0.25:
            # A leaf that requires grad (the views above then record their own backward).
            expr = expr.replace(f"dtype=torchlite.{dtype})", f"dtype=torchlite.{dtype}, requires_grad=True)", 1) \
                if "requires_grad" not in expr else expr
            self.features.add("requires_grad")
        self.setup.append(f"{name} = {expr}")
        self.tensors.append(name)
        if device == "meta":
            self.features.add("meta")
        return name

    # -------------------------------------------------------------- values by schema type

    def value(self, ty, name=""):
        """Source text of a value for an argument of schema type `ty` (mostly valid, sometimes not)."""
        r = self.rng
        if r.random() < 0.06:
            self.features.add("wrong_type")
            return r.choice(WRONG)
        if isinstance(ty, OptionalType):
            return "None" if r.random() < 0.3 else self.value(ty.elem, name)
        if isinstance(ty, ListType):
            return self._list(ty, name)
        return getattr(self, f"_{ty.name.lower()}", self._unbound)(name)

    def _unbound(self, name):
        return "None"

    def _tensor(self, name):
        if self.rng.random() < 0.1:
            return self.rng.choice(["0", "1.5", "True"])  # numbers where tensors go (numbers_as_tensors ops)
        return self.tensor()

    def _int(self, name, small=SMALL_INTS):
        r = self.rng
        roll = r.random()
        if roll < 0.1:
            self.features.add("huge_int")
            return str(r.choice(HUGE_INTS))
        if roll < 0.13:
            return r.choice(["True", "-1", "torchlite.tensor(2)"])
        return str(r.choice(small))

    def _symint(self, name):
        return self._int(name)

    def _float(self, name):
        r = self.rng
        if r.random() < 0.3:
            self.features.add("special_float")
            return r.choice(["nan", "inf", "-inf", "1e308", "-0.0", "2**63", "5e-324"])
        return r.choice(["0.5", "-2.5", "1.0", "0.0", "3", "1e-8"])

    def _scalar(self, name):
        r = self.rng
        roll = r.random()
        if roll < 0.25:
            self.features.add("special_float")
            return r.choice(["nan", "inf", "-inf", "1e308", "-0.0", "2**63", "-2**63-1", "2**63-1", "2**40", "5e-324"])
        if roll < 0.3:
            return r.choice(["1j", "True", "False", "torchlite.tensor(1.5)", "torchlite.tensor([1, 2])"])
        return r.choice(["0", "1", "-1", "2", "0.5", "-2.5", "3", "7"])

    def _bool(self, name):
        return self.rng.choice(["True", "False", "True", "False", "1", "0"])

    def _str(self, name):
        return self.rng.choice(["'trunc'", "'floor'", "''", "'bogus'", "'TRUNC'"])

    def _scalartype(self, name):
        return f"torchlite.{self.rng.choice(DTYPES)}"

    def _device(self, name):
        return self.rng.choice(["'cpu'", "'meta'", "'meta'", "torchlite.device('meta')", "'cuda'", "'bogus'",
                                "'cpu:0'", "0"])

    def _list(self, ty, name):
        r = self.rng
        elem = ty.elem if not isinstance(ty.elem, OptionalType) else ty.elem.elem
        if isinstance(elem, BaseType) and elem.name == "Tensor":
            return "[" + ", ".join(self.tensor() for _ in range(r.choice([0, 1, 2, 2, 3]))) + "]"
        if isinstance(elem, BaseType) and elem.name in ("int", "SymInt"):
            n = ty.size if ty.size and r.random() < 0.8 else r.choice([0, 1, 2, 3, 4])
            items = [self._int(name, small=[0, 1, 2, 3, 4, -1, 1, 2]) for _ in range(n)]
            if ty.size == 1 and n == 1 and r.random() < 0.3:
                return items[0]  # int[1] also takes a bare int
            if r.random() < 0.3:
                return "[" + ", ".join(items) + "]"
            return "(" + ", ".join(items) + ("," if n == 1 else "") + ")"
        return "[" + ", ".join(self.value(elem, name) for _ in range(r.choice([0, 1, 2]))) + "]"


def _argument_texts(gen, schema, receiver):
    """(positional texts, keyword texts) for a call; the receiver (a method's self) is left out."""
    r = gen.rng
    positional, keywords = [], []
    by_keyword = False
    for arg in schema.arguments:
        if arg.name == receiver:
            continue
        if arg.annotation is not None and arg.annotation.is_write and arg.kwarg_only:
            continue  # out= tensors: added by the caller
        if arg.default is not None and r.random() < 0.4:
            by_keyword = True  # omitted: later positional arguments must be named
            continue
        text = gen.value(arg.type, arg.name)
        if arg.kwarg_only or by_keyword or r.random() < 0.1:
            by_keyword = by_keyword or not arg.kwarg_only
            # PyTorch's functions call their `self` argument `input`.
            name = "input" if arg.name == "self" else arg.name
            # A Python keyword (random_'s `from`) can only be passed through **{...}, as in PyTorch.
            keywords.append(f"**{{{name!r}: {text}}}" if keyword.iskeyword(name) else f"{name}={text}")
        else:
            positional.append(text)
    roll = r.random()
    if roll < 0.02:
        positional.append(gen.value(BaseType("int")))  # one argument too many
    elif roll < 0.04:
        keywords.append("bogus=1")
    return positional, keywords


def _out_argument(gen, schema):
    """out= text: a fresh tensor, one of the inputs (aliasing), a view of one, or an expanded tensor."""
    r = gen.rng
    roll = r.random()
    if roll < 0.3 and gen.tensors:
        gen.features.add("out_alias")
        return r.choice(gen.tensors)
    if roll < 0.4 and gen.tensors:
        gen.features.add("out_alias")
        other = r.choice(gen.tensors)
        name = gen._name()
        gen.setup.append(f"{name} = {other}.view(-1)[:1] if {other}.numel() else {other}")
        gen.tensors.append(name)
        return name
    if roll < 0.5:
        gen.features.add("out_expanded")
        name = gen._name()
        gen.setup.append(f"{name} = torchlite.zeros(1, dtype=torchlite.{r.choice(DTYPES)}).expand(3)")
        gen.tensors.append(name)
        return name
    shape = r.choice([(0,), (), (2, 3), (3, 4)])
    return gen.tensor(shape=shape)


def generate(target, rng):
    """A Call of `target` drawn with `rng`."""
    gen = Generator(rng)
    schema = target.fn.schema
    receiver = schema.arguments[0].name if target.variant in ("method", "inplace") else None
    self_text = gen.tensor() if receiver else None
    positional, keywords = _argument_texts(gen, schema, receiver)
    if target.variant == "out":
        outs = [_out_argument(gen, schema) for _ in schema.out_arguments]
        keywords.append("out=" + (outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"))
    args = ", ".join(positional + keywords)
    name = target.name
    if target.variant in ("method", "inplace"):
        call = f"{self_text}.{name}({args})"
    else:
        module = f"_C.{target.fn.python_namespace}." if target.fn.python_namespace else ""
        call = f"torchlite.{module}{name}({args})"
    return Call(target, gen.setup, call, list(gen.tensors), frozenset(gen.features))
