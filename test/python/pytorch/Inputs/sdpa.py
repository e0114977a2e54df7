"""F.scaled_dot_product_attention for the tests on torch before 2.0, which
lacks it.

The stand-in computes what PyTorch documents for it: softmax(q k^T * scale
+ bias) v over the last two dimensions, scale 1/sqrt(E) unless given, grouped key and value heads
repeated to the query's (enable_gqa), the
bias -inf above the diagonal (is_causal: the lower triangle of an L x S
matrix is kept) or where a boolean mask is clear, or a float mask itself;
dropout on the weights. Like torch's Python functions, it defers to
__torch_function__, so that torch.fx records one call to it, as it records
one call to the built-in of torch 2. install() puts it in
torch.nn.functional where torch has none; with torch 2 the tests use the
real one."""

import math

import torch
import torch.nn.functional as F
from torch.overrides import handle_torch_function, has_torch_function


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, *, scale=None, enable_gqa=False):
    tensors = (query, key, value)
    if has_torch_function(tensors):
        kwargs = dict(attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal)
        if scale is not None:
            kwargs["scale"] = scale
        if enable_gqa:
            kwargs["enable_gqa"] = enable_gqa
        return handle_torch_function(scaled_dot_product_attention, tensors, query, key, value,
                                     **kwargs)
    if enable_gqa:
        # Each group of query heads shares one key and value head.
        repeats = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(repeats, -3)
        value = value.repeat_interleave(repeats, -3)
    length, keys = query.shape[-2], key.shape[-2]
    factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    weights = torch.matmul(query, key.transpose(-2, -1)) * factor
    if is_causal:
        assert attn_mask is None
        keep = torch.ones(length, keys, dtype=torch.bool, device=query.device).tril()
        weights = weights.masked_fill(~keep, float("-inf"))
    elif attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            weights = weights.masked_fill(~attn_mask, float("-inf"))
        else:
            weights = weights + attn_mask
    weights = torch.softmax(weights, dim=-1)
    if dropout_p > 0:
        weights = F.dropout(weights, dropout_p)
    return torch.matmul(weights, value)


def install():
    """Makes F.scaled_dot_product_attention exist; True where it is the
    stand-in."""
    if hasattr(F, "scaled_dot_product_attention"):
        return False
    F.scaled_dot_product_attention = scaled_dot_product_attention
    return True
