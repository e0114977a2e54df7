"""ctypes declarations of libFP8MLIR-C.so: fp8-mlir's C API (include/fp8-c)
and the part of upstream MLIR's C API (mlir-c) the compiler package uses.

Debian ships no MLIR Python bindings, so the package binds the C library the
way any C client would. The library is found, in order, at
$FP8_MLIR_LIBRARY, in the lib/ directory of an install prefix holding this
package (<prefix>/lib/pythonX.Y/dist-packages/fp8_mlir), in the build tree
of a source checkout (build/lib), in /usr/local/lib (CMake's default
prefix), and on the loader's path.
"""

import ctypes
import os
import weakref

LIBRARY_NAME = "libFP8MLIR-C.so"


class FP8MLIRLibraryError(RuntimeError):
    pass


def _handle(name):
    # mlir-c's opaque handles: a struct holding one pointer, passed by value.
    return type(name, (ctypes.Structure,), {"_fields_": [("ptr", ctypes.c_void_p)]})


Context = _handle("MlirContext")
DialectRegistry = _handle("MlirDialectRegistry")
Module = _handle("MlirModule")
Operation = _handle("MlirOperation")
Block = _handle("MlirBlock")
Attribute = _handle("MlirAttribute")
Type = _handle("MlirType")
Location = _handle("MlirLocation")
Diagnostic = _handle("MlirDiagnostic")
Identifier = _handle("MlirIdentifier")
ExecutionEngine = _handle("MlirExecutionEngine")


class StringRef(ctypes.Structure):
    # A pointer, not c_char_p: MLIR's strings are not NUL-terminated, and
    # reading a c_char_p field runs strlen past their end.
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]

    @classmethod
    def of(cls, text):
        # NUL-terminated all the same: some callees (the ExecutionEngine's
        # shared-library paths) read the data as a C string.
        data = text.encode() if isinstance(text, str) else bytes(text)
        buffer = ctypes.create_string_buffer(data)
        ref = cls(ctypes.cast(buffer, ctypes.c_void_p), len(data))
        ref._keep = buffer
        return ref

    def str(self):
        return ctypes.string_at(self.data, self.length).decode(errors="replace")


class LogicalResult(ctypes.Structure):
    _fields_ = [("value", ctypes.c_int8)]


# Callbacks take the ABI-equivalent scalars of mlir-c's one-field structs
# (ctypes callbacks cannot return structures): MlirDiagnostic is a pointer,
# MlirLogicalResult an int8 (1 = success).
StringCallback = ctypes.CFUNCTYPE(None, StringRef, ctypes.c_void_p)
DiagnosticHandler = ctypes.CFUNCTYPE(ctypes.c_int8, ctypes.c_void_p, ctypes.c_void_p)

_i64, _ip, _b, _vp = ctypes.c_int64, ctypes.c_ssize_t, ctypes.c_bool, ctypes.c_void_p

_SIGNATURES = {
    # Context, registry, dialects, passes.
    "mlirContextCreate": (Context, []),
    "mlirContextDestroy": (None, [Context]),
    "mlirContextAppendDialectRegistry": (None, [Context, DialectRegistry]),
    "mlirContextLoadAllAvailableDialects": (None, [Context]),
    "mlirContextEnableMultithreading": (None, [Context, _b]),
    "mlirDialectRegistryCreate": (DialectRegistry, []),
    "mlirDialectRegistryDestroy": (None, [DialectRegistry]),
    "fp8RegisterAllDialects": (None, [DialectRegistry]),
    "fp8RegisterAllPasses": (None, []),
    # Diagnostics.
    "mlirContextAttachDiagnosticHandler": (ctypes.c_uint64,
                                           [Context, DiagnosticHandler, _vp, _vp]),
    "mlirContextDetachDiagnosticHandler": (None, [Context, ctypes.c_uint64]),
    "mlirDiagnosticGetSeverity": (ctypes.c_int, [Diagnostic]),
    "mlirDiagnosticGetLocation": (Location, [Diagnostic]),
    "mlirDiagnosticPrint": (None, [Diagnostic, StringCallback, _vp]),
    "mlirDiagnosticGetNumNotes": (_ip, [Diagnostic]),
    "mlirDiagnosticGetNote": (Diagnostic, [Diagnostic, _ip]),
    "mlirLocationPrint": (None, [Location, StringCallback, _vp]),
    # Modules and operations.
    "fp8ModuleCreateParse": (Module, [Context, StringRef, StringRef]),
    "fp8AttributeParseGet": (Attribute, [Context, StringRef]),
    "mlirModuleCreateEmpty": (Module, [Location]),
    "mlirModuleDestroy": (None, [Module]),
    "mlirModuleGetOperation": (Operation, [Module]),
    "mlirModuleGetBody": (Block, [Module]),
    "mlirModuleFromOperation": (Module, [Operation]),
    "mlirOperationClone": (Operation, [Operation]),
    "mlirOperationVerify": (_b, [Operation]),
    "mlirOperationPrint": (None, [Operation, StringCallback, _vp]),
    "mlirOperationGetName": (Identifier, [Operation]),
    "mlirOperationGetNextInBlock": (Operation, [Operation]),
    "mlirOperationGetAttributeByName": (Attribute, [Operation, StringRef]),
    "mlirOperationGetLocation": (Location, [Operation]),
    "mlirBlockGetFirstOperation": (Operation, [Block]),
    "mlirIdentifierStr": (StringRef, [Identifier]),
    # Attributes and types.
    "mlirAttributePrint": (None, [Attribute, StringCallback, _vp]),
    "mlirStringAttrGetValue": (StringRef, [Attribute]),
    "mlirTypeAttrGetValue": (Type, [Attribute]),
    "mlirFlatSymbolRefAttrGetValue": (StringRef, [Attribute]),
    "mlirArrayAttrGetElement": (Attribute, [Attribute, _ip]),
    "mlirDictionaryAttrGetElementByName": (Attribute, [Attribute, StringRef]),
    "mlirIntegerAttrGetValueInt": (_i64, [Attribute]),
    "mlirTypePrint": (None, [Type, StringCallback, _vp]),
    "mlirFunctionTypeGetNumInputs": (_ip, [Type]),
    "mlirFunctionTypeGetNumResults": (_ip, [Type]),
    "mlirFunctionTypeGetInput": (Type, [Type, _ip]),
    "mlirFunctionTypeGetResult": (Type, [Type, _ip]),
    "mlirTypeIsARankedTensor": (_b, [Type]),
    "mlirShapedTypeGetRank": (_i64, [Type]),
    "mlirShapedTypeGetDimSize": (_i64, [Type, _ip]),
    "mlirShapedTypeGetElementType": (Type, [Type]),
    # The fp8 dialect's attributes.
    "fp8GranularityAttrGet": (Attribute, [Context, _ip, ctypes.POINTER(_i64)]),
    "fp8AttributeIsAGranularity": (_b, [Attribute]),
    "fp8GranularityAttrGetNumDims": (_ip, [Attribute]),
    "fp8GranularityAttrGetDim": (_i64, [Attribute, _ip]),
    "fp8FormatAttrGet": (Attribute, [Context, ctypes.c_int]),
    "fp8ScaleRuleAttrGet": (Attribute, [Context, ctypes.c_int, ctypes.c_int32, ctypes.c_float]),
    "fp8RecipeAttrGet": (Attribute, [Context, ctypes.c_int]),
    "fp8RecipeAttrGetWithKnobs": (Attribute, [Context, ctypes.c_int, ctypes.c_int32, _i64,
                                              ctypes.c_int, ctypes.c_int, _i64]),
    # Running.
    "fp8RunPassPipeline": (LogicalResult, [Module, StringRef, DiagnosticHandler, _vp]),
    "fp8CompileForChip": (LogicalResult, [Module, StringRef, StringRef, StringRef,
                                          DiagnosticHandler, _vp]),
    "fp8CompileForChipWithOptions": (LogicalResult, [Module, StringRef, StringRef, StringRef,
                                                     StringRef, DiagnosticHandler, _vp]),
    "fp8GetMLIRLibraryDir": (StringRef, []),
    "mlirExecutionEngineCreate": (ExecutionEngine, [Module, ctypes.c_int, ctypes.c_int,
                                                    ctypes.POINTER(StringRef), _b, _b]),
    "mlirExecutionEngineInitialize": (None, [ExecutionEngine]),
    "mlirExecutionEngineDestroy": (None, [ExecutionEngine]),
    "mlirExecutionEngineLookupPacked": (_vp, [ExecutionEngine, StringRef]),
}


def _candidates():
    env = os.environ.get("FP8_MLIR_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    # <prefix>/lib/pythonX.Y/dist-packages/fp8_mlir -> <prefix>/lib
    parent = here
    for _ in range(4):
        parent = os.path.dirname(parent)
        yield os.path.join(parent, "lib", LIBRARY_NAME)
    # <checkout>/python/fp8_mlir -> <checkout>/build/lib
    yield os.path.join(os.path.dirname(os.path.dirname(here)), "build", "lib", LIBRARY_NAME)
    # CMake's default prefix, for a package installed with pip elsewhere.
    yield os.path.join("/usr/local/lib", LIBRARY_NAME)
    yield LIBRARY_NAME


_lib = None


def lib():
    """The loaded library, its functions declared; loaded on first use."""
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            loaded = ctypes.CDLL(path)
            break
        except OSError as e:
            tried.append(f"{path} ({e})")
    else:
        raise FP8MLIRLibraryError(
            f"cannot find {LIBRARY_NAME} (set FP8_MLIR_LIBRARY to its path); tried: "
            + ", ".join(tried))
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(loaded, name)
        fn.restype = restype
        fn.argtypes = argtypes
    loaded.path = path
    _lib = loaded
    return _lib


def _destroy(destroy, handle, *owners):
    destroy(handle)


def own(obj, destroy, handle, *owners):
    """Destroys `handle` with `destroy` when `obj` is collected or at exit.
    `owners` (the context of a module, the module of an engine) stay alive
    until then: finalizers of garbage cycles and of interpreter exit run in
    no order that would otherwise destroy a context before its modules."""
    return weakref.finalize(obj, _destroy, destroy, handle, *owners)


def printed(print_fn, handle):
    """What an mlir*Print function writes for `handle`, as a str."""
    chunks = []
    callback = StringCallback(lambda ref, _: chunks.append(ctypes.string_at(ref.data,
                                                                             ref.length)))
    print_fn(handle, callback, None)
    return b"".join(chunks).decode(errors="replace")
