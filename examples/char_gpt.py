"""A character-level GPT trained on a short story shipped with the examples (examples/data/lighthouse.txt),
then asked to write more of it: token and position embeddings, causal self-attention, LayerNorm, a GELU MLP,
AdamW with decay and no-decay parameter groups, a warm-up then cosine learning-rate schedule, gradient
clipping, the loss curve saved as a PNG.

    pip install ".[examples]"                    # matplotlib (for the curve)
    python examples/char_gpt.py                  # torchlite
    python examples/char_gpt.py --backend torch  # the same script on PyTorch, for comparison

The script is PyTorch code: only the import differs between the two runs. Both libraries initialise the model
from the same seed to the same numbers and draw the same batches and the same dropout masks, so the printed
losses agree between the two runs (to float32 rounding, which grows slowly over the steps).
"""
from __future__ import annotations

import argparse
import importlib
import math
import os
import time


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=["torchlite", "torch"], default="torchlite")
    p.add_argument("--steps", type=int, default=1200)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--block-size", type=int, default=64, help="context length in characters")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--width", type=int, default=64, help="embedding width")
    p.add_argument("--dropout", type=float, default=0.2)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log-every", type=int, default=100)
    p.add_argument("--sample-chars", type=int, default=400)
    p.add_argument("--plot", default="char_gpt.png", help="where to save the loss curve ('' for none)")
    return p.parse_args()


def build_model(torch, vocab: int, args):
    nn = torch.nn
    F = nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = args.heads
            self.qkv = nn.Linear(args.width, 3 * args.width)
            self.proj = nn.Linear(args.width, args.width)
            self.drop = nn.Dropout(args.dropout)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(x).split(c, dim=2)
            # (b, t, c) -> (b, heads, t, c / heads)
            q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.drop(self.proj(y.transpose(1, 2).reshape(b, t, c)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(args.width)
            self.attn = CausalSelfAttention()
            self.ln2 = nn.LayerNorm(args.width)
            self.mlp = nn.Sequential(nn.Linear(args.width, 4 * args.width), nn.GELU(),
                                     nn.Linear(4 * args.width, args.width), nn.Dropout(args.dropout))

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tokens = nn.Embedding(vocab, args.width)
            self.positions = nn.Embedding(args.block_size, args.width)
            self.drop = nn.Dropout(args.dropout)
            self.blocks = nn.ModuleList(Block() for _ in range(args.layers))
            self.ln = nn.LayerNorm(args.width)
            self.head = nn.Linear(args.width, vocab, bias=False)
            self.apply(self._init)
            for name, p in self.named_parameters():  # GPT-2's scaled init of the residual projections
                if name.endswith("proj.weight") or name.endswith("mlp.2.weight"):
                    nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * args.layers))

        @staticmethod
        def _init(m):
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)
            if isinstance(m, nn.Linear) and m.bias is not None:
                nn.init.zeros_(m.bias)

        def forward(self, idx, targets=None):
            t = idx.shape[1]
            x = self.drop(self.tokens(idx) + self.positions(torch.arange(t)))
            for block in self.blocks:
                x = block(x)
            logits = self.head(self.ln(x))
            if targets is None:
                return logits, None
            return logits, F.cross_entropy(logits.view(-1, vocab), targets.view(-1))

    return GPT()


def main():
    args = parse_args()
    torch = importlib.import_module(args.backend)
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)

    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "lighthouse.txt")) as f:
        text = f.read()
    chars = sorted(set(text))
    encode = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([encode[c] for c in text], dtype=torch.long)
    split = int(0.9 * len(data))
    train_data, val_data = data[:split], data[split:]

    batches = torch.Generator().manual_seed(args.seed)

    def batch(source):
        starts = torch.randint(len(source) - args.block_size - 1, (args.batch_size,), generator=batches)
        x = torch.stack([source[s:s + args.block_size] for s in starts.tolist()])
        y = torch.stack([source[s + 1:s + 1 + args.block_size] for s in starts.tolist()])
        return x, y

    model = build_model(torch, len(chars), args)
    # Weight decay on the matrices of the Linear layers only, not on biases, LayerNorm or the embeddings.
    decay = [p for n, p in model.named_parameters() if n.endswith("weight") and p.dim() == 2 and "tokens" not in n
             and "positions" not in n]
    no_decay = [p for n, p in model.named_parameters() if not (n.endswith("weight") and p.dim() == 2
                and "tokens" not in n and "positions" not in n)]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                                  lr=args.lr, betas=(0.9, 0.95))
    warmup = max(1, args.steps // 20)

    def schedule(step):  # linear warm-up, then a cosine decay to a tenth of the peak
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, args.steps - warmup)
        return 0.1 + 0.45 * (1 + math.cos(math.pi * progress))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    print(f"{args.backend}: {sum(p.numel() for p in model.parameters()):,} parameters, "
          f"{len(chars)} characters, {len(train_data):,} training characters")

    def validation_loss():
        model.eval()
        with torch.no_grad():
            losses = [model(*batch(val_data))[1].item() for _ in range(4)]
        model.train()
        return sum(losses) / len(losses)

    history = []
    start = time.perf_counter()
    for step in range(args.steps):
        x, y = batch(train_data)
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        history.append(loss.item())
        if step % args.log_every == 0 or step == args.steps - 1:
            print(f"step {step:5d}  loss {loss.item():.4f}  validation {validation_loss():.4f}  "
                  f"lr {scheduler.get_last_lr()[0]:.2e}")
    elapsed = time.perf_counter() - start
    print(f"{args.backend}: {args.steps} steps in {elapsed:.1f}s ({1000 * elapsed / args.steps:.1f} ms/step, "
          f"validation included), validation loss {validation_loss():.4f}")

    # Write more of the story: sample one character at a time from the model's distribution.
    model.eval()
    sampler = torch.Generator().manual_seed(args.seed)
    idx = torch.tensor([[encode[c] for c in "The keeper "]], dtype=torch.long)
    with torch.no_grad():
        for _ in range(args.sample_chars):
            logits, _ = model(idx[:, -args.block_size:])
            probs = torch.softmax(logits[:, -1, :] / 0.8, dim=-1)
            idx = torch.cat([idx, torch.multinomial(probs, 1, generator=sampler)], dim=1)
    print("\n" + "".join(chars[i] for i in idx[0].tolist()) + "\n")

    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot(range(len(history)), history, linewidth=0.8)
        ax.set_xlabel("step"), ax.set_ylabel("training loss (nats per character)")
        ax.set_title(f"character-level GPT ({args.backend})")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"loss curve saved to {args.plot}")


if __name__ == "__main__":
    main()
