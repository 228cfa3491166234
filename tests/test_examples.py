"""The examples run, and print PyTorch's numbers: examples/char_gpt.py trained for a few steps with
torchlite and with PyTorch gives the same losses (the same initial weights, batches and dropout masks)
and writes the same text when sampling."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_example(script, *args):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", script), *args], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_char_gpt_matches_pytorch():
    args = ["--steps", "30", "--log-every", "5", "--layers", "2", "--width", "32", "--heads", "2",
            "--batch-size", "8", "--block-size", "32", "--dropout", "0.1", "--sample-chars", "60", "--plot", ""]
    ours, theirs = run_example("char_gpt.py", *args), run_example("char_gpt.py", "--backend", "torch", *args)
    loss = re.compile(r"^step\s+(\d+)\s+loss (\S+)", re.M)
    a, b = loss.findall(ours), loss.findall(theirs)
    assert len(a) == len(b) == 7
    for (step_a, la), (step_b, lb) in zip(a, b):
        assert step_a == step_b and abs(float(la) - float(lb)) <= 2e-4, (step_a, la, lb)
    assert ours.split("validation loss")[1].strip().split("\n")[0] == theirs.split("validation loss")[1].strip().split("\n")[0]
    sample = lambda text: text.split("validation loss")[1].split("\n\n")[1]  # noqa: E731
    assert sample(ours) == sample(theirs) and sample(ours).startswith("The keeper ")
