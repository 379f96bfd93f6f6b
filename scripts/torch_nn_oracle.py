#!/usr/bin/python3
"""torch_nn_oracle.py: random reference cases for packages nn and optim.

Where scripts/torch_reference.py writes a few fixed cases, this script draws
many random configurations of every layer, activation, loss, optimizer,
learning-rate schedule and gradient clipping that the Go packages can
express, runs them through PyTorch and records what the Go tests compare:

  nn/testdata/torch_nn_oracle.safetensors.gz
      layers and activations: state dict (PyTorch's names), inputs, output,
      the cotangent `seed`, the gradients of sum(out * seed) with respect to
      the float inputs and the parameters, and the buffers after the call
      (BatchNorm's running statistics after several training calls);
      losses: input, target, weights, value, seed and the gradients with
      respect to the input (and the float target where PyTorch has one).
  optim/testdata/torch_optim_oracle.safetensors.gz
      optimizers: initial parameters, the gradient of every step (absent
      where the parameter has none that step), the parameters after every
      step and the optimizer's per-parameter state after the last one;
      schedules: the learning rate of updates 0..n-1; clipping: gradients
      before and after, and the total norm.

Configurations are drawn per case from a generator seeded with the case's
name, so adding a case leaves the others as they are. Edge points are drawn
on purpose: exact zeros in inputs (ReLU's kink, ties in max pooling, logits
of 0, x == y in L1), differences at exactly Huber's delta, large and small
magnitudes, zero gradients and missing gradients on some steps, f32 and f64.
Only configurations the Go API can express are drawn (see nn/doc.go and
optim/doc.go); the test files list what is left out and why. Also left out,
where the reference would be rounding noise or an artefact of PyTorch's
arithmetic rather than semantics: BatchNorm and LayerNorm over fewer than 3
values (the output is +-1 or the bias whatever the input), centred RMSprop
with alpha 0 (its variance g*g - g*g is PyTorch's fused-rounding residue,
often negative), the gradient of KL divergence with respect to a target of
exactly 0 (xlogy's 0/0), CosineAnnealingLR past T_max (PyTorch turns back
up, Go's Cosine stays at Min, as documented) and OneCycleLR with a warm-up
ending at update 0 (PyTorch divides by zero).

Run from the repository root (PyTorch 1.13, CPU):

    /usr/bin/python3 scripts/torch_nn_oracle.py

The output is byte-identical from run to run.
"""
import gzip
import json
import math
import os
import struct
import warnings
import zlib

import numpy as np
import torch
import torch.nn as tnn
import torch.nn.functional as F

torch.set_num_threads(1)
warnings.filterwarnings("ignore", "The epoch parameter", UserWarning)
torch.use_deterministic_algorithms(True)

DT = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.int32: "I32",
      torch.bool: "BOOL", torch.uint8: "U8"}
FLOAT = {"f32": torch.float32, "f64": torch.float64}


def save(path, tensors, meta):
    """Writes a gzip-compressed safetensors file (the JSON header is most of
    an uncompressed one): names sorted and no time stamp, so the bytes
    depend on the contents only."""
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().contiguous().cpu()
        if t.dtype == torch.bool:
            b = t.numpy().astype(np.uint8).tobytes()
        else:
            b = t.numpy().tobytes()
        header[name] = {"dtype": DT[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    header["__metadata__"] = meta
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    raw = struct.pack("<Q", len(h)) + h + b"".join(blobs)
    z = gzip.compress(raw, compresslevel=9, mtime=0)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(z)
    print(f"{path}: {len(tensors)} tensors, {len(raw)} bytes, {len(z)} compressed")


R = None  # the current case's generator


def seed(name):
    global R
    R = np.random.default_rng(zlib.crc32(name.encode()))


def choice(xs):
    return xs[int(R.integers(len(xs)))]


def flip(p=0.5):
    return bool(R.random() < p)


def rint(lo, hi):
    """An integer in [lo, hi]."""
    return int(R.integers(lo, hi + 1))


def values(shape, dt, edge=None, lo=-2.0, hi=2.0):
    """A float tensor of dt. edge: None (uniform in [lo, hi]), "zeros"
    (a third exact zeros), "int" (small integers: ties), "large", "small"
    (the uniform values scaled far from 1)."""
    n = int(np.prod(shape)) if len(shape) else 1
    if edge == "int":
        a = R.integers(-2, 3, n).astype(np.float64)
    else:
        a = R.uniform(lo, hi, n)
    if edge == "zeros":
        a[R.random(n) < 0.35] = 0.0
    elif edge == "large":
        a *= 10.0 ** (R.uniform(4, 7) if dt == "f32" else R.uniform(8, 14))
    elif edge == "small":
        a *= 10.0 ** -(R.uniform(4, 7) if dt == "f32" else R.uniform(8, 14))
    return torch.tensor(a.reshape(shape), dtype=FLOAT[dt])


def f32ish(v):
    """v rounded to the nearest f32 (Go keeps learning rates as f32)."""
    return float(np.float32(v))


# ---------------------------------------------------------------- layers
NN, LAYERS, LOSSES = {}, [], []


def record_layer(name, kind, dt, args, module, inputs, forward, train=None):
    """Runs forward(module, *inputs) and records the state dict before and
    the buffers after, the inputs, the output and the gradients of
    sum(out * seed) with respect to float inputs and parameters."""
    p = name + "."
    for k, v in module.state_dict().items():
        NN[p + "state." + k] = v.clone()
    ins = []
    for i, x in enumerate(inputs):
        NN[f"{p}in.{i}"] = x
        if x.is_floating_point():
            x = x.clone().requires_grad_(True)
        ins.append(x)
    if train is not None:
        module.train(train)
    out = forward(module, *ins)
    sd = torch.tensor(R.uniform(-1, 1, out.numel()).reshape(out.shape), dtype=out.dtype)
    NN[p + "out"] = out.detach()
    NN[p + "seed"] = sd
    if out.requires_grad:
        (out * sd).sum().backward()
    for i, x in enumerate(ins):
        if x.is_floating_point() and x.grad is not None:
            NN[f"{p}grad.in.{i}"] = x.grad
    for k, q in module.named_parameters():
        if q.grad is not None:
            NN[p + "grad.state." + k] = q.grad
    for k, v in module.named_buffers():
        NN[p + "after." + k] = v.clone()
    LAYERS.append({"name": name, "kind": kind, "dtype": dt, "args": args})


def fill_(module, dt, scale=None):
    """Overwrites every parameter with uniform values of about PyTorch's
    initial size, sometimes with exact zeros."""
    with torch.no_grad():
        for k, q in module.named_parameters():
            fan = q.shape[1] if q.dim() > 1 else q.shape[0]
            b = scale if scale is not None else 1 / math.sqrt(max(fan, 1))
            q.copy_(values(list(q.shape), dt, "zeros" if flip(0.2) else None, -b, b))


def edge_kind():
    return choice([None, None, None, "zeros", "large", "small"])


def gen_linear(i):
    dt = choice(["f32", "f64"])
    fin, fout, bias = rint(1, 6), rint(1, 5), flip(0.7)
    batch = [0] if flip(0.08) else choice([[], [rint(1, 4)], [rint(1, 3), rint(1, 3)]])
    edge = edge_kind()
    m = tnn.Linear(fin, fout, bias=bias, dtype=FLOAT[dt])
    fill_(m, dt)
    record_layer(f"linear_{i:03d}", "linear", dt, {"in": fin, "out": fout, "bias": bias, "edge": edge}, m,
                 [values(batch + [fin], dt, edge)], lambda m, x: m(x))


def gen_conv(i, nd):
    dt = choice(["f32", "f64"])
    groups = choice([1, 1, 2, 3])
    cin, cout = groups * rint(1, 2), groups * rint(1, 3)
    k = rint(1, 3)
    stride = [rint(1, 3) for _ in range(nd)]
    dilation = [rint(1, 2) for _ in range(nd)]
    padding = [rint(0, 2) for _ in range(nd)]
    bias = flip(0.7)
    n = 0 if flip(0.08) else rint(1, 2)
    # each spatial extent at least the dilated kernel
    sp = [dilation[j] * (k - 1) + 1 - 2 * padding[j] + rint(0, 4) for j in range(nd)]
    sp = [max(s, 1) for s in sp]
    edge = edge_kind()
    args = {"in": cin, "out": cout, "k": k, "stride": stride, "padding": padding, "dilation": dilation,
            "groups": groups, "bias": bias, "edge": edge}
    if nd == 2:
        m = tnn.Conv2d(cin, cout, k, stride=tuple(stride), padding=tuple(padding), dilation=tuple(dilation),
                       groups=groups, bias=bias, dtype=FLOAT[dt])
    else:
        m = tnn.Conv1d(cin, cout, k, stride=stride[0], padding=padding[0], dilation=dilation[0], groups=groups,
                       bias=bias, dtype=FLOAT[dt])
    fill_(m, dt)
    record_layer(f"conv{nd}d_{i:03d}", f"conv{nd}d", dt, args, m, [values([n, cin] + sp, dt, edge)],
                 lambda m, x: m(x))


def gen_batchnorm(i):
    dt = choice(["f32", "f64"])
    nd = choice([1, 1, 2])
    c = rint(1, 4)
    eps = choice([1e-5, 1e-5, 1e-3, 0.1])
    momentum = choice([0.1, 0.1, 0.3, 0.9, 1.0, 0.0])
    affine = flip(0.75)
    train = flip(0.65)
    if nd == 2:
        shape = [rint(1, 3), c, rint(1, 3), rint(1, 3)]
    else:
        shape = choice([[rint(2, 5), c], [rint(1, 3), c, rint(1, 4)]])
    # in training, at least 3 values per channel (see gen_layernorm)
    while train and int(np.prod(shape)) // c < 3:
        shape[0] += 1
    calls = rint(1, 3) if train else 1
    edge = choice([None, None, "zeros", "large", "small", "offset"])
    m = (tnn.BatchNorm2d if nd == 2 else tnn.BatchNorm1d)(c, eps=eps, momentum=momentum, affine=affine,
                                                          dtype=FLOAT[dt])
    with torch.no_grad():
        if affine:
            m.weight.copy_(values([c], dt, "zeros" if flip(0.2) else None, 0.5, 1.5))
            m.bias.copy_(values([c], dt))
        m.running_mean.copy_(values([c], dt))
        m.running_var.copy_(values([c], dt, None, 0.2, 2.0))
        m.num_batches_tracked.fill_(rint(0, 5))
    xs = []
    for _ in range(calls):
        if edge == "offset":  # a large mean: cancellation in the variance
            x = values(shape, dt) + (1e3 if dt == "f32" else 1e6)
        else:
            x = values(shape, dt, edge)
        xs.append(x)
    args = {"nd": nd, "c": c, "eps": eps, "momentum": momentum, "affine": affine, "train": train, "calls": calls,
            "edge": edge}
    record_layer(f"batchnorm_{i:03d}", "batchnorm", dt, args, m, xs, lambda m, *xs: torch.stack([m(x) for x in xs]),
                 train=train)


def gen_layernorm(i):
    dt = choice(["f32", "f64"])
    # at least 3 normalised values: over 1 the output is the bias and over 2
    # it is +-1 (times weight, plus bias) whatever the input, and the input's
    # gradient is only rounding noise (the same holds for BatchNorm below)
    nshape = choice([[rint(3, 6)], [rint(3, 6)], [rint(1, 3), rint(3, 4)]])
    batch = [0] if flip(0.08) else choice([[], [rint(1, 3)], [rint(1, 3), rint(1, 3)]])
    eps = choice([1e-5, 1e-5, 1e-3, 0.5])
    affine = flip(0.8)
    edge = choice([None, None, "zeros", "large", "small", "offset", "const"])
    m = tnn.LayerNorm(nshape, eps=eps, elementwise_affine=affine, dtype=FLOAT[dt])
    if affine:
        with torch.no_grad():
            m.weight.copy_(values(nshape, dt, "zeros" if flip(0.2) else None))
            m.bias.copy_(values(nshape, dt))
    if edge == "offset":
        x = values(batch + nshape, dt) + (1e3 if dt == "f32" else 1e6)
    elif edge == "const":  # zero variance over the normalised axes, a mean computed exactly
        x = values(batch + [1] * len(nshape), dt, "int").mul(0.25).expand(batch + nshape).contiguous()
    else:
        x = values(batch + nshape, dt, edge)
    args = {"shape": nshape, "eps": eps, "affine": affine, "edge": edge}
    record_layer(f"layernorm_{i:03d}", "layernorm", dt, args, m, [x], lambda m, x: m(x))


def gen_embedding(i):
    dt = choice(["f32", "f64"])
    num, dim = rint(1, 7), rint(1, 4)
    pad = choice([None, None, rint(0, num - 1), -rint(1, num)])
    idt = choice([torch.int64, torch.int32])
    shape = [0] if flip(0.08) else choice([[], [rint(1, 5)], [rint(1, 3), rint(1, 4)]])
    m = tnn.Embedding(num, dim, padding_idx=pad, dtype=FLOAT[dt])
    with torch.no_grad():  # the padding row as a checkpoint might hold it: not always zero
        m.weight.copy_(values([num, dim], dt))
    n = int(np.prod(shape)) if shape else 1
    idx = R.integers(0, num, n)
    if pad is not None and n > 1:
        idx[R.random(n) < 0.3] = pad % num
    args = {"num": num, "dim": dim, "padding_idx": pad, "index": "i64" if idt == torch.int64 else "i32"}
    record_layer(f"embedding_{i:03d}", "embedding", dt, args, m, [torch.tensor(idx.reshape(shape), dtype=idt)],
                 lambda m, x: m(x))


def gen_dropout(i):
    dt = choice(["f32", "f64"])
    mode = choice(["eval", "eval", "train0", "train1"])
    p = {"eval": choice([0.0, 0.1, 0.5, 0.9, 1.0]), "train0": 0.0, "train1": 1.0}[mode]
    shape = [rint(1, 3), rint(1, 4)]
    x = values(shape, dt, edge_kind())
    m = tnn.Dropout(p)
    record_layer(f"dropout_{i:03d}", "dropout", dt, {"p": p, "train": mode != "eval"}, m, [x], lambda m, x: m(x),
                 train=mode != "eval")


def gen_mha(i):
    dt = choice(["f32", "f64"])
    heads = rint(1, 3)
    embed = heads * rint(1, 3)
    bias = flip(0.75)
    b, l = rint(1, 2), rint(1, 4)
    self_attn = flip(0.4)
    s = l if self_attn else rint(1, 4)
    causal = flip(0.4)
    key_padding = flip(0.4) and s > 1
    need_weights = flip(0.4)
    dropout = choice([0.0, 0.0, 0.3])
    edge = choice([None, None, None, "zeros", "large"])
    m = tnn.MultiheadAttention(embed, heads, dropout=dropout, bias=bias, batch_first=True, dtype=FLOAT[dt])
    fill_(m, dt)
    if edge == "large":
        # large scores: a softmax that saturates (scaled inputs would overflow f32 products)
        with torch.no_grad():
            m.in_proj_weight.mul_(30)
        edge = None
        big = True
    else:
        big = False
    q = values([b, l, embed], dt, edge)
    ins = [q] if self_attn else [q, values([b, s, embed], dt, edge), values([b, s, embed], dt, edge)]
    kpm = None
    if key_padding:  # key 0 always attended, so no row is entirely masked
        kp = R.random((b, s)) < 0.4
        kp[:, 0] = False
        kpm = torch.tensor(kp)
        ins.append(kpm)
    mask = torch.triu(torch.ones(l, s, dtype=torch.bool), diagonal=1) if causal else None

    def fwd(m, *xs):
        qq, kk, vv = (xs[0], xs[0], xs[0]) if self_attn else xs[:3]
        out, w = m(qq, kk, vv, key_padding_mask=kpm, attn_mask=mask, need_weights=need_weights)
        if need_weights:
            return torch.cat([out.flatten(), w.flatten()])
        return out

    args = {"embed": embed, "heads": heads, "bias": bias, "self": self_attn, "causal": causal,
            "key_padding": key_padding, "need_weights": need_weights, "dropout": dropout, "large": big}
    record_layer(f"mha_{i:03d}", "mha", dt, args, m, ins, fwd, train=False)


def gen_rnn(i, cell):
    dt = choice(["f32", "f64"])
    fin, hidden, bias = rint(1, 4), rint(1, 4), flip(0.75)
    b = rint(1, 3)
    unroll = flip(0.4)
    with_state = flip(0.6)
    edge = choice([None, None, "zeros", "large"])
    m = (tnn.GRUCell if cell == "gru" else tnn.LSTMCell)(fin, hidden, bias=bias, dtype=FLOAT[dt])
    fill_(m, dt)
    t = rint(1, 3) if unroll else 1
    x = values([b, t, fin] if unroll else [b, fin], dt, edge)
    ins = [x]
    if with_state:
        ins.append(values([b, hidden], dt))
        if cell == "lstm":
            ins.append(values([b, hidden], dt))

    def fwd(m, x, *st):
        if cell == "gru":
            h = st[0] if st else None
            if not unroll:
                return m(x, h)
            outs = []
            for j in range(x.shape[1]):
                h = m(x[:, j], h)
                outs.append(h)
            return torch.stack(outs, 1)
        hc = (st[0], st[1]) if st else None
        if not unroll:
            return torch.cat(m(x, hc), 1)
        outs = []
        for j in range(x.shape[1]):
            hc = m(x[:, j], hc)
            outs.append(hc[0])
        return torch.cat([torch.stack(outs, 1).flatten(1), hc[1]], 1)

    args = {"in": fin, "hidden": hidden, "bias": bias, "unroll": unroll, "state": with_state, "edge": edge}
    record_layer(f"{cell}_{i:03d}", cell, dt, args, m, ins, fwd)


def gen_pool(i):
    dt = choice(["f32", "f64"])
    fn = choice(["max2d", "max2d", "avg2d", "avg2d", "max1d", "avg1d", "global"])
    k = rint(1, 3)
    nd = 1 if fn.endswith("1d") else 2
    stride = [rint(1, 3) for _ in range(nd)]
    padding = [rint(0, k // 2) for _ in range(nd)]
    sp = [max(1, k - 2 * padding[j] + rint(0, 4)) for j in range(nd)]
    shape = [0 if flip(0.08) else rint(1, 2), rint(1, 3)] + ([rint(1, 4), rint(1, 4)] if fn == "global" else sp)
    edge = choice([None, "int", "int", "zeros", "large"])
    x = values(shape, dt, edge)
    ident = tnn.Identity()
    fwd = {
        "max2d": lambda m, x: F.max_pool2d(x, k, tuple(stride), tuple(padding)),
        "avg2d": lambda m, x: F.avg_pool2d(x, k, tuple(stride), tuple(padding)),
        "max1d": lambda m, x: F.max_pool1d(x, k, stride[0], padding[0]),
        "avg1d": lambda m, x: F.avg_pool1d(x, k, stride[0], padding[0]),
        "global": lambda m, x: F.adaptive_avg_pool2d(x, 1).flatten(1),
    }[fn]
    args = {"fn": fn, "k": k, "stride": stride, "padding": padding, "edge": edge}
    record_layer(f"pool_{i:03d}", "pool", dt, args, ident, [x], fwd)


ACTS = {
    "relu": lambda x, ax: F.relu(x),
    "gelu": lambda x, ax: F.gelu(x, approximate="tanh"),
    "sigmoid": lambda x, ax: torch.sigmoid(x),
    "tanh": lambda x, ax: torch.tanh(x),
    "softmax": lambda x, ax: F.softmax(x, ax),
    "log_softmax": lambda x, ax: F.log_softmax(x, ax),
}


def gen_act(i):
    dt = choice(["f32", "f64"])
    fn = choice(sorted(ACTS))
    shape = [0, 3] if flip(0.06) else choice([[rint(1, 5)], [rint(1, 3), rint(1, 4)], [rint(1, 2), rint(1, 3), rint(1, 3)]])
    axis = rint(-len(shape), len(shape) - 1)
    edge = choice([None, "zeros", "zeros", "large", "small"])
    x = values(shape, dt, edge)
    args = {"fn": fn, "axis": axis, "edge": edge}
    record_layer(f"act_{i:03d}", "act", dt, args, tnn.Identity(), [x], lambda m, x: ACTS[fn](x, axis))


# ---------------------------------------------------------------- losses
REDS = ["mean", "sum", "none"]


def record_loss(name, kind, dt, args, fn, x, y, extra=None, grad_y=True):
    """Records fn(x, y) and the gradients of sum(out * seed) with respect to
    x and (grad_y, float targets) y. extra: named weight tensors."""
    p = name + "."
    NN[p + "x"], NN[p + "y"] = x, y
    for k, v in (extra or {}).items():
        NN[p + k] = v
    xg = x.clone().requires_grad_(True)
    yg = y.clone().requires_grad_(True) if (grad_y and y.is_floating_point()) else y
    out = fn(xg, yg)
    sd = torch.tensor(R.uniform(-1, 1, out.numel()).reshape(out.shape), dtype=out.dtype)
    (out * sd).sum().backward()
    NN[p + "out"], NN[p + "seed"] = out.detach(), sd
    NN[p + "grad.x"] = xg.grad
    if yg is not y and yg.grad is not None:
        NN[p + "grad.y"] = yg.grad
    LOSSES.append({"name": name, "kind": kind, "dtype": dt, "args": args})


def class_shape():
    """Input shape [N, C, d...] or [C] and the target shape."""
    c = rint(1, 5)
    form = choice(["nc", "nc", "nc", "c", "ncd"])
    if form == "c":
        return [c], [], c
    n = 0 if flip(0.06) else rint(1, 5)  # no samples: a mean of 0/0
    d = [rint(1, 3) for _ in range(rint(1, 2))] if form == "ncd" else []
    return [n, c] + d, [n] + d, c


def class_targets(tshape, c, ignore):
    n = int(np.prod(tshape)) if tshape else 1
    t = R.integers(0, c, n)
    if ignore is not None:
        if flip(0.15):
            t[:] = ignore  # every target ignored: the mean is 0/0
        else:
            t[R.random(n) < 0.3] = ignore
    return torch.tensor(t.reshape(tshape), dtype=torch.int64)


def gen_ce(i, kind):
    dt = choice(["f32", "f64"])
    xshape, tshape, c = class_shape()
    red = choice(REDS)
    weighted = flip(0.4)
    args = {"reduction": red, "weight": weighted}
    extra = {}
    w = None
    if weighted:
        w = values([c], dt, "zeros" if flip(0.2) else None, 0.0, 2.0)
        extra["w"] = w
    edge = choice([None, None, "zeros", "large", "small"])
    x = values(xshape, dt, edge, -3, 3)
    if kind == "nll":
        x = torch.log_softmax(x, 1 if len(xshape) > 1 else 0) if flip(0.7) else x
    if kind == "ce_prob":
        p = values(xshape, dt, "zeros" if flip(0.3) else None, 0.0, 1.0)
        if flip(0.7):
            ax = 1 if len(xshape) > 1 else 0
            p = p / p.sum(ax, keepdim=True).clamp_min(1e-3)
        y = p
        ignore = None
    else:
        ignore = choice([None, None, -100, rint(0, c - 1)])
        y = class_targets(tshape, c, ignore)
    smoothing = 0.0
    if kind != "nll" and flip(0.5):
        smoothing = choice([0.05, 0.1, 0.3, 1.0])
    if ignore is not None:
        args["ignore"] = ignore
    if smoothing:
        args["smoothing"] = smoothing
    args["edge"] = edge

    def fn(x, y):
        kw = {"reduction": red}
        if w is not None:
            kw["weight"] = w
        if ignore is not None:
            kw["ignore_index"] = ignore
        if kind == "nll":
            return F.nll_loss(x, y, **kw)
        return F.cross_entropy(x, y, label_smoothing=smoothing, **kw)

    record_loss(f"{kind}_{i:03d}", "ce" if kind.startswith("ce") else "nll", dt, args, fn, x, y, extra)


def gen_bce(i):
    dt = choice(["f32", "f64"])
    shape = [0, 2] if flip(0.08) else choice([[rint(1, 4)], [rint(1, 4), rint(1, 4)], [rint(1, 3), rint(1, 3), rint(1, 3)]])
    red = choice(REDS)
    edge = choice([None, "zeros", "zeros", "large", "small"])
    x = values(shape, dt, edge, -4, 4)
    y = values(shape, dt, None, 0.0, 1.0)
    m = R.random(y.shape) < 0.4
    y[torch.tensor(m)] = torch.tensor(R.integers(0, 2, int(m.sum())), dtype=y.dtype)  # exact 0 and 1 targets
    wform = choice([None, None, "last", "full"])
    pw = flip(0.5)
    extra = {}
    kw = {"reduction": red}
    if wform:
        ws = [shape[-1]] if wform == "last" else shape
        extra["w"] = kw["weight"] = values(ws, dt, "zeros" if flip(0.2) else None, 0.0, 2.0)
    if pw:
        extra["pw"] = kw["pos_weight"] = values([shape[-1]], dt, "zeros" if flip(0.2) else None, 0.0, 3.0)
    args = {"reduction": red, "weight": wform, "pos_weight": pw, "edge": edge}
    record_loss(f"bce_{i:03d}", "bce", dt, args, lambda x, y: F.binary_cross_entropy_with_logits(x, y, **kw), x, y,
                extra)


def gen_regression(i, kind):
    dt = choice(["f32", "f64"])
    shape = [0] if flip(0.08) else choice([[rint(1, 5)], [rint(1, 3), rint(1, 4)], [rint(1, 2), rint(1, 3), rint(1, 3)]])
    red = choice(REDS)
    edge = choice([None, "zeros", "large", "small", "tie"])
    delta = choice([1.0, 0.5, 0.25, 2.0])
    y = values(shape, dt, "zeros" if edge == "zeros" else edge if edge in ("large", "small") else None)
    x = values(shape, dt, "zeros" if edge == "zeros" else edge if edge in ("large", "small") else None)
    if edge == "zeros":  # some x == y exactly
        eq = torch.tensor(R.random(shape) < 0.3)
        x[eq] = y[eq]
    if edge == "tie":  # |x - y| exactly delta (and exactly 0) somewhere: the branch points
        y = torch.tensor(R.integers(-4, 5, y.numel()).reshape(shape) * 0.25, dtype=FLOAT[dt])
        d = torch.tensor(R.choice([-delta, delta, 0.0, 0.5, -1.5], y.numel()).reshape(shape), dtype=FLOAT[dt])
        x = y + d
    args = {"reduction": red, "edge": edge}
    if kind == "mse":
        fn = lambda x, y: F.mse_loss(x, y, reduction=red)  # noqa: E731
    elif kind == "l1":
        fn = lambda x, y: F.l1_loss(x, y, reduction=red)  # noqa: E731
    elif kind == "huber":
        args["delta"] = delta
        fn = lambda x, y: F.huber_loss(x, y, reduction=red, delta=delta)  # noqa: E731
    else:
        args["delta"] = delta
        fn = lambda x, y: F.smooth_l1_loss(x, y, reduction=red, beta=delta)  # noqa: E731
    record_loss(f"{kind}_{i:03d}", kind, dt, args, fn, x, y)


def gen_kl(i):
    dt = choice(["f32", "f64"])
    shape = choice([[rint(1, 4), rint(1, 5)], [rint(1, 2), rint(1, 3), rint(1, 3)], [rint(1, 5)]])
    red = choice(["mean", "sum", "none", "batchmean"])
    log_target = flip(0.4)
    ax = len(shape) - 1
    x = torch.log_softmax(values(shape, dt, None, -3, 3), ax)
    zeros = False
    if log_target:
        y = torch.log_softmax(values(shape, dt, None, -3, 3), ax)
    else:
        y = torch.softmax(values(shape, dt, None, -3, 3), ax)
        if flip(0.4):
            y[torch.tensor(R.random(shape) < 0.3)] = 0.0
            zeros = True
    args = {"reduction": red, "log_target": log_target}
    # PyTorch's gradient with respect to a target of exactly 0 is NaN
    # (xlogy's 0/0): only the input's gradient is recorded then.
    record_loss(f"kl_{i:03d}", "kl", dt, args, lambda x, y: F.kl_div(x, y, reduction=red, log_target=log_target),
                x, y, grad_y=not zeros)


# ---------------------------------------------------------------- optimizers
OP, OPTS, SCHEDS, CLIPS = {}, [], [], []
OPT_CLASS = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW,
             "rmsprop": torch.optim.RMSprop, "adagrad": torch.optim.Adagrad}


def draw_hparams(kind):
    lr = choice([1e-3, 0.01, 0.1, 0.5])
    a = {"lr": lr}
    if kind == "sgd":
        if flip(0.7):
            a["momentum"] = choice([0.5, 0.9, 0.99])
            if flip(0.4):
                a["nesterov"] = True
            elif flip(0.5):
                a["dampening"] = choice([0.1, 0.5, 1.0])
        if flip(0.5):
            a["weight_decay"] = choice([1e-4, 0.01, 0.1])
    elif kind in ("adam", "adamw"):
        if flip(0.5):
            a["betas"] = [choice([0.0, 0.5, 0.8, 0.9]), choice([0.9, 0.99, 0.999, 0.9999])]
        if flip(0.4):
            a["eps"] = choice([1e-8, 1e-6, 1e-3, 0.0])
        if flip(0.5):
            a["weight_decay"] = choice([0.0, 1e-4, 0.01, 0.3])
        if flip(0.4):
            a["amsgrad"] = True
    elif kind == "rmsprop":
        if flip(0.5):
            a["alpha"] = choice([0.0, 0.5, 0.9, 0.999])
        if flip(0.4):
            a["eps"] = choice([1e-8, 1e-6, 1e-3])
        if flip(0.4):
            a["weight_decay"] = choice([1e-4, 0.01, 0.1])
        if flip(0.5):
            a["momentum"] = choice([0.5, 0.9])
        if flip(0.5) and a.get("alpha") != 0.0:
            # (alpha 0 centred: the variance of one sample, g*g - g*g, is 0 in
            # Go and PyTorch's fused rounding residue, often negative: NaN)
            a["centered"] = True
    elif kind == "adagrad":
        if flip(0.5):
            a["lr_decay"] = choice([0.01, 0.1, 1.0])
        if flip(0.4):
            a["weight_decay"] = choice([1e-4, 0.01, 0.1])
        if flip(0.4):
            a["initial_accumulator_value"] = choice([0.0, 0.1, 1.0])
        if flip(0.4):
            a["eps"] = choice([1e-10, 1e-6, 1e-3])
    return a


def draw_schedule(steps):
    """A schedule config (Go names) and a PyTorch scheduler maker."""
    kind = choice(["step", "exp", "cosine", "onecycle"])
    if kind == "step":
        a = {"kind": "step", "gamma": choice([0.1, 0.5, 0.9, 0.99]), "every": rint(1, 4)}
        return a, lambda o: torch.optim.lr_scheduler.StepLR(o, a["every"], a["gamma"])
    if kind == "exp":
        a = {"kind": "exp", "gamma": choice([0.5, 0.9, 0.999])}
        return a, lambda o: torch.optim.lr_scheduler.ExponentialLR(o, a["gamma"])
    if kind == "cosine":
        warm = choice([0, 0, 1, 2, 3])
        # at least steps-1: past T_max PyTorch's cosine turns back up, Go's stays at Min
        total = max(warm + 1, steps - 1) + rint(0, 3)
        a = {"kind": "cosine", "min": choice([0.0, 0.0, 1e-4]), "warmup": warm, "total": total}
        return a, lambda o: cosine_sched(o, a, o.param_groups[0]["lr"])
    total = max(steps, rint(2, steps + 4))
    pct = choice([0.0, 0.25, 0.5])
    if (pct or 0.3) * total == 1:  # a warm-up phase ending at update 0: PyTorch divides by zero
        total += 1
    a = {"kind": "onecycle", "total": total, "pct": pct, "div": choice([0.0, 10.0]), "final_div": choice([0.0, 100.0])}
    return a, lambda o: onecycle_sched(o, a, o.param_groups[0]["lr"])


def cosine_sched(o, a, base):
    sch = torch.optim.lr_scheduler
    cos = lambda: sch.CosineAnnealingLR(o, a["total"] - a["warmup"], eta_min=a["min"])  # noqa: E731
    if a["warmup"] == 0:
        return cos()
    if a["warmup"] == 1:  # LinearLR over 0 iterations is not allowed: the warm-up is just base
        return sch.SequentialLR(o, [sch.ConstantLR(o, factor=1.0, total_iters=0), cos()], milestones=[1])
    return sch.SequentialLR(o, [sch.LinearLR(o, start_factor=1 / a["warmup"], end_factor=1.0,
                                             total_iters=a["warmup"] - 1), cos()], milestones=[a["warmup"]])


def onecycle_sched(o, a, mx):
    kw = {"max_lr": mx, "total_steps": a["total"], "cycle_momentum": False}
    if a["pct"]:
        kw["pct_start"] = a["pct"]
    if a["div"]:
        kw["div_factor"] = a["div"]
    if a["final_div"]:
        kw["final_div_factor"] = a["final_div"]
    return torch.optim.lr_scheduler.OneCycleLR(o, **kw)


def gen_optim(i, kind):
    name = f"{kind}_{i:03d}"
    dt = choice(["f32", "f32", "f64"])
    a = draw_hparams(kind)
    if dt == "f64":
        a["lr"] = f32ish(a["lr"])  # the learning rate is an f32 tensor in Go
    nparams = rint(1, 3)
    shapes = [choice([[], [rint(1, 4)], [rint(1, 3), rint(1, 3)]]) for _ in range(nparams)]
    steps = rint(2, 6)
    pscale = choice([1.0, 1.0, 1e3, 1e-3])
    p0 = [values(s, dt, "zeros" if flip(0.3) else None) * pscale for s in shapes]
    # per step and parameter: a normal gradient, a zero one, none, a large or a small one
    pattern = [[choice(["n", "n", "n", "n", "0", "-", "L", "S"]) for _ in range(nparams)] for _ in range(steps)]
    clip = None
    if flip(0.25):
        clip = {"norm": choice([0.1, 1.0, 100.0])} if flip(0.7) else {"value": choice([0.05, 0.5])}
    sched = None
    if flip(0.3):
        sched, make = draw_schedule(steps)
    args = dict(a)
    args.update({"params": nparams, "steps": steps, "clip": clip, "schedule": sched})
    ps = [p.clone().requires_grad_(True) for p in p0]
    kw = dict(a)
    if "betas" in kw:
        kw["betas"] = tuple(kw["betas"])
    opt = OPT_CLASS[kind](ps, **kw)
    sch = make(opt) if sched else None
    for j, p in enumerate(p0):
        OP[f"{name}.p0.{j}"] = p
    for s in range(steps):
        for j, (p, pat) in enumerate(zip(ps, pattern[s])):
            if pat == "-":
                p.grad = None
                continue
            g = values(shapes[j], dt)
            if pat == "0":
                g = torch.zeros_like(g)
            elif pat == "L":
                g = g * (1e4 if dt == "f32" else 1e8)
            elif pat == "S":
                g = g * (1e-4 if dt == "f32" else 1e-8)
            OP[f"{name}.grad.{s}.{j}"] = g
            p.grad = g.clone()
        if clip and "norm" in clip:
            torch.nn.utils.clip_grad_norm_([p for p in ps if p.grad is not None], clip["norm"])
        elif clip:
            torch.nn.utils.clip_grad_value_([p for p in ps if p.grad is not None], clip["value"])
        opt.step()
        if sch:
            sch.step()
        for j, p in enumerate(ps):
            OP[f"{name}.after.{s}.{j}"] = p.detach().clone()
    for j, st in opt.state_dict()["state"].items():
        for k, v in st.items():
            if v is None:
                continue
            if not torch.is_tensor(v):
                v = torch.tensor(v)
            OP[f"{name}.state.{j}.{k}"] = v.detach().clone().to(torch.float64 if k == "step" else v.dtype)
    OPTS.append({"name": name, "kind": kind, "dtype": dt, "args": args})


def gen_schedule(i):
    name = f"sched_{i:03d}"
    n = rint(5, 40)
    a, make = draw_schedule(n)
    if a["kind"] == "cosine":  # PyTorch's cosine turns back up after T_max; Go's stays at Min
        n = min(n, a["total"] + 1)
    if a["kind"] == "onecycle":  # PyTorch refuses to step past total_steps
        n = min(n, a["total"])
    base = choice([0.1, 1.0, 3e-4])
    a["base"] = base
    p = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([p], lr=base)
    s = make(opt)
    lrs = []
    for _ in range(n):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        s.step()
    OP[name] = torch.tensor(lrs, dtype=torch.float64)
    SCHEDS.append({"name": name, "args": a})


def gen_clip(i):
    name = f"clip_{i:03d}"
    dt = choice(["f32", "f64"])
    n = rint(1, 4)
    gs = []
    for j in range(n):
        pat = choice(["n", "n", "n", "0", "-", "L", "S"])
        if pat == "-":
            gs.append(None)
            continue
        g = values(choice([[], [rint(1, 4)], [rint(1, 3), rint(1, 3)]]), dt, "zeros" if flip(0.2) else None)
        if pat == "0":
            g = torch.zeros_like(g)
        elif pat == "L":
            g = g * (1e15 if dt == "f32" else 1e20)
        elif pat == "S":
            g = g * 1e-8
        gs.append(g)
    mode = choice(["norm", "norm", "norm", "value"])
    limit = choice([1e-3, 0.5, 1.0, 10.0, 1e6])
    ps = []
    for j, g in enumerate(gs):
        if g is None:
            continue
        OP[f"{name}.in.{j}"] = g
        p = torch.zeros_like(g, requires_grad=True)
        p.grad = g.clone()
        ps.append((j, p))
    if mode == "norm":
        norm = torch.nn.utils.clip_grad_norm_([p for _, p in ps], limit)
        OP[f"{name}.norm"] = norm.reshape(()).to(FLOAT[dt]) if torch.is_tensor(norm) else torch.tensor(norm)
    else:
        torch.nn.utils.clip_grad_value_([p for _, p in ps], limit)
    for j, p in ps:
        OP[f"{name}.out.{j}"] = p.grad
    CLIPS.append({"name": name, "dtype": dt, "args": {"mode": mode, "limit": limit, "n": n}})


# ---------------------------------------------------------------- counts
def run(prefix, n, gen, *a):
    for i in range(n):
        seed(f"{prefix}_{i}")
        gen(i, *a)


run("linear", 16, gen_linear)
run("conv2d", 20, gen_conv, 2)
run("conv1d", 12, gen_conv, 1)
run("batchnorm", 24, gen_batchnorm)
run("layernorm", 16, gen_layernorm)
run("embedding", 14, gen_embedding)
run("dropout", 10, gen_dropout)
run("mha", 20, gen_mha)
run("gru", 10, gen_rnn, "gru")
run("lstm", 10, gen_rnn, "lstm")
run("pool", 24, gen_pool)
run("act", 24, gen_act)
run("ce_idx", 40, gen_ce, "ce_idx")
run("ce_prob", 16, gen_ce, "ce_prob")
run("nll", 20, gen_ce, "nll")
run("bce", 24, gen_bce)
for kind in ["mse", "l1", "huber", "smoothl1"]:
    run(kind, 10, gen_regression, kind)
run("kl", 12, gen_kl)
save("nn/testdata/torch_nn_oracle.safetensors.gz", NN,
     {"layers": json.dumps(LAYERS), "losses": json.dumps(LOSSES), "torch": torch.__version__})

for kind in OPT_CLASS:
    run(kind, 24, gen_optim, kind)
run("sched", 40, gen_schedule)
run("clip", 24, gen_clip)
save("optim/testdata/torch_optim_oracle.safetensors.gz", OP,
     {"optimizers": json.dumps(OPTS), "schedules": json.dumps(SCHEDS), "clips": json.dumps(CLIPS),
      "torch": torch.__version__})
