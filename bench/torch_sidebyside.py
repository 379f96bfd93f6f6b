#!/usr/bin/env python3
"""PyTorch side of the side-by-side benchmark (see sidebyside_test.go).

Same workloads, shapes and data as BenchmarkSideBySide, run eagerly as a
PyTorch user writes them, with 1 and 2 threads. Output lines have the Go
benchmark format, so cmd/sidebyside parses both alike:

    BenchmarkSideBySide/row=matmul1024/impl=torch-t2  40  25000000 ns/op  85.9 GFLOP/s  -123.4 check

Run: /usr/bin/python3 torch_sidebyside.py [-benchtime 0.5] [-threads 1,2] [-rows a,b]
Only PyTorch and the standard library are needed; CI never runs this.
"""

import argparse
import ctypes
import ctypes.util
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def seq_data(seed, n, scale, shape):
    """((i*7919 + seed*104729) mod 65536)/65536*2 - 1, times scale, in
    float64, rounded to float32 once (as seqData in Go)."""
    i = torch.arange(n, dtype=torch.int64)
    v = ((i * 7919 + seed * 104729) % 65536).to(torch.float64) / 65536 * 2 - 1
    return (v * scale).to(torch.float32).reshape(shape)


def seq_labels(seed, n, classes):
    return (torch.arange(n, dtype=torch.int64) * 7 + seed) % classes


def set_linear(l, seed, fan_in):
    s = 1 / math.sqrt(fan_in)
    with torch.no_grad():
        l.weight.copy_(seq_data(seed, l.weight.numel(), s, l.weight.shape))
        l.bias.copy_(seq_data(seed + 1, l.bias.numel(), s, l.bias.shape))
    return l


def sum32(t):
    return float(t.detach().to(torch.float64).sum())


# Each row returns (step, check, extra) where step() runs one iteration,
# check is the value the Go side reports as "check", and extra(ns) gives
# further metrics.

def row_matmul(n):
    def make():
        a = seq_data(1, n * n, 1, (n, n))
        b = seq_data(2, n * n, 1, (n, n))
        check = sum32(a @ b)
        return (lambda: a @ b), check, lambda ns: {"GFLOP/s": 2 * n ** 3 / ns}
    return make


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = set_linear(nn.Linear(784, 512), 10, 784)
        self.l2 = set_linear(nn.Linear(512, 512), 20, 512)
        self.l3 = set_linear(nn.Linear(512, 10), 30, 512)

    def forward(self, x):
        return self.l3(torch.relu(self.l2(torch.relu(self.l1(x)))))


def row_mlp():
    m = MLP()
    x = seq_data(3, 64 * 784, 1, (64, 784))

    def step():
        with torch.no_grad():
            return m(x)
    return step, sum32(step()), None


def row_chain():
    n = 1 << 20
    x = seq_data(4, n, 3, (n,))

    def step():
        return torch.tanh(x * 1.5 + 0.5) * 0.7
    return step, sum32(step()), None


def train_row(model, opt, x, y):
    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    check = float(step())
    return step, check, None


def row_mnist():
    model = nn.Sequential(set_linear(nn.Linear(784, 128), 40, 784), nn.ReLU(), set_linear(nn.Linear(128, 10), 50, 128))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = seq_data(5, 64 * 784, 1, (64, 784))
    y = seq_labels(5, 64, 10)
    return train_row(model, opt, x, y)


def set_conv(c, seed):
    fan_in = c.in_channels * c.kernel_size[0] * c.kernel_size[1]
    s = 1 / math.sqrt(fan_in)
    with torch.no_grad():
        c.weight.copy_(seq_data(seed, c.weight.numel(), s, c.weight.shape))
        c.bias.copy_(seq_data(seed + 1, c.bias.numel(), s, c.bias.shape))
    return c


def row_cnn():
    model = nn.Sequential(
        set_conv(nn.Conv2d(1, 8, 3, padding=1), 60), nn.ReLU(), nn.MaxPool2d(2),
        set_conv(nn.Conv2d(8, 16, 3, padding=1), 70), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), set_linear(nn.Linear(784, 10), 80, 784))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x = seq_data(6, 64 * 28 * 28, 1, (64, 1, 28, 28))
    y = seq_labels(6, 64, 10)
    return train_row(model, opt, x, y)


D, HEADS, HIDDEN, BATCH, SEQ = 256, 4, 1024, 8, 128


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D)
        self.attn = nn.MultiheadAttention(D, HEADS, batch_first=True)
        self.ln2 = nn.LayerNorm(D)
        self.fc1 = set_linear(nn.Linear(D, HIDDEN), 94, D)
        self.fc2 = set_linear(nn.Linear(HIDDEN, D), 96, HIDDEN)
        s = 1 / math.sqrt(D)
        with torch.no_grad():
            self.attn.in_proj_weight.copy_(seq_data(90, 3 * D * D, s, (3 * D, D)))
            self.attn.in_proj_bias.copy_(seq_data(91, 3 * D, s, (3 * D,)))
        set_linear(self.attn.out_proj, 92, D)
        self.register_buffer("mask", torch.triu(torch.full((SEQ, SEQ), float("-inf")), diagonal=1))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=self.mask, need_weights=False)[0]
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


def row_transformer():
    blk = Block()
    x = seq_data(8, BATCH * SEQ * D, 1, (BATCH, SEQ, D))

    def step():
        for p in blk.parameters():
            p.grad = None
        loss = blk(x).square().mean()
        loss.backward()
        return loss
    return step, float(step()), None


def row_tiny():
    x = torch.ones(1)

    def step():
        return x + 1
    return step, float(step()), None


ROWS = {
    "matmul256": row_matmul(256),
    "matmul512": row_matmul(512),
    "matmul1024": row_matmul(1024),
    "mlp_fwd": row_mlp,
    "tanh_chain": row_chain,
    "mnist_step": row_mnist,
    "cnn_step": row_cnn,
    "transformer_fb": row_transformer,
    "tiny_call": row_tiny,
}


def bench(step, benchtime):
    """Runs step for about benchtime seconds after a warm-up; returns
    (iterations, ns per iteration)."""
    t0 = time.perf_counter()
    step()
    while time.perf_counter() - t0 < min(0.05, benchtime):
        step()
    # Grow the batch until it lasts 1 % of the time, then run whole batches.
    n = 1
    while True:
        t = time.perf_counter()
        for _ in range(n):
            step()
        dt = time.perf_counter() - t
        if dt >= benchtime / 100 or n >= 1 << 20:
            break
        n *= 2
    iters, total = 0, 0.0
    while total < benchtime:
        t = time.perf_counter()
        for _ in range(n):
            step()
        total += time.perf_counter() - t
        iters += n
    return iters, total * 1e9 / iters


def openblas_core():
    for name in ("libopenblas.so.0", ctypes.util.find_library("openblas")):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            return lib.openblas_get_corename().decode()
        except (OSError, AttributeError):
            pass
    return "none"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-benchtime", type=float, default=0.5)
    ap.add_argument("-threads", default="1,2")
    ap.add_argument("-rows", default="")
    args = ap.parse_args()
    rows = [r for r in args.rows.split(",") if r] or list(ROWS)
    print(f"# torch {torch.__version__} openblas-core {openblas_core()} mkldnn {torch.backends.mkldnn.is_available()}")
    for r in rows:
        for th in [int(t) for t in args.threads.split(",")]:
            # ATen's intra-op threads, as a PyTorch user sets them. Debian's
            # OpenBLAS keeps its own (one per core): under 1 thread a
            # 1024x1024 product still runs on two (7.3 ms; 14.3 ms with
            # openblas_set_num_threads(1) too), so for the products the
            # two runs are the same configuration measured twice.
            torch.set_num_threads(th)
            step, check, extra = ROWS[r]()
            iters, ns = bench(step, args.benchtime)
            line = f"BenchmarkSideBySide/row={r}/impl=torch-t{th} {iters} {ns:.1f} ns/op"
            for k, v in (extra(ns) if extra else {}).items():
                line += f" {v:.4g} {k}"
            line += f" {check:.7g} check"
            print(line, flush=True)


if __name__ == "__main__":
    sys.exit(main())
