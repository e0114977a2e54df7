"""nn.RMSNorm and F.rms_norm for the tests on torch before 2.4, which lacks
them.

The stand-ins compute what PyTorch documents: x / sqrt(mean(x^2) + eps) *
weight over the last len(normalized_shape) dimensions, eps None meaning the
machine epsilon of x's type. The function defers to __torch_function__ as
torch's own functions do, and the module is a leaf of torch.fx as torch.nn's
modules are (so that fx records one call of each, as with torch 2.4's).
install() puts them in torch where torch has none."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.overrides import handle_torch_function, has_torch_function


def rms_norm(input, normalized_shape, weight=None, eps=None):
    if has_torch_function((input,)):
        return handle_torch_function(rms_norm, (input,), input, normalized_shape,
                                     weight=weight, eps=eps)
    dims = tuple(range(-len(normalized_shape), 0))
    eps = torch.finfo(input.dtype).eps if eps is None else eps
    y = input * torch.rsqrt(input.pow(2).mean(dims, keepdim=True) + eps)
    return y if weight is None else y * weight


class RMSNorm(nn.Module):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self.weight = nn.Parameter(torch.ones(self.normalized_shape)) \
            if elementwise_affine else None

    def forward(self, x):
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)


# A leaf of torch.fx, as the modules of torch.nn are.
RMSNorm.__module__ = "torch.nn.modules.normalization"


def install():
    """Makes nn.RMSNorm and F.rms_norm exist; True where they are the
    stand-ins."""
    if hasattr(nn, "RMSNorm"):
        return False
    nn.RMSNorm, F.rms_norm = RMSNorm, rms_norm
    return True
