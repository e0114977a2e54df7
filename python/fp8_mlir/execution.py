"""CPU execution of fp8-mlir programs on numpy arrays: fp8-cpu-pipeline, then
MLIR's ExecutionEngine (JIT) through the C API, in this process.

    program = compiler.jit(module)            # module: fp8 / linalg on tensors
    y, = program.call("mlp", x, w1, w2)

Each public function of the module is called through its C interface
(_mlir_ciface_<name>, which fp8-cpu-pipeline emits): ranked tensors pass as
memref descriptors over numpy arrays. Element types map as follows:

    f64, f32, f16            numpy float64, float32, float16
    bf16                     in: float arrays rounded to bf16 (RNE);
                             out: float32 holding the bf16 values
    i1, i8..i64              bool, int8..int64
    8-, 6- and 4-bit floats  uint8 codes (one per byte, as MLIR stores them)

Results are copies the caller owns; the buffers the program returned are
freed. State that a program keeps in globals (delayed-scaling amax
histories) persists from call to call of one Program.
"""

import ctypes
import os

import numpy as np

from . import _capi
from ._capi import StringRef

_NUMPY = {
    "f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": np.uint16,
    "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
}
_SMALL_FLOATS = ("f8E4M3FN", "f8E5M2", "f8E8M0FNU", "f4E2M1FN", "f6E2M3FN", "f6E3M2FN")
_SCALARS = {"f64": ctypes.c_double, "f32": ctypes.c_float, "i64": ctypes.c_int64,
            "i32": ctypes.c_int32, "index": ctypes.c_int64, "i1": ctypes.c_bool}

_descriptor_types = {}


def _descriptor(rank):
    """The ctypes struct of a ranked memref descriptor (allocated and aligned
    pointers, offset, sizes, strides)."""
    if rank not in _descriptor_types:
        fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                  ("offset", ctypes.c_int64)]
        if rank:
            fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
        _descriptor_types[rank] = type(f"MemRef{rank}D", (ctypes.Structure,),
                                       {"_fields_": fields})
    return _descriptor_types[rank]


def _numpy_dtype(element):
    if element in _NUMPY:
        return _NUMPY[element]
    if element in _SMALL_FLOATS:
        return np.uint8
    raise TypeError(f"tensors of {element} cannot be passed from numpy")


def _to_bf16_bits(values):
    from .numerics import round_to

    rounded = round_to(np.asarray(values, np.float32), "bf16")
    return np.asarray(rounded.reshape(-1).view(np.uint32) >> 16,
                      np.uint16).reshape(rounded.shape)


def _from_bf16_bits(bits):
    bits = np.asarray(bits)
    return (bits.reshape(-1).astype(np.uint32) << 16).view(np.float32).reshape(bits.shape)


def _libc_free():
    free = ctypes.CDLL(None).free
    free.argtypes = [ctypes.c_void_p]
    free.restype = None
    return free


class Function:
    """One function of a Program; calling it runs it on numpy arrays and
    returns the results as a list of arrays (or scalars)."""

    def __init__(self, program, signature):
        self.program = program
        self.signature = signature
        self.name = signature.name
        address = program._lib.mlirExecutionEngineLookupPacked(
            program._engine, StringRef.of("_mlir_ciface_" + self.name))
        if not address:
            raise LookupError(f"no C interface for @{self.name} in the compiled program")
        self._packed = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p))(address)
        for t in signature.inputs + signature.results:
            if not hasattr(t, "shape") and t not in _SCALARS:
                raise TypeError(f"@{self.name}: values of type {t} cannot be passed")

    def __call__(self, *args):
        sig = self.signature
        if len(args) != len(sig.inputs):
            raise TypeError(f"@{self.name} takes {len(sig.inputs)} arguments, got {len(args)}")
        keep = []  # what must stay alive during the call
        pointers = []
        inputs = set()
        for i, (value, t) in enumerate(zip(args, sig.inputs)):
            if not hasattr(t, "shape"):
                scalar = _SCALARS[t](value)
                keep.append(scalar)
                pointers.append(ctypes.addressof(scalar))
                continue
            array = self._input_array(i, value, t)
            desc = _descriptor(len(t.shape))()
            desc.allocated = desc.aligned = array.ctypes.data
            desc.offset = 0
            for d, (size, stride) in enumerate(zip(array.shape, array.strides)):
                desc.sizes[d] = size
                desc.strides[d] = stride // array.itemsize
            inputs.add(array.ctypes.data)
            keep += [array, desc]
            # Packed arguments point to the C interface's arguments, which
            # are pointers to descriptors.
            ptr = ctypes.c_void_p(ctypes.addressof(desc))
            keep.append(ptr)
            pointers.append(ctypes.addressof(ptr))

        results = self._result_storage()
        packed = [] if results is None else [ctypes.addressof(results[1])]
        packed += pointers
        array = (ctypes.c_void_p * max(1, len(packed)))(*packed)
        self._packed(array)
        return self._collect(results, inputs)

    def _input_array(self, i, value, t):
        if t.element == "bf16":
            array = _to_bf16_bits(value)
        else:
            dtype = _numpy_dtype(t.element)
            array = np.asarray(value)
            if t.element in _SMALL_FLOATS and array.dtype != np.uint8:
                raise TypeError(f"@{self.name} argument {i}: {t.element} tensors are passed "
                                f"as uint8 codes, got {array.dtype}")
            array = array.astype(dtype, copy=False)
        if not array.flags.c_contiguous:
            array = np.array(array, order="C")
        if array.shape != tuple(t.shape):
            raise ValueError(f"@{self.name} argument {i}: expected shape {tuple(t.shape)} "
                             f"({t}), got {array.shape}")
        return array

    def _result_storage(self):
        """(the results' ctypes struct, a pointer to it) per the C interface:
        one result is returned through a pointer to its descriptor (or
        value), several through a pointer to a struct of them."""
        results = self.signature.results
        if not results:
            return None
        fields = []
        for k, t in enumerate(results):
            kind = _descriptor(len(t.shape)) if hasattr(t, "shape") else _SCALARS[t]
            fields.append((f"r{k}", kind))
        if len(results) == 1:
            storage = fields[0][1]()
        else:
            storage = type("Results", (ctypes.Structure,), {"_fields_": fields})()
        ptr = ctypes.c_void_p(ctypes.addressof(storage))
        return storage, ptr

    def _collect(self, results, inputs):
        if results is None:
            return []
        storage, _ = results
        types = self.signature.results
        values = [storage] if len(types) == 1 else [getattr(storage, f"r{k}")
                                                    for k in range(len(types))]
        out = []
        for value, t in zip(values, types):
            if not hasattr(t, "shape"):
                out.append(value.value if hasattr(value, "value") else value)
            else:
                out.append(self._copy_out(value, t))
        # The caller owns returned buffers (fp8-cpu-pipeline's deallocation);
        # results that alias an argument or each other are freed once,
        # arguments never, and only after every result has been copied.
        freed = set(inputs)
        for value, t in zip(values, types):
            if hasattr(t, "shape") and value.allocated and value.allocated not in freed:
                freed.add(value.allocated)
                self.program._free(value.allocated)
        return out

    def _copy_out(self, desc, t):
        rank = len(t.shape)
        dtype = np.dtype(_numpy_dtype(t.element))
        sizes = [desc.sizes[d] for d in range(rank)]
        strides = [desc.strides[d] * dtype.itemsize for d in range(rank)]
        if 0 in sizes:
            array = np.zeros(sizes, dtype)
        else:
            base = desc.aligned + desc.offset * dtype.itemsize
            span = sum((s - 1) * abs(st) for s, st in zip(sizes, strides)) + dtype.itemsize
            raw = (ctypes.c_char * span).from_address(base)
            array = np.ndarray(sizes, dtype, buffer=raw, strides=strides).copy()
        if t.element == "bf16":
            array = _from_bf16_bits(array)
        return array


class Program:
    """`module` lowered by fp8-cpu-pipeline and JIT-compiled; its public
    functions are Functions, by name (program["mlp"] or program.call)."""

    def __init__(self, module, opt_level=2):
        lib = self._lib = _capi.lib()
        self.signatures = {s.name: s for s in module.signatures()}
        lowered = module.clone().run("fp8-cpu-pipeline")
        self._module = lowered  # the engine translates it; keep it alive
        libdir = lib.fp8GetMLIRLibraryDir().str()
        # memref copies of strided views call memrefCopy from the runner
        # utilities, as mlir-runner's -shared-libs would provide it.
        paths = [os.path.join(libdir, name) for name in
                 ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so")]
        paths = [p for p in paths if os.path.exists(p)]
        # The array copies the references; the list keeps their buffers.
        path_refs = [StringRef.of(p) for p in paths]
        refs = (StringRef * len(paths))(*path_refs)
        self._engine = lib.mlirExecutionEngineCreate(lowered._handle, opt_level, len(paths),
                                                     refs, False, False)
        if not self._engine.ptr:
            raise RuntimeError("the ExecutionEngine could not compile the program "
                               "(LLVM translation failed)")
        lib.mlirExecutionEngineInitialize(self._engine)
        _capi.own(self, lib.mlirExecutionEngineDestroy, self._engine, lowered)
        self._free = _libc_free()
        self.functions = {name: Function(self, s) for name, s in self.signatures.items()}

    def __getitem__(self, name):
        return self.functions[name]

    def call(self, name, *args):
        return self.functions[name](*args)
