"""fp8-mlir's compiler from Python, over the C API (libFP8MLIR-C.so).

    from fp8_mlir import compiler

    module = compiler.parse(open("mlp.mlir").read(), "mlp.mlir")
    remarks = module.run("fp8-autocast{recipe=mxfp8}")
    module.compile("sm_100a", "artifacts/")          # PTX, cubin, manifests

    cpu = compiler.parse(text).run("fp8-autocast{recipe=mxfp8}")
    program = compiler.jit(cpu)                    # fp8-cpu-pipeline, then JIT
    y, = program.call("mlp", x, w1, w2)            # numpy in, numpy out

Errors raise CompilerError, whose message lists each diagnostic as
`file:line:col: error: message` (notes below it); warnings and remarks of a
successful run come back as a list of Diagnostic.
"""

import json
import re
from dataclasses import dataclass, field
from typing import List, Optional

from . import _capi
from ._capi import StringRef

SEVERITIES = ("error", "warning", "note", "remark")


@dataclass
class Diagnostic:
    """One diagnostic: severity, where (file, line, column when the location
    has them), the message and attached notes."""

    severity: str
    message: str
    location: str
    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    notes: List["Diagnostic"] = field(default_factory=list)

    def __str__(self):
        """`file:line:col: severity: message`, then the notes indented;
        without the notes that print the failing operation (its whole
        generic form, kept in `notes`)."""
        if self.file is not None:
            text = f"{self.file}:{self.line}:{self.column}: "
        elif self.location != "loc(unknown)":
            text = f"{self.location}: "
        else:
            text = ""
        text += f"{self.severity}: {self.message}"
        notes = [n for n in self.notes if not n.message.startswith("see current operation")]
        return "\n".join([text] + ["  " + str(n).replace("\n", "\n  ") for n in notes])


class CompilerError(Exception):
    """A parse, pipeline or compilation failure with its diagnostics."""

    def __init__(self, what, diagnostics):
        self.diagnostics = list(diagnostics)
        lines = [str(d) for d in self.diagnostics] or [f"{what} failed"]
        super().__init__("\n".join(lines))

    @property
    def errors(self):
        return [d for d in self.diagnostics if d.severity == "error"]


# A location as MLIR prints it: the first "file":line:col inside is where.
_FILE_LINE_COL = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')


def _diagnostic(lib, handle):
    diag = _capi.Diagnostic(handle)
    location = _capi.printed(lib.mlirLocationPrint, lib.mlirDiagnosticGetLocation(diag))
    match = _FILE_LINE_COL.search(location)
    notes = [_diagnostic(lib, lib.mlirDiagnosticGetNote(diag, i).ptr)
             for i in range(lib.mlirDiagnosticGetNumNotes(diag))]
    return Diagnostic(
        severity=SEVERITIES[lib.mlirDiagnosticGetSeverity(diag)],
        message=_capi.printed(lib.mlirDiagnosticPrint, diag),
        location=location,
        file=match.group(1) if match else None,
        line=int(match.group(2)) if match else None,
        column=int(match.group(3)) if match else None,
        notes=notes)


class _Collector:
    """A C diagnostic handler that keeps every diagnostic it is given."""

    def __init__(self, lib):
        self.diagnostics = []

        def handle(diag, _):
            self.diagnostics.append(_diagnostic(lib, diag))
            return 1  # consumed

        self.callback = _capi.DiagnosticHandler(handle)


class Context:
    """An MLIR context with the fp8 dialect, every upstream dialect and
    extension, and every pass registered (what fp8-opt offers)."""

    def __init__(self, multithreading=True):
        self._lib = lib = _capi.lib()
        self._handle = lib.mlirContextCreate()
        registry = lib.mlirDialectRegistryCreate()
        lib.fp8RegisterAllDialects(registry)
        lib.mlirContextAppendDialectRegistry(self._handle, registry)
        lib.mlirDialectRegistryDestroy(registry)
        lib.mlirContextLoadAllAvailableDialects(self._handle)
        lib.mlirContextEnableMultithreading(self._handle, multithreading)
        lib.fp8RegisterAllPasses()
        _capi.own(self, lib.mlirContextDestroy, self._handle)

    def _collect(self, what, action):
        """Runs action() with diagnostics collected; raises CompilerError if
        it returns a failure (False or a null handle)."""
        collector = _Collector(self._lib)
        ident = self._lib.mlirContextAttachDiagnosticHandler(self._handle, collector.callback,
                                                             None, None)
        try:
            result = action()
        finally:
            self._lib.mlirContextDetachDiagnosticHandler(self._handle, ident)
        if not result:
            raise CompilerError(what, collector.diagnostics)
        return result, collector.diagnostics

    def parse(self, source, filename="<string>"):
        """A Module parsed from MLIR text; locations name `filename`."""
        lib = self._lib

        def action():
            handle = lib.fp8ModuleCreateParse(self._handle, StringRef.of(source),
                                              StringRef.of(filename))
            return handle if handle.ptr else None

        handle, _ = self._collect(f"parsing {filename}", action)
        return Module(self, handle)

    def attribute(self, text):
        """An attribute parsed from text, printed back (checks its syntax)."""
        lib = self._lib

        def action():
            attr = lib.fp8AttributeParseGet(self._handle, StringRef.of(text))
            return attr if attr.ptr else None

        attr, _ = self._collect(f"parsing attribute {text}", action)
        return _capi.printed(lib.mlirAttributePrint, attr)


_default_context = None


def default_context():
    """The context parse() uses when given none."""
    global _default_context
    if _default_context is None:
        _default_context = Context()
    return _default_context


def parse(source, filename="<string>", context=None):
    """A Module parsed from MLIR text (in `context`, default_context() if
    None); CompilerError with file:line:col on a syntax or verifier error."""
    return (context or default_context()).parse(source, filename)


def parse_file(path, context=None):
    with open(path) as f:
        return parse(f.read(), path, context)


@dataclass
class TensorType:
    """A ranked tensor type of a function signature."""

    shape: tuple
    element: str  # as MLIR prints it: f32, bf16, f8E4M3FN, i1, ...

    def __str__(self):
        return "tensor<" + "".join(f"{d}x" for d in self.shape) + self.element + ">"


@dataclass
class Signature:
    """A function's name, argument and result types; for a function that
    fp8-prepare-weights split, `prepare` names its prepare function and
    `prepared` gives, for each argument, the number of the prepare
    function's result it takes (None for the function's own arguments)."""
    name: str
    inputs: list
    results: list
    prepare: str = None
    prepared: list = None


class Module:
    """A builtin.module owned by Python, in a Context."""

    def __init__(self, context, handle):
        self.context = context
        self._lib = context._lib
        self._handle = handle
        _capi.own(self, self._lib.mlirModuleDestroy, handle, context)

    @property
    def operation(self):
        return self._lib.mlirModuleGetOperation(self._handle)

    def __str__(self):
        return _capi.printed(self._lib.mlirOperationPrint, self.operation)

    def clone(self):
        lib = self._lib
        return Module(self.context, lib.mlirModuleFromOperation(
            lib.mlirOperationClone(self.operation)))

    def run(self, pipeline):
        """Runs a textual pass pipeline ("fp8-autocast{recipe=mxfp8}" or
        "builtin.module(...)") in place. Returns self; the warnings and
        remarks of the run are in self.diagnostics. Raises CompilerError."""
        lib = self._lib
        _, self.diagnostics = self.context._collect(
            f"pass pipeline '{pipeline}'",
            lambda: self._run(lambda cb: lib.fp8RunPassPipeline(
                self._handle, StringRef.of(pipeline), cb, None)))
        return self

    def compile(self, chip, artifacts, ptxas="auto", options=""):
        """Compiles for `chip` (sm_90a, sm_100a) with fp8-gpu-pipeline in
        place and writes the kernels' PTX (cubin when ptxas is found; "none"
        for PTX only) and one JSON launch manifest per function into the
        directory `artifacts`. `options` are more of fp8-gpu-pipeline's
        options, as text ("prepare-weights=1"). Returns the manifests' paths
        by function (with prepare-weights=1, the prepare functions' too)."""
        import os

        lib = self._lib
        names = [s.name for s in self.signatures()]
        _, self.diagnostics = self.context._collect(
            f"compiling for {chip}",
            lambda: self._run(lambda cb: lib.fp8CompileForChipWithOptions(
                self._handle, StringRef.of(chip), StringRef.of(os.fspath(artifacts)),
                StringRef.of(ptxas), StringRef.of(options), cb, None)))
        manifests = {name: os.path.join(artifacts, name + ".json") for name in names
                     if os.path.exists(os.path.join(artifacts, name + ".json"))}
        # The prepare functions that fp8-prepare-weights added, as the
        # manifests of the functions taking their results name them.
        for path in list(manifests.values()):
            with open(path) as f:
                prepare = json.load(f).get("prepare")
            if prepare and prepare not in manifests:
                manifests[prepare] = os.path.join(artifacts, prepare + ".json")
        return manifests

    def _run(self, call):
        # The context's handler (attached by _collect) sees every diagnostic:
        # pass no handler of our own to the C call.
        return call(_capi.DiagnosticHandler()).value == 1

    def functions(self):
        """The func.func operations of the module, in order."""
        lib = self._lib
        op = lib.mlirBlockGetFirstOperation(lib.mlirModuleGetBody(self._handle))
        while op.ptr:
            if lib.mlirIdentifierStr(lib.mlirOperationGetName(op)).str() == "func.func":
                yield op
            op = lib.mlirOperationGetNextInBlock(op)

    def signatures(self):
        """The name, argument and result types of every function that has a
        body, tensors as TensorType, other types as printed."""
        lib = self._lib
        result = []
        for op in self.functions():
            name = lib.mlirStringAttrGetValue(
                lib.mlirOperationGetAttributeByName(op, StringRef.of("sym_name"))).str()
            fn = lib.mlirTypeAttrGetValue(
                lib.mlirOperationGetAttributeByName(op, StringRef.of("function_type")))
            visibility = lib.mlirOperationGetAttributeByName(op, StringRef.of("sym_visibility"))
            if visibility.ptr and lib.mlirStringAttrGetValue(visibility).str() == "private":
                continue
            inputs = [self._type(lib.mlirFunctionTypeGetInput(fn, i))
                      for i in range(lib.mlirFunctionTypeGetNumInputs(fn))]
            results = [self._type(lib.mlirFunctionTypeGetResult(fn, i))
                       for i in range(lib.mlirFunctionTypeGetNumResults(fn))]
            signature = Signature(name, inputs, results)
            prepare = lib.mlirOperationGetAttributeByName(op, StringRef.of("fp8.prepare"))
            if prepare.ptr:
                signature.prepare = lib.mlirFlatSymbolRefAttrGetValue(prepare).str()
                signature.prepared = [self._prepared(op, i) for i in range(len(inputs))]
            result.append(signature)
        return result

    def _prepared(self, op, index):
        """The `fp8.prepared` of argument `index` of the function `op`."""
        lib = self._lib
        attrs = lib.mlirOperationGetAttributeByName(op, StringRef.of("arg_attrs"))
        if not attrs.ptr:
            return None
        number = lib.mlirDictionaryAttrGetElementByName(
            lib.mlirArrayAttrGetElement(attrs, index), StringRef.of("fp8.prepared"))
        return lib.mlirIntegerAttrGetValueInt(number) if number.ptr else None

    def _type(self, t):
        lib = self._lib
        if not lib.mlirTypeIsARankedTensor(t):
            return _capi.printed(lib.mlirTypePrint, t)
        shape = tuple(lib.mlirShapedTypeGetDimSize(t, i)
                      for i in range(lib.mlirShapedTypeGetRank(t)))
        element = _capi.printed(lib.mlirTypePrint, lib.mlirShapedTypeGetElementType(t))
        return TensorType(shape, element)


def jit(module, opt_level=2):
    """A CPU Program of `module` (fp8 or linalg on tensors): a copy goes
    through fp8-cpu-pipeline and MLIR's ExecutionEngine."""
    from .execution import Program

    return Program(module, opt_level)
