"""Saves the model examples/cpp/run_model.cpp loads: a small CNN (conv, batch norm, ReLU, pooling,
linear) traced with torchlite.jit.trace and saved with torchlite.jit.save.

    python export_model.py model.pt      # then: ./build/run_model model.pt

With --print it also prints what run_model prints for the same input (sin(0.1 * i) over 2x1x8x8),
computed in Python, so the two can be compared line by line.
"""
import argparse
import math

import torchlite as torch
from torchlite import nn


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
        return self.fc(x.flatten(1))


def the_input():
    return torch.tensor([math.sin(0.1 * i) for i in range(2 * 8 * 8)]).reshape(2, 1, 8, 8)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path")
    parser.add_argument("--print", action="store_true", help="print the expected output and input gradient")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = SmallCNN().eval()
    traced = torch.jit.trace(model, the_input())
    torch.jit.save(traced, args.path)
    if args.print:
        x = the_input().requires_grad_()
        y = model(x)
        y.sum().backward()
        print("output", " ".join(f"{v:.9g}" for v in y.flatten().tolist()))
        print("input_grad", " ".join(f"{v:.9g}" for v in x.grad.flatten().tolist()))


if __name__ == "__main__":
    main()
