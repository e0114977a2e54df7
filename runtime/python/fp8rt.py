"""ctypes binding of libfp8rt.so, the fp8-mlir GPU runtime (runtime/README.md).

    import fp8rt
    lib = fp8rt.Library("build-runtime/lib/libfp8rt.so")
    with lib.load("artifacts/gemm.json") as program:
        print(program.inputs)            # [Tensor(dtype='f8e4m3', shape=(256, 512), bytes=131072), ...]
        program.run([a, b, sa, sb], [c], stream=torch.cuda.current_stream())
        program.run([a, b, sa, sb], [c], graph=True)  # one CUDA graph launch
        program.run([a, b, sa, sb], [c], graph=True)  # one CUDA graph launch

Arguments and results may be integers (device pointers) or objects with a
`data_ptr()` method (torch tensors: contiguous, of exactly the tensor's
bytes; checked). The stream may be an integer handle (0: the legacy default
stream), or an object with a `cuda_stream` attribute (torch.cuda.Stream).

Every failure raises Fp8rtError with the runtime's message.
"""

import ctypes
import os
from collections import namedtuple

MAX_RANK = 16
RUN_SYNC = 1
RUN_GRAPH = 2

# The element types of manifest buffers and their bits per element: the table
# of fp8rt/DTypes.h, in its order (test/runtime/dtypes.test checks that the
# two agree). Integers `iN`, N = 1..64, are a family outside the table.
DTYPE_BITS = {
    "f32": 32,
    "bf16": 16,
    "f16": 16,
    "f8e4m3": 8,
    "f8e5m2": 8,
    "f8e8m0": 8,
    "f4e2m1": 4,
}
MAX_INT_BITS = 64

# The data types of tensor maps and their bytes per element (DTypes.h).
TENSOR_MAP_DTYPE_BYTES = {
    "uint8": 1,
    "uint16": 2,
    "uint32": 4,
    "int32": 4,
    "float16": 2,
    "bfloat16": 2,
    "float32": 4,
}

# The short names of 8- and 4-bit formats (those of fp8-mlir's dialect and
# recipes) and their manifest dtypes.
FORMAT_DTYPES = {"e4m3": "f8e4m3", "e5m2": "f8e5m2", "e8m0": "f8e8m0", "e2m1": "f4e2m1"}


def dtype_bits(name):
    """Bits per element of a manifest dtype, or 0 if the name is unknown."""
    if name in DTYPE_BITS:
        return DTYPE_BITS[name]
    digits = name[1:]
    if name[:1] == "i" and 1 <= len(digits) <= 2 and digits.isdigit() and digits[0] != "0":
        bits = int(digits)
        return bits if bits <= MAX_INT_BITS else 0
    return 0


def manifest_dtype(name):
    """The manifest dtype of a format name (e4m3 -> f8e4m3) or of a dtype
    (bf16 -> bf16); KeyError for anything else."""
    name = FORMAT_DTYPES.get(name, name)
    if not dtype_bits(name):
        raise KeyError(name)
    return name

# An argument or result. Arguments also say what the caller passes
# (fp8-prepare-weights): `prepared`, the number of the prepare function's
# result that goes there (None: the caller's own argument), and `unread`,
# True when no launch reads it (a null pointer, 0, may be passed).
Tensor = namedtuple("Tensor", ["dtype", "shape", "bytes", "prepared", "unread"],
                    defaults=[None, False])


class Fp8rtError(RuntimeError):
    pass


class _TensorInfo(ctypes.Structure):
    _fields_ = [
        ("dtype", ctypes.c_char_p),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.c_int64 * MAX_RANK),
        ("bytes", ctypes.c_uint64),
    ]


def default_library_path():
    """$FP8RT_LIBRARY, else libfp8rt.so from the system's search path."""
    return os.environ.get("FP8RT_LIBRARY", "libfp8rt.so")


class Library:
    """The loaded libfp8rt.so. Loading it loads the driver's libcuda.so.1."""

    def __init__(self, path=None):
        path = path or default_library_path()
        try:
            self._lib = ctypes.CDLL(path)
        except OSError as e:
            raise Fp8rtError(
                "cannot load %s: %s (running kernels needs the NVIDIA driver's "
                "libcuda.so.1)" % (path, e)) from None
        self.path = path
        lib = self._lib
        p = ctypes.c_void_p
        signatures = {
            "fp8rt_load": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(p), ctypes.c_char_p,
                                          ctypes.c_size_t]),
            "fp8rt_load_manifest": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(p),
                                                   ctypes.c_char_p, ctypes.c_size_t]),
            "fp8rt_destroy": (None, [p]),
            "fp8rt_num_inputs": (ctypes.c_int, [p]),
            "fp8rt_num_outputs": (ctypes.c_int, [p]),
            "fp8rt_input_info": (ctypes.c_int, [p, ctypes.c_int, ctypes.POINTER(_TensorInfo)]),
            "fp8rt_output_info": (ctypes.c_int, [p, ctypes.c_int, ctypes.POINTER(_TensorInfo)]),
            "fp8rt_run": (ctypes.c_int, [p, ctypes.POINTER(ctypes.c_uint64),
                                         ctypes.POINTER(ctypes.c_uint64), p]),
            "fp8rt_run_ex": (ctypes.c_int, [p, ctypes.POINTER(ctypes.c_uint64),
                                            ctypes.POINTER(ctypes.c_uint64), p, ctypes.c_uint]),
            "fp8rt_graph_captures": (ctypes.c_int, [p]),
            "fp8rt_input_role": (ctypes.c_int, [p, ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
                                                ctypes.POINTER(ctypes.c_int32)]),
            "fp8rt_last_error": (ctypes.c_char_p, [p]),
            "fp8rt_function_name": (ctypes.c_char_p, [p]),
            "fp8rt_prepare_function": (ctypes.c_char_p, [p]),
            "fp8rt_chip": (ctypes.c_char_p, [p]),
            "fp8rt_module_kind": (ctypes.c_char_p, [p]),
            "fp8rt_describe": (ctypes.c_char_p, [p]),
            "fp8rt_manifest_version": (ctypes.c_int, []),
        }
        for name, (restype, argtypes) in signatures.items():
            function = getattr(lib, name)
            function.restype = restype
            function.argtypes = argtypes

    def manifest_version(self):
        return self._lib.fp8rt_manifest_version()

    def load(self, path, manifest_only=False):
        """Loads a manifest and its kernels (on the current CUDA context, or
        device 0's primary context); manifest_only reads the manifest without
        touching CUDA."""
        return Program(self, path, manifest_only)


# The alignment every argument and result pointer needs (Program::run's
# kArgumentAlignment).
ARGUMENT_ALIGNMENT = 16


def _pointer(value, what, expected_bytes):
    """A device pointer from an int or a tensor-like object, with its size
    and layout checked when the object can tell."""
    if isinstance(value, int):
        return value
    if not hasattr(value, "data_ptr"):
        raise Fp8rtError("%s: expected a device pointer (int) or a tensor, got %r"
                         % (what, type(value).__name__))
    if hasattr(value, "is_contiguous") and not value.is_contiguous():
        raise Fp8rtError("%s: the tensor is not contiguous" % what)
    if hasattr(value, "is_cuda") and not value.is_cuda:
        raise Fp8rtError("%s: the tensor is not on a CUDA device" % what)
    if hasattr(value, "numel") and hasattr(value, "element_size"):
        nbytes = value.numel() * value.element_size()
        if nbytes != expected_bytes:
            raise Fp8rtError("%s: the tensor has %d bytes, expected %d"
                             % (what, nbytes, expected_bytes))
    pointer = int(value.data_ptr())
    if pointer % ARGUMENT_ALIGNMENT:
        raise Fp8rtError("%s: the tensor is at 0x%x, which is not %d-byte aligned "
                         "(kernels access arguments in vectors of up to %d bytes)"
                         % (what, pointer, ARGUMENT_ALIGNMENT, ARGUMENT_ALIGNMENT))
    return pointer


def _stream(stream):
    if stream is None:
        return None
    if hasattr(stream, "cuda_stream"):
        stream = stream.cuda_stream
    return ctypes.c_void_p(int(stream)) if stream else None


class Program:
    """One loaded function (fp8rt_program)."""

    def __init__(self, library, path, manifest_only=False):
        self._library = library
        self._lib = library._lib
        self._handle = ctypes.c_void_p()
        errbuf = ctypes.create_string_buffer(16384)
        load = self._lib.fp8rt_load_manifest if manifest_only else self._lib.fp8rt_load
        if load(os.fsencode(str(path)), ctypes.byref(self._handle), errbuf, len(errbuf)) != 0:
            self._handle = None
            raise Fp8rtError(errbuf.value.decode(errors="replace"))
        self.inputs = [self._input(i) for i in range(self._lib.fp8rt_num_inputs(self._handle))]
        self.outputs = [self._info(self._lib.fp8rt_output_info, i)
                        for i in range(self._lib.fp8rt_num_outputs(self._handle))]
        self.function = self._lib.fp8rt_function_name(self._handle).decode()
        # The prepare function whose results the inputs with a `prepared`
        # number take (fp8-prepare-weights), or None.
        self.prepare = self._lib.fp8rt_prepare_function(self._handle).decode() or None
        self.chip = self._lib.fp8rt_chip(self._handle).decode()
        self.module_kind = self._lib.fp8rt_module_kind(self._handle).decode()

    def _info(self, getter, index):
        info = _TensorInfo()
        if getter(self._handle, index, ctypes.byref(info)) != 0:
            raise Fp8rtError(self.last_error())
        return Tensor(info.dtype.decode(), tuple(info.shape[:info.rank]), int(info.bytes))

    def _input(self, index):
        prepared, unread = ctypes.c_int64(), ctypes.c_int32()
        if self._lib.fp8rt_input_role(self._handle, index, ctypes.byref(prepared),
                                      ctypes.byref(unread)) != 0:
            raise Fp8rtError(self.last_error())
        return self._info(self._lib.fp8rt_input_info, index)._replace(
            prepared=None if prepared.value < 0 else prepared.value, unread=bool(unread.value))

    def last_error(self):
        return self._lib.fp8rt_last_error(self._handle).decode(errors="replace")

    def describe(self):
        return self._lib.fp8rt_describe(self._handle).decode()

    def bind(self, inputs, outputs, stream=None):
        """Checks arguments and results once and returns a function that runs
        the program on them: the cheapest way to launch repeatedly (timing).
        The function takes sync=False and graph=False like run()."""
        if self._handle is None:
            raise Fp8rtError("the program is closed")
        if len(inputs) != len(self.inputs) or len(outputs) != len(self.outputs):
            raise Fp8rtError("%s takes %d inputs and %d outputs, got %d and %d" % (
                self.function, len(self.inputs), len(self.outputs), len(inputs), len(outputs)))
        ins = (ctypes.c_uint64 * max(1, len(inputs)))(*[
            _pointer(v, "input %d" % i, self.inputs[i].bytes) for i, v in enumerate(inputs)])
        outs = (ctypes.c_uint64 * max(1, len(outputs)))(*[
            _pointer(v, "output %d" % i, self.outputs[i].bytes) for i, v in enumerate(outputs)])
        handle, run_ex, s = self._handle, self._lib.fp8rt_run_ex, _stream(stream)

        def launch(sync=False, graph=False):
            if self._handle is None:
                raise Fp8rtError("the program is closed")
            flags = (RUN_SYNC if sync else 0) | (RUN_GRAPH if graph else 0)
            if run_ex(handle, ins, outs, s, flags) != 0:
                raise Fp8rtError(self.last_error())

        return launch

    def run(self, inputs, outputs, stream=None, sync=False, graph=False):
        """Runs asynchronously on `stream`; with sync=True, synchronizes after
        every launch and names the one that failed. With graph=True the
        launches replay as one CUDA graph, captured on the first such run and
        again when the arguments or results move (not with sync=True)."""
        self.bind(inputs, outputs, stream)(sync, graph)

    @property
    def graph_captures(self):
        """How many times graph runs captured the launches."""
        return self._lib.fp8rt_graph_captures(self._handle) if self._handle else 0

    def close(self):
        if self._handle:
            self._lib.fp8rt_destroy(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
