"""Standard deviations of layer outputs under fp8-unit-scale, run on the CPU.

  unit_std.py BUILD_DIR [PASSES...]

Builds small graphs on unit-variance random inputs and unit-variance weights
(Unit Scaling's initialization), compiles them with PASSES and
fp8-cpu-pipeline, and prints the standard deviation of every output. The
graphs: a K=512 matmul; an MLP block (fc1, GELU, fc2, residual add); the
backward GEMMs of a linear layer (dgrad over N, wgrad over M); a softmax over
64 logits.
"""

import sys

import numpy as np

from fp8_mlir.graph import Graph, run


def matmul_512(g):
    x, w = g.input("x", (64, 512)), g.input("w", (512, 64))
    g.output(g.matmul(x, w))
    return ["matmul K=512"]


def mlp(g):
    x = g.input("x", (64, 256))
    w1, w2 = g.input("w1", (256, 512)), g.input("w2", (512, 256))
    h = g.matmul(x, w1)
    a = g.gelu(h)
    o = g.matmul(a, w2)
    y = g.add(x, o)
    g.output(h, a, o, y)
    return ["mlp fc1", "mlp gelu", "mlp fc2", "mlp residual"]


def linear_backward(g):
    x, w, dy = g.input("x", (256, 128)), g.input("w", (128, 512)), g.input("dy", (256, 512))
    g.output(g.matmul(dy, w, tb=True, role="dgrad"), g.matmul(x, dy, ta=True, role="wgrad",
                                                               grad_operand=1))
    return ["linear dgrad (N=512)", "linear wgrad (M=256)"]


def softmax(g):
    g.output(g.softmax(g.input("x", (128, 64))))
    return ["softmax d=64"]


def main(argv):
    build, passes = argv[1], argv[2:]
    for index, make in enumerate((matmul_512, mlp, linear_backward, softmax)):
        g = Graph(make.__name__)
        names = make(g)
        rng = np.random.default_rng(100 + index)
        feeds = {p.attrs["name"]: rng.standard_normal(p.shape).astype(np.float32)
                 for p in g.params}
        for name, out in zip(names, run(g.emit(), g, feeds, build, passes=passes)):
            print(f"{name}: std {np.std(out.astype(np.float64)):.3f}")


if __name__ == "__main__":
    main(sys.argv)
