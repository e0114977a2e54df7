"""The example models of examples/: an MLP block, a causal self-attention
block, a GPT-2-style (pre-LayerNorm) transformer layer and a LLaMA-style one
(RMSNorm, rotary embedding, SwiGLU), each as a forward graph and a backward
graph (fp8_mlir.graph), with seeded inputs.

Weights are stored [in, out] and applied as x @ W; the backward graphs return
the forward output, then the gradients of sum(y * d_0) with respect to the
input and every parameter. train_step() writes one more function, an AdamW
step over every parameter (docs/numerics.md section 15), and adamw_reference()
is its numpy counterpart.
"""

import inspect
import math
import zlib

import numpy as np

from fp8_mlir import numerics
from fp8_mlir.graph import Graph, tensor_type

# Tokens, model width, heads, MLP width: small enough for the CPU pipeline,
# with contraction dims of 32 to 512 (partial DeepSeek 128 blocks included).
SEQ, WIDTH, HEADS, HIDDEN = 64, 128, 4, 512

# The sizes examples/generate.py writes: the committed small examples, and
# real sizes for GPU checks and benchmarks (a GPT-2-small layer, a 4096-wide
# one with heads of 128 as in 7B-class models, and the MLP of the first GPU
# measurements: 8192 tokens, 4096 -> 16384 -> 4096), and a ragged one whose
# every contraction dim (200 tokens, width 360, heads of 72, hidden 1000) is
# no multiple of 16, so that FP8 rows are not whole 16-byte units and the
# GPU's kernels pad them (docs/gpu.md).
SIZES = {
    "small": dict(seq=SEQ, width=WIDTH, heads=HEADS, hidden=HIDDEN),
    "ragged": dict(seq=200, width=360, heads=5, hidden=1000),
    "gpt2-small": dict(seq=1024, width=768, heads=12, hidden=3072),
    "4096": dict(seq=1024, width=4096, heads=32, hidden=16384),
    "mlp-8k": dict(seq=8192, width=4096, heads=32, hidden=16384),
    "linear-8k": dict(seq=8192, width=8192, heads=32, hidden=16384),
}
# Sizes that only some models take (8192 tokens of attention would hold
# 32 x 8192 x 8192 scores per tensor, and their float64 check far more).
SIZE_MODELS = {"mlp-8k": ("mlp_block",), "linear-8k": ("linear",)}


def has_size(name, size):
    """Whether model `name` exists at `size` (a key of SIZES)."""
    return name in SIZE_MODELS.get(size, (name,))


def _mlp(g, x, prefix, width, hidden):
    w1 = g.input(f"{prefix}w1", (width, hidden))
    b1 = g.input(f"{prefix}b1", (hidden,))
    w2 = g.input(f"{prefix}w2", (hidden, width))
    b2 = g.input(f"{prefix}b2", (width,))
    h = g.gelu(g.linear(x, w1, b1, name=f"{prefix}fc1"))
    return g.linear(h, w2, b2, name=f"{prefix}fc2")


def _attention(g, x, prefix, seq, width, heads, bias=True, rotate=None):
    """Causal multi-head attention with its projections (with biases unless
    `bias` is false); `rotate` maps the queries' and keys' heads (rotary
    embedding)."""
    head = width // heads
    projections = []
    for part in "qkv":
        w = g.input(f"{prefix}w{part}", (width, width))
        b = g.input(f"{prefix}b{part}", (width,)) if bias else None
        t = g.linear(x, w, b, name=f"{prefix}{part}_proj")
        # [S, D] -> [S, H, Dh] -> [H, S, Dh]
        t = g.transpose(g.reshape(t, (seq, heads, head), [[0], [1, 2]]), [1, 0, 2])
        projections.append(rotate(t) if rotate and part != "v" else t)
    q, k, v = projections
    scores = g.scale(g.matmul(q, k, tb=True, name=f"{prefix}scores"), 1.0 / math.sqrt(head))
    probs = g.softmax(g.causal_fill(scores, -1e4))
    ctx = g.matmul(probs, v, name=f"{prefix}context")
    ctx = g.reshape(g.transpose(ctx, [1, 0, 2]), (seq, width), [[0], [1, 2]])
    wo = g.input(f"{prefix}wo", (width, width))
    bo = g.input(f"{prefix}bo", (width,)) if bias else None
    return g.linear(ctx, wo, bo, name=f"{prefix}out_proj")


def _rms_norm(g, x, gamma, eps=1e-6):
    """x / sqrt(mean(x^2) + eps) * gamma over the last dimension (RMSNorm,
    written out as LLaMA's reference code computes it)."""
    mean = g.scale(g.reduce_sum(g.mul(x, x), [1]), 1.0 / x.shape[1])
    r = g.broadcast(g.rsqrt(mean, eps), x.shape, [1])
    return g.mul(g.mul(x, r), g.broadcast(gamma, x.shape, [0]))


def _rotary(g, t, cos, sin):
    """Rotary position embedding of heads t [H, S, Dh]: t cos + rotate_half(t)
    sin, rotate_half(t) = [-t[..., Dh/2:], t[..., :Dh/2]], the tables [S, Dh]
    broadcast over the heads."""
    head = t.shape[2]
    half = head // 2
    rotated = g.concat([g.scale(g.slice(t, 2, half, head), -1.0), g.slice(t, 2, 0, half)], 2)
    cos = g.broadcast(cos, t.shape, [0])
    sin = g.broadcast(sin, t.shape, [0])
    return g.add(g.mul(t, cos), g.mul(rotated, sin))


def rope_tables(seq, head, base=10000.0):
    """The rotary tables cos and sin [seq, head] in f32: angle p / base^(2i
    / head) for position p and pair i, each half of a row the same angles
    (rotate_half's pairing)."""
    inv_freq = 1.0 / base ** (np.arange(0, head, 2, dtype=np.float64) / head)
    angles = np.outer(np.arange(seq, dtype=np.float64), inv_freq)
    angles = np.concatenate([angles, angles], axis=1)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def linear(seq=SEQ, width=WIDTH):
    """y = x w: one linear layer without a bias, the GEMM alone with the
    quantizations its recipe puts around it."""
    g = Graph("linear_forward")
    x = g.input("x", (seq, width))
    g.output(g.linear(x, g.input("w", (width, width)), name="fc"))
    return g


def mlp_block(seq=SEQ, width=WIDTH, hidden=HIDDEN):
    """y = x + fc2(gelu(fc1(x)))."""
    g = Graph("mlp_block_forward")
    x = g.input("x", (seq, width))
    y = g.add(x, _mlp(g, x, "", width, hidden))
    g.output(y)
    return g


def attention_block(seq=SEQ, width=WIDTH, heads=HEADS):
    """y = x + out_proj(causal multi-head attention(q, k, v projections of
    ln(x)))."""
    g = Graph("attention_block_forward")
    x = g.input("x", (seq, width))
    ln = g.layernorm(x, g.input("ln_gamma", (width,)), g.input("ln_beta", (width,)))
    y = g.add(x, _attention(g, ln, "", seq, width, heads))
    g.output(y)
    return g


def gpt2_layer(seq=SEQ, width=WIDTH, heads=HEADS, hidden=HIDDEN):
    """h = x + attn(ln_1(x)); y = h + mlp(ln_2(h))."""
    g = Graph("gpt2_layer_forward")
    x = g.input("x", (seq, width))
    ln1 = g.layernorm(x, g.input("ln1_gamma", (width,)), g.input("ln1_beta", (width,)))
    h = g.add(x, _attention(g, ln1, "attn_", seq, width, heads))
    ln2 = g.layernorm(h, g.input("ln2_gamma", (width,)), g.input("ln2_beta", (width,)))
    y = g.add(h, _mlp(g, ln2, "mlp_", width, hidden))
    g.output(y)
    return g


def llama_layer(seq=SEQ, width=WIDTH, heads=HEADS, hidden=HIDDEN):
    """A LLaMA-style layer: h = x + attn(rms_1(x)) with rotary embedding of
    the queries and keys, y = h + w2(silu(w1 rms_2(h)) * w3 rms_2(h)) (a
    SwiGLU MLP); no biases. The rotary tables are inputs (rope_cos,
    rope_sin: constants of the model, not trained)."""
    g = Graph("llama_layer_forward")
    head = width // heads
    x = g.input("x", (seq, width))
    cos = g.input("rope_cos", (seq, head))
    sin = g.input("rope_sin", (seq, head))
    n1 = _rms_norm(g, x, g.input("rms1_gamma", (width,)))
    attention = _attention(g, n1, "attn_", seq, width, heads, bias=False,
                           rotate=lambda t: _rotary(g, t, cos, sin))
    h = g.add(x, attention)
    n2 = _rms_norm(g, h, g.input("rms2_gamma", (width,)))
    gate = g.silu(g.linear(n2, g.input("mlp_w1", (width, hidden)), name="mlp_gate"))
    up = g.linear(n2, g.input("mlp_w3", (width, hidden)), name="mlp_up")
    down = g.linear(g.mul(gate, up), g.input("mlp_w2", (hidden, width)), name="mlp_down")
    g.output(g.add(h, down))
    return g


MODELS = {"linear": linear, "mlp_block": mlp_block, "attention_block": attention_block,
          "gpt2_layer": gpt2_layer, "llama_layer": llama_layer}

# Inputs that are constants of a model rather than trained parameters: no
# gradient, no optimizer step.
CONSTANTS = ("rope_cos", "rope_sin")


def build(name, sizes=None):
    """(forward graph, backward graph) of model `name` at `sizes` (seq,
    width, heads, hidden: a value of SIZES; default the small size)."""
    sizes = SIZES["small"] if sizes is None else sizes
    builder = MODELS[name]
    accepted = inspect.signature(builder).parameters
    forward = builder(**{k: v for k, v in sizes.items() if k in accepted})
    wrt = [p for p in forward.params if p.attrs["name"] not in CONSTANTS]
    backward = forward.gradients(forward.outputs, wrt=wrt, name=name + "_backward")
    return forward, backward


def feeds(graph, seed=0):
    """Seeded inputs with the ranges training sees: activations ~ N(0, 1)
    with outlier channels (1 in 16 scaled by 2^4..2^6, as in LLM residual
    streams), weights ~ N(0, 1/fan_in), biases and LayerNorm shifts
    ~ N(0, 0.02), LayerNorm gains ~ 1 + N(0, 0.1), output gradients
    ~ N(0, 1e-3) with per-token magnitudes spread over 2^-6..2^6."""
    result = {}
    for p in graph.params:
        name = p.attrs["name"]
        model = graph.name.rsplit("_", 1)[0]
        rng = np.random.default_rng(zlib.crc32(f"{model}:{name}:{seed}".encode()))
        normal = rng.standard_normal(p.shape)
        if name in CONSTANTS:
            value = rope_tables(*p.shape)[CONSTANTS.index(name)]
        elif name.endswith("gamma"):
            value = 1.0 + 0.1 * normal
        elif name.endswith("beta") or name.split("_")[-1].startswith("b"):
            value = 0.02 * normal
        elif name.startswith("d_"):
            value = 1e-3 * normal * np.exp2(rng.uniform(-6, 6, (p.shape[0], 1)))
        elif len(p.shape) == 2 and name != "x":
            value = normal / math.sqrt(p.shape[0])
        else:
            value = normal
            if name == "x":
                outliers = rng.random(p.shape[-1]) < 1 / 16
                value = value * np.where(outliers, np.exp2(rng.uniform(4, 6, p.shape[-1])), 1.0)
        result[name] = value.astype(np.float32)
    return result


# -- training state ------------------------------------------------------------

# AdamW's hyperparameters (torch.optim.AdamW's defaults), and the
# decoupled weight decay of matrices; vectors (biases, LayerNorm gains and
# shifts) are not decayed, as usual for transformers.
ADAM_B1, ADAM_B2, ADAM_EPS = 0.9, 0.999, 1e-8
WEIGHT_DECAY = 0.01


def parameters(forward):
    """The trained inputs of a forward graph: every input but x and the
    model's constants, in order."""
    return [p for p in forward.params if p.attrs["name"] != "x"
            and p.attrs["name"] not in CONSTANTS]


def decay_of(shape, wd=WEIGHT_DECAY):
    """The weight decay of a parameter of `shape`: wd for matrices (rank 2
    and up), 0 for vectors."""
    return wd if len(shape) >= 2 else 0.0


def _hex(value):
    """An f32 as MLIR's hexadecimal float literal (0x3F666666)."""
    return "0x%08X" % numerics.f32_bits(value)


def adamw_generic(result, ins, outs, t, rank, b1=ADAM_B1, b2=ADAM_B2, eps=ADAM_EPS,
                  wd=WEIGHT_DECAY):
    """The lines (indented by two) of one AdamW step as train_step() writes
    it: `%<result>:3 = linalg.generic` parallel over `rank` loops, ins(w, g,
    m, v, lr, b1t, b2t) and outs(three f32 tensors), the SSA names in `ins`
    and `outs` without their `%`; w, g, m, v and the outs have the tensor
    type `t`, lr, b1t and b2t are tensor<f32>. The results are the new (w,
    m, v). The body is the AdamW step of docs/numerics.md section 15 as one
    f32 arith op per rounding (no fma); b1, b2, eps, the weight decay `wd`
    and fl(1 - b1), fl(1 - b2) are f32 constants of the body, whose values
    are all named %u_... (the caller's must not be)."""
    scalar = tensor_type(())
    dims = [f"d{k}" for k in range(rank)]
    ident = f"affine_map<({', '.join(dims)}) -> ({', '.join(dims)})>"
    point = f"affine_map<({', '.join(dims)}) -> ()>"
    maps = ", ".join([ident] * 4 + [point] * 3 + [ident] * 3)
    iters = ", ".join(['"parallel"'] * rank)
    one = numerics.f32(1)
    constants = {"one": one, "b1": b1, "omb1": one - numerics.f32(b1), "b2": b2,
                 "omb2": one - numerics.f32(b2), "eps": eps, "wd": wd}
    lines = [
        f"  %{result}:3 = linalg.generic {{indexing_maps = [{maps}], iterator_types = "
        f"[{iters}]}} ins({', '.join('%' + v for v in ins)} : "
        f"{t}, {t}, {t}, {t}, {scalar}, {scalar}, {scalar}) "
        f"outs({', '.join('%' + v for v in outs)} : {t}, {t}, {t}) {{",
        "  ^bb0(%u_w: f32, %u_g: f32, %u_m: f32, %u_v: f32, %u_lr: f32, %u_b1t: f32, "
        "%u_b2t: f32, %u_wo: f32, %u_mo: f32, %u_vo: f32):"]
    lines += [f"    %u_{k} = arith.constant {_hex(v)} : f32" for k, v in constants.items()]
    body = [
        "%u_lrwd = arith.mulf %u_lr, %u_wd",
        "%u_decay = arith.subf %u_one, %u_lrwd",
        "%u_wdw = arith.mulf %u_w, %u_decay",
        "%u_m1 = arith.mulf %u_b1, %u_m",
        "%u_m2 = arith.mulf %u_omb1, %u_g",
        "%u_mn = arith.addf %u_m1, %u_m2",
        "%u_v1 = arith.mulf %u_b2, %u_v",
        "%u_v2 = arith.mulf %u_omb2, %u_g",
        "%u_v3 = arith.mulf %u_v2, %u_g",
        "%u_vn = arith.addf %u_v1, %u_v3",
        "%u_r = math.sqrt %u_vn",
        "%u_rb2t = math.sqrt %u_b2t",
        "%u_r2 = arith.divf %u_r, %u_rb2t",
        "%u_d = arith.addf %u_r2, %u_eps",
        "%u_md = arith.divf %u_mn, %u_d",
        "%u_step = arith.divf %u_lr, %u_b1t",
        "%u_up = arith.mulf %u_step, %u_md",
        "%u_wn = arith.subf %u_wdw, %u_up",
    ]
    lines += [f"    {b} : f32" for b in body]
    lines += ["    linalg.yield %u_wn, %u_mn, %u_vn : f32, f32, f32",
              f"  }} -> ({t}, {t}, {t})"]
    return lines


def train_step(forward, backward, b1=ADAM_B1, b2=ADAM_B2, eps=ADAM_EPS, wd=WEIGHT_DECAY):
    """The text of func.func @<model>_train_step: the backward graph, then one
    AdamW step of every parameter on f32 state.

        @<model>_train_step(x, d_0, params..., first moments (<p>_m)...,
                            second moments (<p>_v)..., lr, b1t, b2t)
                            [, the model's constants (rope_cos, rope_sin)])
            -> (y, new params..., new first moments..., new second moments...)

    params in the order of forward.params, lr and the bias corrections
    b1t = 1 - b1^t, b2t = 1 - b2^t as tensor<f32> (the caller counts the
    steps). Each parameter gets one linalg.generic, parallel over its shape,
    ins(w, g, m, v, lr, b1t, b2t) outs(three tensor.empty()), results (w, m,
    v), whose body is the AdamW step of docs/numerics.md section 15 as one
    f32 arith op per rounding (no fma): b1, b2, eps, the weight decay and
    fl(1 - b1), fl(1 - b2) are f32 constants of the body (adamw_generic,
    which bench/gpu/optimizer.py uses for a step alone). Matrices are decayed
    by `wd`, vectors not (decay_of); fp8-optimizer rewrites these generics to
    keep the state in FP8."""
    model = forward.name.rsplit("_", 1)[0]
    x = forward.params[0]
    d_0 = backward.params[-1]
    assert x.attrs["name"] == "x" and d_0.attrs["name"] == "d_0"
    params = parameters(forward)
    names = [p.attrs["name"] for p in params]
    types = [p.type for p in params]
    scalar = tensor_type(())
    args = [f"%x: {x.type}", f"%d_0: {d_0.type}"]
    for suffix in ("", "_m", "_v"):
        args += [f"%{n}{suffix}: {t}" for n, t in zip(names, types)]
    args += [f"%lr: {scalar}", f"%b1t: {scalar}", f"%b2t: {scalar}"]
    # The model's constants (LLaMA's rotary tables), which the backward
    # function reads too.
    constants = [p for p in forward.params if p.attrs["name"] in CONSTANTS]
    args += [f"%{p.attrs['name']}: {p.type}" for p in constants]
    y_type = forward.outputs[0].type
    results = [y_type] + types * 3
    # The function's values; those of the bodies are all %u_..., and none may
    # be defined twice (MLIR rejects a redefinition, in a nested region too).
    taken = ["x", "d_0", "lr", "b1t", "b2t", "bwd"] + [p.attrs["name"] for p in constants]
    taken += [n + s for s in ("", "_m", "_v") for n in names]
    taken += [f"{k}{i}" for i in range(len(params)) for k in ("ew", "em", "ev", "step")]
    if len(set(taken)) != len(taken) or any(n.startswith("u_") for n in taken):
        raise ValueError(f"parameter names of {model} collide with the train step's values")

    lines = [f"func.func @{model}_train_step({', '.join(args)}) -> ({', '.join(results)}) {{"]
    bwd_args = ", ".join("%" + p.attrs["name"] for p in backward.params)
    bwd_types = ", ".join(p.type for p in backward.params)
    bwd_results = ", ".join(o.type for o in backward.outputs)
    lines.append(f"  %bwd:{len(backward.outputs)} = func.call @{backward.name}({bwd_args}) : "
                 f"({bwd_types}) -> ({bwd_results})")
    for i, (p, name) in enumerate(zip(params, names)):
        t = p.type
        for k in "wmv":
            lines.append(f"  %e{k}{i} = tensor.empty() : {t}")
        lines += adamw_generic(f"step{i}", [name, f"bwd#{2 + i}", f"{name}_m", f"{name}_v",
                                            "lr", "b1t", "b2t"],
                               [f"ew{i}", f"em{i}", f"ev{i}"], t, len(p.shape),
                               b1, b2, eps, decay_of(p.shape, wd))
    values = ["%bwd#0"] + [f"%step{i}#{k}" for k in range(3) for i in range(len(params))]
    lines.append(f"  return {', '.join(values)} : {', '.join(results)}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def adamw_reference(forward, params, grads, m, v, lr, b1t, b2t, b1=ADAM_B1, b2=ADAM_B2,
                    eps=ADAM_EPS, wd=WEIGHT_DECAY):
    """train_step()'s AdamW step in numpy (numerics.adamw_step, f32, bit for
    bit): params, grads, m and v map parameter names to float32 arrays;
    returns the new (params, m, v) as dicts."""
    new = ({}, {}, {})
    for p in parameters(forward):
        name = p.attrs["name"]
        step = numerics.adamw_step(params[name], grads[name], m[name], v[name], lr, b1, b2,
                                   eps, decay_of(p.shape, wd), b1t, b2t)
        for out, value in zip(new, step):
            out[name] = value
    return new
