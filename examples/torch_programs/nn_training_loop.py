"""A small network trained with nn.Module, torch.optim and a DataLoader, written for torch
as torch users write it (the pattern of PyTorch's tutorials "Learning PyTorch with Examples"
and "Optimizing Model Parameters"); no line changed for ctxgrad.

Run it on ctxgrad: ``ctxgrad run examples/torch_programs/nn_training_loop.py [--epochs N]
[--lr LR] [--target LOSS]``; under torch: ``python examples/torch_programs/nn_training_loop.py``.
The weights start from fixed values (``init_weights``), so both print the same numbers. It
exits with an error message when the last epoch's loss is above ``--target``.
"""

import argparse
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data
from torch.utils.data import Dataset


class SineDataset(Dataset):
    """Points of sin(x) on [-pi, pi], in a fixed order that mixes them."""

    def __init__(self, n):
        # every 7th point of a grid, going round it, so that each batch spans the whole range
        order = torch.arange(n) * 7 % n
        self.x = torch.linspace(-math.pi, math.pi, n)[order].unsqueeze(1)
        self.y = torch.sin(self.x)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class Net(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.fc1 = nn.Linear(1, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def init_weights(m):
    # A fixed start instead of a random one, so that every run prints the same numbers.
    if isinstance(m, nn.Linear):
        with torch.no_grad():
            m.weight.copy_(0.2 * torch.sin(torch.arange(1.0, m.weight.numel() + 1)).reshape(m.weight.shape))
            nn.init.zeros_(m.bias)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--target", type=float, default=0.01, help="the largest final loss that counts as learnt")
    args = parser.parse_args()

    torch.set_default_dtype(torch.float64)
    dataset = SineDataset(256)
    loader = torch.utils.data.DataLoader(dataset, batch_size=32, shuffle=False)
    model = Net()
    model.apply(init_weights)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=15, gamma=0.5)

    loss_per_sample = float("nan")
    for epoch in range(args.epochs):
        model.train()
        total = 0.0
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(xb)
        scheduler.step()
        loss_per_sample = total / len(dataset)
        print(f"epoch {epoch + 1}: loss {loss_per_sample:.8f}")

    model.eval()
    with torch.no_grad():
        prediction = model(torch.tensor([[0.5], [1.0]])).squeeze(1)
    print("prediction at 0.5 and 1.0:", [round(v, 6) for v in prediction.tolist()])
    if not loss_per_sample <= args.target:
        sys.exit(f"the loss {loss_per_sample:.6f} is above the target {args.target}")


if __name__ == "__main__":
    main()
