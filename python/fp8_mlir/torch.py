"""PyTorch front end: torch.fx-traced modules to linalg on tensors, compiled
by a recipe and run as a torch callable.

    import fp8_mlir.torch as fp8_torch

    model = MLP().eval()
    compiled = fp8_torch.compile(model, (x,), recipe="mxfp8")
    y = compiled(x)              # forward through the FP8 program
    y.backward(dy)               # backward through the FP8 program: x.grad and
                                 # every parameter's .grad, as torch would

`import_module` gives the IR alone: a forward function and a backward
function of the form of examples/ (f32 tensors, fp8_mlir.graph), the
backward from the graph builder's reverse-mode differentiation, which
recomputes the forward output and returns it with the gradients of the
inputs and parameters.

On CPU tensors the compiled callable runs fp8-cpu-pipeline's output in this
process (fp8_mlir.execution): the bit-exact reference of the recipe, slow
but honest. On CUDA tensors it compiles for the device's chip (or `chip`)
with fp8-gpu-pipeline and launches the kernels through the runtime
(fp8_mlir.runtime) on the tensors' memory.

Supported: nn.Linear, matmul/bmm/mm/@, addmm/baddbmm, add/sub/mul/div
(tensors with broadcasting, or a tensor and a number), relu/gelu/silu/tanh/
leaky_relu, sqrt/erf, pow by small integers and 0.5, var/std, stack/unbind, casts between
floating types, layer_norm
(over the last dimension), RMSNorm written out (pow 2, mean, add, rsqrt,
mul) or as nn.RMSNorm / F.rms_norm, softmax and log_softmax, mean and sum over dimensions,
transpose/permute/reshape/view/flatten/contiguous, indexing by slices,
integers and None, expand, repeat_interleave, dropout in eval mode,
embedding lookups (as a one-hot matmul the callable feeds from the
indices), cross_entropy on class indices (mean reduction), and causal
masks: nn.MultiheadAttention (key_padding_mask too),
F.scaled_dot_product_attention (torch 2; is_causal, float or boolean masks,
grouped heads; no dropout), masked_fill or where with a mask computed from
buffers and constants alone (`self.bias[:, :, :T, :T] == 0` of a tril
buffer, `torch.triu(...)`: a causal fill; padding: an input the callable
feeds), any fill value (-inf included). Other float tensors computed from buffers and
constants alone (a rotary table sliced to the sequence, or computed from
`torch.arange` with sin and cos) are evaluated at import and become inputs
of the program that the callable feeds. Anything else raises
UnsupportedError naming the op and its source line.
"""

import dis
import hashlib
import inspect
import json
import math
import operator
import os
import re
import tempfile

import numpy as np
import torch
import torch.fx
import torch.nn.functional as F
from torch.fx.passes.shape_prop import ShapeProp

from .graph import Graph, Tensor


class UnsupportedError(Exception):
    """A traced op, or a use of one, that the importer does not cover."""


_SOURCE = re.compile(r'File "([^"]+)", line (\d+)')
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep


def _body_of(function):
    """(file, first line, last line) of a Python function's source; None for
    built-ins."""
    try:
        lines, first = inspect.getsourcelines(function)
        return inspect.getsourcefile(function), first, first + len(lines) - 1
    except (TypeError, OSError):
        return None


def _where(node):
    """file:line of the user code that made `node` (the innermost frame of
    its stack trace outside torch and outside the called function itself, a
    Python function that defers to __torch_function__), or the node's name
    if the trace was not recorded."""
    body = _body_of(node.target) if node.op == "call_function" else None
    for path, line in _SOURCE.findall(node.stack_trace or ""):
        if path.startswith(_TORCH_DIR) or (
                body and path == body[0] and body[1] <= int(line) <= body[2]):
            continue
        return f"{path}:{line}"
    return f"node {node.name}"


def _describe(node):
    target = node.target
    if node.op == "call_function":
        return getattr(target, "__name__", str(target))
    return str(target)


class Imported:
    """A traced module as a forward Graph and, for training, its backward.

    `sources` gives, per forward-graph input in order, where its value comes
    from: ("input", i) the i-th call argument, ("param", name) or
    ("buffer", name) the module's state, ("constant", tensor) a float tensor
    computed from buffers and constants alone when the module was imported
    (a rotary table), ("onehot", i, classes) a one-hot encoding of the
    integer argument i, ("as_float", i) the integer or boolean argument i as
    f32 (an attention mask). `differentiable` says per input whether the
    backward graph differentiates it (float arguments and parameters that
    the outputs are computed from; torch gives the others no gradient), and
    `grad_inputs` lists those inputs in the order of its gradient outputs."""

    def __init__(self, forward, sources, single_output, output_dtypes=None):
        self.forward = forward
        self.sources = sources
        self.single_output = single_output
        # The dtype torch gives each output (the program computes in f32).
        self.output_dtypes = output_dtypes or [torch.float32] * len(forward.outputs)
        live = forward.reaching(forward.outputs, differentiably=True)
        self.differentiable = [s[0] in ("input", "param") and p.id in live
                               for p, s in zip(forward.params, sources)]
        self.grad_inputs = [p for p, d in zip(forward.params, self.differentiable) if d]
        # Per output, whether a differentiated input reaches it through ops
        # with gradients (not through comparisons alone), as torch's
        # requires_grad says.
        grad_ids = {p.id for p in self.grad_inputs}
        self.output_differentiable = [
            bool(grad_ids & forward.reaching([o], differentiably=True))
            for o in forward.outputs]
        self._backward = None
        self._partial = {}

    @property
    def backward(self):
        if self._backward is None:
            self._backward = self.forward.gradients(
                self.forward.outputs, wrt=self.grad_inputs,
                name=self.forward.name + "_backward")
        return self._backward

    def backward_of(self, seeded):
        """The backward graph for the outputs that `seeded` (a bool per
        output) says get a gradient, and per entry of `grad_inputs` whether
        it computes that input's gradient: the inputs that reach those
        outputs (torch gives the others none). Every output seeded is
        `backward`; an output left out of the loss contributes nothing,
        where a zero seed would still give 0 x inf = NaN."""
        seeded = tuple(bool(s) for s in seeded)
        if all(seeded):
            return self.backward, [True] * len(self.grad_inputs)
        if seeded not in self._partial:
            outputs = [o for o, s in zip(self.forward.outputs, seeded) if s]
            live = self.forward.reaching(outputs, differentiably=True)
            reached = [p.id in live for p in self.grad_inputs]
            name = f"{self.forward.name}_backward_{''.join(str(int(s)) for s in seeded)}"
            graph = self.forward.gradients(
                outputs, wrt=[p for p, r in zip(self.grad_inputs, reached) if r], name=name)
            self._partial[seeded] = (graph, reached)
        return self._partial[seeded]

    def graph_named(self, name):
        """The forward, backward or partial backward graph called `name`."""
        graphs = [self.forward, self.backward] + [g for g, _ in self._partial.values()]
        return next(g for g in graphs if g.name == name)

    @property
    def weights(self):
        """The names of the graph inputs that hold module state (parameters,
        buffers and the constants computed from them): what the functions
        mark fp8.weight."""
        return {p.attrs["name"] for p, s in zip(self.forward.params, self.sources)
                if s[0] in _STATE}

    def emit(self, graph, prepare_group=None):
        """One function's text, its module state marked fp8.weight."""
        return graph.emit(weights=self.weights, prepare_group=prepare_group)

    def mlir(self, backward=True):
        """The module text: the forward function, then the backward one. The
        two read the same module state: they are one prepare group, so that
        fp8-prepare-weights prepares it once for both (@<forward>_prepare).
        A module without state has nothing to prepare and no group."""
        if not backward:
            return self.emit(self.forward)
        group = self.forward.name if self.weights else None
        return (self.emit(self.forward, group) + "\n"
                + self.emit(self.backward, group))


# The kinds of graph inputs that hold module state (Imported.sources).
_STATE = ("param", "buffer", "constant")


def _is_tensor(arg):
    """Whether an fx argument is a tensor (not a number or a size)."""
    return isinstance(arg, torch.fx.Node) and _float_meta(arg) is not None


def _float_meta(node):
    meta = node.meta.get("tensor_meta")
    if meta is None or not isinstance(meta, torch.fx.passes.shape_prop.TensorMetadata):
        return None
    return meta


class _Proxy(torch.fx.Proxy):
    """A proxy that unpacks (`q, k, v = x.split(n, dim=2)`) into as many
    pieces as the unpacking takes. torch.fx reads that count from the
    calling frame's instruction, which torch 1.13 looks up by an index that
    Python 3.11's inline caches shift; this finds it by its offset."""

    def __iter__(self):
        frame = inspect.currentframe().f_back
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti:
                if inst.opname == "UNPACK_SEQUENCE":
                    return iter([self[i] for i in range(inst.argval)])
                break
        return self.tracer.iter(self)

    def __getattr__(self, name):
        # x.shape and other attributes unpack as the proxy does.
        return _Attribute(self, name)


class _Attribute(torch.fx.proxy.Attribute):
    __iter__ = _Proxy.__iter__

    def __getattr__(self, name):
        return _Attribute(self, name)


# Tensor factories that torch.fx does not trace when an argument is a traced
# size (torch.arange(T)): the tracer records them as calls, so that what
# they compute (a rotary table) is a constant of the specialized program.
_FACTORIES = ("arange", "ones", "zeros", "full", "linspace")


class _Tracer(torch.fx.Tracer):
    def proxy(self, node):
        return _Proxy(node, self)

    def trace(self, root, concrete_args=None):
        originals = {name: getattr(torch, name) for name in _FACTORIES}

        def traced(factory):
            def call(*args, **kwargs):
                traced_args = []
                torch.fx.node.map_aggregate(
                    (args, kwargs), lambda a: traced_args.append(a)
                    if isinstance(a, torch.fx.Proxy) else None)
                if not traced_args:
                    return factory(*args, **kwargs)
                return traced_args[0].tracer.create_proxy("call_function", factory, args,
                                                          kwargs)
            return call

        try:
            for name, factory in originals.items():
                setattr(torch, name, traced(factory))
            return super().trace(root, concrete_args)
        finally:
            for name, factory in originals.items():
                setattr(torch, name, factory)


class _Importer:
    def __init__(self, module, example_inputs, name):
        tracer = _Tracer()
        tracer.record_stack_traces = True
        # Buffers as get_attr nodes where they are read, so that slicing one
        # by a traced size (self.bias[:, :, :T, :T]) traces.
        tracer.proxy_buffer_attributes = True
        self.root = module
        try:
            graph = tracer.trace(module)
        except (TypeError, torch.fx.proxy.TraceError) as e:
            # Python control flow or conversions on traced values
            # (`if x.sum() > 0`, `float(t)`): data-dependent, which a program
            # specialized to shapes cannot hold.
            raise UnsupportedError(f"<{type(module).__name__}>: torch.fx cannot trace the "
                                   f"module: {e}") from None
        self.gm = torch.fx.GraphModule(module, graph)
        _Propagate(self.gm).propagate(*example_inputs)
        self.example_inputs = example_inputs
        self.g = Graph(name)
        self.sources = []
        self.env = {}
        self.state = {}  # module attribute name -> graph input
        self.constants = {}  # fx node name -> graph input (constant_input)
        self.node = None

    # -- errors -------------------------------------------------------------

    def fail(self, what):
        raise UnsupportedError(f"{_where(self.node)}: {what}")

    def unsupported(self, detail=""):
        node = self.node
        message = f"unsupported op '{_describe(node)}' ({node.op})"
        raise UnsupportedError(f"{_where(node)}: {message}{': ' + detail if detail else ''}")

    # -- values -------------------------------------------------------------

    def shape(self, node=None):
        meta = _float_meta(node or self.node)
        if meta is None:
            self.fail(f"'{(node or self.node).name}' is not a tensor")
        return tuple(int(d) for d in meta.shape)

    def value(self, arg):
        """The Graph tensor (or Python number) of an fx argument."""
        if isinstance(arg, torch.fx.Node):
            if arg not in self.env:
                self.fail(f"'{arg.name}' is not a value the importer produced")
            v = self.env[arg]
            if isinstance(v, _Indices):
                # An integer argument read as values (an attention mask of 0
                # and 1, sliced, cast, subtracted from 1.0): f32 holds its
                # integers exactly up to 2^24. Integer-only ops are refused
                # as any op the importer does not know.
                return self.argument_as_float(v.name, v.position, v.shape)
            if isinstance(v, _Opaque):
                self.fail(f"'{arg.name}' is neither a tensor nor a number")
            if isinstance(v, _Constant):
                return self.constant_input(arg, v.tensor)
            return v
        if isinstance(arg, (int, float)) and not isinstance(arg, bool):
            return float(arg)
        self.fail(f"argument {arg!r} is not a tensor or a number")

    def argument_as_float(self, name, position, shape):
        """A graph input holding call argument `position` (integer or
        boolean: 1 for True) as f32, which the callable converts."""
        key = ("as_float", position)
        if key not in self.state:
            self.state[key] = self.g.input("arg_" + name, shape)
            self.sources.append(key)
        return self.state[key]

    def number_or_value(self, arg):
        """value(arg), but a number for a 0-d float constant
        (torch.full([], -1e4), also cast: .to(x)), where an op takes a
        number."""
        if isinstance(arg, torch.fx.Node):
            source = arg
            while source.op in ("call_method", "call_function") and source.args and \
                    isinstance(source.args[0], torch.fx.Node) and \
                    (source.target if source.op == "call_method"
                     else _function_key(source.target)) in _SAME_VALUES:
                source = source.args[0]
            constant = self.env.get(source)
            if isinstance(constant, _Constant) and constant.tensor.dim() == 0 and \
                    not constant.tensor.is_complex():
                return float(constant.tensor)
        return self.value(arg)

    def state_input(self, qualname, tensor, kind):
        """A graph input holding module state (a parameter or buffer)."""
        if qualname in self.state:
            return self.state[qualname]
        if not torch.is_floating_point(tensor):
            self.fail(f"{kind} '{qualname}' of dtype {tensor.dtype}: only floating-point "
                      "state is supported")
        name = "p_" + qualname.replace(".", "_")
        t = self.g.input(name, tuple(tensor.shape))
        self.sources.append((kind, qualname))
        self.state[qualname] = t
        return t

    def constant_input(self, node, tensor):
        """A graph input holding a float tensor computed from buffers and
        constants alone (a rotary table sliced to the sequence), its value
        that of the import: the program is specialized to the example
        inputs, and the value is the same at every call."""
        if tensor.is_complex():
            self.fail(f"'{node.name}' of dtype {tensor.dtype} is computed from buffers and "
                      "constants alone: complex tensors are not supported")
        # Booleans read as values are 1 and 0, integers their f32 values
        # (exact up to 2^24), as arguments are.
        return self.named_constant(node.name, tensor)

    def named_constant(self, name, tensor):
        """constant_input of `tensor`, known as `name`."""
        if name in self.constants:
            return self.constants[name]
        value = tensor.detach().to(torch.float32).contiguous()
        # Equal constants (the same table sliced for queries and keys) are
        # one input.
        for source, t in zip(self.sources, self.g.params):
            if source[0] == "constant" and source[1].shape == value.shape and \
                    torch.equal(source[1], value):
                self.constants[name] = t
                return t
        t = self.g.input("c_" + name, tuple(value.shape))
        self.sources.append(("constant", value))
        self.constants[name] = t
        return t

    def module_param(self, module_name, attr):
        qualname = f"{module_name}.{attr}" if module_name else attr
        tensor = _attr(self.gm, qualname)
        is_param = isinstance(tensor, torch.nn.Parameter) and tensor.requires_grad
        return self.state_input(qualname, tensor, "param" if is_param else "buffer")

    # -- shape helpers --------------------------------------------------------

    def reshape(self, t, shape):
        shape = tuple(shape)
        if t.shape == shape:
            return t
        if not t.shape or not shape:
            # To or from a scalar: every extent is 1, and the reassociation
            # has no group.
            return self.g.reshape(t, shape, [])
        groups = _reassociation(t.shape, shape)
        if groups is not None:
            return self.g.reshape(t, shape, groups)
        # Neither a collapse nor an expansion: through a flat tensor.
        flat = (math.prod(shape),)
        t = self.g.reshape(t, flat, [list(range(len(t.shape)))])
        return self.g.reshape(t, shape, [list(range(len(shape)))])

    def broadcast_to(self, t, shape):
        """numpy broadcasting of t to `shape`."""
        shape = tuple(shape)
        if t.shape == shape:
            return t
        offset = len(shape) - len(t.shape)
        if offset < 0:
            self.fail(f"cannot broadcast {t.shape} to {shape}")
        kept = []
        for i, d in enumerate(t.shape):
            target = shape[offset + i]
            if d == target:
                kept.append(offset + i)
            elif d != 1:
                self.fail(f"cannot broadcast {t.shape} to {shape}")
        squeezed = tuple(shape[i] for i in kept)
        t = self.reshape(t, squeezed)
        added = [i for i in range(len(shape)) if i not in kept]
        return self.g.broadcast(t, shape, added)

    def to_rank(self, t, rank):
        """t with its leading dimensions collapsed into one (rank `rank`)."""
        lead = len(t.shape) - rank + 1
        return self.reshape(t, (math.prod(t.shape[:lead]),) + t.shape[lead:])

    # -- ops ----------------------------------------------------------------

    def binary(self, op, a, b):
        out = self.shape()
        g = self.g
        if isinstance(a, float) and isinstance(b, float):
            self.fail("arithmetic on two numbers")
        if isinstance(b, float):
            if op == "add":
                return g.shift(a, b)
            if op == "sub":
                return g.shift(a, -b)
            if op == "mul":
                return g.scale(a, b)
            # x / 0 is +-inf where x is not 0, NaN where it is: x * (1 / 0).
            return g.scale(a, 1.0 / b if b != 0 else math.copysign(math.inf, b))
        if isinstance(a, float):
            if op == "add":
                return g.shift(b, a)
            if op == "sub":
                return g.shift(g.scale(b, -1.0), a)
            if op == "mul":
                return g.scale(b, a)
            return g.rdiv(a, b)
        a, b = self.broadcast_to(a, out), self.broadcast_to(b, out)
        return getattr(g, op)(a, b)

    def matmul(self, a, b, name=None):
        g = self.g
        out = self.shape()
        if len(b.shape) == 1 and len(a.shape) >= 2:
            # A vector as a one-column matrix.
            y = g.matmul(self.to_rank(a, 2), self.reshape(b, b.shape + (1,)), name=name)
            return self.reshape(y, out)
        if len(a.shape) == 1 and len(b.shape) == 2:
            y = g.matmul(self.reshape(a, (1,) + a.shape), b, name=name)
            return self.reshape(y, out)
        if len(b.shape) == 2 and len(a.shape) >= 2:
            y = g.matmul(self.to_rank(a, 2), b, name=name)
        elif len(a.shape) >= 2 and len(b.shape) >= 3:
            # Batch dimensions broadcast, then fold into one.
            batch = out[:-2]
            a = self.broadcast_to(a, batch + a.shape[-2:])
            b = self.broadcast_to(b, batch + b.shape[-2:])
            y = g.matmul(self.to_rank(a, 3), self.to_rank(b, 3), name=name)
        else:
            self.unsupported(f"matmul of ranks {len(a.shape)} and {len(b.shape)}")
        return self.reshape(y, out)

    def project(self, x, w, bias, name=None):
        """x @ w^T + bias as nn.Linear computes it, x's leading dimensions
        collapsed into the rows of the result."""
        y = self.g.matmul(self.to_rank(x, 2), w, tb=True, name=name)
        if bias is not None:
            y = self.g.add(y, self.broadcast_to(bias, y.shape))
        return y

    def linear(self, x, w, bias, name):
        return self.reshape(self.project(x, w, bias, name), self.shape())

    def gelu(self, x, approximate):
        if approximate == "none":
            return self.g.gelu(x)
        if approximate == "tanh":
            return self.g.gelu_tanh(x)
        self.unsupported(f"gelu with approximate={approximate!r}")

    def layer_norm(self, x, normalized_shape, weight, bias, eps):
        if len(normalized_shape) != 1:
            self.unsupported("layer_norm over more than the last dimension")
        y = self.g.layernorm(self.to_rank(x, 2), weight, bias, eps)
        return self.reshape(y, x.shape)

    def rms_norm(self, x, normalized_shape, weight, eps):
        """x / sqrt(mean(x^2) + eps) * weight over the last
        len(normalized_shape) dimensions (nn.RMSNorm, F.rms_norm); eps None
        is the machine epsilon of f32, the program's type."""
        g = self.g
        shape = tuple(normalized_shape) if isinstance(normalized_shape, (list, tuple)) \
            else (normalized_shape,)
        if tuple(x.shape[len(x.shape) - len(shape):]) != shape:
            self.fail(f"rms_norm over {shape} of a tensor of shape {x.shape}")
        dims = list(range(len(x.shape) - len(shape), len(x.shape)))
        mean = g.scale(g.reduce_sum(g.mul(x, x), dims), 1.0 / math.prod(shape))
        eps = float(torch.finfo(torch.float32).eps) if eps is None else float(eps)
        y = g.mul(x, g.broadcast(g.rsqrt(mean, eps), x.shape, dims))
        if weight is not None:
            kept = list(range(len(x.shape) - len(shape)))
            y = g.mul(y, g.broadcast(weight, x.shape, kept) if kept else weight)
        return y

    def static_int(self, value):
        """An integer argument, a literal or a traced size (the program is
        specialized to the example inputs' shapes)."""
        if isinstance(value, torch.fx.Node):
            value = self.value(value)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or \
                not float(value).is_integer():
            self.unsupported(f"an argument {value!r} that is not an integer")
        return int(value)

    def getitem(self, x, index):
        """x[index] for an index of slices of step 1, integers, None and an
        Ellipsis: a slice op per dimension that is not taken whole, then the
        reshape that drops the integers' dimensions and inserts None's."""
        index = list(index) if isinstance(index, tuple) else [index]
        if sum(i is Ellipsis for i in index) > 1:
            self.unsupported("an index with two Ellipses")
        for part in index:
            if _is_tensor(part):
                self.unsupported("an index by a tensor")
            if isinstance(part, bool) or not (
                    part is None or part is Ellipsis or isinstance(part, (slice, int, torch.fx.Node))):
                self.unsupported(f"an index by {part!r}")
        taking = [i for i in index if i is not None and i is not Ellipsis]
        if len(taking) > len(x.shape):
            self.fail(f"{len(taking)} indices into a tensor of rank {len(x.shape)}")
        if Ellipsis in index:
            at = index.index(Ellipsis)
            index[at:at + 1] = [slice(None)] * (len(x.shape) - len(taking))
        d = 0
        for part in index:
            if part is None:
                continue
            extent = x.shape[d]
            if isinstance(part, slice):
                bounds = [b if b is None else self.static_int(b)
                          for b in (part.start, part.stop, part.step)]
                start, stop, step = slice(*bounds).indices(extent)
                if step != 1:
                    self.unsupported(f"a slice of step {step}")
                if stop <= start:
                    self.unsupported("an empty slice")
            else:
                start = self.static_int(part)
                if not -extent <= start < extent:
                    self.fail(f"index {start} out of range for dimension {d} of size {extent}")
                start %= extent
                stop = start + 1
            if (start, stop) != (0, extent):
                x = self.g.slice(x, d, start, stop)
            d += 1
        return self.reshape(x, self.shape())

    def repeat_interleave(self, x, dim, repeats):
        """torch.repeat_interleave(x, repeats, dim): each entry along `dim`
        `repeats` times in a row, as a broadcast into a new dimension after
        `dim` and a reshape that merges the two."""
        dim %= len(x.shape)
        if repeats == 1:
            return x
        grown = x.shape[:dim + 1] + (repeats,) + x.shape[dim + 1:]
        y = self.g.broadcast(x, grown, [dim + 1])
        merged = x.shape[:dim] + (x.shape[dim] * repeats,) + x.shape[dim + 1:]
        return self.reshape(y, merged)

    def along_last(self, fn, x, dim):
        """fn over dimension `dim`, as a last-dimension op between transposes."""
        rank = len(x.shape)
        dim = dim % rank
        if dim == rank - 1:
            return fn(x)
        perm = list(range(rank))
        perm[dim], perm[-1] = perm[-1], perm[dim]
        return self.g.transpose(fn(self.g.transpose(x, perm)), perm)

    def reduce(self, x, dims, keepdim, mean):
        dims = _reduced_dims(dims, len(x.shape))
        y = self.g.reduce_sum(x, dims)
        if mean:
            y = self.g.scale(y, 1.0 / math.prod(x.shape[d] for d in dims))
        if keepdim:
            y = self.reshape(y, self.shape())
        return y

    def leaky_relu(self, x, slope):
        """x where positive, else slope * x (rounded once, as torch rounds
        it); the gradient is slope at 0 and NaN, as torch's."""
        g = self.g
        return g.select(g.compare(x, 0.0, "gt"), x, g.scale(x, slope))

    def variance(self, x, dims, kwargs):
        """var over `dims`: the mean of the squared deviations from the mean,
        divided by n - correction instead of n (unbiased: correction 1,
        torch's default)."""
        correction = kwargs.get("correction")
        if correction is None:
            correction = 1 if kwargs.get("unbiased", True) else 0
        dims = _reduced_dims(dims, len(x.shape))
        count = math.prod(x.shape[d] for d in dims)
        if count - correction <= 0:
            self.unsupported(f"var of {count} elements with correction {correction}")
        g = self.g
        mean = g.scale(g.reduce_sum(x, dims), 1.0 / count)
        centered = g.sub(x, g.broadcast(mean, x.shape, dims))
        y = g.scale(g.reduce_sum(g.mul(centered, centered), dims), 1.0 / (count - correction))
        if kwargs.get("keepdim", False):
            y = self.reshape(y, self.shape())
        return y

    def one_hot(self, indices, classes):
        """A graph input holding the one-hot encoding of integer argument
        `indices` (flattened to rows)."""
        key = ("onehot", indices.position, classes)
        if key not in self.state:
            rows = math.prod(indices.shape)
            self.state[key] = self.g.input(f"onehot_{indices.name}", (rows, classes))
            self.sources.append(("onehot", indices.position, classes))
        return self.state[key]

    def indices(self, arg):
        v = self.env.get(arg) if isinstance(arg, torch.fx.Node) else None
        if not isinstance(v, _Indices):
            self.fail("indices must be an integer argument of the module")
        return v

    def embedding(self, ids, weight):
        classes = weight.shape[0]
        hot = self.one_hot(ids, classes)
        return self.reshape(self.g.matmul(hot, weight), self.shape())

    def cross_entropy(self, logits, target, kwargs):
        if kwargs.get("reduction", "mean") != "mean" or kwargs.get("weight") is not None or \
                kwargs.get("label_smoothing", 0.0) or kwargs.get("ignore_index", -100) != -100:
            self.unsupported("cross_entropy with options other than reduction='mean'")
        if len(logits.shape) != 2:
            self.unsupported("cross_entropy on logits of rank other than 2")
        hot = self.one_hot(target, logits.shape[1])
        picked = self.g.reduce_sum(self.g.mul(hot, self.g.log_softmax(logits)), [0, 1])
        return self.g.scale(picked, -1.0 / logits.shape[0])

    # -- dispatch -----------------------------------------------------------

    def run(self):
        outputs = None
        position = 0
        for node in self.gm.graph.nodes:
            self.node = node
            if node.op == "placeholder":
                meta = _float_meta(node)
                if meta is None:
                    self.fail(f"argument '{node.name}' is not a tensor")
                shape = tuple(int(d) for d in meta.shape)
                if meta.dtype.is_floating_point:
                    self.env[node] = self.g.input("arg_" + node.name, shape)
                    self.sources.append(("input", position))
                elif meta.dtype == torch.bool:
                    # A mask given at each call: 1 where set.
                    self.env[node] = self.argument_as_float(node.name, position, shape)
                elif not meta.dtype.is_complex:
                    self.env[node] = _Indices(node.name, position, shape)
                else:
                    self.fail(f"argument '{node.name}' of dtype {meta.dtype}")
                position += 1
            elif node.op == "get_attr":
                tensor = _attr(self.gm, node.target)
                if not isinstance(tensor, torch.Tensor):
                    self.unsupported("attribute that is not a tensor")
                kind = "param" if isinstance(tensor, torch.nn.Parameter) and \
                    tensor.requires_grad else "buffer"
                if not tensor.is_floating_point() or (
                        node.users and all("fp8_constant" in u.meta for u in node.users)):
                    # A mask, or read only to compute masks: not an input of
                    # the program.
                    self.env[node] = _Constant(node.name, tensor.detach().cpu())
                elif not _is_state(self.root, node.target):
                    # A tensor the forward makes from literals alone
                    # (torch.ones(8)), which torch.fx keeps as an attribute
                    # of the traced module.
                    self.env[node] = _Constant(node.name, tensor.detach().cpu().clone())
                else:
                    self.env[node] = self.state_input(node.target, tensor, kind)
            elif node.op == "call_module":
                self.env[node] = self.call_module(node)
            elif node.op in ("call_function", "call_method"):
                self.env[node] = self.call(node)
            elif node.op == "output":
                outputs = node.args[0]
        single = isinstance(outputs, torch.fx.Node)
        results = [outputs] if single else list(outputs)
        for r in results:
            self.node = r if isinstance(r, torch.fx.Node) else self.node
            value = self.value(r)
            if isinstance(value, float):
                self.fail("a module output that is a number")
            self.g.output(value)
        dtypes = [_float_meta(r).dtype if isinstance(r, torch.fx.Node) and _float_meta(r)
                  else torch.float32 for r in results]
        return Imported(self.g, self.sources, single, dtypes)

    def call_module(self, node):
        sub = self.gm.get_submodule(node.target)
        args = node.args
        name = node.target.replace(".", "_")
        if isinstance(sub, torch.nn.Linear):
            bias = self.module_param(node.target, "bias") if sub.bias is not None else None
            return self.linear(self.value(args[0]), self.module_param(node.target, "weight"),
                               bias, name)
        if isinstance(sub, torch.nn.LayerNorm):
            weight = self.module_param(node.target, "weight") if sub.elementwise_affine \
                else None
            bias = self.module_param(node.target, "bias") if sub.elementwise_affine else None
            return self.layer_norm(self.value(args[0]), sub.normalized_shape, weight, bias,
                                   sub.eps)
        if isinstance(sub, getattr(torch.nn, "RMSNorm", ())):
            weight = self.module_param(node.target, "weight") if sub.elementwise_affine \
                else None
            return self.rms_norm(self.value(args[0]), sub.normalized_shape, weight, sub.eps)
        if isinstance(sub, torch.nn.MultiheadAttention):
            return self.multihead_attention(node, sub)
        if isinstance(sub, torch.nn.Embedding):
            return self.embedding(self.indices(args[0]),
                                  self.module_param(node.target, "weight"))
        if isinstance(sub, torch.nn.Dropout):
            if sub.training and sub.p > 0:
                self.unsupported("dropout in training mode (call .eval())")
            return self.value(args[0])
        if isinstance(sub, torch.nn.Identity):
            return self.value(args[0])
        if isinstance(sub, (torch.nn.ReLU, torch.nn.SiLU, torch.nn.LeakyReLU)):
            x = self.value(args[0])
            y = self.g.relu(x) if isinstance(sub, torch.nn.ReLU) else self.g.silu(x) \
                if isinstance(sub, torch.nn.SiLU) else self.leaky_relu(x, sub.negative_slope)
            if sub.inplace:
                self.in_place(node, y)
            return y
        if isinstance(sub, (torch.nn.ReLU6, torch.nn.Hardtanh)):
            # (ReLU6 is a Hardtanh of 0 and 6.)
            return self.clamp(self.value(args[0]), sub.min_val, sub.max_val,
                              at_bounds=False)
        if isinstance(sub, torch.nn.GELU):
            return self.gelu(self.value(args[0]), sub.approximate)
        if isinstance(sub, torch.nn.Tanh):
            return self.g.tanh(self.value(args[0]))
        if isinstance(sub, torch.nn.Sigmoid):
            return self.g.sigmoid(self.value(args[0]))
        if isinstance(sub, (torch.nn.Softmax, torch.nn.LogSoftmax)):
            op = self.g.softmax if isinstance(sub, torch.nn.Softmax) else self.g.log_softmax
            return self.along_last(op, self.value(args[0]), sub.dim)
        if isinstance(sub, torch.nn.CrossEntropyLoss):
            return self.cross_entropy(self.value(args[0]), self.indices(args[1]),
                                      {"reduction": sub.reduction, "weight": sub.weight,
                                       "ignore_index": sub.ignore_index,
                                       "label_smoothing": sub.label_smoothing})
        self.node = node
        raise UnsupportedError(f"{_where(node)}: unsupported module {type(sub).__name__} "
                               f"('{node.target}')")

    def call(self, node):
        target = node.target
        if node.op == "call_method" and target in ("item", "tolist") and \
                isinstance(node.args[0], torch.fx.Node) and \
                "fp8_constant" not in node.args[0].meta:
            self.unsupported("a number read from a tensor's values: the program is "
                             "specialized to the example inputs' shapes, not their values")
        # Shape arithmetic (x.size(1) // heads) has the value the example
        # inputs gave it: the program is specialized to their shapes.
        if _float_meta(node) is None and "fp8_value" in node.meta:
            value = node.meta["fp8_value"]
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
            return _Opaque(node.name)
        if "fp8_constant" in node.meta:
            constant = _Constant(node.name, node.meta["fp8_constant"])
            if node.op == "call_method" and node.target.endswith("_") and \
                    isinstance(node.args[0], torch.fx.Node):
                # In place on a constant: the nodes after it read the new value.
                self.env[node.args[0]] = constant
            return constant
        key = _METHODS.get(target, target) if node.op == "call_method" \
            else _function_key(target)
        if key is None:
            self.unsupported()
        args, kwargs = node.args, dict(node.kwargs)
        v = self.value
        g = self.g

        def arg(i, name, default=None):
            if len(args) > i:
                return args[i]
            return kwargs.get(name, default)

        if key in ("add", "sub", "mul", "div", "truediv"):
            if kwargs.get("alpha", 1) != 1 or kwargs.get("rounding_mode") is not None:
                self.unsupported("alpha or rounding_mode")
            y = self.binary("div" if key == "truediv" else key,
                            self.number_or_value(args[0]), self.number_or_value(args[1]))
            if self.is_bool(node):
                # Booleans added are their or (multiplied, their and: 0 or
                # 1 already).
                y = g.compare(y, 0.0, "ne")
            return y
        if key == "rsub":
            return self.binary("sub", v(args[1]), v(args[0]))
        if key == "neg":
            return g.scale(v(args[0]), -1.0)
        if key in ("matmul", "bmm"):
            return self.matmul(v(args[0]), v(args[1]))
        if key in ("addmm", "baddbmm"):
            # beta * input + alpha * (mat1 @ mat2): HF's Conv1D is addmm.
            beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
            if not all(isinstance(c, (int, float)) for c in (beta, alpha)):
                self.unsupported("beta or alpha that is not a number")
            y = self.matmul(v(arg(1, "mat1" if key == "addmm" else "batch1")),
                            v(arg(2, "mat2" if key == "addmm" else "batch2")))
            if alpha != 1:
                y = g.scale(y, alpha)
            if beta == 0:
                return y
            bias = v(arg(0, "input"))
            if isinstance(bias, float):
                return g.shift(y, beta * bias)
            if beta != 1:
                bias = g.scale(bias, beta)
            return g.add(y, self.broadcast_to(bias, self.shape()))
        if key == "t":
            x = v(args[0])
            return x if len(x.shape) < 2 else g.transpose(x, [1, 0])
        if key in _CASTS or key == "bool":
            meta = _float_meta(self.node)
            if meta is not None and meta.dtype == torch.bool:
                # To a boolean: 1 where not 0 (NaN included).
                return self.condition(args[0])
            # The program computes in f32 (and FP8 where the recipe says);
            # casts between floating types change nothing in it.
            if meta is None or not meta.dtype.is_floating_point:
                self.unsupported("a cast to a type other than a floating-point one")
            return v(args[0])
        if key == "square":
            x = v(args[0])
            return g.mul(x, x)
        if key == "leaky_relu":
            y = self.leaky_relu(v(args[0]), arg(1, "negative_slope", 0.01))
            if arg(2, "inplace", False):
                self.in_place(node, y)
            return y
        if key in ("var", "std"):
            options = dict(kwargs)
            if isinstance(arg(1, "dim"), bool):
                # var(unbiased): every dimension.
                options["unbiased"], dims = args[1], None
            else:
                dims = arg(1, "dim")
                for i, name in ((2, "unbiased"), (3, "keepdim")):
                    if len(args) > i:
                        options[name] = args[i]
            y = self.variance(v(args[0]), dims, options)
            # std's gradient is 0 where it is 0, as torch's (1 / (2 std) is
            # infinite there, and the variance's gradient 0).
            return g.sqrt(y, zero_grad_at_zero=True) if key == "std" else y
        if key == "stack":
            tensors = [v(t) for t in arg(0, "tensors")]
            rank = len(tensors[0].shape) + 1
            dim = arg(1, "dim", 0) % rank
            grown = [self.reshape(t, t.shape[:dim] + (1,) + t.shape[dim:]) for t in tensors]
            return grown[0] if len(grown) == 1 else g.concat(grown, dim)
        if key == "unbind":
            x = v(args[0])
            dim = arg(1, "dim", 0) % len(x.shape)
            out = x.shape[:dim] + x.shape[dim + 1:]
            return tuple(self.reshape(x if x.shape[dim] == 1 else g.slice(x, dim, i, i + 1), out)
                         for i in range(x.shape[dim]))
        if key == "linear":
            bias = arg(2, "bias")
            return self.linear(v(args[0]), v(args[1]), None if bias is None else v(bias), None)
        if key in ("relu", "silu", "tanh", "sigmoid", "exp", "log", "sqrt", "erf"):
            y = getattr(g, key)(v(args[0]))
            if key in ("relu", "silu") and arg(1, "inplace", False):
                self.in_place(node, y)
            return y
        if key == "gelu":
            return self.gelu(v(args[0]), arg(1, "approximate", "none"))
        if key in ("softmax", "log_softmax"):
            dim = arg(1, "dim")
            if dim is None:
                self.unsupported("softmax without dim")
            return self.along_last(getattr(g, key), v(args[0]), dim)
        if key == "layer_norm":
            weight, bias = arg(2, "weight"), arg(3, "bias")
            return self.layer_norm(v(args[0]), arg(1, "normalized_shape"),
                                   None if weight is None else v(weight),
                                   None if bias is None else v(bias), arg(4, "eps", 1e-5))
        if key == "getitem":
            base = self.env.get(args[0]) if isinstance(args[0], torch.fx.Node) else None
            if isinstance(base, tuple):
                return base[args[1]]
            return self.getitem(v(args[0]), args[1])
        if key in ("split", "chunk"):
            x = v(args[0])
            if key == "split":
                size, dim = arg(1, "split_size_or_sections"), arg(2, "dim", 0)
            else:
                chunks, dim = arg(1, "chunks"), arg(2, "dim", 0)
            dim %= len(x.shape)
            extent = x.shape[dim]
            if key == "chunk":
                size = -(-extent // self.static_int(chunks))
            if isinstance(size, (list, tuple)):
                sizes = [self.static_int(s) for s in size]
            else:
                size = self.static_int(size)
                sizes = [min(size, extent - start) for start in range(0, extent, size)]
            if sum(sizes) != extent:
                self.unsupported(f"sections {sizes} that do not add up to {extent}")
            pieces, start = [], 0
            for extent_of in sizes:
                whole = start == 0 and extent_of == extent
                pieces.append(x if whole else g.slice(x, dim, start, start + extent_of))
                start += extent_of
            return tuple(pieces)
        if key == "cat":
            tensors = [v(t) for t in arg(0, "tensors")]
            dim = arg(1, "dim", 0)
            return g.concat(tensors, dim % len(tensors[0].shape))
        if key == "rsqrt":
            return g.rsqrt(v(args[0]), 0.0)
        if key == "pow":
            exponent = arg(1, "exponent")
            if exponent == 0.5 and not isinstance(exponent, bool):
                return g.sqrt(v(args[0]))
            if isinstance(exponent, bool) or not isinstance(exponent, (int, float)) or \
                    not float(exponent).is_integer() or not 1 <= exponent <= 4:
                self.unsupported(f"pow with exponent {exponent!r} (the integers 1 to 4, "
                                 "and 0.5)")
            x = v(args[0])
            # x^3 as x * x * x (HF's GELU writes its tanh form with pow 3).
            y = x
            for _ in range(int(exponent) - 1):
                y = g.mul(y, x)
            return y
        if key in ("amax", "amin"):
            x = v(args[0])
            dims = _reduced_dims(arg(1, "dim", ()), len(x.shape))
            y = g.reduce_max(x, dims, largest=key == "amax")
            return self.reshape(y, self.shape()) if arg(2, "keepdim", False) else y
        if key in ("mean", "sum"):
            if arg(3, "dtype") is not None:
                self.unsupported("dtype argument")
            return self.reduce(v(args[0]), arg(1, "dim"), arg(2, "keepdim", False),
                               key == "mean")
        if key == "transpose":
            x = v(args[0])
            perm = list(range(len(x.shape)))
            d0, d1 = arg(1, "dim0") % len(perm), arg(2, "dim1") % len(perm)
            perm[d0], perm[d1] = perm[d1], perm[d0]
            return g.transpose(x, perm)
        if key == "permute":
            x = v(args[0])
            dims = args[1] if len(args) == 2 and isinstance(args[1], (list, tuple)) \
                else args[1:]
            return g.transpose(x, [d % len(x.shape) for d in dims])
        if key in ("reshape", "view", "flatten", "unsqueeze", "squeeze"):
            return self.reshape(v(args[0]), self.shape())
        if key in ("expand", "expand_as"):
            return self.broadcast_to(v(args[0]), self.shape())
        if key == "repeat_interleave":
            repeats, dim = arg(1, "repeats"), arg(2, "dim")
            if _is_tensor(repeats):
                self.unsupported("repeats given by a tensor")
            if dim is None:
                self.unsupported("without dim (the flattened tensor)")
            x = v(args[0])
            return self.repeat_interleave(x, self.static_int(dim), self.static_int(repeats))
        if key in ("contiguous", "clone", "float"):
            return v(args[0])
        if key == "dropout":
            if arg(2, "training", node.op == "call_function") and arg(1, "p", 0.5) > 0:
                self.unsupported("dropout in training mode (pass training=False)")
            return v(args[0])
        if key == "embedding":
            return self.embedding(self.indices(args[0]), v(args[1]))
        if key == "cross_entropy":
            return self.cross_entropy(v(args[0]), self.indices(args[1]), kwargs)
        if key == "rms_norm":
            weight = arg(2, "weight")
            return self.rms_norm(v(args[0]), arg(1, "normalized_shape"),
                                 None if weight is None else v(weight), arg(3, "eps"))
        if key == "scaled_dot_product_attention":
            for i, name in enumerate(("query", "key", "value")):
                if not isinstance(arg(i, name), torch.fx.Node):
                    self.fail(f"{name} of scaled_dot_product_attention is not a tensor")
            return self.attention(v(arg(0, "query")), v(arg(1, "key")), v(arg(2, "value")),
                                  arg(3, "attn_mask"), arg(4, "dropout_p", 0.0),
                                  arg(5, "is_causal", False), kwargs.get("scale"),
                                  kwargs.get("enable_gqa", False))
        if key in _COMPARE:
            return self.compare(args[0], arg(1, "other"), _COMPARE[key])
        if key == "abs":
            return g.abs(v(args[0]))
        if key in ("clamp", "clip", "clamp_min", "clamp_max", "relu6", "hardtanh"):
            if key == "relu6":
                low, high = 0.0, 6.0
            elif key == "hardtanh":
                low, high = arg(1, "min_val", -1.0), arg(2, "max_val", 1.0)
            elif key == "clamp_min":
                low, high = arg(1, "min"), None
            elif key == "clamp_max":
                low, high = None, arg(1, "max")
            else:
                low, high = arg(1, "min"), arg(2, "max")
            return self.clamp(v(args[0]), low, high,
                              at_bounds=key not in ("relu6", "hardtanh"))
        if key in ("max", "min") and len(args) + len(kwargs) == 1:
            # The whole tensor's: a tie (or the NaNs of a NaN result) shares
            # the gradient evenly, as torch's.
            x = v(args[0])
            return g.reduce_max(x, range(len(x.shape)), largest=key == "max", ties="max")
        if key in ("max", "min") and not _is_tensor(arg(1, "dim", kwargs.get("other"))):
            # Along a dimension: the values and the indices of the first
            # maximum (or NaN), which takes all of the gradient.
            x = v(args[0])
            dim = self.static_int(arg(1, "dim"))
            values, indices = g.extremum_along(x, dim, largest=key == "max")
            if arg(2, "keepdim", False):
                kept = list(x.shape)
                kept[dim % len(kept)] = 1
                values, indices = (self.reshape(t, tuple(kept)) for t in (values, indices))
            return values, indices
        if key in ("argmax", "argmin"):
            x = v(args[0])
            dim = arg(1, "dim")
            if dim is None:
                # Of the flattened tensor.
                x, dim = self.reshape(x, (math.prod(x.shape),)), 0
            indices = g.extremum_along(x, self.static_int(dim), largest=key == "argmax")[1]
            return self.reshape(indices, self.shape()) if arg(2, "keepdim", False) else indices
        if key == "getattr" and isinstance(self.env.get(args[0]), tuple) and \
                args[1] in ("values", "indices"):
            # The fields of torch.max's and torch.min's results.
            return self.env[args[0]][("values", "indices").index(args[1])]
        if key in ("maximum", "minimum", "max", "min"):
            other = arg(1, "other")
            if not _is_tensor(other) or \
                    len(args) + len(kwargs) != 2:
                self.unsupported("max and min of a tensor and a number (clamp takes one)")
            shape = self.shape()
            a, b = (self.broadcast_to(v(t), shape) for t in (args[0], other))
            return g.extremum(a, b, largest=key in ("maximum", "max"))
        if key == "isnan":
            x = v(args[0])
            return g.compare(x, x, "ne")
        if key in ("logical_not", "invert"):
            if key == "invert" and not self.is_bool(args[0]):
                self.unsupported("bitwise not of integers")
            return g.compare(self.condition(args[0]), 0.0, "eq")
        if key in ("logical_and", "logical_or", "logical_xor", "and", "or", "xor"):
            a, b = args[0], arg(1, "other")
            if key in ("and", "or", "xor") and not (self.is_bool(a) and self.is_bool(b)):
                self.unsupported("bitwise operations on integers")
            shape = self.shape()
            a, b = (self.broadcast_to(self.condition(c), shape) for c in (a, b))
            if key.endswith("and"):
                return g.mul(a, b)
            if key.endswith("xor"):
                return g.compare(a, b, "ne")
            return g.compare(g.add(a, b), 0.0, "ne")
        if key in ("masked_fill", "masked_fill_"):
            x = self.broadcast_to(v(args[0]), self.shape())
            value = arg(2, "value")
            if isinstance(value, torch.fx.Node):
                value = self.number_or_value(value)
            y = self.fill_masked(x, arg(1, "mask"), True, value)
            if key == "masked_fill_":
                self.in_place(node, y)
            return y
        if key == "where":
            # torch.where(condition, input, other); the method x.where(condition,
            # other) is torch.where(condition, x, other).
            if node.op == "call_method":
                condition, a, b = arg(1, "condition"), args[0], arg(2, "other")
            else:
                condition, a, b = arg(0, "condition"), arg(1, "input"), arg(2, "other")
            if all(isinstance(t, torch.fx.Node) and not isinstance(self.number_or_value(t), float)
                   for t in (a, b)):
                # Two tensors: a select, its gradient each branch's dy.
                shape = self.shape()
                cond, a, b = (self.broadcast_to(t, shape)
                              for t in (self.condition(condition), v(a), v(b)))
                return g.select(cond, a, b)
            # The tensor is kept where the mask says so; the number fills
            # the rest.
            a, b = (self.number_or_value(a) if isinstance(a, torch.fx.Node) else a,
                    self.number_or_value(b) if isinstance(b, torch.fx.Node) else b)
            tensor_first = not isinstance(a, (int, float))
            x, fill = (a, b) if tensor_first else (b, a)
            if isinstance(x, (int, float)) or not isinstance(fill, (int, float)):
                self.unsupported("where of a tensor and a number only")
            x = self.broadcast_to(x, self.shape())
            return self.fill_masked(x, condition, not tensor_first, fill)
        self.unsupported()

    def clamp(self, x, low, high, at_bounds=True):
        """x clamped to `low` and `high` (either None; numbers, or with
        `at_bounds` both tensors): torch's min(max(x, low), high), NaN kept.
        Its gradient is dy where low <= x <= high (clamp; none at NaN), or
        where low < x < high without `at_bounds` (hardtanh and relu6, whose
        gradient is 0 at the bounds and dy at NaN)."""
        g = self.g
        bounds = [b for b in (low, high) if b is not None]
        if at_bounds and bounds and all(isinstance(b, torch.fx.Node) for b in bounds):
            shape = self.shape()
            low, high = (b if b is None else self.broadcast_to(self.value(b), shape)
                         for b in (low, high))
            return g.clamp(self.broadcast_to(x, shape), low, high)
        for bound in bounds:
            if isinstance(bound, bool) or not isinstance(bound, (int, float)):
                self.unsupported("clamp bounds that are not all numbers or all tensors")
        if at_bounds:
            return g.clamp(x, low, high)
        # Filling a bound where x equals it keeps the value and stops the
        # gradient.
        if low is not None:
            x = g.fill_where(x, g.compare(x, float(low), "le"), float(low))
        if high is not None:
            x = g.fill_where(x, g.compare(x, float(high), "ge"), float(high))
        return x

    def is_bool(self, arg):
        meta = _float_meta(arg) if isinstance(arg, torch.fx.Node) else None
        return meta is not None and meta.dtype == torch.bool

    def condition(self, arg):
        """A tensor of 1 where `arg` is true (a boolean tensor, computed,
        an argument, or computed from buffers and constants alone) or not 0
        (another tensor), else 0."""
        if isinstance(arg, torch.fx.Node) and isinstance(self.env.get(arg), _Constant):
            tensor = self.env[arg].tensor
            # (Not the node's own name: the same tensor read as values is
            # another input.)
            return self.named_constant(arg.name + "_set", (tensor != 0).to(torch.float32))
        x = self.value(arg)
        if isinstance(x, float):
            self.unsupported("a condition that is a number")
        return x if self.is_bool(arg) else self.g.compare(x, 0.0, "ne")

    def compare(self, a, b, predicate):
        """torch's comparison of two tensors or a tensor and a number (True
        and False being 1 and 0), as 1 where it holds (a boolean tensor as
        f32)."""
        a, b = (float(c) if isinstance(c, bool) else self.number_or_value(c) for c in (a, b))
        if isinstance(a, float):
            if isinstance(b, float):
                self.fail("a comparison of two numbers")
            a, b = b, a
            predicate = _SWAPPED.get(predicate, predicate)
        shape = self.shape()
        a = self.broadcast_to(a, shape)
        if isinstance(b, Tensor):
            b = self.broadcast_to(b, shape)
        return self.g.compare(a, b, predicate)

    def in_place(self, node, result):
        """Records that `node` changed its first argument to `result`: the
        nodes after it read the new value. Only where nothing else can see
        the old one: not an input, parameter or buffer (the caller's), not a
        view of another tensor nor a tensor with views."""
        base = node.args[0]
        views = [u for u in base.users if u is not node and _is_view(u)]
        if base.op in ("placeholder", "get_attr") or _is_view(base) or views:
            self.unsupported("in place on an input, a parameter, a buffer or a view "
                             "(write it out of place: x = x.masked_fill(...))")
        self.env[base] = result

    def attention(self, q, k, v, mask, dropout_p, is_causal, scale, enable_gqa):
        """F.scaled_dot_product_attention as its documented math:
        softmax(q k^T * scale + bias) v, the bias -inf above the diagonal
        (is_causal), where a boolean mask is clear, or a float mask added."""
        for what, value in (("dropout_p", dropout_p), ("is_causal", is_causal),
                            ("scale", scale), ("enable_gqa", enable_gqa)):
            if isinstance(value, torch.fx.Node):
                self.unsupported(f"{what} computed in the graph (pass a Python value)")
        if dropout_p != 0:
            self.unsupported("dropout_p other than 0 (pass 0 when not training)")
        if is_causal and mask is not None:
            self.fail("scaled_dot_product_attention with both attn_mask and is_causal")
        if min(len(q.shape), len(k.shape), len(v.shape)) < 2:
            self.fail("scaled_dot_product_attention of tensors of rank below 2")
        batch = q.shape[:-2]
        if enable_gqa and len(q.shape) >= 3 and k.shape[:-3] == batch[:-1] and \
                k.shape[-3] > 0 and q.shape[-3] % k.shape[-3] == 0 and v.shape[:-2] == k.shape[:-2]:
            # Each group of query heads attends with one key and value head.
            repeats = q.shape[-3] // k.shape[-3]
            k, v = self.repeat_interleave(k, -3, repeats), self.repeat_interleave(v, -3, repeats)
        try:
            batch = tuple(torch.broadcast_shapes(batch, k.shape[:-2], v.shape[:-2]))
        except RuntimeError:
            self.fail(f"batch dimensions {batch}, {k.shape[:-2]} and {v.shape[:-2]} of query, "
                      "key and value do not broadcast")
        q, k, v = (self.broadcast_to(t, batch + t.shape[-2:]) for t in (q, k, v))
        length, width = q.shape[-2:]
        if k.shape[-1] != width or v.shape[-2] != k.shape[-2]:
            self.fail(f"query {q.shape}, key {k.shape} and value {v.shape} do not fit")
        g = self.g
        scores = g.matmul(self.to_rank(q, 3), self.to_rank(k, 3), tb=True)
        scale = 1.0 / math.sqrt(width) if scale is None else float(scale)
        scores = g.scale(scores, scale)
        if is_causal:
            scores = g.causal_fill(scores, float("-inf"))
        elif mask is not None:
            # Attends where a boolean mask is set.
            scores = self.attention_mask(scores, mask, False, batch + scores.shape[-2:])
        context = g.matmul(g.softmax(scores), self.to_rank(v, 3))
        return self.reshape(context, batch + (length, v.shape[-1]))

    def multihead_attention(self, node, sub):
        """nn.MultiheadAttention as its documented math: the packed input
        projection split into queries, keys and values, heads attending with
        scores scaled by 1/sqrt(head size) under `attn_mask` (or
        `is_causal`), the output projection; the head-averaged (or per-head)
        weights as the second result where the module's caller reads it."""
        args, kwargs = node.args, dict(node.kwargs)

        def arg(i, name, default=None):
            return args[i] if len(args) > i else kwargs.get(name, default)

        where = f"'{node.target}'"
        padding = arg(3, "key_padding_mask")
        if padding is not None and not isinstance(self.env.get(padding), (_Constant, Tensor)):
            self.unsupported(f"key_padding_mask of {where} that is not computed from buffers, "
                             "constants and boolean arguments alone")
        if sub.bias_k is not None or sub.add_zero_attn:
            self.unsupported(f"add_bias_kv or add_zero_attn of {where}")
        if not sub._qkv_same_embed_dim:
            self.unsupported(f"kdim or vdim other than embed_dim in {where}")
        if sub.training and sub.dropout > 0:
            self.unsupported(f"dropout in training mode in {where} (call .eval())")
        mask, is_causal = arg(5, "attn_mask"), arg(7, "is_causal", False)
        g = self.g
        width, heads = sub.embed_dim, sub.num_heads
        head = width // heads
        weight = self.module_param(node.target, "in_proj_weight")
        bias = self.module_param(node.target, "in_proj_bias") \
            if sub.in_proj_bias is not None else None
        inputs = [self.value(arg(i, name)) for i, name in enumerate(("query", "key", "value"))]
        unbatched = len(inputs[0].shape) == 2
        projected = []
        for part, x in enumerate(inputs):
            if unbatched:
                x = self.reshape(x, (1,) + x.shape)
            elif not sub.batch_first:
                x = g.transpose(x, [1, 0, 2])
            batch, length = x.shape[:2]
            rows = (part * width, (part + 1) * width)
            y = self.project(x, g.slice(weight, 0, *rows),
                             None if bias is None else g.slice(bias, 0, *rows))
            # [N L, E] -> [N, L, H, Dh] -> [N H, L, Dh]
            y = g.transpose(self.reshape(y, (batch, length, heads, head)), [0, 2, 1, 3])
            projected.append(self.to_rank(y, 3))
        q, k, v = projected
        length, keys = q.shape[1], k.shape[1]
        scores = g.scale(g.matmul(q, k, tb=True), 1.0 / math.sqrt(head))
        if mask is not None:
            # Attends where a boolean mask is clear: [L, S] or [N H, L, S].
            scores = self.attention_mask(scores, mask, True, scores.shape)
        elif is_causal:
            scores = g.causal_fill(scores, float("-inf"))
        if padding is not None:
            # [N, S] (or [S]): the keys each sequence ignores (True), or a
            # float added to their scores; an argument of the module, or
            # computed from buffers and constants.
            batch = scores.shape[0] // heads
            given = self.env[padding]
            if isinstance(given, _Constant):
                name = padding.name + ("_set" if given.tensor.dtype == torch.bool else "")
                given = self.named_constant(name, given.tensor.to(torch.float32))
            keys_mask = self.broadcast_to(self.reshape(given, (batch, 1, 1, keys)),
                                          (batch, heads, length, keys))
            keys_mask = self.reshape(keys_mask, scores.shape)
            if _float_meta(padding).dtype == torch.bool:
                scores = g.fill_where(scores, keys_mask, float("-inf"))
            else:
                scores = g.add(scores, keys_mask)
        probs = g.softmax(scores)
        context = g.matmul(probs, v)  # [N H, L, Dh]
        batch = context.shape[0] // heads
        context = g.transpose(self.reshape(context, (batch, heads, length, head)), [0, 2, 1, 3])
        out_proj = f"{node.target}.out_proj"
        out = self.project(self.reshape(context, (batch * length, width)),
                           self.module_param(out_proj, "weight"),
                           None if sub.out_proj.bias is None
                           else self.module_param(out_proj, "bias"))
        out = self.reshape(out, (batch, length, width))
        if unbatched:
            out = self.reshape(out, (length, width))
        elif not sub.batch_first:
            out = g.transpose(out, [1, 0, 2])
        weights = None
        if arg(4, "need_weights", True) and any(
                u.op == "call_function" and u.target is operator.getitem and u.args[1] == 1
                for u in node.users):
            weights = self.reshape(probs, (batch, heads, length, keys))
            if arg(6, "average_attn_weights", True):
                weights = g.scale(g.reduce_sum(weights, [1]), 1.0 / heads)
            if unbatched:
                weights = self.reshape(weights, weights.shape[1:])
        return out, weights

    def attention_mask(self, scores, mask, fill_where_set, shape):
        """Attention scores [B, L, S] under `mask`, which broadcasts to
        `shape` (whose leading dimensions B collapses): a boolean mask fills
        -inf where it is set (`fill_where_set`) or clear (fill_masked); a
        float mask is added, as a causal fill where it is 0 on and below the
        diagonal and -inf above (nn.Transformer's square subsequent mask),
        which is the same for finite scores."""
        meta = _float_meta(mask) if isinstance(mask, torch.fx.Node) else None
        if meta is not None and meta.dtype == torch.bool:
            return self.fill_masked(scores, mask, fill_where_set, float("-inf"), shape)
        constant = self.env.get(mask) if isinstance(mask, torch.fx.Node) else None
        if isinstance(constant, _Constant):
            try:
                values = torch.broadcast_to(constant.tensor, shape)
            except RuntimeError:
                self.fail(f"the mask {tuple(constant.tensor.shape)} does not broadcast to "
                          f"{tuple(shape)}")
            causal = torch.zeros(shape).masked_fill(_above_diagonal(shape), float("-inf"))
            if torch.equal(values.to(torch.float32), causal):
                return self.g.causal_fill(scores, float("-inf"))
        bias = self.broadcast_to(self.value(mask), shape)
        return self.g.add(scores, self.reshape(bias, scores.shape))

    def fill_masked(self, x, mask, fill_where_set, value, shape=None):
        """x with `value` where `mask` is set (`fill_where_set`) or clear.
        The mask broadcasts to `shape` (x's unless given, then the shape of x
        before its leading dimensions were collapsed). A mask computed from
        buffers and constants is a causal fill, with no input, where it is
        causal (the entries above the diagonal of the last two dimensions,
        the same for each matrix), else (padding) an input of the program, 1
        where filled, broadcast in the graph; a boolean argument of the
        module is read as it is given."""
        if isinstance(value, torch.fx.Node) or isinstance(value, bool) or \
                not isinstance(value, (int, float)):
            self.unsupported("a fill value that is not a number")
        given = self.env.get(mask) if isinstance(mask, torch.fx.Node) else None
        if isinstance(given, Tensor):
            # A boolean argument of the module (1 where set), or a view of
            # one: filled where set, or where clear.
            flags = given if fill_where_set else self.g.shift(self.g.scale(given, -1.0), 1.0)
            flags = self.broadcast_to(flags, shape or x.shape)
            return self.g.fill_where(x, self.reshape(flags, x.shape), float(value))
        if not isinstance(given, _Constant):
            self.unsupported("a mask that is not computed from buffers, constants and "
                             "boolean arguments alone")
        filled = self.env[mask].tensor.to(torch.bool)
        if not fill_where_set:
            filled = ~filled
        shape = shape or x.shape
        try:
            filled = torch.broadcast_to(filled, shape).reshape(x.shape)
        except RuntimeError:
            self.fail(f"the mask {tuple(self.env[mask].tensor.shape)} does not broadcast "
                      f"to {tuple(shape)}")
        if not filled.any():
            return x
        if len(x.shape) >= 2 and torch.equal(filled, _above_diagonal(x.shape)):
            return self.g.causal_fill(x, float(value))
        # The mask as stored (not broadcast), filled where 1.
        flags = self.condition(mask) if fill_where_set else self.named_constant(
            f"{mask.name}_clear", (self.env[mask].tensor == 0).to(torch.float32))
        flags = self.broadcast_to(flags, shape)
        return self.g.fill_where(x, self.reshape(flags, x.shape), float(value))


class _Propagate(ShapeProp):
    """Shape propagation that also records the values of non-tensor nodes
    (sizes and arithmetic on them), and the tensors computed from buffers
    and constants alone (`fp8_constant`: masks)."""

    def run_node(self, n):
        result = super().run_node(n)
        # The pieces of split and chunk are tensors, which getitem takes apart.
        pieces = isinstance(result, (tuple, list)) and \
            any(isinstance(r, torch.Tensor) for r in result)
        if not isinstance(result, torch.Tensor) and not pieces:
            n.meta["fp8_value"] = result
        elif isinstance(result, torch.Tensor) and self._is_constant(n):
            # On the CPU whatever device the module runs on: masks are
            # compared with patterns made here, and the callable moves the
            # constant inputs to the arguments' device at each call.
            n.meta["fp8_constant"] = result.detach().cpu().clone()
        return result

    def _is_constant(self, n):
        if n.op == "get_attr":
            tensor = _attr(self.module, n.target)
            return not (isinstance(tensor, torch.nn.Parameter) and tensor.requires_grad)
        if n.op not in ("call_function", "call_method"):
            return False
        # Sizes are constants of the specialized program; the tensor that
        # zeros_like and the like are shaped like is not read.
        shaped_like = n.args[0] if n.target in _SHAPE_ONLY and n.args else None
        return all("fp8_constant" in a.meta or "fp8_value" in a.meta
                   for a in n.all_input_nodes if a is not shaped_like)


class _Indices:
    """An integer argument: only embedding and cross_entropy read it."""

    def __init__(self, name, position, shape):
        self.name, self.position, self.shape = name, position, shape


class _Constant:
    """A tensor computed from buffers and constants alone: a mask that
    masked_fill and where read at import time."""

    def __init__(self, name, tensor):
        self.name, self.tensor = name, tensor


class _Opaque:
    """A traced value that is neither a tensor nor a number (x.size());
    reshapes read shapes from the trace's metadata, anything else rejects
    it."""

    def __init__(self, name):
        self.name = name


def _reduced_dims(dims, rank):
    """The sorted dimensions a reduction's `dim` argument names: an int, a
    list, or None or an empty list for all of them (as torch reads it)."""
    if dims is None or (isinstance(dims, (list, tuple)) and not dims):
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted(d % rank for d in dims)


def _above_diagonal(shape):
    """Boolean [shape]: the entries above the diagonal of the last two
    dimensions (a causal mask fills them)."""
    rows, cols = shape[-2:]
    return torch.broadcast_to(torch.ones((rows, cols), dtype=torch.bool).triu(1), shape)


def _is_state(module, qualname):
    """Whether `qualname` names a parameter or buffer of `module`."""
    owner, _, name = qualname.rpartition(".")
    try:
        sub = module.get_submodule(owner)
    except AttributeError:
        return False
    return name in sub._parameters or name in sub._buffers


def _attr(gm, target):
    value = gm
    for part in target.split("."):
        value = getattr(value, part)
    return value


_FUNCTIONS = {
    operator.add: "add", operator.sub: "sub", operator.mul: "mul", operator.truediv: "truediv",
    operator.matmul: "matmul", operator.neg: "neg",
    torch.add: "add", torch.sub: "sub", torch.mul: "mul", torch.div: "div",
    torch.rsub: "rsub", torch.neg: "neg",
    torch.matmul: "matmul", torch.bmm: "bmm", F.linear: "linear",
    torch.relu: "relu", F.relu: "relu", F.gelu: "gelu", F.silu: "silu", torch.tanh: "tanh",
    torch.sigmoid: "sigmoid", F.sigmoid: "sigmoid", torch.exp: "exp", torch.log: "log",
    F.softmax: "softmax", torch.softmax: "softmax", F.log_softmax: "log_softmax",
    torch.log_softmax: "log_softmax", F.layer_norm: "layer_norm", torch.rsqrt: "rsqrt",
    torch.pow: "pow", torch.mean: "mean", torch.sum: "sum", torch.amax: "amax",
    torch.amin: "amin", torch.transpose: "transpose",
    torch.permute: "permute", torch.reshape: "reshape", torch.flatten: "flatten",
    torch.unsqueeze: "unsqueeze", torch.squeeze: "squeeze", F.dropout: "dropout",
    F.embedding: "embedding", F.cross_entropy: "cross_entropy",
    torch.masked_fill: "masked_fill", torch.where: "where",
    torch.repeat_interleave: "repeat_interleave",
    operator.pow: "pow", torch.mm: "matmul", torch.addmm: "addmm", torch.baddbmm: "baddbmm",
    torch.t: "t", torch.square: "square", F.leaky_relu: "leaky_relu", torch.var: "var",
    torch.std: "std", torch.stack: "stack", torch.unbind: "unbind", torch.sqrt: "sqrt",
    torch.erf: "erf", torch.special.erf: "erf",
    operator.getitem: "getitem", torch.cat: "cat", torch.split: "split", torch.chunk: "chunk",
    torch.abs: "abs", torch.clamp: "clamp", torch.clip: "clip", torch.clamp_min: "clamp_min",
    torch.clamp_max: "clamp_max", F.relu6: "relu6", F.hardtanh: "hardtanh",
    torch.maximum: "maximum", torch.minimum: "minimum", torch.max: "max", torch.min: "min",
    torch.argmax: "argmax", torch.argmin: "argmin", getattr: "getattr",
    operator.eq: "eq", operator.ne: "ne", operator.lt: "lt", operator.le: "le",
    operator.gt: "gt", operator.ge: "ge", torch.eq: "eq", torch.ne: "ne", torch.lt: "lt",
    torch.le: "le", torch.gt: "gt", torch.ge: "ge", torch.isnan: "isnan",
    torch.greater: "greater", torch.greater_equal: "greater_equal", torch.less: "less",
    torch.less_equal: "less_equal", torch.not_equal: "not_equal",
    operator.invert: "invert", torch.logical_not: "logical_not", torch.bitwise_not: "invert",
    operator.and_: "and", operator.or_: "or", operator.xor: "xor",
    torch.logical_and: "logical_and", torch.logical_or: "logical_or",
    torch.logical_xor: "logical_xor", torch.bitwise_and: "and", torch.bitwise_or: "or",
    torch.bitwise_xor: "xor",
}


# Comparisons, by the names call knows them by, and the predicate each
# has with its operands swapped.
_COMPARE = {name: name for name in ("eq", "ne", "lt", "le", "gt", "ge")}
_COMPARE.update({"greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
                 "not_equal": "ne"})
_SWAPPED = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}

# Methods known by the name of their function.
_METHODS = {"bitwise_not": "invert", "bitwise_and": "and", "bitwise_or": "or",
            "bitwise_xor": "xor", "__and__": "and", "__or__": "or", "__xor__": "xor",
            "__invert__": "invert"}


# Tensors of a fixed value shaped like their argument: constants of the
# specialized program.
_SHAPE_ONLY = (torch.zeros_like, torch.ones_like, torch.full_like, "new_zeros", "new_ones",
               "new_full")


# Casts between floating types, which change nothing in the program (it
# computes in f32), and the ops that return their argument's values.
_CASTS = ("to", "type_as", "type", "double", "half", "bfloat16")
_SAME_VALUES = _CASTS + ("float", "contiguous", "clone")

# Ops whose result may share the memory of their first argument.
_VIEWS = {"view", "reshape", "transpose", "permute", "getitem", "expand", "expand_as",
          "unsqueeze", "squeeze", "flatten", "t", "contiguous", "split", "chunk", "unbind",
          "narrow", "view_as", "detach", "as_strided", "float", "to", "type_as"}


def _is_view(node):
    if node.op == "call_method":
        return node.target in _VIEWS
    if node.op == "call_function":
        return _function_key(node.target) in _VIEWS
    return False


def _function_key(target):
    """The name `call` knows a function by; None for unsupported ones.
    scaled_dot_product_attention (torch 2.0) and rms_norm (torch 2.4) are
    looked up when called (the tests install stand-ins on older versions)."""
    key = _FUNCTIONS.get(target)
    for name in ("scaled_dot_product_attention", "rms_norm"):
        if key is None and target is getattr(F, name, None):
            key = name
    return key


def _reassociation(src, dst):
    """Reassociation groups that collapse `src` into `dst` or expand `src`
    into `dst` (groups index the longer shape), or None."""
    long, short = (src, dst) if len(src) >= len(dst) else (dst, src)
    groups, i = [], 0
    for extent in short:
        group, size = [], 1
        while i < len(long) and (size < extent or not group):
            group.append(i)
            size *= long[i]
            i += 1
        # Unit extents of the long shape join the group before them.
        while i < len(long) and long[i] == 1 and size == extent and \
                (len(groups) + 1 == len(short)):
            group.append(i)
            i += 1
        if size != extent or not group:
            return None
        groups.append(group)
    if i != len(long):
        if not groups:
            return None
        if any(long[j] != 1 for j in range(i, len(long))):
            return None
        groups[-1] += list(range(i, len(long)))
    return groups


def import_module(module, example_inputs, name=None):
    """The Imported graphs of `module` (an nn.Module) traced with torch.fx and
    shaped by `example_inputs` (a tuple of tensors)."""
    name = name or re.sub(r"\W", "_", type(module).__name__).lower()
    return _Importer(module, tuple(example_inputs), name).run()


# -- compiled callables ----------------------------------------------------------


def _chip_of_device(device):
    major, minor = torch.cuda.get_device_capability(device)
    if major == 9:
        return "sm_90a"
    if major == 10:
        return "sm_100a"
    raise RuntimeError(f"CUDA device of compute capability {major}.{minor}: fp8-mlir "
                       "compiles for sm_90a and sm_100a")


class CompiledModule:
    """A module compiled by a recipe; call it like the module. Outputs take
    part in torch autograd: their backward runs the compiled backward
    function and fills the gradients of the inputs and parameters.

    `ir` is the compiled module on the CPU (forward and backward functions,
    after fp8-autocast); on CUDA each function is compiled for the chip when
    first run, the backward at the first backward pass."""

    def __init__(self, module, example_inputs, recipe="mxfp8", chip=None, artifacts=None,
                 opt_level=2, prepare_weights=False):
        self.module = module
        self.recipe = recipe
        self.prepare_weights = prepare_weights
        self.imported = import_module(module, example_inputs)
        # Per function: the positions of its weights among its inputs, and
        # the prepared values with the (storage, version) of each weight
        # they were computed from.
        self._weight_positions = [i for i, s in enumerate(self.imported.sources)
                                  if s[0] in _STATE]
        # The constants' values on each device they were fed to (one tensor
        # per device, so that prepared values computed from them are
        # reused).
        self._constants = {}
        self._prepared = {}
        self.forward_name = self.imported.forward.name
        self.backward_name = self.imported.backward.name
        self._source = f"<{type(module).__name__}>"
        cuda = any(t.is_cuda for t in example_inputs if isinstance(t, torch.Tensor))
        if cuda:
            self.ir = None
            self._program = None
            self._gpu = _GPUPrograms(self, chip or _chip_of_device(example_inputs[0].device),
                                     artifacts)
        else:
            # Each function's signature and the program that holds it:
            # partial backward functions are compiled alone when first run.
            self._signatures, self._programs = {}, {}
            self._opt_level = opt_level
            self.ir, self._program = self._jit(self.imported.mlir())
            self._functions = set(self._signatures)
            self._gpu = None

    def lower(self, text):
        """The compiler's module of `text` after the recipe's fp8-autocast."""
        return _autocast(text, self.recipe, self._source)

    # The values of the forward graph's inputs for a call.
    def _feeds(self, args):
        feeds = []
        state = dict(self.module.named_parameters())
        state.update(self.module.named_buffers())
        for source in self.imported.sources:
            if source[0] == "input":
                feeds.append(args[source[1]])
            elif source[0] == "as_float":
                feeds.append(args[source[1]].to(torch.float32))
            elif source[0] in ("param", "buffer"):
                feeds.append(state[source[1]])
            elif source[0] == "constant":
                device = next((a.device for a in args if isinstance(a, torch.Tensor)),
                              source[1].device)
                key = (id(source[1]), device)
                if key not in self._constants:
                    self._constants[key] = source[1].to(device)
                feeds.append(self._constants[key])
            else:
                _, position, classes = source
                ids = args[position].reshape(-1).long()
                feeds.append(F.one_hot(ids, classes).to(torch.float32))
        return feeds

    def _jit(self, text):
        """The compiler's module of `text` (after the recipe, and
        fp8-prepare-weights with prepare_weights) and its JIT-compiled
        program, whose functions' signatures and program are recorded."""
        from . import compiler

        ir = self.lower(text)
        if self.prepare_weights:
            ir.run("fp8-prepare-weights")
        program = compiler.jit(ir, self._opt_level)
        for signature in ir.signatures():
            self._signatures[signature.name] = signature
            self._programs[signature.name] = program
        return ir, program

    def _cpu_program(self, name):
        """The JIT-compiled program holding the function `name`: the module's,
        or for a partial backward function one compiled for it alone (its
        own prepare group)."""
        if name not in self._programs:
            graph = self.imported.graph_named(name)
            self._jit(self.imported.emit(
                graph, prepare_group=name if self.imported.weights else None))
        return self._programs[name]

    def _run(self, name, tensors):
        if self._program is not None:
            program = self._cpu_program(name)
            # numpy has no bfloat16: every float tensor goes through f32,
            # the program's type.
            arrays = [t.detach().cpu().to(torch.float32).numpy() for t in tensors]
            signature = self._signatures[name]
            if signature.prepare:
                # The forward and backward functions share the prepare
                # function: one computation per weight update serves both.
                values = self._prepared_values(
                    signature.prepare, tensors, lambda: program.call(
                        signature.prepare, *[arrays[i] for i in self._weight_positions]))
                arrays += [values[n] for n in signature.prepared if n is not None]
            return [torch.from_numpy(np.asarray(r)) for r in program.call(name, *arrays)]
        return self._gpu.run(name, tensors)

    def _prepared_values(self, name, tensors, prepare):
        """What the prepare function `name` computes from the weights among
        `tensors` (every result):
        computed by `prepare()` when a weight is another tensor or
        was modified in place since the last call (an optimizer step bumps
        its version), else the values of the last call."""
        weights = [tensors[i] for i in self._weight_positions]
        key = tuple((w.data_ptr(), w._version, tuple(w.shape)) for w in weights)
        cached = self._prepared.get(name)
        if cached is None or cached[0] != key:
            cached = (key, list(prepare()))
            self._prepared[name] = cached
        return cached[1]

    def __call__(self, *args):
        feeds = self._feeds(args)
        outputs = _Apply.apply(self, self.imported.differentiable, *feeds)
        return outputs[0] if self.imported.single_output else tuple(outputs)


class _Apply(torch.autograd.Function):
    @staticmethod
    def forward(ctx, compiled, grads, *feeds):
        ctx.compiled, ctx.grads = compiled, grads
        # Outputs left out of the loss come to backward as None.
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(*feeds)
        outputs = compiled._run(compiled.forward_name, feeds)
        imported = compiled.imported
        outputs = tuple(o.to(feeds[0].device, dtype)
                        for o, dtype in zip(outputs, imported.output_dtypes))
        # Outputs computed from the differentiated inputs through
        # comparisons alone, and boolean ones, take no gradient.
        ctx.mark_non_differentiable(*[
            o for o, d in zip(outputs, imported.output_differentiable)
            if not d or not o.is_floating_point()])
        return outputs

    @staticmethod
    def backward(ctx, *grad_outputs):
        compiled = ctx.compiled
        feeds = list(ctx.saved_tensors)
        # The backward function of the outputs with a gradient: the others
        # are left out, as torch leaves them.
        graph, reached = compiled.imported.backward_of([g is not None for g in grad_outputs])
        if not any(reached):
            return (None, None, *[None] * len(feeds))
        seeds = [g for g in grad_outputs if g is not None]
        results = compiled._run(graph.name, feeds + seeds)
        gradients, reaches = iter(results[len(seeds):]), iter(reached)
        out = [next(gradients).to(f.device) if g and next(reaches) else None
               for f, g in zip(feeds, ctx.grads)]
        return (None, None, *out)


class _GPUPrograms:
    """The forward and backward functions compiled for a chip, each into its
    own artifacts directory, and loaded by the runtime (found next to
    libFP8MLIR-C.so, else as fp8_mlir.runtime finds it); runs them on CUDA
    tensors on the current stream."""

    def __init__(self, compiled, chip, artifacts):
        from . import _capi, runtime

        self.compiled = compiled
        self.chip = chip
        self.artifacts = artifacts or tempfile.mkdtemp(prefix="fp8-mlir-")
        try:
            beside = os.path.join(os.path.dirname(_capi.lib().path), "libfp8rt.so")
        except _capi.FP8MLIRLibraryError:
            # A machine with the runtime alone, running exported artifacts.
            beside = None
        self.library = runtime.Library(beside if beside and os.path.exists(beside)
                                       else runtime.default_library_path())
        self.programs = {}

    def program(self, name):
        """The loaded function `name` and its prepare function (or None):
        the artifacts `export` wrote for the same function, recipe, chip and
        options where `artifacts` holds them, else compiled now."""
        if name not in self.programs:
            compiled = self.compiled
            imported = compiled.imported
            graph = imported.graph_named(name)
            manifests = exported(graph, compiled.recipe, self.chip, self.artifacts, imported,
                                 compiled.prepare_weights)
            if manifests is None:
                from . import _capi

                try:
                    manifests = _compile_graph(graph, compiled.recipe, self.chip,
                                               self.artifacts, compiled._source, imported,
                                               compiled.prepare_weights)
                except _capi.FP8MLIRLibraryError as e:
                    raise _capi.FP8MLIRLibraryError(
                        f"{os.path.join(self.artifacts, graph.name)} holds no artifacts "
                        f"exported for '{graph.name}' by this recipe, chip and options, "
                        f"and the compiler is not available to compile them: {e}") from None
            # Each function is compiled alone, with a prepare function of its
            # own.
            prepare = manifests.get(name + "_prepare")
            self.programs[name] = (self.library.load(manifests[name]),
                                   self.library.load(prepare) if prepare else None)
        return self.programs[name]

    def _call(self, program, inputs, device):
        outputs = [torch.empty(o.shape, dtype=_TORCH_DTYPES[o.dtype], device=device)
                   if o.dtype in _TORCH_DTYPES else
                   torch.empty(o.bytes, dtype=torch.uint8, device=device)
                   for o in program.outputs]
        program.run(inputs, outputs, stream=torch.cuda.current_stream())
        return outputs

    def run(self, name, tensors):
        program, prepare = self.program(name)
        inputs = [t.detach().to(torch.float32).contiguous() for t in tensors]
        device = inputs[0].device
        if prepare is not None:
            positions = self.compiled._weight_positions
            values = self.compiled._prepared_values(
                prepare.function, tensors,
                lambda: self._call(prepare, [inputs[i] for i in positions], device))
            inputs += [values[t.prepared] for t in program.inputs if t.prepared is not None]
        return self._call(program, inputs, device)


def _autocast(text, recipe, source):
    from . import compiler

    ir = compiler.parse(text, source)
    if recipe not in (None, "f32", "none"):
        ir.run(f"fp8-autocast{{recipe={recipe}}}")
    return ir


# What export records beside a function's artifacts (JSON, named so that
# `fp8-run --check DIR/*.json` reads the manifests alone): the fingerprint
# of what they were compiled from, and the manifests by function.
_EXPORT_RECORD = "fp8-torch.export"


def _fingerprint(text, recipe, chip, options):
    """The SHA-256 of a function's text and how it was compiled."""
    key = json.dumps({"text": text, "recipe": recipe, "chip": chip, "options": options},
                     sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()


def _options(prepare_weights):
    return "prepare-weights=1" if prepare_weights else ""


def _compile_graph(graph, recipe, chip, artifacts, source, imported, prepare_weights=False):
    """The manifests of `graph` compiled for `chip` into artifacts/<name>, by
    function: the graph's, and with `prepare_weights` its prepare
    function's (fp8-prepare-weights). Records what they were compiled from
    (`exported` reads it)."""
    directory = os.path.join(artifacts, graph.name)
    options = _options(prepare_weights)
    text = imported.emit(graph)
    record = os.path.join(directory, _EXPORT_RECORD)
    if os.path.exists(record):
        # Artifacts of something else are about to be overwritten.
        os.remove(record)
    manifests = _autocast(text, recipe, source).compile(chip, directory, options=options)
    with open(record, "w") as f:
        json.dump({"fingerprint": _fingerprint(text, recipe, chip, options),
                   "manifests": {name: os.path.relpath(path, directory)
                                 for name, path in manifests.items()}}, f, indent=1)
    return manifests


def exported(graph, recipe, chip, artifacts, imported, prepare_weights=False):
    """The manifests by function that `export` (or an earlier compilation)
    wrote into artifacts/<graph's name> for this graph, recipe, chip and
    options, or None where there are none or they were compiled from
    something else (another module, shape or recipe). Needs only Python:
    a machine with the runtime and no compiler runs what another exported."""
    directory = os.path.join(artifacts, graph.name)
    try:
        with open(os.path.join(directory, _EXPORT_RECORD)) as f:
            record = json.load(f)
    except (OSError, ValueError):
        return None
    text = imported.emit(graph)
    if not isinstance(record, dict) or record.get("fingerprint") != _fingerprint(
            text, recipe, chip, _options(prepare_weights)):
        return None
    manifests = {name: os.path.join(directory, path)
                 for name, path in record.get("manifests", {}).items()}
    if graph.name not in manifests or not all(os.path.exists(p) for p in manifests.values()):
        return None
    return manifests


def export(module, example_inputs, recipe="mxfp8", chip="sm_90a", artifacts="artifacts",
           backward=True, prepare_weights=False):
    """Compiles `module`'s forward function (and its backward one) for
    `chip` into artifacts/<function>/ without running anything: the PTX,
    cubins and launch manifests to copy to a GPU machine with the runtime.
    Returns the manifests' paths by function name; raises
    compiler.CompilerError where fp8-gpu-pipeline has no kernel for a part
    of the graph.

    On the GPU machine, `compile(module, cuda_inputs, recipe, artifacts=...)`
    of the same module, shapes, recipe, chip and `prepare_weights` runs
    these artifacts without compiling (each function's directory records
    what it was compiled from), so that machine needs the runtime alone."""
    imported = import_module(module, example_inputs)
    source = f"<{type(module).__name__}>"
    graphs = [imported.forward] + ([imported.backward] if backward else [])
    manifests = {}
    for g in graphs:
        manifests.update(_compile_graph(g, recipe, chip, artifacts, source, imported,
                                        prepare_weights))
    return manifests


_TORCH_DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def compile(module, example_inputs, recipe="mxfp8", chip=None, artifacts=None, opt_level=2,
            prepare_weights=False):
    """`module` compiled by `recipe` (an fp8-autocast recipe name, or None
    for the f32 graph): a callable taking the module's arguments. CPU
    example inputs select the CPU pipeline; CUDA ones fp8-gpu-pipeline for
    `chip` (default: the device's), its artifacts written to `artifacts`
    (default: a new temporary directory). `opt_level` is LLVM's for the CPU
    JIT (0 compiles large graphs several times faster, runs slower).

    `prepare_weights` compiles with fp8-prepare-weights: what only the
    module's parameters and buffers determine (their quantization, the
    K-major copies) is computed by a prepare function when a parameter is
    another tensor or was modified in place since the last call (an
    optimizer step), and reused by the calls in between (the micro-batches
    of a step, or inference), with the same results."""
    return CompiledModule(module, tuple(example_inputs), recipe, chip, artifacts, opt_level,
                          prepare_weights)
