# The backward graphs of fp8_mlir.graph agree with central finite differences
# of the forward graphs (float64 numpy), for every example model at a small
# size and for every input and parameter.
# RUN: %python %s | FileCheck %s
# CHECK: mlp_block: {{[0-9]+}} gradients match finite differences
# CHECK: attention_block: {{[0-9]+}} gradients match finite differences
# CHECK: gpt2_layer: {{[0-9]+}} gradients match finite differences

import numpy as np

from fp8_mlir import models

# The finite difference's step.
STEP = 1e-6

SMALL = {"mlp_block": dict(seq=6, width=8, hidden=12),
         "attention_block": dict(seq=6, width=8, heads=2),
         "gpt2_layer": dict(seq=6, width=8, heads=2, hidden=12)}

for name, sizes in SMALL.items():
    forward = models.MODELS[name](**sizes)
    backward = forward.gradients(forward.outputs, wrt=forward.params)
    feeds = {k: v.astype(np.float64) for k, v in models.feeds(backward).items()}
    feeds["d_0"] = np.random.default_rng(7).standard_normal(feeds["d_0"].shape)
    results = backward.evaluate(feeds)
    # The forward output is recomputed by the backward graph.
    assert np.array_equal(results[0], forward.evaluate(feeds)[0])

    def loss(f):
        return float((forward.evaluate(f)[0] * feeds["d_0"]).sum())

    # The central difference's own rounding: a few units in the last place
    # of the loss's terms, over the 2 * step between the two evaluations
    # (it alone is what an exactly zero gradient, such as the key bias's,
    # measures).
    terms = float(np.abs(results[0] * feeds["d_0"]).sum())
    noise = 16 * np.spacing(terms) / (2 * STEP)

    rng = np.random.default_rng(1)
    checked = 0
    for param, grad in zip(forward.params, results[1:]):
        key = param.attrs["name"]
        assert grad.shape == param.shape, (key, grad.shape, param.shape)
        scale = max(np.abs(grad).max(), 1e-3)
        for _ in range(4):
            index = tuple(int(rng.integers(0, s)) for s in param.shape)
            plus, minus = dict(feeds), dict(feeds)
            plus[key] = feeds[key].copy()
            minus[key] = feeds[key].copy()
            plus[key][index] += STEP
            minus[key][index] -= STEP
            numeric = (loss(plus) - loss(minus)) / (2 * STEP)
            error = abs(numeric - grad[index])
            assert error < 1e-6 * scale + noise, (name, key, index, numeric,
                                                  grad[index], noise)
            checked += 1
    print(f"{name}: {checked} gradients match finite differences")
