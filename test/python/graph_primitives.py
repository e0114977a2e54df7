# The graph builder's primitives beyond the example models (div, shift,
# relu, silu, tanh, sigmoid, exp, sqrt (of a positive argument), erf,
# GELU's tanh form, log_softmax, and LayerNorm without its affine step):
# their backward graphs agree with central finite differences in float64,
# and the emitted IR, forward and backward, computes what the numpy
# reference does when run on the CPU (fp8_mlir.compiler, f32).
# RUN: %host_env %python %s | FileCheck %s
# CHECK: div: 4 gradients match finite differences, IR within 1e-05
# CHECK: shift: 4 gradients match finite differences, IR within 1e-05
# CHECK: relu: 4 gradients match finite differences, IR within 1e-05
# CHECK: silu: 4 gradients match finite differences, IR within 1e-05
# CHECK: tanh: 4 gradients match finite differences, IR within 1e-05
# CHECK: sigmoid: 4 gradients match finite differences, IR within 1e-05
# CHECK: exp: 4 gradients match finite differences, IR within 1e-05
# CHECK: sqrt: 4 gradients match finite differences, IR within 1e-05
# CHECK: erf: 4 gradients match finite differences, IR within 1e-05
# CHECK: gelu_tanh: 4 gradients match finite differences, IR within 1e-05
# CHECK: log_softmax: 4 gradients match finite differences, IR within 1e-05
# CHECK: layernorm: 4 gradients match finite differences, IR within 1e-05

import numpy as np

from fp8_mlir import compiler
from fp8_mlir.graph import Graph

SHAPE = (6, 8)


def build(name):
    g = Graph(name)
    x = g.input("x", SHAPE)
    w = g.input("w", (8, 8))
    h = g.matmul(x, w)
    if name == "div":
        y = g.div(h, g.shift(g.mul(x, x), 1.5))
    elif name == "shift":
        y = g.shift(h, -0.75)
    elif name == "layernorm":
        y = g.layernorm(h, None, None)
    elif name == "sqrt":
        y = g.sqrt(g.shift(g.mul(h, h), 0.5))
    else:
        y = getattr(g, name)(h)
    g.output(g.mul(y, x))
    return g


rng = np.random.default_rng(5)
for name in ["div", "shift", "relu", "silu", "tanh", "sigmoid", "exp", "sqrt", "erf", "gelu_tanh",
             "log_softmax", "layernorm"]:
    forward = build(name)
    backward = forward.gradients(forward.outputs, wrt=forward.params)
    feeds = {"x": rng.standard_normal(SHAPE), "w": rng.standard_normal((8, 8)) / 3,
             "d_0": rng.standard_normal(SHAPE)}
    results = backward.evaluate(feeds)

    def loss(f):
        return float((forward.evaluate(f)[0] * feeds["d_0"]).sum())

    checked = 0
    for param, grad in zip(forward.params, results[1:]):
        key = param.attrs["name"]
        for _ in range(2):
            index = tuple(int(rng.integers(0, s)) for s in param.shape)
            step = 1e-6
            plus, minus = dict(feeds), dict(feeds)
            plus[key], minus[key] = feeds[key].copy(), feeds[key].copy()
            plus[key][index] += step
            minus[key][index] -= step
            numeric = (loss(plus) - loss(minus)) / (2 * step)
            scale = max(np.abs(grad).max(), 1e-3)
            assert abs(numeric - grad[index]) / scale < 1e-6, (name, key, numeric, grad[index])
            checked += 1

    # The IR on the CPU against the float64 reference of the same graph.
    program = compiler.jit(compiler.parse(forward.emit() + backward.emit(), name + ".mlir"))
    f32 = {k: v.astype(np.float32) for k, v in feeds.items()}
    got = program.call(backward.name, *[f32[p.attrs["name"]] for p in backward.params])
    want = backward.evaluate(f32)
    worst = max(np.abs(g - w).max() / max(np.abs(w).max(), 1e-30) for g, w in zip(got, want))
    assert worst < 1e-5, (name, worst)
    got, = program.call(forward.name, f32["x"], f32["w"])
    assert np.abs(got - want[0]).max() <= 1e-5 * np.abs(want[0]).max(), name
    print(f"{name}: {checked} gradients match finite differences, IR within 1e-05")

# Names: an input named like a value the emitter names (%e2, the init of
# node 2; %y, defined in every elementwise body) is renamed in the text,
# and GELU's tanh form after a softmax in bf16 storage (whose top-level %x3
# its body once redefined) parses; both compute what numpy does.
g = Graph("names")
p = g.input("p", (16, 8))
w = g.input("w", (8, 48))
h = g.softmax(g.matmul(p, w))  # node 2 (%e2), softmax node 3 (%x3 in bf16)
e2, y = g.input("e2", (16, 48)), g.input("y", (16, 48))
g.output(g.add(g.gelu_tanh(h), g.mul(e2, y)))
feeds = {"p": rng.standard_normal((16, 8)), "w": rng.standard_normal((8, 48)),
         "e2": rng.standard_normal((16, 48)), "y": rng.standard_normal((16, 48))}
for storage in ["f32", "bf16"]:
    text = g.emit(storage=storage)
    program = compiler.jit(compiler.parse(text, f"names-{storage}.mlir"))
    got, = program.call("names", *[feeds[k].astype(np.float32) for k in ("p", "w", "e2", "y")])
    want, = g.evaluate({k: v.astype(np.float32) for k, v in feeds.items()}, storage=storage)
    close = np.abs(got - want).max() <= (1e-5 if storage == "f32" else 2 ** -7) * np.abs(want).max()
    print(f"names {storage}:", "%in_e2" in text, "%in_y" in text, close)
# CHECK: names f32: True True True
# CHECK: names bf16: True True True
# Renaming is the text's alone: the inputs keep their names.
print("inputs after emit:", [t.name for t in g.params], all("ssa" not in t.attrs for t in g.params))
# CHECK: inputs after emit: ['%p', '%w', '%e2', '%y'] True
