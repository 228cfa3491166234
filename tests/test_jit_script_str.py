"""str in script against torch.jit.script 2.13: the methods torch takes (split/rsplit, strip, startswith,
join, lower/upper, replace, find/rfind/index/count, the is* tests, title/capitalize/swapcase, center/ljust/
rjust/zfill, expandtabs, partition, splitlines), slicing, `in`, len, comparisons, ord/chr, and torch's errors
(a method it lacks, a wrong argument type)."""
import pytest
import torch

from tests.script_pair import both, errors

INPUTS = ["abc", " a,b, c ", "Hello World", "12", "a\tb\nc", "", "-42", "xxabxx", "Title Case Words", "a\r\nb\x0bc"]

CASES = {
    "split": "return s.split()", "split_sep": "return s.split(',')", "split_max": "return s.split(',', 1)",
    "split_ws_max": "return s.split(None, 1)", "rsplit": "return s.rsplit(',', 1)", "rsplit_default": "return s.rsplit()",
    "strip": "return [s.strip(), s.lstrip(), s.rstrip()]", "strip_chars": "return [s.strip('ax'), s.lstrip('x '),"
                                                                                  " s.rstrip('cx ')]",
    "startswith": "return [s.startswith('a'), s.endswith('c'), s.startswith('b', 1), s.endswith('b', 0, 2)]",
    "join": "return ','.join(['a', s, 'b'])", "case": "return [s.lower(), s.upper(), s.title(), s.capitalize(), "
                                                       "s.swapcase()]",
    "replace": "return [s.replace('a', 'bb'), s.replace('x', '', 1)]",
    "find": "return [s.find('b'), s.find('b', 2), s.rfind('b'), s.find('zz'), s.count('a'), s.count('x', 1), "
            "s.find('a', -3)]",
    "is": "return [s.isdigit(), s.isalpha(), s.isalnum(), s.isspace(), s.islower(), s.isupper(), s.istitle(), "
          "s.isdecimal(), s.isnumeric(), s.isidentifier(), s.isprintable()]",
    "pad": "return [s.center(9, '*'), s.center(10), s.ljust(9), s.rjust(9, '-'), s.zfill(6), s.center(2)]",
    "expandtabs": "return [s.expandtabs(), s.expandtabs(4)]",
    "partition": "return [s.partition('b'), s.rpartition('b'), s.partition(',')]",
    "splitlines": "return [s.splitlines(), s.splitlines(True)]",
    "slice": "return [s[1:3], s[::2], s[-2:], s[::-1], s[5:1:-1], s[100:]]",
    "in": "return ['b' in s, 'z' not in s, '' in s, s in 'abcabc']",
    "compare": "return [s < 'b', s == 'abc', s != '', s >= 'Hello', len(s) > 2]",
    "concat": "return s + '!' + s",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_str_method_as_torch(name):
    src = f"def f(s: str):\n    {CASES[name]}\n"
    ours, theirs = both(src)
    for s in INPUTS:
        try:
            want = theirs(s)
        except Exception as e:  # noqa: BLE001 (torch raises: so must torchlite)
            with pytest.raises(RuntimeError):
                ours(s)
            continue
        assert ours(s) == want, (name, s)


def test_index_raises_when_absent():
    ours, theirs = both("def f(s: str) -> int:\n    return s.index('b') + s.rindex('b')\n")
    assert ours("abcb") == theirs("abcb")
    with pytest.raises(RuntimeError, match="substring not found"):
        theirs("xyz")
    with pytest.raises(RuntimeError, match="substring not found"):
        ours("xyz")


def test_ord_chr_and_indexing():
    ours, theirs = both("def f(s: str) -> List[int]:\n    return [ord(s[0]), ord(chr(ord(s[-1]) + 1)), len(s[1:])]\n")
    for s in ("abc", "Zz", "0"):
        assert ours(s) == theirs(s)


def test_methods_on_constants_and_in_loops():
    src = """
def f(s: str) -> List[str]:
    out: List[str] = []
    for part in s.split(','):
        p = part.strip()
        if p.startswith('#'):
            continue
        out.append(p.upper() if p.isalpha() else p.zfill(3))
    out.append('-'.join(['x', 'y']).replace('-', '+'))
    return out
"""
    ours, theirs = both(src)
    for s in ("a, 7 ,#skip, bc", "", "12,x"):
        assert ours(s) == theirs(s)


@pytest.mark.parametrize("body,msg", [
    ("return s.casefold()", "'str' object has no attribute or method 'casefold'"),
    ("return s.encode()", "'str' object has no attribute or method 'encode'"),
    ("return s.strip(1)", "Expected a value of type 'str' for argument 'chars' but instead found type 'int'"),
    ("return s.find()", "Argument substr not provided"),
])
def test_errors_as_torch(body, msg):
    e_ours, e_theirs = errors(f"def f(s: str):\n    {body}\n")
    assert e_theirs is not None and msg in str(e_theirs), e_theirs
    assert isinstance(e_ours, RuntimeError) and msg in str(e_ours), e_ours


def test_for_over_a_str_and_number_parsing():
    src = """
def f(s: str) -> List[str]:
    out: List[str] = []
    for c in s:
        if c.isdigit():
            out.append(str(int(c) * 2))
        else:
            out.append(c)
    out.append(str(float("1.5") + int("12")))
    return out
"""
    ours, theirs = both(src)
    for s in ("a1b2", "", "99"):
        assert ours(s) == theirs(s)


def test_int_of_a_bad_str_raises():
    ours, theirs = both("def f(s: str) -> int:\n    return int(s)\n")
    assert ours("-17") == theirs("-17") == -17
    with pytest.raises(RuntimeError):
        theirs("1x")
    with pytest.raises(RuntimeError, match="invalid literal for int"):
        ours("1x")
