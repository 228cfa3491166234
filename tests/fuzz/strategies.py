"""The fuzzer's generator as hypothesis strategies: a call of any target (or of given ones), drawn from
a hypothesis-controlled random.Random, so hypothesis can replay and shrink what it draws."""
from hypothesis import strategies as st

from .generate import generate
from .targets import load_targets


def calls(targets=None):
    """Strategy of generate.Call for the given targets (every op and variant of the YAML by default)."""
    return st.builds(generate, st.sampled_from(targets or load_targets()), st.randoms(use_true_random=False))
