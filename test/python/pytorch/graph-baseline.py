# REQUIRES: torch
# The example models evaluated with PyTorch ops (Graph.evaluate_torch, the
# bf16 model a torch.compile baseline would run) compute the graphs' float64
# values, forward and backward: in float64 to rounding (torch sums in
# another order), in bf16 within its precision. Outputs that are zero but
# for rounding (a softmax input's bias gradient sums to zero) are left out.
# RUN: %python %s | FileCheck %s
# CHECK: mlp_block: forward and backward match
# CHECK: attention_block: forward and backward match
# CHECK: gpt2_layer: forward and backward match

import numpy as np
import torch

from fp8_mlir import models

for name in ("mlp_block", "attention_block", "gpt2_layer"):
    for graph in models.build(name):
        feeds = models.feeds(graph)
        want = graph.evaluate(feeds)
        largest = max(np.linalg.norm(w) for w in want)
        for dtype, rtol in ((torch.float64, 1e-7), (torch.bfloat16, 0.05)):
            tensors = {k: torch.from_numpy(v).to(dtype) for k, v in feeds.items()}
            got = graph.evaluate_torch(torch, tensors)
            assert len(got) == len(want), (graph.name, len(got), len(want))
            for i, (g, w) in enumerate(zip(got, want)):
                g = g.double().numpy()
                assert g.shape == w.shape, (graph.name, i, g.shape, w.shape)
                if np.linalg.norm(w) <= 1e-9 * largest:
                    continue  # cancellation residue
                # Relative L2 error over the whole output.
                err = np.linalg.norm(g - w) / np.linalg.norm(w)
                assert err <= rtol, (graph.name, str(dtype), i, err)
    print(f"{name}: forward and backward match")
