"""Passes that must not change results: the example's backward graph through
a recipe, with and without EXTRA passes, compared bit for bit.

  same_bits.py BUILD_DIR MODEL RECIPE EXTRA...
"""

import os
import sys

import numpy as np

from fp8_mlir import graph as G
from fp8_mlir import models

FILES = {"mlp_block": "examples/mlp/mlp_block.mlir",
         "attention_block": "examples/attention/attention_block.mlir",
         "gpt2_layer": "examples/gpt2/gpt2_layer.mlir"}


def main(argv):
    build, model, recipe, extra = argv[1], argv[2], argv[3], argv[4:]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
    source = os.path.join(root, FILES[model])
    text = open(source).read()
    _, backward = models.build(model)
    feeds = models.feeds(backward)
    autocast = [f"--fp8-autocast=recipe={recipe} seed=3"]
    plain = G.run(text, backward, feeds, build, passes=autocast)
    changed = G.run(text, backward, feeds, build, passes=autocast + extra)
    for i, (x, y) in enumerate(zip(plain, changed)):
        if not np.array_equal(x.view(np.uint32), y.view(np.uint32)):
            print(f"{model} {recipe}: output {i} differs with {' '.join(extra)}")
            return 1
    print(f"{model} {recipe}: {len(plain)} outputs bit-identical with {' '.join(extra)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
