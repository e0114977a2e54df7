#!/usr/bin/env python3
"""linalg contraction forms at every precision, run on the CPU.

  contraction_case.py emit  FORM             one form at every precision
  contraction_case.py check FORM OUTPUT
  contraction_case.py emit  --autocast       AUTOCAST_CASES: every form
  contraction_case.py check --recipe=R OUTPUT

FORM names an op and its operand layouts (FORMS below). `emit` writes one
function per case (a form at a precision: operand types and the accumulator
type, PRECISIONS) and a @main that calls each on seeded random operands and a
random initial accumulator on small ragged shapes, printing the bits of every
result.

`check` compares each printed result with numpy, twice:
  * with a float64 evaluation of the same contraction (operands converted to
    the accumulator type first, as linalg defines it), within the bound of
    recursive summation in the accumulator type (`bound`);
  * bit for bit with the CPU pipeline's documented order (docs/numerics.md):
    every product and every partial sum rounded to the accumulator type, the
    reduction indices taken in the order of the op's loops, outermost first.

With --recipe (the program went through fp8-autocast=R first), the cases that
autocast converts (AUTOCAST_CONVERTS: the form, with f32, bf16 or f16
operands) must instead match the recipe's numpy oracle bit for bit, and every
other case must be untouched: the checks above.
"""

import sys
import zlib
from collections import namedtuple

import numpy as np

from fp8_mlir import numerics as n
from fp8_mlir import recipes
from fp8_mlir.recipes import Program, dense, tensor_type

# An op with its iteration dimensions (one letter each, in the op's loop
# order) and the dimensions indexing A, B and C. `maps`: the op is written
# with explicit indexing_maps (a transposed operand, linalg.contract,
# linalg.generic); otherwise the named op's own maps are these.
Form = namedtuple("Form", "op loops a b c maps")

FORMS = {
    "matmul": Form("linalg.matmul", "mnk", "mk", "kn", "mn", False),
    "matmul-transpose-a": Form("linalg.matmul", "mnk", "km", "kn", "mn", True),
    "matmul-transpose-b": Form("linalg.matmul", "mnk", "mk", "nk", "mn", True),
    "batch-matmul": Form("linalg.batch_matmul", "bmnk", "bmk", "bkn", "bmn", False),
    "batch-matmul-transpose-a": Form("linalg.batch_matmul", "bmnk", "bkm", "bkn", "bmn", True),
    "batch-matmul-transpose-b": Form("linalg.batch_matmul", "bmnk", "bmk", "bnk", "bmn", True),
    "batch-reduce-matmul": Form("linalg.batch_reduce_matmul", "bmnk", "bmk", "bkn", "mn", False),
    "contract-batch-matmul": Form("linalg.contract", "bmnk", "bmk", "bnk", "bmn", True),
    # A batch dimension in the middle of A and of C, B transposed.
    "contract": Form("linalg.contract", "bmnk", "kbm", "bnk", "mbn", True),
    # Two reduction dimensions, the outer one last in A.
    "contract-two-reductions": Form("linalg.contract", "lmnk", "mkl", "lkn", "nm", True),
    "generic-matmul": Form("linalg.generic", "mnk", "km", "nk", "mn", True),
    # Two batch and two reduction dimensions, interleaved with M and N.
    "generic": Form("linalg.generic", "lpmkqn", "qkmpl", "lqnkp", "pnqm", True),
    "dot": Form("linalg.dot", "k", "k", "k", "", False),
    "vecmat": Form("linalg.vecmat", "nk", "k", "kn", "n", False),
    "matvec": Form("linalg.matvec", "mk", "mk", "k", "m", False),
    "batch-matvec": Form("linalg.batch_matvec", "bmk", "bmk", "bk", "bm", False),
    "batch-vecmat": Form("linalg.batch_vecmat", "bnk", "bk", "bkn", "bn", False),
    # Tiled layouts: (M1, N1, K1) outer tiles of (m, n, k) inner tiles.
    "mmt4d": Form("linalg.mmt4d", "MNKmnk", "MKmk", "NKnk", "MNmn", False),
}

# Small extents; M, N and K odd and distinct, so that no layout mistake hides
# behind a square shape.
SIZES = {"b": 3, "m": 5, "n": 3, "k": 7, "l": 3, "p": 2, "q": 3,
         "M": 2, "N": 3, "K": 2}

# (A, B, accumulator). Mixed operands are extended to the accumulator; an
# accumulator narrower than an operand rounds the operand first.
PRECISIONS = [
    ("f32", "f32", "f32"),
    ("bf16", "bf16", "f32"),
    ("f16", "f16", "f32"),
    ("bf16", "bf16", "bf16"),
    ("f16", "f16", "f16"),
    ("bf16", "f16", "f32"),
    ("f32", "bf16", "f32"),
    ("f32", "f32", "bf16"),
    ("f8E4M3FN", "f8E4M3FN", "f32"),
    ("f8E5M2", "f8E4M3FN", "f32"),
    ("f8E4M3FN", "f8E4M3FN", "bf16"),
]

# The forms fp8-autocast converts (under every recipe; the batched ones with
# fp8-attention=true), with the transpositions of fp8.scaled_matmul that
# express them: C [batch?, M, N] from A [batch?, M, K] or [batch?, K, M] and
# B [batch?, K, N] or [batch?, N, K].
AUTOCAST_CONVERTS = {
    "matmul": (False, False),
    "matmul-transpose-a": (True, False),
    "matmul-transpose-b": (False, True),
    "batch-matmul": (False, False),
    "batch-matmul-transpose-a": (True, False),
    "batch-matmul-transpose-b": (False, True),
    "contract-batch-matmul": (False, True),
    "generic-matmul": (True, True),
}

# The cases of the autocast program: each form autocast converts with the
# operands it quantizes (f32, bf16, f16; results in f32, bf16, f16) and with
# FP8 operands, which it leaves alone; every other form with bf16 operands.
AUTOCAST_CASES = ([(form, index) for form in AUTOCAST_CONVERTS for index in (0, 1, 3, 4, 8)]
                  + [(form, 1) for form in FORMS if form not in AUTOCAST_CONVERTS])

# Precision p (significand bits) and the smallest subnormal of each
# accumulator type.
PRECISION_BITS = {"f32": (24, 2.0 ** -149), "bf16": (8, 2.0 ** -133), "f16": (11, 2.0 ** -24)}

# Operand types fp8-autocast quantizes.
WIDE = ("f32", "bf16", "f16")

WIDTH = {"f32": 32, "bf16": 16, "f16": 16, "f8E4M3FN": 8, "f8E5M2": 8}


def shape(dims):
    return [SIZES[d] for d in dims]


def round_to(x, element):
    """float32 values rounded (RNE) to `element`, as float32."""
    x = np.asarray(x, np.float32)
    if element in ("f32", "bf16", "f16"):
        return n.round_to(x.reshape(-1), element).reshape(x.shape)
    codes = [n.encode(v, element, "nonfinite") for v in x.reshape(-1)]
    return np.array([float(n.decode(c, element)) for c in codes], np.float32).reshape(x.shape)


def operands(form_name, index):
    """A, B and the initial accumulator of one precision, as float32 values
    exact in their types."""
    ta, tb, tc = PRECISIONS[index]
    form = FORMS[form_name]
    rng = np.random.default_rng(zlib.crc32(f"{form_name} {index}".encode()))

    def draw(dims, element):
        # Magnitudes over a few binades; FP8 operands stay well inside
        # their range.
        x = rng.standard_normal(shape(dims)) * np.exp2(rng.uniform(-3, 3, shape(dims)))
        return round_to(x.astype(np.float32), element)

    return draw(form.a, ta), draw(form.b, tb), draw(form.c, tc)


def affine_map(form, dims):
    names = ", ".join(f"d{i}" for i in range(len(form.loops)))
    results = ", ".join(f"d{form.loops.index(d)}" for d in dims)
    return f"affine_map<({names}) -> ({results})>"


def convert(value, source, target, lines, name):
    """`value` of type `source` converted to `target` in a linalg body."""
    if source == target:
        return value
    op = "arith.extf" if WIDTH[source] < WIDTH[target] else "arith.truncf"
    lines.append(f"    %{name} = {op} {value} : {source} to {target}")
    return f"%{name}"


def function_name(form_name, index):
    return f"{form_name.replace('-', '_')}_{index}"


def emit_function(form_name, index):
    form = FORMS[form_name]
    ta, tb, tc = PRECISIONS[index]
    type_a = tensor_type(shape(form.a), ta)
    type_b = tensor_type(shape(form.b), tb)
    type_c = tensor_type(shape(form.c), tc)
    lines = [f"func.func @{function_name(form_name, index)}(%a: {type_a}, %b: {type_b}, "
             f"%c: {type_c}) -> {type_c} {{"]
    operands = f"ins(%a, %b : {type_a}, {type_b}) outs(%c : {type_c})"
    maps = ", ".join(affine_map(form, dims) for dims in (form.a, form.b, form.c))
    if form.op == "linalg.generic":
        iterators = ", ".join('"reduction"' if d not in form.c else '"parallel"'
                              for d in form.loops)
        lines.append(f"  %r = linalg.generic {{indexing_maps = [{maps}], "
                     f"iterator_types = [{iterators}]}} {operands} {{")
        lines.append(f"  ^bb0(%x: {ta}, %y: {tb}, %acc: {tc}):")
        x = convert("%x", ta, tc, lines, "xc")
        y = convert("%y", tb, tc, lines, "yc")
        lines.append(f"    %p = arith.mulf {x}, {y} : {tc}")
        lines.append(f"    %s = arith.addf %acc, %p : {tc}")
        lines.append(f"    linalg.yield %s : {tc}")
        lines.append(f"  }} -> {type_c}")
    else:
        attrs = f" indexing_maps = [{maps}]" if form.maps else ""
        lines.append(f"  %r = {form.op}{attrs} {operands} -> {type_c}")
    lines.append(f"  return %r : {type_c}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def emit(cases, comment):
    """The functions of `cases` ((form, precision index) pairs) and a @main
    printing each result, widened to f32."""
    functions = []
    program = Program()
    for form_name, index in cases:
        form = FORMS[form_name]
        ta, tb, tc = PRECISIONS[index]
        name = function_name(form_name, index)
        functions.append(emit_function(form_name, index))
        values = {}
        for operand, dims, element, value in zip(
                "abc", (form.a, form.b, form.c), (ta, tb, tc), operands(form_name, index)):
            wide = tensor_type(shape(dims), "f32")
            values[operand] = f"%{operand}_{name}"
            program.op(f"{values[operand]} = arith.constant {dense(value)} : {wide}")
            if element != "f32":
                program.op(f"%{operand}_{name}_t = arith.truncf {values[operand]} : {wide} to "
                           f"{tensor_type(shape(dims), element)}")
                values[operand] = f"%{operand}_{name}_t"
        type_c = tensor_type(shape(form.c), tc)
        result = f"%r_{name}"
        program.op(f"{result} = call @{name}({values['a']}, {values['b']}, {values['c']}) : "
                   f"({tensor_type(shape(form.a), ta)}, {tensor_type(shape(form.b), tb)}, "
                   f"{type_c}) -> {type_c}")
        if tc != "f32":
            program.op(f"{result}_f32 = arith.extf {result} : {type_c} to "
                       f"{tensor_type(shape(form.c), 'f32')}")
            result += "_f32"
        program.print_bits(result, shape(form.c), "f32")
    return "".join(functions) + program.text(comment)


def to_loop_space(form, value, dims):
    """`value` indexed by `dims`, with its axes in loop order and a unit axis
    for every loop it does not use."""
    order = [d for d in form.loops if d in dims]
    value = np.transpose(value, [dims.index(d) for d in order]) if dims else value
    return value.reshape([SIZES[d] if d in dims else 1 for d in form.loops])


def float64_reference(form, a, b, c):
    """The exact contraction (float64 is exact for these operands) and the
    sum of magnitudes of its terms."""
    spec = f"{form.a},{form.b}->{form.c}"
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    return (np.einsum(spec, a, b) + c,
            np.einsum(spec, np.abs(a), np.abs(b)) + np.abs(c))


def bound(form, magnitudes, accumulator):
    """Recursive summation of R rounded products into a rounded accumulator
    (Higham, Accuracy and Stability of Numerical Algorithms, section 3.1):
    |computed - exact| <= gamma(R + 1) * (|c| + sum |a b|) + R * eta, with
    gamma(n) = n u / (1 - n u), u = 2^-p the unit roundoff and eta half the
    smallest subnormal (the absolute error of a product that underflows;
    sums of subnormals are exact)."""
    p, tiny = PRECISION_BITS[accumulator]
    r = int(np.prod([SIZES[d] for d in form.loops if d not in form.c]))
    u = 2.0 ** -p
    gamma = (r + 1) * u / (1 - (r + 1) * u)
    return gamma * magnitudes + r * tiny / 2 * (1 + gamma)


def sequential(form, a, b, c, accumulator):
    """The result in the CPU pipeline's order: for each output element,
    c += a * b over the reduction indices in loop order (the outer loop
    first), every product and sum rounded to the accumulator type. Products
    and sums are computed in float32 and rounded again: exact for f32, and
    for bf16 and f16 the same as one rounding (float32 has more than twice
    their precision plus two bits)."""
    products = round_to(to_loop_space(form, a, form.a) * to_loop_space(form, b, form.b),
                        accumulator)
    products = np.broadcast_to(products, shape(form.loops))
    reductions = [i for i, d in enumerate(form.loops) if d not in form.c]
    parallel = [d for d in form.loops if d in form.c]
    products = np.moveaxis(products, reductions, range(len(reductions)))
    products = products.reshape([-1] + shape(parallel))
    acc = np.transpose(c, [form.c.index(d) for d in parallel]) if form.c else c
    acc = np.asarray(acc, np.float32)
    for term in products:
        acc = round_to(acc + term, accumulator)
    return np.transpose(acc, [parallel.index(d) for d in form.c]) if form.c else acc


def check_case(form_name, index, got, recipe):
    """None if `got` (float32) is right for the case, else why not."""
    form = FORMS[form_name]
    ta, tb, tc = PRECISIONS[index]
    a, b, c = operands(form_name, index)
    if recipe and form_name in AUTOCAST_CONVERTS and ta in WIDE and tb in WIDE:
        transpose_a, transpose_b = AUTOCAST_CONVERTS[form_name]
        want = recipes.oracle_matmul(recipe, a, b, tc, transpose_b, init=c,
                                     transpose_a=transpose_a)
        differ = int(np.sum(got.view(np.uint32).reshape(-1) != want.astype(np.uint32)))
        if differ:
            return f"{differ} of {got.size} values differ from the {recipe} oracle"
        return None
    # Operands are converted to the accumulator type before the multiply.
    a, b = round_to(a, tc), round_to(b, tc)
    exact, magnitudes = float64_reference(form, a, b, c)
    error = np.abs(got.astype(np.float64) - exact)
    limit = bound(form, magnitudes, tc)
    if not np.all(error <= limit):
        worst = np.unravel_index(np.argmax(error - limit), error.shape)
        return (f"|got - float64| = {error[worst]:.3g} > {limit[worst]:.3g} "
                f"at {list(worst)}")
    want = sequential(form, a, b, c, tc)
    if not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
        differ = int(np.sum(got.view(np.uint32) != want.view(np.uint32)))
        return f"{differ} of {got.size} values differ from the loop-order sum"
    return None


def check(cases, output, recipe=None):
    printed = recipes.parse_runner_output(open(output).read())
    if len(printed) != len(cases):
        print(f"FAIL: {len(printed)} results printed, {len(cases)} expected")
        return 1
    failures = 0
    for (form_name, index), bits in zip(cases, printed):
        got = recipes.as_f32(bits).reshape(shape(FORMS[form_name].c))
        name = f"{form_name} {' x '.join(PRECISIONS[index][:2])} -> {PRECISIONS[index][2]}"
        why = check_case(form_name, index, got, recipe)
        if why:
            print(f"FAIL: {name}: {why}")
            failures += 1
    if failures:
        return 1
    what = f"under {recipe}" if recipe else "within the bound and in loop order"
    print(f"{len(cases)} cases match {what}")
    return 0


def main(argv):
    mode, args = argv[1], argv[2:]
    recipe = args.pop(0).split("=", 1)[1] if args[0].startswith("--recipe=") else None
    if recipe or args[0] == "--autocast":
        if not recipe:
            args.pop(0)
        cases = AUTOCAST_CASES
        comment = "every contraction form, for fp8-autocast"
    else:
        form = args.pop(0)
        cases = [(form, index) for index in range(len(PRECISIONS))]
        comment = f"{FORMS[form].op} ({form}) at every precision"
    if mode == "emit":
        sys.stdout.write(emit(cases, comment))
        return 0
    return check(cases, args[0], recipe)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
