"""Small PyTorch models for the front end's tests: an MLP, a pre-norm
transformer block (causal multi-head attention + GELU MLP, its mask added
or, as nanoGPT writes it, filled in, or by F.scaled_dot_product_attention),
a LLaMA-style block (RMSNorm, rotary
embedding, SwiGLU), and a float64 reference run of forward and backward."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, width=64, hidden=256):
        super().__init__()
        self.fc1 = nn.Linear(width, hidden)
        self.fc2 = nn.Linear(hidden, width)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return self.fc2(self.drop(F.gelu(self.fc1(x))))


class Block(nn.Module):
    """x + attn(ln_1(x)), then h + mlp(ln_2(h)); heads split from the width."""

    def __init__(self, seq=32, width=64, heads=4):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(width)
        self.q = nn.Linear(width, width)
        self.k = nn.Linear(width, width)
        self.v = nn.Linear(width, width)
        self.proj = nn.Linear(width, width)
        self.ln_2 = nn.LayerNorm(width)
        self.mlp = MLP(width, 4 * width)
        # Additive causal mask: a buffer, not a parameter.
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), -1e4), 1))

    def attention(self, x):
        b, s, d = x.size(0), x.size(1), x.size(2)
        head = d // self.heads
        q = self.q(x).view(b, s, self.heads, head).transpose(1, 2)
        k = self.k(x).view(b, s, self.heads, head).transpose(1, 2)
        v = self.v(x).view(b, s, self.heads, head).transpose(1, 2)
        context = self.attend(q, k, v, s, head)
        return self.proj(context.transpose(1, 2).reshape(b, s, d))

    def attend(self, q, k, v, s, head):
        scores = self.masked(q @ k.transpose(-2, -1) / math.sqrt(head), s)
        return F.softmax(scores, dim=-1) @ v

    def masked(self, scores, s):
        return scores + self.mask

    def forward(self, x):
        h = x + self.attention(self.ln_1(x))
        return h + self.mlp(self.ln_2(h))


class NanoBlock(Block):
    """Block with nanoGPT's causal mask: a lower-triangular buffer sliced to
    the sequence, and the scores above the diagonal filled with -inf."""

    def __init__(self, seq=32, width=64, heads=4):
        super().__init__(seq, width, heads)
        del self.mask
        self.register_buffer("bias", torch.tril(torch.ones(seq, seq)).view(1, 1, seq, seq))

    def masked(self, scores, s):
        return scores.masked_fill(self.bias[:, :, :s, :s] == 0, float("-inf"))


class FlashBlock(NanoBlock):
    """NanoBlock as nanoGPT runs it on torch 2: attention by
    F.scaled_dot_product_attention with is_causal (the tril buffer is only
    kept for the other path)."""

    def attend(self, q, k, v, s, head):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0,
                                              is_causal=True)


class RMSNorm(nn.Module):
    """RMSNorm written out, as LLaMA's reference code does."""

    def __init__(self, width, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(width) + 0.1 * torch.randn(width))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class LlamaBlock(nn.Module):
    """A LLaMA-style block: RMSNorm, rotary position embedding from cos and
    sin tables (buffers sliced to the sequence), causal attention as
    nanoGPT masks it, and a SwiGLU MLP; no biases. With fewer `kv_heads`
    than heads, grouped-query attention: keys and values repeated for their
    group of query heads as LLaMA's repeat_kv does (None index, expand,
    reshape)."""

    def __init__(self, seq=32, width=64, heads=4, hidden=128, kv_heads=None):
        super().__init__()
        self.init_args = (seq, width, heads, hidden, kv_heads)
        self.heads = heads
        self.kv_heads = kv_heads or heads
        kv_width = width // heads * self.kv_heads
        self.attn_norm = RMSNorm(width)
        self.wq = nn.Linear(width, width, bias=False)
        self.wk = nn.Linear(width, kv_width, bias=False)
        self.wv = nn.Linear(width, kv_width, bias=False)
        self.wo = nn.Linear(width, width, bias=False)
        self.mlp_norm = RMSNorm(width)
        self.w1 = nn.Linear(width, hidden, bias=False)
        self.w3 = nn.Linear(width, hidden, bias=False)
        self.w2 = nn.Linear(hidden, width, bias=False)
        head = width // heads
        inv_freq = 1.0 / (10000 ** (torch.arange(0, head, 2).float() / head))
        angles = torch.outer(torch.arange(seq).float(), inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos())
        self.register_buffer("sin", angles.sin())
        self.register_buffer("bias", torch.tril(torch.ones(seq, seq)).view(1, 1, seq, seq))

    def rotary(self, x, t):
        half = x.size(-1) // 2
        rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * self.cos[:t] + rotated * self.sin[:t]

    def attention(self, x):
        b, t, d = x.size()
        head = d // self.heads
        q = self.wq(x).view(b, t, self.heads, head).transpose(1, 2)
        k = self.wk(x).view(b, t, self.kv_heads, head).transpose(1, 2)
        v = self.wv(x).view(b, t, self.kv_heads, head).transpose(1, 2)
        q, k = self.rotary(q, t), self.rotary(k, t)
        if self.kv_heads != self.heads:
            group = self.heads // self.kv_heads
            k, v = (z[:, :, None].expand(b, self.kv_heads, group, t, head)
                    .reshape(b, self.heads, t, head) for z in (k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(head)
        scores = scores.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        context = F.softmax(scores, dim=-1) @ v
        return self.wo(context.transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        h = x + self.attention(self.attn_norm(x))
        n = self.mlp_norm(h)
        return h + self.w2(F.silu(self.w1(n)) * self.w3(n))


class Gated(nn.Module):
    """Comparisons in the graph: a where of two tensors after a linear, and
    HF's `attention_mask == 0` of an integer argument."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 64)

    def forward(self, x, attention_mask):
        h = self.fc1(x)
        h = torch.where(h > 0, h, 0.1 * h)
        scores = (h @ h.transpose(-2, -1)).masked_fill((attention_mask == 0)[:, None, :],
                                                       float("-inf"))
        return self.fc2(torch.softmax(scores, -1) @ h) * (x > -1).float()


def reference(module, inputs, grad_output):
    """Output, input gradients and parameter gradients of `module` in
    float64."""
    copy = type(module)(*getattr(module, "init_args", ())).double().eval()
    copy.load_state_dict(module.state_dict())
    inputs = [t.detach().double().requires_grad_(t.is_floating_point()) for t in inputs]
    y = copy(*inputs)
    y.backward(grad_output.double())
    return y.detach(), [t.grad for t in inputs], {n: p.grad for n, p in copy.named_parameters()}


def relative(got, want):
    return (torch.linalg.norm(got.double() - want) / torch.linalg.norm(want)).item()


def check(name, module, inputs, recipes, bounds, skip=()):
    """Compiles `module` by each recipe on the CPU, runs forward and
    backward on `inputs` with a seeded output gradient, and prints whether
    the relative L2 errors of the output, the input gradient and the worst
    parameter gradient (but those in `skip`) against float64 are within
    bounds[recipe]."""
    from fp8_mlir import torch as fp8_torch

    module.eval()
    torch.manual_seed(1)
    grad_output = torch.randn_like(module(*inputs))
    y_ref, dx_ref, dp_ref = reference(module, inputs, grad_output)
    for recipe in recipes:
        compiled = fp8_torch.compile(module, inputs, recipe=None if recipe == "f32" else recipe,
                                     opt_level=0)
        module.zero_grad()
        args = [t.clone().requires_grad_(True) for t in inputs]
        y = compiled(*args)
        y.backward(grad_output)
        errors = (relative(y, y_ref), relative(args[0].grad, dx_ref[0]),
                  max(relative(p.grad, dp_ref[n]) for n, p in module.named_parameters()
                      if n not in skip))
        within = all(e <= b for e, b in zip(errors, bounds[recipe]))
        print(f"{name} {recipe}: y, dx, parameters within {bounds[recipe]}: {within}"
              + ("" if within else f" (errors {errors})"))


def check_f32(cases):
    """For each (name, module, make) of `cases`: compiles the module without
    a recipe on the CPU, runs forward and backward on make()'s inputs (the
    floating ones require gradients) with a random output gradient, and
    prints whether the output and the gradients of every floating input and
    parameter are within 1e-5 of torch's in float64."""
    from fp8_mlir import torch as fp8_torch

    for name, module, make in cases:
        module.eval()
        torch.manual_seed(0)
        inputs = make()
        compiled = fp8_torch.compile(module, inputs, recipe=None, opt_level=0)
        args = [t.clone().requires_grad_(t.is_floating_point()) for t in inputs]
        y = compiled(*args)
        dy = torch.randn_like(y)
        y.backward(dy)

        ref = type(module)().double().eval()
        ref.load_state_dict(module.state_dict())
        ref_args = [t.double().requires_grad_(True) if t.is_floating_point() else t
                    for t in inputs]
        y_ref = ref(*ref_args)
        y_ref.backward(dy.double())
        errors = [relative(y, y_ref.detach())]
        errors += [relative(a.grad, r.grad) for a, r in zip(args, ref_args)
                   if a.is_floating_point()]
        errors += [relative(p.grad, r.grad) for p, r in zip(module.parameters(), ref.parameters())]
        within = max(errors) < 1e-5
        print(f"{name}: {len(errors)} results within 1e-5: {within}"
              + ("" if within else f" {errors}"))
