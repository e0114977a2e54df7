"""A numpy stand-in for the parts of torch that bench/gpu/check_and_bench.py
and bench/gpu/models.py use, so that their GPU paths (worker processes, the
watchdog, references, tolerances, timing, the report) run on machines
without a GPU (test/runtime/bench-gpu-scripts.test, bench-models.test). Not a
torch: just enough of its API.

It also patches the fp8rt binding: programs load manifest-only, and a launch
computes the result with check_and_bench.py's own float64 reference (the
"kernel" is always right), unless FAKE_FAIL="variant=mode,..." injects a
failure: sticky (an error that loses the CUDA context), crash (the process
dies), hang (the launch never returns), error (a launch error), wrong
(results twice too large). A launch of a models.py manifest writes the
stand-ins that `models.py prepare --stand-ins` stored for its call.
"""

import json
import math
import os
import sys
import time

import numpy as np

import fp8rt

__version__ = "0.0-fake"


class _DType:
    def __init__(self, name, size):
        self.name, self.size = name, size

    def __repr__(self):
        return "torch." + self.name


float8_e4m3fn = _DType("float8_e4m3fn", 1)
float8_e5m2 = _DType("float8_e5m2", 1)
bfloat16 = _DType("bfloat16", 2)
float16 = _DType("float16", 2)
float32 = _DType("float32", 4)
float64 = _DType("float64", 8)
uint8 = _DType("uint8", 1)
int32 = _DType("int32", 4)
int64 = _DType("int64", 8)
bool_ = _DType("bool", 1)
_FP8 = {float8_e4m3fn: "e4m3", float8_e5m2: "e5m2"}
# Storage: fp8 as uint8 codes, bf16 as float32 values rounded to bf16.
_STORAGE = {float32: np.float32, float64: np.float64, float16: np.float16, uint8: np.uint8,
            int32: np.int32, int64: np.int64, bool_: np.bool_, bfloat16: np.float32,
            float8_e4m3fn: np.uint8, float8_e5m2: np.uint8}
_FROM_NUMPY = {np.dtype(np.float32): float32, np.dtype(np.float64): float64,
               np.dtype(np.float16): float16, np.dtype(np.uint8): uint8,
               np.dtype(np.int32): int32, np.dtype(np.int64): int64,
               np.dtype(np.bool_): bool_}


class version:
    cuda = "13.0-fake"


def _script():
    import check_and_bench
    return check_and_bench


_next_address = [1 << 20]


class Tensor:
    is_cuda = True

    def __init__(self, array, dtype=None):
        self.a = np.asarray(array)
        self.dtype = dtype or _FROM_NUMPY[self.a.dtype]
        _next_address[0] += 4096
        self._address = _next_address[0]

    @property
    def shape(self):
        return self.a.shape

    def numel(self):
        return int(self.a.size)

    def element_size(self):
        return self.dtype.size

    def is_contiguous(self):
        return True

    def data_ptr(self):
        return self._address

    def cuda(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        if self.dtype is bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        return self.a

    # Conversions.
    def view(self, dtype):
        assert dtype.size == self.dtype.size, (dtype, self.dtype)
        return Tensor(self.a, dtype)

    def float(self):
        if self.dtype in _FP8:
            return Tensor(_script().decode_tables()[_FP8[self.dtype]][self.a])
        return Tensor(self.a.astype(np.float32))

    def double(self):
        return Tensor(self.float().a.astype(np.float64))

    def long(self):
        return Tensor(self.a.astype(np.int64))

    def to(self, dtype):
        if dtype in _FP8:
            return Tensor(_script().encode_numpy(self.float().a, _FP8[dtype]), dtype)
        if dtype is bfloat16:
            return Tensor(_script().numerics.round_to(self.float().a, "bf16"), bfloat16)
        return Tensor(self.float().a.astype(_STORAGE[dtype]), dtype)

    # Arithmetic.
    @staticmethod
    def _value(other):
        return other.a if isinstance(other, Tensor) else other

    def __add__(self, other):
        return Tensor(self.a + self._value(other))

    __radd__ = __add__

    def __sub__(self, other):
        return Tensor(self.a - self._value(other))

    def __mul__(self, other):
        return Tensor(self.a * self._value(other))

    __rmul__ = __mul__

    def __truediv__(self, other):
        return Tensor(self.a / self._value(other))

    def __gt__(self, other):
        return Tensor(self.a > self._value(other))

    def __or__(self, other):
        return Tensor(self.a | self._value(other))

    def __matmul__(self, other):
        for t in (self, other):
            assert t.dtype in (float32, float64, bfloat16), ("matmul of", t.dtype)
        return Tensor(self.a @ other.a, self.dtype)

    def __getitem__(self, index):
        if isinstance(index, Tensor):
            index = index.a
        return Tensor(self.a[index], self.dtype)

    def abs(self):
        return Tensor(np.abs(self.a), self.dtype)

    def t(self):
        return Tensor(self.a.T, self.dtype)

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], tuple):
            shape = shape[0]
        return Tensor(self.a.reshape(shape), self.dtype)

    def contiguous(self):
        return Tensor(np.ascontiguousarray(self.a), self.dtype)

    def fill_(self, value):
        self.a[...] = value
        return self

    def zero_(self):
        self.a[...] = 0
        return self

    def max(self):
        return Tensor(self.a.max())

    def sum(self):
        return Tensor(self.a.sum())

    def argmax(self):
        return Tensor(np.argmax(self.a))

    def clamp_min(self, value):
        return Tensor(np.maximum(self.a, value), self.dtype)

    def __float__(self):
        return float(self.a)

    def __int__(self):
        return int(self.a)


def _shape(shape):
    return tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)


class Generator:
    def __init__(self, device=None):
        self.rng = np.random.default_rng(0)

    def manual_seed(self, seed):
        self.rng = np.random.default_rng(seed)


def randn(shape, device=None, generator=None):
    return Tensor(generator.rng.standard_normal(_shape(shape)).astype(np.float32))


def rand(shape, device=None, generator=None):
    return Tensor(generator.rng.random(_shape(shape)).astype(np.float32))


def randint(low, high, shape, device=None, generator=None, dtype=int64):
    values = generator.rng.integers(low, high, _shape(shape))
    return Tensor(values.astype(_STORAGE[dtype]), dtype)


def exp2(x):
    return Tensor(np.exp2(x.a).astype(x.a.dtype))


def empty(shape, dtype=float32, device=None):
    return Tensor(np.zeros(_shape(shape), _STORAGE[dtype]), dtype)


def zeros(shape, dtype=float32, device=None):
    return empty(shape, dtype)


def zeros_like(x):
    return Tensor(np.zeros_like(x.a), x.dtype)


def full_like(x, value):
    return Tensor(np.full_like(x.a, value), x.dtype)


def where(condition, x, y):
    return Tensor(np.where(condition.a, x.a, y.a))


def isnan(x):
    return Tensor(np.isnan(x.a))


def repeat_interleave(x, repeats, dim):
    return Tensor(np.repeat(x.a, repeats, axis=dim), x.dtype)


def from_numpy(array):
    return Tensor(array)


class linalg:
    @staticmethod
    def vector_norm(x):
        return Tensor(np.sqrt((x.a.astype(np.float64) ** 2).sum()))


class nn:
    class functional:
        @staticmethod
        def pad(x, widths):
            return Tensor(np.pad(x.a, [(0, 0)] * (x.a.ndim - 1) + [widths]), x.dtype)


class backends:
    class cuda:
        class matmul:
            allow_tf32 = True


def _scaled_mm(a, b, scale_a, scale_b, bias=None, out_dtype=None, use_fast_accum=False):
    """Per-tensor, row-wise and (with scales as stored) 1x128/128x128."""
    m, k = a.shape
    n = b.shape[1]
    if m % 16 or n % 16 or k % 16:
        raise RuntimeError("Expected both dimensions of mat1 to be divisble by 16\nmore")
    if a.dtype is float8_e5m2 and b.dtype is float8_e5m2:
        raise RuntimeError("Multiplication of two Float8_e5m2 matrices is not supported")
    x, y = a.float().a, b.float().a  # y is [K, N]
    if scale_a.numel() == 1:
        x, y = x * scale_a.a.reshape(()), y * scale_b.a.reshape(())
    elif scale_a.shape == (m, 1) and scale_b.shape == (1, n):
        x, y = x * scale_a.a, y * scale_b.a
    elif scale_a.shape == (m, math.ceil(k / 128)) and \
            scale_b.shape == (math.ceil(n / 128), math.ceil(k / 128)):
        x = x * np.repeat(scale_a.a, 128, 1)[:, :k]
        y = y * np.repeat(np.repeat(scale_b.a, 128, 0)[:n], 128, 1)[:, :k].T
    else:
        raise RuntimeError("Invalid scaling configuration")
    result = x.astype(np.float64) @ y.astype(np.float64)
    if bias is not None:
        result = result + bias.float().a
    return Tensor(result.astype(np.float32)).to(out_dtype)


class _Properties:
    name = "Fake H100"
    major, minor = 9, 0
    multi_processor_count = 132
    total_memory = 80 << 30


class _Stream:
    cuda_stream = 0


class cuda:
    @staticmethod
    def init():
        pass

    @staticmethod
    def synchronize():
        pass

    @staticmethod
    def empty_cache():
        pass

    @staticmethod
    def get_device_properties(index):
        return _Properties()

    @staticmethod
    def current_stream():
        return _Stream()

    class Event:
        def __init__(self, enable_timing=False):
            self.time = None

        def record(self):
            self.time = time.perf_counter()

        def elapsed_time(self, other):
            return (other.time - self.time) * 1e3 + 0.001


# The fp8rt binding: manifest-only programs whose launches compute the
# reference.


def _load(self, path, manifest_only=False):
    program = fp8rt.Program(self, path, manifest_only=True)
    program.fake_path = os.path.abspath(path)
    return program


def _models_index(path):
    """The models.py index above a manifest, and its folder, or None."""
    folder = os.path.dirname(path)
    while folder != os.path.dirname(folder):
        candidate = os.path.join(folder, "index.json")
        if os.path.exists(candidate):
            with open(candidate) as f:
                index = json.load(f)
            if index.get("format") == "fp8-mlir-models":
                return index, folder
        folder = os.path.dirname(folder)
    return None


def _models_launch(self, index, artifacts, outputs):
    """Each call writes the next call's stand-ins; positions the stand-ins
    leave out (stored samples) read 0."""
    manifest = os.path.relpath(self.fake_path, artifacts)
    if any(f.get("prepare", {}).get("manifest") == manifest
           for c in index["cells"] for f in c.get("functions", [])):
        # A prepare function's results are inputs of its function, whose
        # launches write the stand-ins whatever they read.
        return lambda sync=False, graph=False: None
    cell, function = [(c, f) for c in index["cells"] for f in c.get("functions", [])
                      if f["manifest"] == manifest][0]
    reference = index["references"]["/".join((cell["size"], cell["example"], cell["recipe"]))]
    records = reference["functions"][function["name"]]["outputs"]
    with np.load(os.path.join(artifacts, reference["stand_ins"])) as data:
        stored = {k: data[k] for k in data.files}
    calls = [0]

    def launch(sync=False, graph=False):
        step = min(calls[0], len(records) - 1)  # timed runs repeat the last
        calls[0] += 1
        for i, (out, record) in enumerate(zip(outputs, records[step])):
            values = stored["%s:%d:%d" % (function["name"], step, i)]
            flat = out.a.reshape(-1)
            flat[...] = 0
            if record["sampled"]:
                flat[_models_script().sample_indices(flat.size, record["sampled"])] = values
            else:
                flat[...] = values.reshape(-1)

    return launch


def _models_script():
    import models
    return models


def _bind(self, inputs, outputs, stream=None):
    found = _models_index(self.fake_path)
    if found:
        # The runtime's rule: a null pointer only for an input no launch
        # reads (the manifest's "unread").
        with open(self.fake_path) as f:
            unread = {b["index"] for b in json.load(f)["buffers"]
                      if b["kind"] == "input" and b.get("unread")}
        for i, value in enumerate(inputs):
            if not fp8rt._pointer(value, "input %d" % i, self.inputs[i].bytes) and \
                    i not in unread:
                raise fp8rt.Fp8rtError("run: input %d is a null pointer" % i)
        return _models_launch(self, found[0], found[1], outputs)
    script = _script()
    artifacts = os.path.dirname(os.path.dirname(os.path.dirname(self.fake_path)))
    with open(os.path.join(artifacts, "index.json")) as f:
        index = json.load(f)
    manifest = os.path.relpath(self.fake_path, artifacts)
    entry = [e for e in index["entries"] if e["manifest"] == manifest][0]
    modes = dict(x.split("=") for x in os.environ.get("FAKE_FAIL", "").split(",") if x)
    mode = modes.get(entry["variant"])
    for i, value in enumerate(inputs):
        fp8rt._pointer(value, "input %d" % i, self.inputs[i].bytes)

    def launch(sync=False, graph=False):
        if mode == "sticky":
            raise fp8rt.Fp8rtError(
                "gemm: cuStreamSynchronize (after kernel 'k', launch 0 of 1: it failed): "
                "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered); "
                "the CUDA context is now unusable")
        if mode == "hang":
            time.sleep(3600)
        if mode == "crash":
            os._exit(139)
        if mode == "error":
            raise fp8rt.Fp8rtError("gemm: cuLaunchKernelEx (kernel 'k'): "
                                   "CUDA_ERROR_INVALID_VALUE")
        named = dict(zip(entry["args"], inputs))
        ref, _ = script.reference(script.TorchOps(sys.modules[__name__]), entry, named)
        result = ref.a.astype(np.float32) * (2 if mode == "wrong" else 1)
        outputs[0].a[...] = Tensor(result).to(outputs[0].dtype).a

    return launch


fp8rt.Library.load = _load
fp8rt.Program.bind = _bind
