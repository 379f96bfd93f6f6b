#!/usr/bin/python3
"""Reference values from PyTorch for package nn, optim and examples/cnn.

Writes safetensors files (by hand: the format is a length, a JSON header and
raw little-endian data) that the Go tests read, so CI never needs PyTorch:

  nn/testdata/torch_layers.safetensors   layers: state dicts, inputs, outputs, gradients
  nn/testdata/torch_losses.safetensors   losses: inputs, values, input gradients
  optim/testdata/torch_optim.safetensors optimizers (3 steps), schedules, clipping
  examples/cnn/testdata/torch_cnn.safetensors  a checkpoint of the example's CNN

Run from the repository root: /usr/bin/python3 scripts/torch_reference.py
(tested with PyTorch 1.13).
"""
import json
import math
import os
import struct

import torch
import torch.nn as tnn
import torch.nn.functional as F

DT = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.int32: "I32",
      torch.bool: "BOOL", torch.uint8: "U8"}


def save(path, tensors, meta):
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().contiguous().cpu()
        b = t.numpy().tobytes()
        header[name] = {"dtype": DT[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    header["__metadata__"] = meta
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    print(f"{path}: {len(tensors)} tensors, {off} data bytes")


torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


# ---------------------------------------------------------------- layers
class Cases:
    def __init__(self):
        self.t, self.cases = {}, []

    def add(self, name, kind, args, module, inputs, forward, train=None, extra=None):
        """Records module's state dict, inputs, output, and the gradients of
        sum(out * seed) with respect to float inputs and parameters."""
        for k, v in module.state_dict().items():
            self.t[f"{name}.state.{k}"] = v.clone()
        ins = []
        for i, x in enumerate(inputs):
            self.t[f"{name}.in.{i}"] = x
            if x is not None and x.is_floating_point():
                x = x.clone().requires_grad_(True)
            ins.append(x)
        if train is not None:
            module.train(train)
        out = forward(module, *ins)
        seed = torch.randn_like(out)
        self.t[f"{name}.out"] = out.detach()
        self.t[f"{name}.seed"] = seed
        (out * seed).sum().backward()
        for i, x in enumerate(ins):
            if x is not None and x.is_floating_point():
                self.t[f"{name}.grad.in.{i}"] = x.grad
        for k, p in module.named_parameters():
            if p.grad is not None:
                self.t[f"{name}.grad.state.{k}"] = p.grad
        for k, v in module.state_dict().items():
            self.t[f"{name}.after.{k}"] = v.clone()
        for k, v in (extra or {}).items():
            self.t[f"{name}.{k}"] = v
        self.cases.append({"name": name, "kind": kind, "args": args})


L = Cases()
lin = tnn.Linear(5, 3)
L.add("linear", "linear", {"in": 5, "out": 3, "bias": True}, lin, [torch.randn(4, 5)], lambda m, x: m(x))
lin = tnn.Linear(6, 2, bias=False)
L.add("linear_nobias", "linear", {"in": 6, "out": 2, "bias": False}, lin, [torch.randn(2, 3, 6)], lambda m, x: m(x))

c = tnn.Conv2d(3, 4, 3, stride=2, padding=1)
L.add("conv2d", "conv2d", {"in": 3, "out": 4, "k": 3, "stride": 2, "padding": 1, "dilation": 1, "groups": 1},
      c, [torch.randn(2, 3, 7, 7)], lambda m, x: m(x))
c = tnn.Conv2d(4, 6, 3, padding=2, dilation=2, groups=2)
L.add("conv2d_groups", "conv2d", {"in": 4, "out": 6, "k": 3, "stride": 1, "padding": 2, "dilation": 2, "groups": 2},
      c, [torch.randn(2, 4, 8, 8)], lambda m, x: m(x))
c = tnn.Conv1d(3, 5, 3, padding=1, stride=2)
L.add("conv1d", "conv1d", {"in": 3, "out": 5, "k": 3, "stride": 2, "padding": 1, "dilation": 1, "groups": 1},
      c, [torch.randn(2, 3, 9)], lambda m, x: m(x))


def randomize_bn(bn):
    with torch.no_grad():
        bn.weight.copy_(torch.rand_like(bn.weight) + 0.5)
        bn.bias.copy_(torch.randn_like(bn.bias))
        bn.running_mean.copy_(torch.randn_like(bn.running_mean))
        bn.running_var.copy_(torch.rand_like(bn.running_var) + 0.5)
        bn.num_batches_tracked.fill_(3)
    return bn


L.add("bn2d_train", "bn2d", {"c": 3, "train": True}, randomize_bn(tnn.BatchNorm2d(3)),
      [torch.randn(4, 3, 5, 5) * 2 + 1], lambda m, x: m(x), train=True)
L.add("bn2d_eval", "bn2d", {"c": 3, "train": False}, randomize_bn(tnn.BatchNorm2d(3)),
      [torch.randn(4, 3, 5, 5)], lambda m, x: m(x), train=False)
L.add("bn1d_train", "bn1d", {"c": 4, "train": True}, randomize_bn(tnn.BatchNorm1d(4, momentum=0.3)),
      [torch.randn(8, 4)], lambda m, x: m(x), train=True)
L.add("bn1d_seq_train", "bn1d", {"c": 3, "train": True}, randomize_bn(tnn.BatchNorm1d(3)),
      [torch.randn(4, 3, 6)], lambda m, x: m(x), train=True)

ln = tnn.LayerNorm([6])
with torch.no_grad():
    ln.weight.copy_(torch.randn(6))
    ln.bias.copy_(torch.randn(6))
L.add("layernorm", "layernorm", {"shape": [6]}, ln, [torch.randn(3, 4, 6)], lambda m, x: m(x))
ln = tnn.LayerNorm([4, 6], eps=1e-3)
with torch.no_grad():
    ln.weight.copy_(torch.randn(4, 6))
L.add("layernorm2", "layernorm", {"shape": [4, 6], "eps": 1e-3}, ln, [torch.randn(2, 4, 6)], lambda m, x: m(x))

emb = tnn.Embedding(10, 4)
L.add("embedding", "embedding", {"num": 10, "dim": 4}, emb, [torch.randint(0, 10, (3, 5))], lambda m, i: m(i))
emb = tnn.Embedding(10, 4, padding_idx=0)
L.add("embedding_pad", "embedding", {"num": 10, "dim": 4, "padding_idx": 0}, emb,
      [torch.tensor([[0, 3, 0], [5, 0, 9]])], lambda m, i: m(i))

mha = tnn.MultiheadAttention(8, 2, batch_first=True)
with torch.no_grad():
    mha.in_proj_bias.copy_(torch.randn(24) * 0.1)
    mha.out_proj.bias.copy_(torch.randn(8) * 0.1)
kpm = torch.tensor([[False, False, False, False, True, True], [False] * 6])
L.add("mha_cross", "mha", {"embed": 8, "heads": 2, "causal": False, "key_padding": True}, mha,
      [torch.randn(2, 5, 8), torch.randn(2, 6, 8), torch.randn(2, 6, 8), kpm],
      lambda m, q, k, v, p: m(q, k, v, key_padding_mask=p, need_weights=False)[0])
mha = tnn.MultiheadAttention(8, 4, batch_first=True)
causal = torch.triu(torch.full((5, 5), float("-inf")), diagonal=1)
L.add("mha_causal", "mha", {"embed": 8, "heads": 4, "causal": True, "key_padding": False}, mha,
      [torch.randn(2, 5, 8)], lambda m, x: m(x, x, x, attn_mask=causal, need_weights=False)[0])

gru = tnn.GRUCell(4, 6)
L.add("grucell", "grucell", {"in": 4, "hidden": 6}, gru, [torch.randn(3, 4), torch.randn(3, 6)], lambda m, x, h: m(x, h))


def gru_unroll(m, xs, h):
    outs = []
    for t in range(xs.shape[1]):
        h = m(xs[:, t], h)
        outs.append(h)
    return torch.stack(outs, 1)


gru = tnn.GRUCell(3, 5)
L.add("gru_unroll", "gru_unroll", {"in": 3, "hidden": 5}, gru, [torch.randn(2, 4, 3), torch.randn(2, 5)], gru_unroll)
lstm = tnn.LSTMCell(4, 5)
L.add("lstmcell", "lstmcell", {"in": 4, "hidden": 5}, lstm, [torch.randn(3, 4), torch.randn(3, 5), torch.randn(3, 5)],
      lambda m, x, h, c: torch.cat(m(x, (h, c)), 1))


def lstm_unroll(m, xs):
    h = c = None
    outs = []
    for t in range(xs.shape[1]):
        h, c = m(xs[:, t], None if h is None else (h, c))
        outs.append(h)
    return torch.cat([torch.stack(outs, 1).flatten(1), c], 1)


lstm = tnn.LSTMCell(3, 4)
L.add("lstm_unroll", "lstm_unroll", {"in": 3, "hidden": 4}, lstm, [torch.randn(2, 3, 3)], lstm_unroll)

ident = tnn.Identity()
L.add("maxpool2d", "pool", {"fn": "max2d", "k": 2, "s": 2, "p": 0}, ident, [torch.randn(2, 3, 6, 6)],
      lambda m, x: F.max_pool2d(x, 2, 2))
L.add("maxpool2d_pad", "pool", {"fn": "max2d", "k": 3, "s": 2, "p": 1}, ident, [torch.randn(2, 2, 7, 7)],
      lambda m, x: F.max_pool2d(x, 3, 2, 1))
L.add("avgpool2d", "pool", {"fn": "avg2d", "k": 3, "s": 2, "p": 1}, ident, [torch.randn(2, 2, 7, 7)],
      lambda m, x: F.avg_pool2d(x, 3, 2, 1))
L.add("maxpool1d", "pool", {"fn": "max1d", "k": 3, "s": 2, "p": 1}, ident, [torch.randn(2, 3, 9)],
      lambda m, x: F.max_pool1d(x, 3, 2, 1))
L.add("avgpool1d", "pool", {"fn": "avg1d", "k": 2, "s": 2, "p": 0}, ident, [torch.randn(2, 3, 8)],
      lambda m, x: F.avg_pool1d(x, 2, 2))
L.add("globalavg", "pool", {"fn": "global", "k": 0, "s": 0, "p": 0}, ident, [torch.randn(2, 3, 4, 5)],
      lambda m, x: F.adaptive_avg_pool2d(x, 1).flatten(1))
save("nn/testdata/torch_layers.safetensors", L.t, {"cases": json.dumps(L.cases), "torch": torch.__version__})

# ---------------------------------------------------------------- losses
T, cases = {}, []


def loss_case(name, kind, args, fn, x, y, w=None):
    T[f"{name}.x"] = x
    T[f"{name}.y"] = y
    if w is not None:
        T[f"{name}.w"] = w
    xg = x.clone().requires_grad_(True)
    out = fn(xg, y)
    seed = torch.randn_like(out)
    (out * seed).sum().backward()
    T[f"{name}.out"] = out.detach()
    T[f"{name}.seed"] = seed
    T[f"{name}.grad"] = xg.grad
    cases.append({"name": name, "kind": kind, "args": args})


N, C = 6, 4
logits = torch.randn(N, C) * 2
idx = torch.randint(0, C, (N,))
idx_ign = idx.clone()
idx_ign[1] = -100
idx_ign[4] = -100
cw = torch.rand(C) + 0.5
probs = torch.softmax(torch.randn(N, C), 1)
for red in ["mean", "sum", "none"]:
    loss_case(f"ce_{red}", "ce", {"reduction": red}, lambda x, y: F.cross_entropy(x, y, reduction=red), logits, idx)
loss_case("ce_weight", "ce", {"weight": True}, lambda x, y: F.cross_entropy(x, y, weight=cw), logits, idx, cw)
loss_case("ce_ignore", "ce", {"ignore": -100}, lambda x, y: F.cross_entropy(x, y, ignore_index=-100), logits, idx_ign)
loss_case("ce_smooth", "ce", {"smoothing": 0.2}, lambda x, y: F.cross_entropy(x, y, label_smoothing=0.2), logits, idx)
loss_case("ce_all", "ce", {"weight": True, "ignore": -100, "smoothing": 0.1},
          lambda x, y: F.cross_entropy(x, y, weight=cw, ignore_index=-100, label_smoothing=0.1), logits, idx_ign, cw)
loss_case("ce_all_sum", "ce", {"weight": True, "ignore": -100, "smoothing": 0.1, "reduction": "sum"},
          lambda x, y: F.cross_entropy(x, y, weight=cw, ignore_index=-100, label_smoothing=0.1, reduction="sum"),
          logits, idx_ign, cw)
loss_case("ce_probs", "ce", {}, lambda x, y: F.cross_entropy(x, y), logits, probs)
loss_case("ce_probs_all", "ce", {"weight": True, "smoothing": 0.3},
          lambda x, y: F.cross_entropy(x, y, weight=cw, label_smoothing=0.3), logits, probs, cw)
loss_case("ce_probs_none", "ce", {"reduction": "none"}, lambda x, y: F.cross_entropy(x, y, reduction="none"), logits, probs)
loss_case("ce_kdim", "ce", {"ignore": 2}, lambda x, y: F.cross_entropy(x, y, ignore_index=2),
          torch.randn(2, C, 3, 2), torch.randint(0, C, (2, 3, 2)))
logp = torch.log_softmax(torch.randn(N, C), 1)
loss_case("nll", "nll", {}, lambda x, y: F.nll_loss(x, y), logp, idx)
loss_case("nll_weight_ignore", "nll", {"weight": True, "ignore": -100},
          lambda x, y: F.nll_loss(x, y, weight=cw, ignore_index=-100), logp, idx_ign, cw)
bx, by = torch.randn(5, 3) * 3, torch.rand(5, 3)
pw = torch.rand(3) + 0.5
ew = torch.rand(5, 3)
loss_case("bce", "bce", {}, lambda x, y: F.binary_cross_entropy_with_logits(x, y), bx, by)
loss_case("bce_pos", "bce", {"pos_weight": True, "weight": True, "reduction": "sum"},
          lambda x, y: F.binary_cross_entropy_with_logits(x, y, weight=ew, pos_weight=pw, reduction="sum"), bx, by)
T["bce_pos.pw"] = pw
T["bce_pos.ew"] = ew
rx, ry = torch.randn(4, 5), torch.randn(4, 5)
loss_case("mse", "mse", {}, lambda x, y: F.mse_loss(x, y), rx, ry)
loss_case("mse_sum", "mse", {"reduction": "sum"}, lambda x, y: F.mse_loss(x, y, reduction="sum"), rx, ry)
loss_case("l1", "l1", {}, lambda x, y: F.l1_loss(x, y), rx, ry)
loss_case("huber", "huber", {"delta": 0.5}, lambda x, y: F.huber_loss(x, y, delta=0.5), rx, ry)
loss_case("huber_none", "huber", {"delta": 1.0, "reduction": "none"}, lambda x, y: F.huber_loss(x, y, reduction="none"), rx, ry)
loss_case("smoothl1", "smoothl1", {"delta": 0.7}, lambda x, y: F.smooth_l1_loss(x, y, beta=0.7), rx, ry)
kp = torch.softmax(torch.randn(4, 5), 1)
kp[0, 1] = 0.0
loss_case("kl_batchmean", "kl", {"reduction": "batchmean"}, lambda x, y: F.kl_div(x, y, reduction="batchmean"),
          torch.log_softmax(torch.randn(4, 5), 1), kp)
loss_case("kl_log", "kl", {"reduction": "sum", "log_target": True},
          lambda x, y: F.kl_div(x, y, reduction="sum", log_target=True),
          torch.log_softmax(torch.randn(4, 5), 1), torch.log_softmax(torch.randn(4, 5), 1))
save("nn/testdata/torch_losses.safetensors", T, {"cases": json.dumps(cases), "torch": torch.__version__})

# ---------------------------------------------------------------- optimizers
O, ocases = {}, []
p0 = [torch.randn(3, 4, dtype=torch.float32), torch.randn(5, dtype=torch.float32)]
grads = [[torch.randn_like(p) for p in p0] for _ in range(3)]
for s in range(3):
    for i, g in enumerate(grads[s]):
        O[f"grad.{s}.{i}"] = g
for i, p in enumerate(p0):
    O[f"p0.{i}"] = p
configs = [
    ("sgd", "sgd", {"lr": 0.1}),
    ("sgd_momentum_wd", "sgd", {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.01}),
    ("sgd_nesterov", "sgd", {"lr": 0.05, "momentum": 0.8, "nesterov": True}),
    ("sgd_dampening", "sgd", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3}),
    ("adam", "adam", {"lr": 0.01}),
    ("adam_wd_amsgrad", "adam", {"lr": 0.01, "betas": [0.8, 0.9], "eps": 1e-6, "weight_decay": 0.1, "amsgrad": True}),
    ("adamw", "adamw", {"lr": 0.01}),
    ("adamw_wd", "adamw", {"lr": 0.02, "weight_decay": 0.3, "betas": [0.85, 0.95]}),
    ("rmsprop", "rmsprop", {"lr": 0.01}),
    ("rmsprop_all", "rmsprop", {"lr": 0.01, "alpha": 0.9, "eps": 1e-6, "weight_decay": 0.05, "momentum": 0.5, "centered": True}),
    ("adagrad", "adagrad", {"lr": 0.1}),
    ("adagrad_all", "adagrad", {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.02, "initial_accumulator_value": 0.3, "eps": 1e-8}),
]
cls = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW, "rmsprop": torch.optim.RMSprop,
       "adagrad": torch.optim.Adagrad}
for name, kind, args in configs:
    ps = [p.clone().requires_grad_(True) for p in p0]
    kw = dict(args)
    if "betas" in kw:
        kw["betas"] = tuple(kw["betas"])
    opt = cls[kind](ps, **kw)
    for s in range(3):
        for p, g in zip(ps, grads[s]):
            p.grad = g.clone()
        opt.step()
        for i, p in enumerate(ps):
            O[f"{name}.step{s}.{i}"] = p.detach().clone()
    ocases.append({"name": name, "kind": kind, "args": args})

# schedules: the learning rate used by updates 0..29
sched = []
def record(name, args, make, base=0.1, steps=30):
    p = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([p], lr=base)
    s = make(opt)
    lrs = []
    for _ in range(steps):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        s.step()
    O[f"sched.{name}"] = torch.tensor(lrs, dtype=torch.float64)
    sched.append({"name": name, "args": args})


record("step", {"kind": "step", "base": 0.1, "gamma": 0.5, "every": 7}, lambda o: torch.optim.lr_scheduler.StepLR(o, 7, 0.5))
record("exp", {"kind": "exp", "base": 0.1, "gamma": 0.9}, lambda o: torch.optim.lr_scheduler.ExponentialLR(o, 0.9))
record("cosine", {"kind": "cosine", "base": 0.1, "min": 0.001, "warmup": 0, "total": 20},
       lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 20, eta_min=0.001), steps=20)
record("cosine_warmup", {"kind": "cosine", "base": 0.1, "min": 0.0, "warmup": 5, "total": 25},
       lambda o: torch.optim.lr_scheduler.SequentialLR(o, [
           torch.optim.lr_scheduler.LinearLR(o, start_factor=1 / 5, end_factor=1.0, total_iters=4),
           torch.optim.lr_scheduler.CosineAnnealingLR(o, 20)], milestones=[5]), steps=25)
record("onecycle", {"kind": "onecycle", "max": 0.1, "total": 30},
       lambda o: torch.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=30, cycle_momentum=False))
record("onecycle_pct", {"kind": "onecycle", "max": 0.05, "total": 30, "pct": 0.5, "div": 10, "final_div": 100},
       lambda o: torch.optim.lr_scheduler.OneCycleLR(o, max_lr=0.05, total_steps=30, pct_start=0.5, div_factor=10,
                                                     final_div_factor=100, cycle_momentum=False))

# global-norm clipping
cg = [torch.randn(3, 4, dtype=torch.float32) * 3, torch.randn(5, dtype=torch.float32) * 3]
ps = [torch.zeros_like(g, requires_grad=True) for g in cg]
for p, g in zip(ps, cg):
    p.grad = g.clone()
norm = torch.nn.utils.clip_grad_norm_(ps, 2.0)
for i, (g, p) in enumerate(zip(cg, ps)):
    O[f"clip.in.{i}"] = g
    O[f"clip.out.{i}"] = p.grad
O["clip.norm"] = norm.reshape(())
save("optim/testdata/torch_optim.safetensors", O,
     {"cases": json.dumps(ocases), "schedules": json.dumps(sched), "torch": torch.__version__})

# ---------------------------------------------------------------- examples/cnn checkpoint
torch.set_default_dtype(torch.float32)
torch.manual_seed(1)


class CNN(tnn.Module):
    """The architecture of examples/cnn."""

    def __init__(self):
        super().__init__()
        self.conv1 = tnn.Conv2d(1, 16, 5, padding=2)
        self.bn1 = tnn.BatchNorm2d(16)
        self.conv2 = tnn.Conv2d(16, 32, 5, padding=2)
        self.bn2 = tnn.BatchNorm2d(32)
        self.fc1 = tnn.Linear(32 * 7 * 7, 128)
        self.fc2 = tnn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


net = CNN()
opt = torch.optim.Adam(net.parameters(), 1e-3)
for _ in range(3):  # a few steps on noise so the running statistics are not trivial
    x = torch.rand(16, 1, 28, 28)
    loss = F.cross_entropy(net(x), torch.randint(0, 10, (16,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
net.eval()
x = torch.rand(4, 1, 28, 28)
with torch.no_grad():
    y = net(x)
ck = {k: v for k, v in net.state_dict().items()}
save("examples/cnn/testdata/torch_cnn.safetensors", ck, {"format": "pt", "torch": torch.__version__})
save("examples/cnn/testdata/torch_cnn_io.safetensors", {"x": x, "logits": y}, {"torch": torch.__version__})
