"""The example models of examples/: an MLP block, a causal self-attention
block and a GPT-2-style (pre-LayerNorm) transformer layer, each as a forward
graph and a backward graph (fp8_mlir.graph), with seeded inputs.

Weights are stored [in, out] and applied as x @ W; the backward graphs return
the forward output, then the gradients of sum(y * d_0) with respect to the
input and every parameter.
"""

import inspect
import math
import zlib

import numpy as np

from fp8_mlir.graph import Graph

# Tokens, model width, heads, MLP width: small enough for the CPU pipeline,
# with contraction dims of 32 to 512 (partial DeepSeek 128 blocks included).
SEQ, WIDTH, HEADS, HIDDEN = 64, 128, 4, 512

# The sizes examples/generate.py writes: the committed small examples, and
# real sizes for GPU checks and benchmarks (a GPT-2-small layer, and a
# 4096-wide one with heads of 128 as in 7B-class models).
SIZES = {
    "small": dict(seq=SEQ, width=WIDTH, heads=HEADS, hidden=HIDDEN),
    "gpt2-small": dict(seq=1024, width=768, heads=12, hidden=3072),
    "4096": dict(seq=1024, width=4096, heads=32, hidden=16384),
}


def _mlp(g, x, prefix, width, hidden):
    w1 = g.input(f"{prefix}w1", (width, hidden))
    b1 = g.input(f"{prefix}b1", (hidden,))
    w2 = g.input(f"{prefix}w2", (hidden, width))
    b2 = g.input(f"{prefix}b2", (width,))
    h = g.gelu(g.linear(x, w1, b1, name=f"{prefix}fc1"))
    return g.linear(h, w2, b2, name=f"{prefix}fc2")


def _attention(g, x, prefix, seq, width, heads):
    head = width // heads
    projections = []
    for part in "qkv":
        w = g.input(f"{prefix}w{part}", (width, width))
        b = g.input(f"{prefix}b{part}", (width,))
        t = g.linear(x, w, b, name=f"{prefix}{part}_proj")
        # [S, D] -> [S, H, Dh] -> [H, S, Dh]
        t = g.reshape(t, (seq, heads, head), [[0], [1, 2]])
        projections.append(g.transpose(t, [1, 0, 2]))
    q, k, v = projections
    scores = g.scale(g.matmul(q, k, tb=True, name=f"{prefix}scores"), 1.0 / math.sqrt(head))
    probs = g.softmax(g.causal_fill(scores, -1e4))
    ctx = g.matmul(probs, v, name=f"{prefix}context")
    ctx = g.reshape(g.transpose(ctx, [1, 0, 2]), (seq, width), [[0], [1, 2]])
    wo = g.input(f"{prefix}wo", (width, width))
    bo = g.input(f"{prefix}bo", (width,))
    return g.linear(ctx, wo, bo, name=f"{prefix}out_proj")


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


MODELS = {"mlp_block": mlp_block, "attention_block": attention_block, "gpt2_layer": gpt2_layer}


def build(name, sizes=None):
    """(forward graph, backward graph) of model `name` at `sizes` (seq,
    width, heads, hidden: a value of SIZES; default the small size)."""
    sizes = SIZES["small"] if sizes is None else sizes
    builder = MODELS[name]
    accepted = inspect.signature(builder).parameters
    forward = builder(**{k: v for k, v in sizes.items() if k in accepted})
    backward = forward.gradients(forward.outputs, wrt=forward.params,
                                 name=name + "_backward")
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
        if name.endswith("gamma"):
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
