"""Fits a small two-layer network to a noisy non-linear function with torchlite's autograd.

    python examples/regression.py

Everything here is the PyTorch API: swap the import for `import torch` and it runs unchanged.
"""
import torchlite as torch

torch.manual_seed(0)

# Data: a bump of a linear projection, y = z * exp(-z^2 / 4), plus noise.
X = torch.randn(512, 4)
w_true = torch.tensor([[0.5], [-1.0], [0.25], [0.5]])
z = X @ w_true
y = z * (-(z * z) / 4).exp() + 0.05 * torch.randn(512, 1)

# A 4 -> 32 -> 1 network, parameters created as leaves that require grad.
W1 = (torch.randn(4, 32) * 0.5).requires_grad_()
b1 = torch.zeros(32, requires_grad=True)
W2 = (torch.randn(32, 1) * 0.2).requires_grad_()
b2 = torch.zeros(1, requires_grad=True)
params = [W1, b1, W2, b2]

lr = 0.1
for step in range(501):
    hidden = (X @ W1 + b1).relu()
    pred = hidden @ W2 + b2
    loss = ((pred - y) ** 2).mean()

    for p in params:
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
    if step % 100 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")

baseline = ((y - y.mean()) ** 2).mean().item()
print(f"final loss {loss.item():.4f} (predicting the mean gives {baseline:.4f})")
print("first predictions:", pred[:3, 0].detach(), "targets:", y[:3, 0])
