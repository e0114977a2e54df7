"""A small tensor-graph builder: linalg-on-tensors MLIR, a numpy reference and
reverse-mode differentiation, for the example models and their tests.

A `Graph` records ops on `Tensor`s. It emits the graph as one `func.func` of
linalg named ops and generics on f32 tensors (what a framework importer
produces), evaluates it in float64 numpy, and builds the backward graph by
reverse-mode differentiation: each primitive's vector-Jacobian product is
written with other primitives, so backward graphs are emitted and evaluated
the same way. Contractions of the backward graph carry `fp8.role`
(`dgrad` for the gradient of the left operand, `wgrad` for the right) and
`fp8.grad_operand`, as `fp8-autocast` expects; gradient nonlinearities carry
`fp8.unit_op` for `fp8-unit-scale`.

    g = Graph("mlp")
    x = g.input("x", (64, 128))
    w = g.input("w", (128, 256))
    y = g.gelu(g.matmul(x, w, name="fc1"))
    g.output(y)
    grads = g.gradients([y], wrt=[x, w])   # a Graph computing (y, dx, dw)
    print(g.emit(), grads.emit())
"""

import collections
import math
import operator
import re

import numpy as np

from . import numerics
from . import recipes

F32 = "f32"

# compare's predicates, as arith.cmpf spells them: IEEE comparisons, false
# where either side is NaN except for "ne" (torch's, numpy's).
PREDICATES = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}

# The inputs of an op that get no gradient from it, by position.
_NO_GRADIENT = {"compare": (0, 1), "select": (0,), "fill_where": (1,), "position": (0,)}

# Which elements reduce_max's gradient goes to: `dy / count` to each
# element equal to the result, by "amax" as torch.amax (a NaN result gives
# every element NaN, and so does a dy that is not finite), by "max" as
# torch.max of a whole tensor (a NaN result shares dy among the NaNs; the
# other elements get 0); or all of dy to the first of them, by "first" as
# torch.max along a dimension (the first maximum, or the first NaN).
TIES = ("amax", "max", "first")


def tensor_type(shape, element=F32):
    return recipes.tensor_type(shape, element)


def _element(tensor_type_):
    """The element type of a tensor type's text."""
    return re.match(r"tensor<(?:[0-9]+x)*([^>]+)>", tensor_type_).group(1)


def _map(dims, results):
    return f"affine_map<({', '.join(dims)}) -> ({', '.join(results)})>"


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


_GELU_TANH_C = math.sqrt(2.0 / math.pi)
_GELU_TANH_K = 0.044715


def _slicing(lib, t, v):
    """slice, pad or concat of tensor `t` on the values `v` of its inputs
    (numpy arrays with lib=np, torch tensors with lib=torch)."""
    a = t.attrs
    dim = a["dim"]
    if t.op == "concat":
        return lib.concatenate(v, axis=dim) if lib is np else lib.cat(v, dim=dim)
    index = [slice(None)] * len(t.shape)
    if t.op == "slice":
        index[dim] = slice(a["start"], a["start"] + t.shape[dim])
        return v[0][tuple(index)]
    if lib is np:
        out = np.zeros(t.shape, dtype=v[0].dtype)
    else:
        out = lib.zeros(t.shape, dtype=v[0].dtype, device=v[0].device)
    index[dim] = slice(a["start"], a["start"] + v[0].shape[dim])
    out[tuple(index)] = v[0]
    return out


def _gelu_tanh(x, tanh=np.tanh):
    """GELU's tanh form of `x` (numpy arrays, or torch tensors with
    tanh=torch.tanh)."""
    return 0.5 * x * (1.0 + tanh(_GELU_TANH_C * (x + _GELU_TANH_K * x ** 3)))


def _gelu_tanh_derivative(x, tanh=np.tanh):
    t = tanh(_GELU_TANH_C * (x + _GELU_TANH_K * x ** 3))
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _GELU_TANH_C * (
        1.0 + 3.0 * _GELU_TANH_K * x * x)


def _gelu_derivative(x):
    return 0.5 * (1.0 + _erf(x / math.sqrt(2.0))) + x * np.exp(-0.5 * x * x) / math.sqrt(
        2.0 * math.pi)


class Tensor:
    def __init__(self, graph, op, inputs, shape, attrs):
        self.graph = graph
        self.op = op
        self.inputs = list(inputs)
        self.shape = tuple(int(d) for d in shape)
        self.attrs = dict(attrs)
        self.id = len(graph.nodes)
        graph.nodes.append(self)

    @property
    def name(self):
        if self.op == "input":
            return "%" + self.attrs.get("ssa", self.attrs["name"])
        return f"%v{self.id}"

    @property
    def type(self):
        return tensor_type(self.shape)

    def __repr__(self):
        return f"Tensor({self.op}, {self.shape})"



def _reduction(a, dims):
    """The dimensions of `a` that `dims` name (negative ones counted from the
    end), sorted, and the shape left when they are reduced."""
    dims = sorted(d % len(a.shape) for d in dims)
    return dims, tuple(n for i, n in enumerate(a.shape) if i not in dims)


def _positions(lib, t, **options):
    """0, 1, ... along dimension `dim` of a position node `t`, shaped to
    broadcast to t's shape (numpy or torch, `lib`)."""
    dim = t.attrs["dim"]
    shape = [1] * len(t.shape)
    shape[dim] = t.shape[dim]
    return lib.arange(t.shape[dim], **options).reshape(shape)


class Graph:
    def __init__(self, name):
        self.name = name
        self.nodes = []
        self.params = []
        self.outputs = []

    # -- building ------------------------------------------------------------

    def _node(self, op, inputs, shape, **attrs):
        for t in inputs:
            assert t.graph is self, "tensors of another graph"
        return Tensor(self, op, inputs, shape, attrs)

    def input(self, name, shape):
        t = self._node("input", [], shape, name=name)
        self.params.append(t)
        return t

    def output(self, *tensors):
        self.outputs.extend(tensors)

    def matmul(self, a, b, ta=False, tb=False, role=None, grad_operand=None, name=None):
        """op(a) x op(b) over the last two dims; a leading batch dim is shared."""
        assert len(a.shape) == len(b.shape) and len(a.shape) in (2, 3)
        m, ka = (a.shape[-1], a.shape[-2]) if ta else (a.shape[-2], a.shape[-1])
        kb, n = (b.shape[-1], b.shape[-2]) if tb else (b.shape[-2], b.shape[-1])
        assert ka == kb, f"contraction mismatch {a.shape} {b.shape}"
        shape = a.shape[:-2] + (m, n)
        return self._node("matmul", [a, b], shape, ta=ta, tb=tb, role=role,
                          grad_operand=grad_operand, name=name)

    def add(self, a, b):
        assert a.shape == b.shape
        return self._node("add", [a, b], a.shape)

    def sub(self, a, b):
        assert a.shape == b.shape
        return self._node("sub", [a, b], a.shape)

    def mul(self, a, b, unit_op=None, grad_unit_op=None):
        """a * b; `unit_op` marks the op (fp8.unit_op), `grad_unit_op` the
        two products its gradient takes."""
        assert a.shape == b.shape
        return self._node("mul", [a, b], a.shape, unit_op=unit_op,
                          grad_unit_op=grad_unit_op)

    def scale(self, a, factor):
        return self._node("scale", [a], a.shape, factor=float(factor))

    def div(self, a, b):
        assert a.shape == b.shape
        return self._node("div", [a, b], a.shape)

    def shift(self, a, value):
        """a + value."""
        return self._node("shift", [a], a.shape, value=float(value))

    def rdiv(self, value, a):
        """The number `value` divided by a, rounded once."""
        return self._node("rdiv", [a], a.shape, value=float(value))

    def clamp(self, a, low, high):
        """a clamped to `low` and `high` (each None, and the others all
        numbers or all tensors of a's shape) as torch's clamp: low where
        a < low, then high where that is > high; NaN where a is NaN, or a
        tensor bound is. The gradient goes to a where low <= a <= high (none
        at NaN, none at all where low > high); to a tensor low where
        a < low < high (a < low without high); to a tensor high where a >
        high or high < low (a > high without low)."""
        bounds = [b for b in (low, high) if isinstance(b, Tensor)]
        assert all(b.shape == a.shape for b in bounds)
        assert not bounds or len(bounds) == sum(b is not None for b in (low, high))

        def number(b):
            return None if b is None or isinstance(b, Tensor) else float(b)
        return self._node("clamp", [a] + bounds, a.shape, low=number(low), high=number(high),
                          tensor_low=isinstance(low, Tensor), tensor_high=isinstance(high, Tensor))

    def clamp_bounds(self, t, values):
        """The low and high bounds of the clamp node `t`, as numbers, None or
        `values` (its inputs or their values)."""
        a, rest = t.attrs, iter(values[1:])
        low = next(rest) if a["tensor_low"] else a["low"]
        high = next(rest) if a["tensor_high"] else a["high"]
        return low, high

    def gelu(self, a):
        return self._node("gelu", [a], a.shape)

    def gelu_tanh(self, a):
        """GELU's tanh form: 0.5 a (1 + tanh(sqrt(2/pi) (a + 0.044715 a^3)))."""
        return self._node("gelu_tanh", [a], a.shape)

    def relu(self, a):
        return self._node("relu", [a], a.shape)

    def abs(self, a):
        return self._node("abs", [a], a.shape)

    def extremum(self, a, b, largest):
        """The elementwise maximum (`largest`) or minimum of two tensors of
        one shape, NaN where either is NaN (torch.maximum/minimum); at ties
        each gets half of the gradient, as torch's."""
        assert a.shape == b.shape, (a.shape, b.shape)
        return self._node("maximum" if largest else "minimum", [a, b], a.shape)

    def silu(self, a):
        """a * sigmoid(a)."""
        return self._node("silu", [a], a.shape)

    def tanh(self, a):
        return self._node("tanh", [a], a.shape)

    def sigmoid(self, a):
        """1 / (1 + exp(-a))."""
        return self._node("sigmoid", [a], a.shape)

    def exp(self, a):
        return self._node("exp", [a], a.shape)

    def sqrt(self, a, zero_grad_at_zero=False):
        """The square root, correctly rounded. Its gradient is infinite at 0,
        or 0 there with `zero_grad_at_zero` (torch's std)."""
        return self._node("sqrt", [a], a.shape, zero_grad_at_zero=zero_grad_at_zero)

    def erf(self, a):
        """The error function (numerics.md section 16)."""
        return self._node("erf", [a], a.shape)

    def log(self, a):
        """The natural logarithm (numerics.md section 18)."""
        return self._node("log", [a], a.shape)

    def activation_grad(self, op, x, dy):
        """dy times the derivative of activation `op` (relu, silu, gelu_tanh:
        at the input x; tanh, sigmoid: given the output x)."""
        return self._node(op + "_grad", [x, dy], x.shape)

    def log_softmax(self, a):
        """log(softmax(a)) over the last dimension, computed stably."""
        return self._node("log_softmax", [a], a.shape)

    def gelu_grad(self, x, dy):
        return self._node("gelu_grad", [x, dy], x.shape)

    def softmax(self, a):
        """Softmax over the last dimension."""
        return self._node("softmax", [a], a.shape)

    def rsqrt(self, a, eps):
        """(a + eps)^-1/2."""
        return self._node("rsqrt", [a], a.shape, eps=float(eps))

    def rsqrt_grad(self, r, dy):
        """dy * d/da (a + eps)^-1/2 given r = (a + eps)^-1/2: -dy r^3 / 2."""
        return self._node("rsqrt_grad", [r, dy], r.shape)

    def reduce_max(self, a, dims, largest=True, ties="amax"):
        """The maximum (`largest`) or minimum of `a` over `dims`, NaN where
        any element is NaN (torch.amax/amin); `ties` (one of TIES) says
        which elements its gradient goes to ("first": one dimension)."""
        assert ties in TIES, ties
        dims, shape = _reduction(a, dims)
        assert ties != "first" or len(dims) == 1, dims
        return self._node("reduce_max", [a], shape, dims=dims, largest=largest, ties=ties)

    def position(self, a, dim):
        """The position of each element of `a` along `dim` (0, 1, ...), as
        f32: exact below 2^24, and in 16-bit storage below 256 (bf16) or
        2048 (f16). It reads a's shape alone, and has no gradient."""
        return self._node("position", [a], a.shape, dim=dim % len(a.shape))

    def hits(self, a, t, dims, nan=True):
        """1 where an element of `a` equals `t`, a's reduction over `dims`
        broadcast back, or (`nan`) both are NaN; else 0. No gradient."""
        wide = self.broadcast(t, a.shape, dims)
        hit = self.compare(a, wide, "eq")
        if not nan:
            return hit
        both = self.mul(self.compare(a, a, "ne"), self.compare(wide, wide, "ne"))
        return self.add(hit, both)

    def first(self, hits, dim):
        """The first 1 of `hits` (0 or 1, with a 1 in every row along
        `dim`), the others 0; and its position, reduced over `dim`, as f32.
        No gradient."""
        extent = hits.shape[dim]
        # extent - position: larger for earlier elements, and never 0.
        rank = self.shift(self.scale(self.position(hits, dim), -1.0), float(extent))
        priority = self.mul(hits, rank)
        top = self.reduce_max(priority, [dim])
        chosen = self.compare(priority, self.broadcast(top, hits.shape, [dim]), "eq")
        return chosen, self.shift(self.scale(top, -1.0), float(extent))

    def extremum_along(self, a, dim, largest=True):
        """torch.max (`largest`) or torch.min of `a` along `dim`: the values
        and the positions (f32) of the first maximum (or minimum) of each
        row, or of its first NaN; the gradient goes to that element alone.
        A zero maximum of zeros of both signs is +0 (-0 for a minimum),
        where torch gives the first one's sign."""
        dim %= len(a.shape)
        values = self.reduce_max(a, [dim], largest, ties="first")
        return values, self.first(self.hits(a, values, [dim]), dim)[1]

    def reduce_sum(self, a, dims):
        dims, shape = _reduction(a, dims)
        return self._node("reduce_sum", [a], shape, dims=dims)

    def broadcast(self, a, shape, dims):
        """Adds the dimensions `dims` of `shape` to `a`."""
        dims = sorted(dims)
        kept = tuple(s for i, s in enumerate(shape) if i not in dims)
        assert kept == a.shape, f"cannot broadcast {a.shape} to {shape} along {dims}"
        return self._node("broadcast", [a], shape, dims=dims)

    def transpose(self, a, perm):
        return self._node("transpose", [a], tuple(a.shape[p] for p in perm), perm=list(perm))

    def reshape(self, a, shape, groups):
        """expand_shape (more dims) or collapse_shape (fewer) by `groups`."""
        assert math.prod(shape) == math.prod(a.shape)
        return self._node("reshape", [a], shape, groups=[list(g) for g in groups])

    def slice(self, a, dim, start, stop):
        """Entries [start, stop) of dimension `dim`, the others whole."""
        assert 0 <= start < stop <= a.shape[dim]
        shape = list(a.shape)
        shape[dim] = stop - start
        return self._node("slice", [a], tuple(shape), dim=dim, start=start)

    def pad(self, a, shape, dim, start):
        """`a` placed at offset `start` of dimension `dim` of zeros of
        `shape` (the gradient of a slice)."""
        return self._node("pad", [a], tuple(shape), dim=dim, start=start)

    def concat(self, tensors, dim):
        """The tensors one after the other along dimension `dim`."""
        shape = list(tensors[0].shape)
        shape[dim] = sum(t.shape[dim] for t in tensors)
        return self._node("concat", list(tensors), tuple(shape), dim=dim)

    def causal_fill(self, a, value):
        """Entries above the diagonal of the last two dims set to `value`."""
        return self._node("causal_fill", [a], a.shape, value=float(value))

    def fill_where(self, a, mask, value):
        """a with `value` where `mask` (of a's shape: 1 where set, 0 where
        clear) is not 0: a padding mask, or any other mask that is not
        causal. The mask has no gradient."""
        assert a.shape == mask.shape, (a.shape, mask.shape)
        return self._node("fill_where", [a, mask], a.shape, value=float(value))

    def compare(self, a, b, predicate):
        """1 where `a <predicate> b` holds, else 0 (a boolean tensor as
        f32); `b` a tensor of a's shape or a number, `predicate` one of
        PREDICATES. No gradient."""
        assert predicate in PREDICATES, predicate
        if isinstance(b, Tensor):
            assert a.shape == b.shape, (a.shape, b.shape)
            return self._node("compare", [a, b], a.shape, predicate=predicate)
        return self._node("compare", [a], a.shape, predicate=predicate, value=float(b))

    def select(self, cond, a, b):
        """a where `cond` (of their shape) is not 0, else b: torch.where of
        two tensors. The condition has no gradient."""
        assert cond.shape == a.shape == b.shape, (cond.shape, a.shape, b.shape)
        return self._node("select", [cond, a, b], a.shape)

    # -- composites ----------------------------------------------------------

    def linear(self, x, w, bias=None, name=None):
        y = self.matmul(x, w, name=name)
        if bias is not None:
            y = self.add(y, self.broadcast(bias, y.shape, [0]))
        return y

    def layernorm(self, x, gamma, beta, eps=1e-5):
        """LayerNorm over the last dimension of a 2-D tensor; without the
        affine step where gamma or beta is None."""
        # The products' gradients are marked "layernorm_grad": they read the
        # forward values a framework keeps for LayerNorm's backward (the
        # centered input, the normalized output), which fp8-autocast's
        # saved-activations option stores in FP8.
        grad = "layernorm_grad"
        rows, width = x.shape
        mean = self.scale(self.reduce_sum(x, [1]), 1.0 / width)
        centered = self.sub(x, self.broadcast(mean, x.shape, [1]))
        var = self.scale(self.reduce_sum(self.mul(centered, centered, grad_unit_op=grad), [1]),
                         1.0 / width)
        rstd = self.rsqrt(var, eps)
        y = self.mul(centered, self.broadcast(rstd, x.shape, [1]), grad_unit_op=grad)
        if gamma is not None:
            y = self.mul(y, self.broadcast(gamma, x.shape, [0]), grad_unit_op=grad)
        if beta is not None:
            y = self.add(y, self.broadcast(beta, x.shape, [0]))
        return y

    # -- differentiation -----------------------------------------------------

    def _vjp(self, t, dy):
        """Gradients of t's inputs given dy, built in self."""
        op, ins, a = t.op, t.inputs, t.attrs
        if op == "matmul":
            x, w = ins
            ta, tb = a["ta"], a["tb"]
            base = a["name"]
            dname = lambda suffix: f"{base}_{suffix}" if base else None
            if not ta:
                dx = self.matmul(dy, w, tb=not tb, role="dgrad", grad_operand=0,
                                 name=dname("dgrad"))
            else:
                dx = self.matmul(w, dy, ta=tb, tb=True, role="dgrad", grad_operand=1,
                                 name=dname("dgrad"))
            if not tb:
                dw = self.matmul(x, dy, ta=not ta, role="wgrad", grad_operand=1,
                                 name=dname("wgrad"))
            else:
                dw = self.matmul(dy, x, ta=True, tb=ta, role="wgrad", grad_operand=0,
                                 name=dname("wgrad"))
            return [dx, dw]
        if op == "add":
            return [dy, dy]
        if op == "sub":
            return [dy, self.scale(dy, -1.0)]
        if op == "mul":
            mark = a["grad_unit_op"]
            return [self.mul(dy, ins[1], unit_op=mark), self.mul(dy, ins[0], unit_op=mark)]
        if op == "scale":
            return [self.scale(dy, a["factor"])]
        if op == "div":
            da = self.div(dy, ins[1])
            return [da, self.scale(self.mul(da, t), -1.0)]
        if op == "shift":
            return [dy]
        if op == "rdiv":
            # -dy value / x^2 = -dy (value / x) / x.
            return [self.scale(self.div(self.mul(dy, t), ins[0]), -1.0)]
        if op == "clamp":
            x = ins[0]
            low, high = self.clamp_bounds(t, ins)

            def where(*masks, both=True):
                # dy where every mask holds (`both`) or any does, else 0.
                masks = [m for m in masks if m is not None]
                if not masks:
                    return dy
                held = masks[0]
                for m in masks[1:]:
                    held = self.mul(held, m) if both else self.add(held, m)
                return self.fill_where(dy, self.compare(held, 0.0, "eq"), 0.0)

            def holds(p, predicate, q):
                return None if p is None or q is None else self.compare(p, q, predicate)
            grads = [where(holds(x, "ge", low), holds(x, "le", high))]
            if a["tensor_low"]:
                grads.append(where(self.compare(x, low, "lt"), holds(low, "lt", high)))
            if a["tensor_high"]:
                grads.append(where(self.compare(x, high, "gt"), holds(high, "lt", low),
                                   both=False))
            return grads
        if op == "gelu":
            return [self.gelu_grad(ins[0], dy)]
        if op == "abs":
            # dy sign(x): 0 at 0, as torch's.
            x = ins[0]
            sign = self.sub(self.compare(x, 0.0, "gt"), self.compare(x, 0.0, "lt"))
            return [self.mul(dy, sign)]
        if op in ("maximum", "minimum"):
            # dy to the larger (smaller) one, half to each at a tie, all of
            # it to each where either is NaN, as torch's: 1 less the share
            # lost.
            x, y = ins
            loses = "lt" if op == "maximum" else "gt"
            half = self.scale(self.compare(x, y, "eq"), 0.5)

            def share(p, q):
                lost = self.add(self.compare(p, q, loses), half)
                return self.mul(dy, self.shift(self.scale(lost, -1.0), 1.0))
            return [share(x, y), share(y, x)]
        if op in ("relu", "silu", "gelu_tanh"):
            return [self.activation_grad(op, ins[0], dy)]
        if op in ("tanh", "sigmoid"):
            return [self.activation_grad(op, t, dy)]
        if op == "exp":
            return [self.mul(dy, t)]
        if op == "sqrt":
            # dy / (2 sqrt(x)); where sqrt(x) is 0 (the result is never
            # negative) 0 instead with zero_grad_at_zero.
            half = self.div(self.scale(dy, 0.5), t)
            return [self.activation_grad("relu", t, half) if a.get("zero_grad_at_zero") else half]
        if op == "erf":
            # dy 2/sqrt(pi) exp(-x^2).
            x = ins[0]
            density = self.exp(self.scale(self.mul(x, x), -1.0))
            return [self.mul(dy, self.scale(density, 2.0 / math.sqrt(math.pi)))]
        if op == "log":
            return [self.div(dy, ins[0])]
        if op == "log_softmax":
            # dy - softmax(x) sum(dy), the sum over the last dim.
            last = len(t.shape) - 1
            total = self.broadcast(self.reduce_sum(dy, [last]), t.shape, [last])
            return [self.sub(dy, self.mul(self.softmax(ins[0]), total))]
        if op == "softmax":
            # y (dy - sum(dy y)), the sum over the last dim.
            last = len(t.shape) - 1
            dot = self.reduce_sum(self.mul(dy, t), [last])
            centered = self.sub(dy, self.broadcast(dot, t.shape, [last]))
            return [self.mul(t, centered, unit_op="softmax_grad")]
        if op == "rsqrt":
            return [self.rsqrt_grad(t, dy)]
        if op == "reduce_max":
            x, dims, ties = ins[0], a["dims"], a.get("ties", "amax")
            hit = self.hits(x, t, dims, nan=ties != "amax")
            if ties == "first":
                chosen = self.first(hit, dims[0])[0]
                wide = self.broadcast(dy, x.shape, dims)
                return [self.fill_where(wide, self.compare(chosen, 0.0, "eq"), 0.0)]
            # dy / count where x equals the extremum, count of them: times
            # the hits for amax (NaN everywhere when dy is not finite, as
            # torch's), else in their place and 0 elsewhere.
            share = self.broadcast(self.div(dy, self.reduce_sum(hit, dims)), x.shape, dims)
            if ties == "amax":
                return [self.mul(hit, share)]
            return [self.fill_where(share, self.compare(hit, 0.0, "eq"), 0.0)]
        if op == "position":
            return [None]
        if op == "reduce_sum":
            return [self.broadcast(dy, ins[0].shape, a["dims"])]
        if op == "broadcast":
            return [self.reduce_sum(dy, a["dims"])]
        if op == "transpose":
            inverse = [0] * len(a["perm"])
            for i, p in enumerate(a["perm"]):
                inverse[p] = i
            return [self.transpose(dy, inverse)]
        if op == "reshape":
            return [self.reshape(dy, ins[0].shape, a["groups"])]
        if op == "fill_where":
            return [self.fill_where(dy, ins[1], 0.0), None]
        if op == "compare":
            return [None] * len(ins)
        if op == "select":
            # dy where the condition holds to a, dy where it does not to b.
            clear = self.compare(ins[0], 0.0, "eq")
            return [None, self.fill_where(dy, clear, 0.0), self.fill_where(dy, ins[0], 0.0)]
        if op == "causal_fill":
            return [self.causal_fill(dy, 0.0)]
        if op == "slice":
            return [self.pad(dy, ins[0].shape, a["dim"], a["start"])]
        if op == "pad":
            return [self.slice(dy, a["dim"], a["start"], a["start"] + ins[0].shape[a["dim"]])]
        if op == "concat":
            grads, start = [], 0
            for x in ins:
                stop = start + x.shape[a["dim"]]
                grads.append(self.slice(dy, a["dim"], start, stop))
                start = stop
            return grads
        raise NotImplementedError(f"no gradient for {op}")

    def reaching(self, outputs, differentiably=False):
        """The ids of the tensors that `outputs` are computed from (and of
        the outputs themselves); `differentiably`, only through the inputs
        that get a gradient (not a comparison's, nor a mask or condition)."""
        seen, stack = set(), list(outputs)
        while stack:
            t = stack.pop()
            if t.id not in seen:
                seen.add(t.id)
                stack.extend(x for i, x in enumerate(t.inputs)
                             if not differentiably or i not in _NO_GRADIENT.get(t.op, ()))
        return seen

    def gradients(self, outputs, wrt, name=None):
        """A new graph computing `outputs`, then the gradients of
        sum(output * d_output) with respect to `wrt`; the d_outputs are extra
        inputs named d_<n>. Its outputs are the forward outputs, then the
        gradients in the order of `wrt`."""
        g = Graph(name or self.name + "_backward")
        copies = {}
        for t in self.nodes:
            copies[t.id] = Tensor(g, t.op, [copies[i.id] for i in t.inputs], t.shape, t.attrs)
            if t.op == "input":
                g.params.append(copies[t.id])
        grads = {}
        for i, out in enumerate(outputs):
            seed = g.input(f"d_{i}", out.shape)
            # An output returned twice gets both seeds.
            grads[out.id] = g.add(grads[out.id], seed) if out.id in grads else seed
        for t in reversed(self.nodes):
            if t.id not in grads or t.op == "input":
                continue
            for x, dx in zip(t.inputs, g._vjp(copies[t.id], grads[t.id])):
                if dx is None:  # an input with no gradient (a mask)
                    continue
                if x.id in grads:
                    grads[x.id] = g.add(grads[x.id], dx)
                else:
                    grads[x.id] = dx
        g.output(*[copies[o.id] for o in outputs])
        for w in wrt:
            if w.id not in grads:
                raise ValueError(f"{w.attrs.get('name')} does not reach the outputs")
            g.output(grads[w.id])
        return g

    # -- numpy reference -----------------------------------------------------

    def evaluate(self, feeds, matmul_operands=F32, storage=F32):
        """The outputs in float64 for `feeds` (input name -> array). With
        matmul_operands="bf16" (or "f16"), contractions read their operands
        rounded to that type, as `emit(matmul_operands)` computes them: the
        float64 values rounded to f32, then to the type. With 16-bit
        `storage`, every input and every op's result is rounded so (through
        f32), as `emit(storage=...)` stores them, and softmax rounds its
        exponentials before summing them."""
        values = {}

        def rounded(value, element):
            return numerics.round_to(np.asarray(value, np.float64).astype(np.float32),
                                     element).astype(np.float64)

        def operand(value):
            if matmul_operands == F32:
                return value
            return rounded(value, matmul_operands)

        def stored(value):
            return value if storage == F32 else rounded(value, storage)

        for t in self.nodes:
            v = [values[i.id] for i in t.inputs]
            a = t.attrs
            if t.op == "input":
                r = np.asarray(feeds[a["name"]], np.float64)
                assert r.shape == t.shape, (a["name"], r.shape, t.shape)
            elif t.op == "matmul":
                x = np.swapaxes(v[0], -1, -2) if a["ta"] else v[0]
                w = np.swapaxes(v[1], -1, -2) if a["tb"] else v[1]
                r = operand(x) @ operand(w)
            elif t.op == "add":
                r = v[0] + v[1]
            elif t.op == "sub":
                r = v[0] - v[1]
            elif t.op == "mul":
                r = v[0] * v[1]
            elif t.op == "scale":
                r = v[0] * np.float64(np.float32(a["factor"]))
            elif t.op == "div":
                r = v[0] / v[1]
            elif t.op == "shift":
                r = v[0] + np.float64(np.float32(a["value"]))
            elif t.op == "rdiv":
                with np.errstate(divide="ignore", invalid="ignore"):
                    r = np.float64(np.float32(a["value"])) / v[0]
            elif t.op == "clamp":
                low, high = self.clamp_bounds(t, v)
                tensors = [b for b, tensor in ((low, a["tensor_low"]), (high, a["tensor_high"]))
                           if tensor]
                low, high = (b if b is None or tensors else np.float64(np.float32(b))
                             for b in (low, high))
                r = v[0]
                if low is not None:
                    r = np.where(r < low, low, r)
                if high is not None:
                    r = np.where(high < r, high, r)
                for b in tensors:
                    r = np.where(np.isnan(b), np.nan, r)
            elif t.op == "gelu":
                r = _gelu(v[0])
            elif t.op == "relu":
                r = np.maximum(v[0], 0.0)
            elif t.op == "abs":
                r = np.abs(v[0])
            elif t.op == "maximum":
                r = np.maximum(v[0], v[1])
            elif t.op == "minimum":
                r = np.minimum(v[0], v[1])
            elif t.op == "relu_grad":
                # dy but where x <= 0 (NaN passes dy, as torch's).
                r = np.where(v[0] <= 0, 0.0, v[1])
            elif t.op == "silu":
                r = v[0] / (1.0 + np.exp(-v[0]))
            elif t.op == "silu_grad":
                sig = 1.0 / (1.0 + np.exp(-v[0]))
                r = v[1] * sig * (1.0 + v[0] * (1.0 - sig))
            elif t.op == "tanh":
                r = np.tanh(v[0])
            elif t.op == "tanh_grad":
                r = v[1] * (1.0 - v[0] * v[0])
            elif t.op == "sigmoid":
                r = 1.0 / (1.0 + np.exp(-v[0]))
            elif t.op == "sigmoid_grad":
                r = v[1] * v[0] * (1.0 - v[0])
            elif t.op == "exp":
                r = np.exp(v[0])
            elif t.op == "sqrt":
                r = np.sqrt(v[0])
            elif t.op == "erf":
                r = _erf(v[0])
            elif t.op == "log":
                r = np.log(v[0])
            elif t.op == "gelu_tanh":
                r = _gelu_tanh(v[0])
            elif t.op == "gelu_tanh_grad":
                r = v[1] * _gelu_tanh_derivative(v[0])
            elif t.op == "log_softmax":
                shifted = v[0] - v[0].max(axis=-1, keepdims=True)
                r = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
            elif t.op == "gelu_grad":
                r = v[1] * _gelu_derivative(v[0])
            elif t.op == "softmax":
                e = stored(np.exp(v[0] - v[0].max(axis=-1, keepdims=True)))
                r = e / e.sum(axis=-1, keepdims=True)
            elif t.op == "rsqrt":
                eps = np.float64(np.float32(a["eps"]))
                with np.errstate(divide="ignore", invalid="ignore"):
                    r = 1.0 / np.sqrt(v[0] + eps if eps else v[0])
            elif t.op == "rsqrt_grad":
                r = -0.5 * v[1] * v[0] ** 3
            elif t.op == "reduce_max":
                reduce = np.max if a["largest"] else np.min
                r = reduce(v[0], axis=tuple(a["dims"]))
            elif t.op == "position":
                r = np.broadcast_to(_positions(np, t), t.shape).astype(np.float64)
            elif t.op == "reduce_sum":
                r = v[0].sum(axis=tuple(a["dims"]))
            elif t.op == "broadcast":
                r = np.broadcast_to(np.expand_dims(v[0], tuple(a["dims"])), t.shape).copy()
            elif t.op == "transpose":
                r = np.transpose(v[0], a["perm"])
            elif t.op == "reshape":
                r = v[0].reshape(t.shape)
            elif t.op in ("slice", "pad", "concat"):
                r = _slicing(np, t, v)
            elif t.op == "causal_fill":
                s = t.shape[-1]
                above = np.triu(np.ones((t.shape[-2], s), bool), 1)
                r = np.where(above, a["value"], v[0])
            elif t.op == "fill_where":
                r = np.where(v[1] != 0, np.float64(np.float32(a["value"])), v[0])
            elif t.op == "compare":
                other = v[1] if len(v) > 1 else np.float64(np.float32(a["value"]))
                r = getattr(operator, a["predicate"])(v[0], other).astype(np.float64)
            elif t.op == "select":
                r = np.where(v[0] != 0, v[1], v[2])
            else:
                raise NotImplementedError(t.op)
            values[t.id] = stored(r)
        return [values[o.id] for o in self.outputs]

    def evaluate_torch(self, torch, feeds):
        """The outputs computed by PyTorch ops from `feeds` (input name ->
        tensor, all of one dtype and device): the same model in the feeds'
        precision, the baseline a framework would run (`torch.compile` of
        this function, say). Contractions run as `@` in that dtype."""
        F = torch.nn.functional
        values = {}
        for t in self.nodes:
            v = [values[i.id] for i in t.inputs]
            a = t.attrs
            if t.op == "input":
                r = feeds[a["name"]]
            elif t.op == "matmul":
                x = v[0].transpose(-1, -2) if a["ta"] else v[0]
                w = v[1].transpose(-1, -2) if a["tb"] else v[1]
                r = x @ w
            elif t.op == "add":
                r = v[0] + v[1]
            elif t.op == "sub":
                r = v[0] - v[1]
            elif t.op == "mul":
                r = v[0] * v[1]
            elif t.op == "scale":
                r = v[0] * a["factor"]
            elif t.op == "div":
                r = v[0] / v[1]
            elif t.op == "shift":
                r = v[0] + a["value"]
            elif t.op == "rdiv":
                r = a["value"] / v[0]
            elif t.op == "clamp":
                r = torch.clamp(v[0], *self.clamp_bounds(t, v))
            elif t.op == "gelu":
                r = F.gelu(v[0])
            elif t.op == "relu":
                r = torch.relu(v[0])
            elif t.op == "abs":
                r = torch.abs(v[0])
            elif t.op in ("maximum", "minimum"):
                r = getattr(torch, t.op)(v[0], v[1])
            elif t.op == "relu_grad":
                r = torch.where(v[0] <= 0, torch.zeros_like(v[1]), v[1])
            elif t.op == "silu":
                r = F.silu(v[0])
            elif t.op == "silu_grad":
                sig = torch.sigmoid(v[0])
                r = v[1] * sig * (1.0 + v[0] * (1.0 - sig))
            elif t.op == "tanh":
                r = torch.tanh(v[0])
            elif t.op == "tanh_grad":
                r = v[1] * (1.0 - v[0] * v[0])
            elif t.op == "sigmoid":
                r = torch.sigmoid(v[0])
            elif t.op == "sigmoid_grad":
                r = v[1] * v[0] * (1.0 - v[0])
            elif t.op == "exp":
                r = torch.exp(v[0])
            elif t.op == "sqrt":
                r = torch.sqrt(v[0])
            elif t.op == "erf":
                r = torch.erf(v[0])
            elif t.op == "log":
                r = torch.log(v[0])
            elif t.op == "gelu_tanh":
                r = F.gelu(v[0], approximate="tanh")
            elif t.op == "gelu_tanh_grad":
                r = v[1] * _gelu_tanh_derivative(v[0], torch.tanh)
            elif t.op == "log_softmax":
                r = torch.log_softmax(v[0], dim=-1)
            elif t.op == "gelu_grad":
                x = v[0]
                r = v[1] * (0.5 * (1.0 + torch.erf(x / math.sqrt(2.0))) +
                            x * torch.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi))
            elif t.op == "softmax":
                r = torch.softmax(v[0], dim=-1)
            elif t.op == "rsqrt":
                r = torch.rsqrt(v[0] + a["eps"] if a["eps"] else v[0])
            elif t.op == "rsqrt_grad":
                r = -0.5 * v[1] * v[0] ** 3
            elif t.op == "reduce_max":
                reduce = torch.amax if a["largest"] else torch.amin
                r = reduce(v[0], dim=tuple(a["dims"]))
            elif t.op == "position":
                r = _positions(torch, t, dtype=v[0].dtype, device=v[0].device).expand(t.shape)
            elif t.op == "reduce_sum":
                r = v[0].sum(dim=tuple(a["dims"]))
            elif t.op == "broadcast":
                r = v[0]
                for d in sorted(a["dims"]):
                    r = r.unsqueeze(d)
                r = r.expand(t.shape)
            elif t.op == "transpose":
                r = v[0].permute(a["perm"])
            elif t.op == "reshape":
                r = v[0].reshape(t.shape)
            elif t.op in ("slice", "pad", "concat"):
                r = _slicing(torch, t, v)
            elif t.op == "causal_fill":
                s = t.shape[-1]
                above = torch.ones((t.shape[-2], s), dtype=torch.bool,
                                   device=v[0].device).triu(1)
                r = v[0].masked_fill(above, a["value"])
            elif t.op == "fill_where":
                r = v[0].masked_fill(v[1] != 0, a["value"])
            elif t.op == "compare":
                other = v[1] if len(v) > 1 else a["value"]
                r = getattr(operator, a["predicate"])(v[0], other).to(v[0].dtype)
            elif t.op == "select":
                r = torch.where(v[0] != 0, v[1], v[2])
            else:
                raise NotImplementedError(t.op)
            values[t.id] = r
        return [values[o.id] for o in self.outputs]

    # -- MLIR ----------------------------------------------------------------

    def emit(self, matmul_operands=F32, storage=F32, weights=(), prepare_group=None):
        """The graph as a func.func (see _emit); an input whose name is also
        one the emitter gives a value of its own (`e2`, `y`) is renamed in
        the text (`%in_e2`), which is otherwise not valid IR. The graph is
        left as it was."""
        saved = [(p, p.attrs.get("ssa")) for p in self.params]
        try:
            while True:
                text = self._emit(matmul_operands, storage, weights, prepare_group)
                counts = collections.Counter(re.findall(r"(%[\w$.-]+)(?= =|: )", text))
                clashing = [p for p in self.params if counts.get(p.name, 0) > 1]
                if not clashing:
                    return text
                for p in clashing:
                    p.attrs["ssa"] = "in_" + p.name[1:]
        finally:
            for p, ssa in saved:
                if ssa is None:
                    p.attrs.pop("ssa", None)
                else:
                    p.attrs["ssa"] = ssa

    def _emit(self, matmul_operands, storage, weights, prepare_group):
        """The graph as a func.func on tensors of `storage` (f32, or bf16 /
        f16 as a mixed-precision framework stores them). The inputs named in
        `weights` carry `fp8.weight` (what fp8-prepare-weights may compute
        from once per weight update); with `prepare_group` the function
        carries `fp8.prepare_group`, so that the functions of one group
        (a model's forward and backward functions, which read the same
        weights) share one prepare function, @<group>_prepare.

        With matmul_operands="bf16" (or "f16") and f32 storage, every
        contraction reads its operands rounded to that type (arith.truncf)
        and accumulates in f32: the baseline of a model whose GEMMs take
        16-bit inputs.

        With 16-bit storage every tensor, input and output is of that type,
        and every primitive computes in f32 and rounds once, in the manner
        of eager PyTorch in that type: elementwise ops extend their operands
        to f32, compute in f32 and round the result; contractions accumulate
        in f32 and round their result; reductions (sums, softmax's sum of
        exponentials) accumulate in f32, and their results are rounded when
        stored; softmax's maximum is taken in that type (exactly)."""
        lines = []
        zeros = set()
        wide = storage != F32

        def ty(x):
            return tensor_type(x.shape if isinstance(x, Tensor) else x, storage)

        def line(text):
            lines.append("  " + text)

        def zero_filled(name, type_, element=F32):
            """A tensor of `type_`, of `element`s, filled with zeros."""
            zero = "zero" if element == F32 else f"zero_{element}"
            line(f"%e{name} = tensor.empty() : {type_}")
            if zero not in zeros:
                zeros.add(zero)
                lines.insert(0, f"  %{zero} = arith.constant 0.000000e+00 : {element}")
            line(f"%z{name} = linalg.fill ins(%{zero} : {element}) outs(%e{name} : {type_}) "
                 f"-> {type_}")
            return f"%z{name}"

        def empty(t):
            line(f"%e{t.id} = tensor.empty() : {ty(t)}")
            return f"%e{t.id}"

        def block(args, body):
            """A region's block for arguments (name, element): f32 values
            of each (16-bit ones extended), then `body`."""
            header = ", ".join(f"%{n}: f32" if e == "f32" else f"%{n}_s: {e}" for n, e in args)
            extend = [f"%{n} = arith.extf %{n}_s : {e} to f32" for n, e in args if e != "f32"]
            return header, extend + body

        def yield_(body):
            """`body`, whose last line yields an f32 value, with that value
            rounded to storage."""
            if not wide:
                return body
            value = re.fullmatch(r"linalg\.yield (%\w+) : f32", body[-1]).group(1)
            return body[:-1] + [f"%yr = arith.truncf {value} : f32 to {storage}",
                                f"linalg.yield %yr : {storage}"]

        def elementwise(t, body, attrs="", inputs=None, result=None, maps=None, out=None):
            inputs = operands(t) if inputs is None else inputs
            rank = len(t.shape)
            dims = [f"d{i}" for i in range(rank)]
            ident = _map(dims, dims)
            maps = ", ".join(maps or [ident] * (len(inputs) + 1))
            iters = ", ".join(['"parallel"'] * rank)
            ins = ", ".join(n for n, _ in inputs)
            tys = ", ".join(tp for _, tp in inputs)
            if out is None:
                out = empty(t)
            else:
                line(f"%e{out} = tensor.empty() : {ty(t)}")
                out = f"%e{out}"
            header, body = block([(f"in{k}", _element(tp)) for k, (_, tp) in enumerate(inputs)],
                                 yield_(body))
            line(f"{result or t.name} = linalg.generic {{indexing_maps = [{maps}], "
                 f"iterator_types = [{iters}]}} ins({ins} : {tys}) outs({out} : {ty(t)}){attrs} {{")
            line(f"^bb0({header}, %out: {storage}):")
            for b in body:
                line("  " + b)
            line(f"}} -> {ty(t)}")

        def operands(t):
            return [(i.name, ty(i)) for i in t.inputs]

        def fconst(v):
            # MLIR spells infinities and NaNs by their bits.
            v = np.float32(v)
            if not np.isfinite(v):
                return f"0x{int(v.view(np.uint32)):08X}"
            return f"{v.item():.9e}"

        def row_softmax(t, log):
            # (log_)softmax over the last dim: a maximum (exact in storage),
            # then
            #   softmax (16-bit storage; f32 storage keeps linalg.softmax):
            #     e = exp(x - max) rounded to storage, the f32 sum of e, and
            #     e / sum: one input per reduction, as the GPU's reduction
            #     kernels take them;
            #   log_softmax: the f32 sum of exp(x - max), then
            #     x - max - log(sum).
            x = t.inputs[0]
            rank = len(t.shape)
            dims = [f"d{i}" for i in range(rank)]
            full, rows = _map(dims, dims), _map(dims, dims[:-1])
            row_type = ty(t.shape[:-1])
            sum_type = tensor_type(t.shape[:-1])
            reduce_iters = ", ".join(['"parallel"'] * (rank - 1) + ['"reduction"'])
            line(f"%e{t.id}_r = tensor.empty() : {row_type}")
            line(f"%ninf{t.id} = arith.constant 0xFF800000 : f32")
            ninf = f"%ninf{t.id}"
            if wide:
                line(f"%ninfs{t.id} = arith.truncf %ninf{t.id} : f32 to {storage}")
                ninf = f"%ninfs{t.id}"
            line(f"%f{t.id}_m = linalg.fill ins({ninf} : {storage}) outs(%e{t.id}_r : "
                 f"{row_type}) -> {row_type}")
            line(f"%m{t.id} = linalg.reduce ins({x.name} : {ty(x)}) outs(%f{t.id}_m : {row_type})"
                 f" dimensions = [{rank - 1}]")
            line(f"  (%in: {storage}, %acc: {storage}) {{")
            line(f"    %r = arith.maximumf %in, %acc : {storage}")
            line(f"    linalg.yield %r : {storage}")
            line("  }")
            sums = zero_filled(f"{t.id}_s", sum_type)
            if log:
                summed = [(x.name, ty(x)), (f"%m{t.id}", row_type)]
                maps, summand = [full, rows, rows], ["%d = arith.subf %in0, %in1 : f32",
                                                     "%e = math.exp %d : f32",
                                                     "%y = arith.addf %acc, %e : f32"]
            else:
                elementwise(t, ["%d = arith.subf %in0, %in1 : f32", "%y = math.exp %d : f32",
                                "linalg.yield %y : f32"],
                            inputs=[(x.name, ty(x)), (f"%m{t.id}", row_type)],
                            result=f"%x{t.id}", maps=[full, rows, full], out=f"{t.id}x")
                summed = [(f"%x{t.id}", ty(x))]
                maps, summand = [full, rows], ["%y = arith.addf %acc, %in0 : f32"]
            header, body = block([(f"in{k}", storage) for k in range(len(summed))], summand)
            line(f"%s{t.id} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
                 f"iterator_types = [{reduce_iters}]}} ins({', '.join(n for n, _ in summed)} : "
                 f"{', '.join(tp for _, tp in summed)}) outs({sums} : {sum_type}) {{")
            line(f"^bb0({header}, %acc: f32):")
            for b in body + ["linalg.yield %y : f32"]:
                line("  " + b)
            line(f"}} -> {sum_type}")
            if log:
                elementwise(t, ["%d = arith.subf %in0, %in1 : f32", "%l = math.log %in2 : f32",
                                "%y = arith.subf %d, %l : f32", "linalg.yield %y : f32"],
                            inputs=[(x.name, ty(x)), (f"%m{t.id}", row_type),
                                    (f"%s{t.id}", sum_type)], maps=[full, rows, rows, full])
            else:
                elementwise(t, ["%y = arith.divf %in0, %in1 : f32", "linalg.yield %y : f32"],
                            inputs=[(f"%x{t.id}", ty(x)), (f"%s{t.id}", sum_type)],
                            maps=[full, rows, full])

        for t in self.nodes:
            a, ins = t.attrs, t.inputs
            if t.op == "input":
                continue
            if t.op == "matmul":
                batch = len(t.shape) == 3
                dims = (["b"] if batch else []) + ["m", "n", "k"]
                pre = ["b"] if batch else []
                amap = _map(dims, pre + (["k", "m"] if a["ta"] else ["m", "k"]))
                bmap = _map(dims, pre + (["n", "k"] if a["tb"] else ["k", "n"]))
                cmap = _map(dims, pre + ["m", "n"])
                attrs = []
                if a["role"]:
                    attrs.append(f"fp8.role = #fp8.gemm_role<{a['role']}>")
                if a["grad_operand"] is not None:
                    attrs.append(f"fp8.grad_operand = {a['grad_operand']} : i64")
                if a["name"]:
                    attrs.append(f'fp8.name = "{a["name"]}"')
                attr = f" {{{', '.join(attrs)}}}" if attrs else ""
                acc_type = tensor_type(t.shape)
                init = zero_filled(f"{t.id}a" if wide else t.id, acc_type)
                names, types = [i.name for i in ins], [ty(i) for i in ins]
                if matmul_operands != F32 and not wide:
                    for k, i in enumerate(ins):
                        types[k] = tensor_type(i.shape, matmul_operands)
                        names[k] = f"%n{t.id}_{k}"
                        line(f"{names[k]} = arith.truncf {i.name} : {ty(i)} to {types[k]}")
                opname = "linalg.batch_matmul" if batch else "linalg.matmul"
                result = f"%acc{t.id}" if wide else t.name
                line(f"{result} = {opname} indexing_maps = [{amap}, {bmap}, {cmap}]{attr}"
                     f" ins({names[0]}, {names[1]} : {types[0]}, {types[1]})"
                     f" outs({init} : {acc_type}) -> {acc_type}")
                if wide:  # the f32 accumulation rounded to storage
                    elementwise(t, ["linalg.yield %in0 : f32"], inputs=[(result, acc_type)])
            elif t.op in ("add", "sub", "div", "mul") and wide:
                attr = (f' attrs = {{fp8.unit_op = "{a["unit_op"]}"}}'
                        if t.op == "mul" and a["unit_op"] else "")
                op = {"add": "addf", "sub": "subf", "div": "divf", "mul": "mulf"}[t.op]
                elementwise(t, [f"%y = arith.{op} %in0, %in1 : f32", "linalg.yield %y : f32"],
                            attrs=attr)
            elif t.op in ("add", "sub", "div"):
                out = empty(t)
                line(f"{t.name} = linalg.{t.op} ins({ins[0].name}, {ins[1].name} : {ty(t)}, "
                     f"{ty(t)}) outs({out} : {ty(t)}) -> {ty(t)}")
            elif t.op == "mul":
                out = empty(t)
                attr = f' {{fp8.unit_op = "{a["unit_op"]}"}}' if a["unit_op"] else ""
                line(f"{t.name} = linalg.mul{attr} ins({ins[0].name}, {ins[1].name} : {ty(t)}, "
                     f"{ty(t)}) outs({out} : {ty(t)}) -> {ty(t)}")
            elif t.op == "scale":
                elementwise(t, [f"%c = arith.constant {fconst(a['factor'])} : f32",
                                "%y = arith.mulf %in0, %c : f32", "linalg.yield %y : f32"])
            elif t.op == "gelu":
                elementwise(t, [f"%r = arith.constant {fconst(1 / math.sqrt(2))} : f32",
                                "%h = arith.constant 5.000000e-01 : f32",
                                "%one = arith.constant 1.000000e+00 : f32",
                                "%s = arith.mulf %in0, %r : f32",
                                "%erf = math.erf %s : f32",
                                "%p = arith.addf %erf, %one : f32",
                                "%xp = arith.mulf %in0, %p : f32",
                                "%y = arith.mulf %xp, %h : f32",
                                "linalg.yield %y : f32"])
            elif t.op == "gelu_grad":
                elementwise(t, [f"%r = arith.constant {fconst(1 / math.sqrt(2))} : f32",
                                f"%n = arith.constant {fconst(1 / math.sqrt(2 * math.pi))} : f32",
                                "%h = arith.constant 5.000000e-01 : f32",
                                "%mh = arith.constant -5.000000e-01 : f32",
                                "%one = arith.constant 1.000000e+00 : f32",
                                "%s = arith.mulf %in0, %r : f32",
                                "%erf = math.erf %s : f32",
                                "%p = arith.addf %erf, %one : f32",
                                "%cdf = arith.mulf %p, %h : f32",
                                "%sq = arith.mulf %in0, %in0 : f32",
                                "%ex = arith.mulf %sq, %mh : f32",
                                "%e = math.exp %ex : f32",
                                "%pdf = arith.mulf %e, %n : f32",
                                "%xpdf = arith.mulf %in0, %pdf : f32",
                                "%d = arith.addf %cdf, %xpdf : f32",
                                "%y = arith.mulf %in1, %d : f32",
                                "linalg.yield %y : f32"],
                            attrs=' attrs = {fp8.unit_op = "gelu_grad"}')
            elif t.op == "shift":
                elementwise(t, [f"%c = arith.constant {fconst(a['value'])} : f32",
                                "%y = arith.addf %in0, %c : f32", "linalg.yield %y : f32"])
            elif t.op == "rdiv":
                elementwise(t, [f"%c = arith.constant {fconst(a['value'])} : f32",
                                "%y = arith.divf %c, %in0 : f32", "linalg.yield %y : f32"])
            elif t.op == "clamp":
                # low where x < low, then high where high < that; NaN where
                # a tensor bound is NaN.
                body, value, tensors = [], "%in0", []
                low, high = self.clamp_bounds(t, [f"%in{k}" for k in range(len(t.inputs))])
                for k, bound in enumerate((low, high)):
                    if bound is None:
                        continue
                    if isinstance(bound, float):
                        body.append(f"%b{k} = arith.constant {fconst(bound)} : f32")
                        bound = f"%b{k}"
                    else:
                        tensors.append(bound)
                    lhs, rhs = (value, bound) if k == 0 else (bound, value)
                    body += [f"%p{k} = arith.cmpf olt, {lhs}, {rhs} : f32",
                             f"%y{k} = arith.select %p{k}, {bound}, {value} : f32"]
                    value = f"%y{k}"
                for k, bound in enumerate(tensors):
                    body += [f"%n{k} = arith.cmpf uno, {bound}, {bound} : f32",
                             f"%nan{k} = arith.constant 0x7FC00000 : f32",
                             f"%z{k} = arith.select %n{k}, %nan{k}, {value} : f32"]
                    value = f"%z{k}"
                elementwise(t, body + [f"linalg.yield {value} : f32"])
            elif t.op == "relu":
                elementwise(t, ["%z = arith.constant 0.000000e+00 : f32",
                                "%y = arith.maximumf %in0, %z : f32", "linalg.yield %y : f32"])
            elif t.op == "abs":
                elementwise(t, ["%y = math.absf %in0 : f32", "linalg.yield %y : f32"])
            elif t.op in ("maximum", "minimum"):
                elementwise(t, [f"%y = arith.{t.op}f %in0, %in1 : f32", "linalg.yield %y : f32"])
            elif t.op == "relu_grad":
                # 0 where x <= 0, else dy (also where x is NaN, as torch's).
                elementwise(t, ["%z = arith.constant 0.000000e+00 : f32",
                                "%p = arith.cmpf ole, %in0, %z : f32",
                                "%y = arith.select %p, %z, %in1 : f32", "linalg.yield %y : f32"])
            elif t.op in ("silu", "silu_grad", "sigmoid"):
                # %s = sigmoid(%in0) = 1 / (1 + exp(-%in0)).
                sigmoid = ["%one = arith.constant 1.000000e+00 : f32",
                           "%n = arith.negf %in0 : f32",
                           "%e = math.exp %n : f32",
                           "%d = arith.addf %e, %one : f32",
                           "%s = arith.divf %one, %d : f32"]
                if t.op == "sigmoid":
                    body = ["linalg.yield %s : f32"]
                elif t.op == "silu":
                    body = ["%y = arith.mulf %in0, %s : f32", "linalg.yield %y : f32"]
                else:
                    body = ["%c = arith.subf %one, %s : f32",
                            "%xc = arith.mulf %in0, %c : f32",
                            "%p = arith.addf %xc, %one : f32",
                            "%sp = arith.mulf %s, %p : f32",
                            "%y = arith.mulf %in1, %sp : f32", "linalg.yield %y : f32"]
                elementwise(t, sigmoid + body)
            elif t.op == "tanh":
                elementwise(t, ["%y = math.tanh %in0 : f32", "linalg.yield %y : f32"])
            elif t.op == "exp":
                elementwise(t, ["%y = math.exp %in0 : f32", "linalg.yield %y : f32"])
            elif t.op == "sqrt":
                elementwise(t, ["%y = math.sqrt %in0 : f32", "linalg.yield %y : f32"])
            elif t.op == "erf":
                elementwise(t, ["%y = math.erf %in0 : f32", "linalg.yield %y : f32"])
            elif t.op == "log":
                elementwise(t, ["%y = math.log %in0 : f32", "linalg.yield %y : f32"])
            elif t.op == "sigmoid_grad":
                elementwise(t, ["%one = arith.constant 1.000000e+00 : f32",
                                "%c = arith.subf %one, %in0 : f32",
                                "%d = arith.mulf %in0, %c : f32",
                                "%y = arith.mulf %in1, %d : f32", "linalg.yield %y : f32"])
            elif t.op in ("gelu_tanh", "gelu_tanh_grad"):
                # t = tanh(c (x + k x^3)) for both; the gradient is
                # 0.5 (1 + t) + 0.5 x (1 - t^2) c (1 + 3 k x^2).
                inner = [f"%c = arith.constant {fconst(_GELU_TANH_C)} : f32",
                         f"%k = arith.constant {fconst(_GELU_TANH_K)} : f32",
                         "%h = arith.constant 5.000000e-01 : f32",
                         "%one = arith.constant 1.000000e+00 : f32",
                         "%xsq = arith.mulf %in0, %in0 : f32",
                         "%xcube = arith.mulf %xsq, %in0 : f32",
                         "%kx3 = arith.mulf %xcube, %k : f32",
                         "%s = arith.addf %in0, %kx3 : f32",
                         "%u = arith.mulf %s, %c : f32",
                         "%t = math.tanh %u : f32",
                         "%p = arith.addf %t, %one : f32"]
                if t.op == "gelu_tanh":
                    body = ["%xp = arith.mulf %in0, %p : f32",
                            "%y = arith.mulf %xp, %h : f32"]
                else:
                    body = [f"%k3 = arith.constant {fconst(3 * _GELU_TANH_K)} : f32",
                            "%hp = arith.mulf %p, %h : f32",
                            "%t2 = arith.mulf %t, %t : f32",
                            "%q = arith.subf %one, %t2 : f32",
                            "%k3x2 = arith.mulf %xsq, %k3 : f32",
                            "%r = arith.addf %k3x2, %one : f32",
                            "%cr = arith.mulf %r, %c : f32",
                            "%hx = arith.mulf %in0, %h : f32",
                            "%hxq = arith.mulf %hx, %q : f32",
                            "%dt = arith.mulf %hxq, %cr : f32",
                            "%d = arith.addf %hp, %dt : f32",
                            "%y = arith.mulf %in1, %d : f32"]
                elementwise(t, inner + body + ["linalg.yield %y : f32"],
                            attrs=(' attrs = {fp8.unit_op = "gelu_grad"}'
                                   if t.op == "gelu_tanh_grad" else ""))
            elif t.op == "tanh_grad":
                elementwise(t, ["%one = arith.constant 1.000000e+00 : f32",
                                "%sq = arith.mulf %in0, %in0 : f32",
                                "%d = arith.subf %one, %sq : f32",
                                "%y = arith.mulf %in1, %d : f32", "linalg.yield %y : f32"])
            elif t.op == "log_softmax" or (t.op == "softmax" and wide):
                row_softmax(t, log=t.op == "log_softmax")
            elif t.op == "softmax":
                out = empty(t)
                line(f"{t.name} = linalg.softmax dimension({len(t.shape) - 1}) ins({ins[0].name} : "
                     f"{ty(t)}) outs({out} : {ty(t)}) -> {ty(t)}")
            elif t.op == "rsqrt":
                # No addition of a zero eps, which would make -0 +0.
                add = ([f"%eps = arith.constant {fconst(a['eps'])} : f32",
                        "%s = arith.addf %in0, %eps : f32"] if a["eps"] else [])
                elementwise(t, add + [f"%y = math.rsqrt {'%s' if add else '%in0'} : f32",
                                      "linalg.yield %y : f32"])
            elif t.op == "rsqrt_grad":
                elementwise(t, ["%mh = arith.constant -5.000000e-01 : f32",
                                "%r2 = arith.mulf %in0, %in0 : f32",
                                "%r3 = arith.mulf %r2, %in0 : f32",
                                "%g = arith.mulf %in1, %r3 : f32",
                                "%y = arith.mulf %g, %mh : f32", "linalg.yield %y : f32"])
            elif t.op == "reduce_max":
                # Exact in storage: reduced from +-inf, NaN propagated.
                infinity = "0xFF800000" if a["largest"] else "0x7F800000"
                line(f"%inf{t.id} = arith.constant {infinity} : f32")
                init = f"%inf{t.id}"
                if wide:
                    line(f"%infs{t.id} = arith.truncf %inf{t.id} : f32 to {storage}")
                    init = f"%infs{t.id}"
                line(f"%e{t.id} = tensor.empty() : {ty(t)}")
                line(f"%f{t.id} = linalg.fill ins({init} : {storage}) outs(%e{t.id} : {ty(t)}) "
                     f"-> {ty(t)}")
                line(f"{t.name} = linalg.reduce ins({ins[0].name} : {ty(ins[0])}) outs(%f{t.id} : "
                     f"{ty(t)}) dimensions = [{', '.join(map(str, a['dims']))}]")
                line(f"  (%in: {storage}, %acc: {storage}) {{")
                line(f"    %r = arith.{'maximumf' if a['largest'] else 'minimumf'} %in, %acc : "
                     f"{storage}")
                line(f"    linalg.yield %r : {storage}")
                line("  }")
            elif t.op == "reduce_sum":
                acc_type = tensor_type(t.shape)
                init = zero_filled(f"{t.id}a" if wide else t.id, acc_type)
                result = f"%acc{t.id}" if wide else t.name
                line(f"{result} = linalg.reduce ins({ins[0].name} : {ty(ins[0])}) outs({init} : "
                     f"{acc_type}) dimensions = [{', '.join(map(str, a['dims']))}]")
                if wide:
                    line(f"  (%in_s: {storage}, %acc: f32) {{")
                    line(f"    %in = arith.extf %in_s : {storage} to f32")
                else:
                    line("  (%in: f32, %acc: f32) {")
                line("    %s = arith.addf %in, %acc : f32")
                line("    linalg.yield %s : f32")
                line("  }")
                if wide:  # the f32 sum rounded to storage
                    elementwise(t, ["linalg.yield %in0 : f32"], inputs=[(result, acc_type)])
            elif t.op == "broadcast":
                out = empty(t)
                line(f"{t.name} = linalg.broadcast ins({ins[0].name} : {ty(ins[0])}) outs({out} : "
                     f"{ty(t)}) dimensions = [{', '.join(map(str, a['dims']))}]")
            elif t.op == "transpose":
                out = empty(t)
                line(f"{t.name} = linalg.transpose ins({ins[0].name} : {ty(ins[0])}) outs({out} : "
                     f"{ty(t)}) permutation = [{', '.join(map(str, a['perm']))}]")
            elif t.op == "reshape":
                groups = "[" + ", ".join("[" + ", ".join(map(str, g)) + "]"
                                         for g in a["groups"]) + "]"
                if len(t.shape) > len(ins[0].shape):
                    line(f"{t.name} = tensor.expand_shape {ins[0].name} {groups} output_shape "
                         f"[{', '.join(map(str, t.shape))}] : {ty(ins[0])} into {ty(t)}")
                else:
                    line(f"{t.name} = tensor.collapse_shape {ins[0].name} {groups} : "
                         f"{ty(ins[0])} into {ty(t)}")
            elif t.op in ("slice", "pad", "concat"):
                dim = a["dim"]

                def window(start, sizes):
                    offsets = [start if d == dim else 0 for d in range(len(sizes))]
                    return (f"[{', '.join(map(str, offsets))}] [{', '.join(map(str, sizes))}] "
                            f"[{', '.join(['1'] * len(sizes))}]")
                if t.op == "slice":
                    line(f"{t.name} = tensor.extract_slice {ins[0].name}"
                         f"{window(a['start'], t.shape)} : {ty(ins[0])} to {ty(t)}")
                else:
                    if t.op == "pad":
                        whole = zero_filled(t.id, ty(t), storage)
                        parts = [(ins[0], a["start"])]
                    else:
                        whole, parts, start = empty(t), [], 0
                        for x in ins:
                            parts.append((x, start))
                            start += x.shape[dim]
                    for i, (x, offset) in enumerate(parts):
                        into = t.name if i + 1 == len(parts) else f"{t.name}_{i}"
                        line(f"{into} = tensor.insert_slice {x.name} into {whole}"
                             f"{window(offset, x.shape)} : {ty(x)} into {ty(t)}")
                        whole = into
            elif t.op == "causal_fill":
                rank = len(t.shape)
                elementwise(t, [f"%i = linalg.index {rank - 2} : index",
                                f"%j = linalg.index {rank - 1} : index",
                                "%above = arith.cmpi ugt, %j, %i : index",
                                f"%v = arith.constant {fconst(a['value'])} : f32",
                                "%y = arith.select %above, %v, %in0 : f32",
                                "linalg.yield %y : f32"])
            elif t.op == "position":
                exact = {F32: 1 << 24, "bf16": 256, "f16": 2048}[storage]
                assert t.shape[a["dim"]] <= exact, \
                    f"positions up to {t.shape[a['dim']]} are not exact in {storage}"
                elementwise(t, [f"%i = linalg.index {a['dim']} : index",
                                "%n = arith.index_cast %i : index to i64",
                                "%y = arith.sitofp %n : i64 to f32",
                                "linalg.yield %y : f32"])
            elif t.op == "fill_where":
                elementwise(t, ["%zf = arith.constant 0.000000e+00 : f32",
                                "%set = arith.cmpf une, %in1, %zf : f32",
                                f"%v = arith.constant {fconst(a['value'])} : f32",
                                "%y = arith.select %set, %v, %in0 : f32",
                                "linalg.yield %y : f32"])
            elif t.op == "compare":
                other = "%in1" if len(ins) > 1 else "%b"
                elementwise(t, ([] if len(ins) > 1 else
                                [f"%b = arith.constant {fconst(a['value'])} : f32"]) +
                            [f"%c = arith.cmpf {PREDICATES[a['predicate']]}, %in0, {other} : f32",
                             "%one = arith.constant 1.000000e+00 : f32",
                             "%zf = arith.constant 0.000000e+00 : f32",
                             "%y = arith.select %c, %one, %zf : f32",
                             "linalg.yield %y : f32"])
            elif t.op == "select":
                elementwise(t, ["%zf = arith.constant 0.000000e+00 : f32",
                                "%set = arith.cmpf une, %in0, %zf : f32",
                                "%y = arith.select %set, %in1, %in2 : f32",
                                "linalg.yield %y : f32"])
            else:
                raise NotImplementedError(t.op)

        args = ", ".join(f"{p.name}: {ty(p)}"
                         + (" {fp8.weight}" if p.attrs["name"] in weights else "")
                         for p in self.params)
        results = ", ".join(ty(o) for o in self.outputs)
        attributes = (f' attributes {{fp8.prepare_group = "{prepare_group}"}}'
                      if prepare_group else "")
        header = f"func.func @{self.name}({args}) -> ({results}){attributes} {{"
        ret = (f"  return {', '.join(o.name for o in self.outputs)} : "
               f"{', '.join(ty(o) for o in self.outputs)}")
        return "\n".join([header] + lines + [ret, "}"]) + "\n"


# -- running on the CPU --------------------------------------------------------


def driver(graph, feeds, steps=1):
    """A @main that calls `graph`'s function on `feeds` (dense constants)
    `steps` times (state such as delayed scaling advances) and prints the
    bits of every output of the last call with printMemrefI32."""
    from fp8_mlir.recipes import dense

    lines = ["func.func private @printMemrefI32(memref<*xi32>)", "func.func @main() {"]
    args = []
    for p in graph.params:
        value = np.asarray(feeds[p.attrs["name"]], np.float32)
        assert value.shape == p.shape
        lines.append(f"  %arg_{p.attrs['name']} = arith.constant {dense(value.reshape(-1))} : "
                     f"{tensor_type((value.size,))}")
        if len(p.shape) == 1:
            args.append(f"%arg_{p.attrs['name']}")
            continue
        groups = "[[" + ", ".join(str(i) for i in range(len(p.shape))) + "]]"
        lines.append(f"  %in_{p.attrs['name']} = tensor.expand_shape %arg_{p.attrs['name']} "
                     f"{groups} output_shape [{', '.join(map(str, p.shape))}] : "
                     f"{tensor_type((value.size,))} into {p.type}")
        args.append(f"%in_{p.attrs['name']}")
    results = [f"%out{i}" for i in range(len(graph.outputs))]
    types = ", ".join(o.type for o in graph.outputs)
    call = (f"func.call @{graph.name}({', '.join(args)}) : "
            f"({', '.join(p.type for p in graph.params)}) -> ({types})")
    for step in range(steps - 1):
        lines.append(f"  {', '.join(f'%warm{step}_{i}' for i in range(len(results)))} = {call}")
    lines.append(f"  {', '.join(results)} = {call}")
    for i, o in enumerate(graph.outputs):
        size = math.prod(o.shape)
        flat = tensor_type((size,))
        value = results[i]
        if len(o.shape) != 1:
            groups = "[[" + ", ".join(str(d) for d in range(len(o.shape))) + "]]"
            lines.append(f"  %flat{i} = tensor.collapse_shape {value} {groups} : {o.type} into {flat}")
            value = f"%flat{i}"
        ints = f"tensor<{size}xi32>"
        lines.append(f"  %bits{i} = arith.bitcast {value} : {flat} to {ints}")
        lines.append(f"  %buf{i} = bufferization.to_buffer %bits{i} : {ints} to memref<{size}xi32>")
        lines.append(f"  %any{i} = memref.cast %buf{i} : memref<{size}xi32> to memref<*xi32>")
        lines.append(f"  call @printMemrefI32(%any{i}) : (memref<*xi32>) -> ()")
    lines += ["  return", "}", ""]
    return "\n".join(lines)


def run(functions, graph, feeds, build_dir, passes=(), steps=1):
    """Runs `graph` (defined in `functions`, MLIR text) on the CPU after
    `passes`, `steps` times; returns the outputs of the last call as float32
    arrays."""
    from fp8_mlir.recipes import run_program

    arrays = run_program(functions + "\n" + driver(graph, feeds, steps), build_dir,
                         passes=passes)
    assert len(arrays) == len(graph.outputs), (len(arrays), len(graph.outputs))
    return [a.astype(np.uint32).view(np.float32).reshape(o.shape)
            for a, o in zip(arrays, graph.outputs)]
