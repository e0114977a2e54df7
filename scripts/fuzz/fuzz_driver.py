#!/usr/bin/env python3
"""Mutation fuzzer for fp8-opt (stdlib only).

Takes valid .mlir inputs, mutates them textually (and in generic op form), runs
fp8-opt on every mutant and records every run that is not a clean success or a
clean error:

  * exit status other than 0 or 1 (signals show up as negative statuses),
  * a run that exceeds the timeout,
  * stderr containing "Assertion", "LLVM ERROR", "UNREACHABLE", "Stack dump",
    "runtime error" or "Sanitizer",
  * a crash, fatal error or exhausted memory that fp8-opt contained: exit
    status 1 with "the input triggered an internal error" or "error: out of
    memory" on stderr. The case is run again with --debug-crash, and the stack
    dump of that run gives the finding its signature,
  * exit status 1 without an "error" on stderr (a rejection without a
    diagnostic, recorded as "nodiag").

Phases:

  1. systematic: every fp8 op of every seed, in generic form, with each operand
     dropped, an extra operand, swapped operands, too few / too many results,
     each property dropped or replaced by garbage, no properties at all,
     properties moved into the attribute dictionary and broken
     operandSegmentSizes / resultSegmentSizes;
  2. random: stacked random textual mutations of the custom form and of the
     generic form (token delete / duplicate / swap, numbers to 0, -1 or huge
     values, element types, shapes, attribute keywords, truncation, ...);
  3. passes: every mutant that fp8-opt accepts is also run through
     --canonicalize and --fp8-fuse-dynamic-quantize, by default also
     --fp8-expand-float-casts and --convert-fp8-to-linalg (--passes), and
     its output is parsed again; a round trip that fails is recorded as
     "roundtrip", a pass that turns valid input into an error as "passfail".
     --valid-frac sets the share of random cases built from mutations that
     tend to keep the input valid, so that they reach the passes;
  4. optional (--bytecode-cases N): byte-level mutations of the bytecode of
     the valid seeds.

fp8-opt runs one case at a time (no parallelism), with --timeout seconds
(default 5) and an address-space limit of --mem-gib GiB (default 4), so an
unbounded allocation shows up as "error: out of memory" instead of
swapping the machine. If fp8-opt is missing (being relinked) the driver waits.

Usage:
  scripts/fuzz/fuzz_driver.py [--fp8-opt PATH] [--cases N] [--seed S] [--out DIR] SEED.mlir...
  scripts/fuzz/fuzz_driver.py --minimize CRASH.mlir [--flags "--canonicalize"] [--out DIR]

Without SEED arguments the seeds are the .mlir files under
test/Dialect/FP8/{IR,Transforms}, test/Conversion and
test/tools/fp8-opt/bad-input.

Files containing `// -----` are split into chunks; each chunk is one seed.
RUN/CHECK/expected-* comment lines are stripped. Findings are written to
OUT/findings/<kind>-<hash>.mlir with a matching .txt (command, status, stderr);
a summary is printed at the end and written to OUT/summary.json.

Exit status: 0 when no run crashed, hung or failed without a diagnostic, 1
otherwise (round-trip and pass failures are reported but do not count), 2 on
usage errors. A fixed --seed and --cases make a run reproducible, which is how
the lit suite runs it (test/tools/fp8-opt/fuzz.test).
"""

import argparse
import hashlib
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import time

# fp8-opt's diagnostics for a crash, fatal error or exhausted memory that it
# contained (it exits with 1, without a stack dump, unless --debug-crash).
CONTAINED_PATTERNS = ("the input triggered an internal error",
                      ": error: out of memory")
CRASH_PATTERNS = ("Assertion", "LLVM ERROR", "UNREACHABLE", "Stack dump",
                  "runtime error", "Sanitizer") + CONTAINED_PATTERNS

FP8_OPS = ["amax", "compute_scale", "quantize", "dequantize",
           "dynamic_quantize", "convert", "scaled_matmul",
           "update_delayed_scale"]

# Pass pipelines run on every mutant that fp8-opt accepts (--passes).
DEFAULT_PASSES = ("--canonicalize;--fp8-fuse-dynamic-quantize;"
                  "--fp8-fuse-dynamic-quantize --canonicalize;"
                  "--fp8-expand-float-casts;--convert-fp8-to-linalg")

ELEMENT_TYPES = ["f32", "bf16", "f16", "f64", "f8E4M3FN", "f8E5M2",
                 "f8E8M0FNU", "f4E2M1FN", "f6E2M3FN", "f6E3M2FN", "i32", "i1",
                 "index", "tf32", "f8E4M3FNUZ", "complex<f32>", "none"]

WHOLE_TYPES = ["tensor<*xf32>", "tensor<*xf8E4M3FN>", "tensor<f32>",
               "tensor<?x?xf32>", "tensor<0x8xf32>", "tensor<8x0xf8E4M3FN>",
               "tensor<0x0xf32>", "tensor<9223372036854775807x2xf32>",
               "tensor<9223372036854775807x9223372036854775807xf8E4M3FN>",
               "tensor<4611686018427387904x4xf32>",
               "tensor<1x1x1x1x1x1x1x1xf32>", "tensor<1xf32>",
               "memref<4x4xf32>", "vector<4x4xf32>", "f32", "i32", "index",
               "tensor<4x4xf32, #fp8.format<e4m3>>", "tensor<1x1xf8E8M0FNU>",
               "tensor<1x1xi32>", "none", "tuple<>", "!fp8.foo"]

INTERESTING_NUMBERS = ["0", "-1", "1", "2", "-2", "127", "128", "255", "256",
                       "2147483647", "2147483648", "-2147483648",
                       "4294967295", "4294967296", "9223372036854775807",
                       "9223372036854775808", "-9223372036854775808",
                       "18446744073709551616", "99999999999999999999999999",
                       "1.5", "-0.0", "1e309", "1.0e-46", "0x7FC00000",
                       "0x7F800000", "0xFF800000", "0xFFFFFFFFFFFFFFFF",
                       "nan", "inf", "-inf"]

KEYWORDS = [
    # granularity / enum values
    "tensor", "ratio", "pow2", "e8m0_rceil", "e8m0_floor", "nvfp4",
    "pow2_bias", "static", "e4m3", "e5m2", "e2m1", "e2m3", "e3m2", "rne",
    "stochastic", "rceil", "floor", "saturate", "nonfinite", "ignore", "propagate", "max",
    "most_recent", "roll", "skip", "fprop", "dgrad", "wgrad", "tensor_delayed",
    "tensor_current", "rowwise", "deepseek", "mxfp8", "graphcore", "unit",
    # op syntax keywords
    "by", "rule", "for", "nan", "global", "overflow", "rounding", "rbits",
    "colwise", "transposed", "scales", "lhs_global", "rhs_global", "bias",
    "out_scale", "transpose_lhs", "transpose_rhs", "promote_interval", "amax",
    "into", "algo", "margin", "eps", "zero_amax", "history", "promote", "to",
    # attribute parameter / misc names
    "granularity", "format", "nan_policy", "amax_algo", "zero_amax_policy",
    "gemm_role", "recipe", "attributes", "return", "func.func", "bogus", "x",
]

ATTR_MNEMONICS = ["granularity", "rule", "recipe", "format", "rounding",
                  "overflow", "nan_policy", "amax_algo", "zero_amax_policy",
                  "gemm_role", "bogus", "Granularity", ""]

GARBAGE_ATTRS = [
    "unit", "0", "-1", "9223372036854775807", "42 : i32", "42 : i64",
    "\"str\"", "[]", "[1, 2]", "{}", "array<i32>", "array<i32: 1>",
    "array<i32: -1, 2>", "array<i64: 1, 1, 0, 0>", "dense<1> : tensor<4xi32>",
    "1.0 : f32", "#fp8.format<e4m3>", "#fp8.granularity<tensor>",
    "#fp8.granularity<1x128>", "#fp8.granularity<9223372036854775807x1>",
    "#fp8.granularity<1x1x1x1x1x1>", "#fp8.rule<ratio>", "#fp8.rule<static>",
    "#fp8.rule<nvfp4>", "#fp8.recipe<mxfp8>", "#fp8.nan_policy<ignore>",
    "#fp8.overflow<nonfinite>", "#fp8.rounding<stochastic>",
    "#fp8.amax_algo<max>", "#fp8.zero_amax_policy<skip>",
    "#fp8.gemm_role<wgrad>", "@sym", "f32", "affine_map<(d0) -> (d0)>",
    "#fp8.bogus<1>", "#fp8<\"granularity<1>\">", "true", "false",
    "-2147483649 : i32", "2147483648 : i32",
]

PUNCT = ["<", ">", "(", ")", "{", "}", "[", "]", "\"", "#", "%", "x", "*",
         ",", ":", "->", "=", "^", "@", "!", "?", "\\", "\x00", "\xff",
         "#fp8.", "\"fp8.", "// -----"]

SEG_VALUES = ["-1", "0", "1", "2", "3", "5", "2147483647", "-2147483648"]

TOKEN_RE = re.compile(r'''
    (?P<ws>\s+)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<arrow>->)
  | (?P<ssa>%[\w$.\-]+(?:[:#]\d+)?)
  | (?P<sym>@[\w$.\-]+)
  | (?P<blk>\^[\w$.\-]+)
  | (?P<alias>[#!][\w$.\-]*)
  | (?P<num>0x[0-9A-Fa-f]+|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)
  | (?P<id>[A-Za-z_][\w$.]*)
  | (?P<punct>.)
''', re.VERBOSE | re.DOTALL)

TENSOR_RE = re.compile(r'tensor<([^<>]*(?:<[^<>]*>)?[^<>]*)>')
NUM_RE = re.compile(r'(?<![\w%#^@$.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')
DIM_RE = re.compile(r'(?<=[<x])(\d+|\?)(?=x)')
ELT_RE = re.compile(
    r'\b(f32|bf16|f16|f64|f8E4M3FN|f8E5M2|f8E8M0FNU|f4E2M1FN|f6E2M3FN|'
    r'f6E3M2FN|i32|i1|index)\b')
FP8_ATTR_RE = re.compile(r'#fp8\.(\w+)<')
SSA_USE_RE = re.compile(r'%[\w$.\-]+(?:#\d+)?')


# ----------------------------------------------------------------------------
# Running fp8-opt
# ----------------------------------------------------------------------------

class Runner:
    def __init__(self, tool, timeout, mem_gib, workdir):
        self.tool = tool
        self.timeout = timeout
        self.mem = int(mem_gib * (1 << 30))
        self.workdir = workdir
        self.count = 0
        self.env = dict(os.environ)
        sym = shutil.which("llvm-symbolizer") or \
            "/usr/lib/llvm-22/bin/llvm-symbolizer"
        if os.path.exists(sym):
            self.env.setdefault("LLVM_SYMBOLIZER_PATH", sym)

    def _limits(self):
        if self.mem > 0:
            resource.setrlimit(resource.RLIMIT_AS, (self.mem, self.mem))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    def wait_for_tool(self):
        # A concurrent build may be relinking the binary.
        for _ in range(120):
            if os.path.exists(self.tool) and os.access(self.tool, os.X_OK):
                return
            time.sleep(1)
        sys.exit("fp8-opt not found at " + self.tool)

    def run(self, text, flags, stdin_bytes=None, timeout=None):
        """Returns (status, stdout bytes, stderr str, seconds). status is
        'timeout' or the exit code (negative for a signal). When fp8-opt
        contained a crash, stderr goes on with that of a rerun with
        --debug-crash: its stack dump tells one bug from another."""
        status, out, err, seconds = self._run_once(text, flags, stdin_bytes,
                                                   timeout)
        if status == 1 and "--debug-crash" not in flags and \
                any(p in err for p in CONTAINED_PATTERNS):
            _, _, debug_err, _ = self._run_once(
                text, list(flags) + ["--debug-crash"], stdin_bytes, timeout)
            err += "--- rerun with --debug-crash ---\n" + debug_err
        return status, out, err, seconds

    def _run_once(self, text, flags, stdin_bytes=None, timeout=None):
        self.wait_for_tool()
        self.count += 1
        path = os.path.join(self.workdir, "case.mlir")
        if stdin_bytes is None:
            if isinstance(text, bytes):
                with open(path, "wb") as f:
                    f.write(text)
            else:
                with open(path, "w", encoding="utf-8",
                          errors="surrogateescape") as f:
                    f.write(text)
            cmd = [self.tool, path] + list(flags)
        else:
            cmd = [self.tool, "-"] + list(flags)
        start = time.time()
        try:
            p = subprocess.run(cmd, input=stdin_bytes, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=self.env,
                               timeout=timeout or self.timeout,
                               preexec_fn=self._limits)
            status = p.returncode
            out, err = p.stdout, p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            status = "timeout"
            out = e.stdout or b""
            err = (e.stderr or b"").decode("utf-8", "replace")
        except OSError:
            # The binary is being relinked (missing, or text file busy).
            self.count -= 1
            time.sleep(2)
            return self._run_once(text, flags, stdin_bytes, timeout)
        if status == 127 or (isinstance(status, int) and status < 0 and
                             not os.path.exists(self.tool)):
            # The binary vanished under us (rebuild): retry once it is back.
            time.sleep(2)
            return self._run_once(text, flags, stdin_bytes, timeout)
        return status, out, err, time.time() - start


def is_bad(status, err):
    if status == "timeout":
        return True
    if status not in (0, 1):
        return True
    return any(p in err for p in CRASH_PATTERNS)


def lacks_diagnostic(status, err):
    """A rejection must say why: fp8-opt's diagnostics contain "error"."""
    return status == 1 and "error" not in err


FRAME_RE = re.compile(r'^\s*#\d+\s+0x[0-9a-f]+\s+(?:in\s+)?(.*?)(?:\s+/\S+:\d+(?::\d+)?)?$')
SKIP_FRAME = ("llvm::sys::", "SignalHandler", "PrintStackTrace", "libc.so",
              "__restore_rt", "raise", "abort", "__assert", "libpthread",
              "llvm::report_fatal_error", "llvm::llvm_unreachable_internal",
              "(/lib/", "__GI_", "__pthread_kill", "pthread_kill",
              "gsignal", "llvm::report_bad_alloc_error",
              "llvm::safe_malloc", "operator new")


def signature(status, err, flags):
    """A short string that groups runs failing the same way."""
    if status == "timeout":
        return "timeout " + " ".join(flags)
    lines = err.splitlines()
    for pat in ("Assertion", "LLVM ERROR", "UNREACHABLE", "runtime error",
                "Sanitizer"):
        for ln in lines:
            if pat in ln:
                key = re.sub(r'0x[0-9a-f]+|\d+', 'N', ln.strip())[:160]
                return key
    frames = []
    for ln in lines:
        m = FRAME_RE.match(ln)
        if not m:
            continue
        fn = m.group(1)
        if any(s in fn for s in SKIP_FRAME):
            continue
        fn = re.sub(r'\(.*', '', fn)  # drop argument lists
        while True:  # drop template arguments
            shorter = re.sub(r'<[^<>]*>', '', fn)
            if shorter == fn:
                break
            fn = shorter
        fn = re.sub(r'0x[0-9a-f]+', '', fn).strip()
        if not fn:
            continue  # a frame without a symbol
        frames.append(fn)
        if len(frames) == 3:
            break
    if frames:
        return "status %s: %s" % (status, " <- ".join(frames))
    return "status %s" % status


# ----------------------------------------------------------------------------
# Seeds
# ----------------------------------------------------------------------------

def load_seeds(paths):
    seeds = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            print("skipping %s: %s" % (path, e), file=sys.stderr)
            continue
        for chunk in re.split(r'^// -----.*$', text, flags=re.M):
            lines = [ln for ln in chunk.splitlines()
                     if not re.match(r'\s*//\s*(RUN|CHECK|expected-|REQUIRES|UNSUPPORTED|XFAIL)', ln)
                     and not re.match(r'\s*//', ln)]
            body = "\n".join(lines).strip()
            if body:
                seeds.append((path, body + "\n"))
    return seeds


# ----------------------------------------------------------------------------
# Helpers on text
# ----------------------------------------------------------------------------

def tokenize(text):
    return [(m.lastgroup, m.group()) for m in TOKEN_RE.finditer(text)]


def split_top(s, sep=","):
    """Splits s on sep at nesting depth 0 of <>, (), [], {} and quotes."""
    parts, depth, cur, i, inq = [], 0, [], 0, False
    while i < len(s):
        c = s[i]
        if inq:
            cur.append(c)
            if c == "\\" and i + 1 < len(s):
                cur.append(s[i + 1])
                i += 1
            elif c == '"':
                inq = False
        elif c == '"':
            inq = True
            cur.append(c)
        elif c == "-" and s[i:i + 2] == "->":
            cur.append("->")
            i += 1
        elif c in "<([{":
            depth += 1
            cur.append(c)
        elif c in ">)]}":
            depth -= 1
            cur.append(c)
        elif c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def find_matching(s, start, open_c, close_c):
    """Index of the bracket closing the one at s[start]."""
    depth = 0
    i = start
    inq = False
    while i < len(s):
        c = s[i]
        if inq:
            if c == "\\":
                i += 1
            elif c == '"':
                inq = False
        elif c == '"':
            inq = True
        elif c == "-" and s[i:i + 2] == "->":
            i += 2
            continue
        elif c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


class GenericOp:
    """One generic-form fp8 op on one line:
    %r:N = "fp8.x"(%a, %b) <{props}> {attrs} : (T, T) -> (T, T)"""

    HEAD_RE = re.compile(r'^(\s*)(?:(%[\w$.\-]+)(?::(\d+))?\s*=\s*)?"(fp8\.\w+)"\(')

    def __init__(self, line):
        m = self.HEAD_RE.match(line)
        if not m:
            raise ValueError
        self.indent, self.res_name, self.res_count, self.name = m.groups()
        i = m.end() - 1
        j = find_matching(line, i, "(", ")")
        if j < 0:
            raise ValueError
        self.operands = split_top(line[i + 1:j])
        rest = line[j + 1:].lstrip()
        self.props = None
        self.attrs = None
        if rest.startswith("<{"):
            k = find_matching(rest, 1, "{", "}")
            self.props = split_top(rest[2:k])
            rest = rest[k + 2:].lstrip()
        if rest.startswith("{"):
            k = find_matching(rest, 0, "{", "}")
            self.attrs = split_top(rest[1:k])
            rest = rest[k + 1:].lstrip()
        if not rest.startswith(":"):
            raise ValueError
        sig = rest[1:].strip()
        if not sig.startswith("("):
            raise ValueError
        k = find_matching(sig, 0, "(", ")")
        self.in_types = split_top(sig[1:k])
        out = sig[k + 1:].strip()
        if not out.startswith("->"):
            raise ValueError
        out = out[2:].strip()
        if out.startswith("("):
            k = find_matching(out, 0, "(", ")")
            self.out_types = split_top(out[1:k])
        else:
            self.out_types = [out]

    def render(self, res_name=None):
        res = ""
        n = len(self.out_types)
        name = res_name or self.res_name
        if n and name:
            res = "%s%s = " % (name, ":%d" % n if n > 1 else "")
        s = '%s%s"%s"(%s)' % (self.indent, res, self.name,
                              ", ".join(self.operands))
        if self.props is not None:
            s += " <{%s}>" % ", ".join(self.props)
        if self.attrs is not None:
            s += " {%s}" % ", ".join(self.attrs)
        if len(self.out_types) == 1 and not self.out_types[0].startswith("("):
            outs = self.out_types[0]
        else:
            outs = "(%s)" % ", ".join(self.out_types)
        s += " : (%s) -> %s" % (", ".join(self.in_types), outs)
        return s

    def copy(self):
        o = GenericOp.__new__(GenericOp)
        o.__dict__.update({k: (list(v) if isinstance(v, list) else v)
                           for k, v in self.__dict__.items()})
        return o


def generic_ops(text):
    """(line index, GenericOp) for every fp8 op in generic-form text."""
    out = []
    for i, line in enumerate(text.splitlines()):
        if '"fp8.' not in line:
            continue
        try:
            out.append((i, GenericOp(line)))
        except (ValueError, IndexError):
            pass
    return out


def block_values(lines, idx):
    """Values (name, type) visible as block arguments near line idx."""
    for j in range(idx, -1, -1):
        m = re.match(r'\s*\^bb\d+\((.*)\):', lines[j])
        if m:
            vals = []
            for part in split_top(m.group(1)):
                if ":" in part:
                    n, t = part.split(":", 1)
                    vals.append((n.strip(), t.strip()))
            return vals
    return []


_fresh = [0]


def fresh_name():
    _fresh[0] += 1
    return "%%fz%d" % _fresh[0]


def insert_variant(text, idx, op):
    """Inserts op (rendered with a fresh result name) after line idx; the
    original op stays, so that all its users stay valid and the variant
    reaches the verifier whenever it parses."""
    lines = text.splitlines()
    lines.insert(idx + 1, op.render(res_name=fresh_name()))
    return "\n".join(lines) + "\n"


def replace_line(text, idx, new):
    lines = text.splitlines()
    lines[idx] = new
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------
# Systematic variants of one generic op
# ----------------------------------------------------------------------------

def systematic_variants(text, idx, op, rng):
    lines = text.splitlines()
    avail = block_values(lines, idx)
    out = []

    def add(desc, o):
        out.append((desc, insert_variant(text, idx, o)))

    # Operands.
    for i in range(len(op.operands)):
        o = op.copy()
        del o.operands[i]
        del o.in_types[i]
        add("drop operand %d" % i, o)
    o = op.copy()
    o.operands, o.in_types = [], []
    add("no operands", o)
    if op.operands:
        o = op.copy()
        o.operands.append(op.operands[0])
        o.in_types.append(op.in_types[0])
        add("extra operand", o)
        o = op.copy()
        o.operands = o.operands * 3
        o.in_types = o.in_types * 3
        add("tripled operands", o)
        o = op.copy()
        o.operands.reverse()
        o.in_types.reverse()
        add("reversed operands", o)
    for name, ty in avail:
        if op.operands and rng.random() < 0.5:
            o = op.copy()
            k = rng.randrange(len(o.operands))
            o.operands[k], o.in_types[k] = name, ty
            add("operand %d := %s" % (k, ty), o)
    # Results.
    if op.out_types:
        o = op.copy()
        o.out_types = []
        add("no results", o)
        o = op.copy()
        o.out_types = o.out_types[:-1]
        add("one result fewer", o)
    o = op.copy()
    o.out_types = o.out_types + (o.out_types[:1] or ["tensor<1x1xf32>"])
    add("extra result", o)
    o = op.copy()
    o.out_types = o.out_types * 3
    add("tripled results", o)
    for k in range(len(op.out_types)):
        for t in ("tensor<*xf32>", "tensor<f32>", "tensor<0x0xf32>",
                  "tensor<9223372036854775807x2xf32>", "i32"):
            o = op.copy()
            o.out_types[k] = t
            add("result %d := %s" % (k, t), o)
    # Properties.
    if op.props is not None:
        for k in range(len(op.props)):
            o = op.copy()
            del o.props[k]
            add("drop property %s" % op.props[k].split("=")[0].strip(), o)
            for g in rng.sample(GARBAGE_ATTRS, 4):
                o = op.copy()
                key = op.props[k].split("=")[0].strip()
                o.props[k] = "%s = %s" % (key, g)
                add("property %s := %s" % (key, g), o)
        o = op.copy()
        o.props = None
        add("no properties", o)
        o = op.copy()
        o.props = []
        add("empty properties", o)
        o = op.copy()
        o.attrs = (o.attrs or []) + o.props
        o.props = None
        add("properties as attributes", o)
        o = op.copy()
        o.props = o.props + ["bogus = 1"]
        add("unknown property", o)
        o = op.copy()
        o.props = o.props + o.props[:1]
        add("duplicate property", o)
        o = op.copy()
        o.attrs = (o.attrs or []) + [p for p in o.props]
        add("properties also as attributes", o)
    # Segment sizes.
    for k, p in enumerate(op.props or []):
        key = p.split("=")[0].strip()
        if key not in ("operandSegmentSizes", "resultSegmentSizes"):
            continue
        n = len(re.findall(r'-?\d+', p.split(":", 1)[1])) if ":" in p else 0
        tries = [
            "array<i32>",
            "array<i32: %s>" % ", ".join(["1"] * max(n - 1, 1)),
            "array<i32: %s>" % ", ".join(["1"] * (n + 1)),
            "array<i32: %s>" % ", ".join(["0"] * n),
            "array<i32: %s>" % ", ".join(["-1"] + ["1"] * (n - 1)),
            "array<i32: %s>" % ", ".join(["2"] + ["0"] * (n - 1)),
            "array<i32: %s>" % ", ".join(["2147483647"] + ["0"] * (n - 1)),
            "array<i32: %s>" % ", ".join(["-2147483648"] * n),
            "array<i64: %s>" % ", ".join(["1"] * n),
            "dense<1> : tensor<%dxi32>" % n,
            "[%s]" % ", ".join(["1"] * n),
        ]
        for _ in range(6):
            tries.append("array<i32: %s>" % ", ".join(
                rng.choice(SEG_VALUES) for _ in range(n)))
        # Same total, one value moved from one segment to another: passes the
        # generic "sum == count" check, so the op's own accessors see it.
        orig = [int(v) for v in re.findall(r'-?\d+', p.split(":", 1)[1])] \
            if ":" in p else []
        for a in range(len(orig)):
            for b in range(len(orig)):
                if a != b and orig[a] > 0:
                    moved = list(orig)
                    moved[a] -= 1
                    moved[b] += 1
                    tries.append("array<i32: %s>" % ", ".join(map(str, moved)))
        for t in tries:
            o = op.copy()
            o.props[k] = "%s = %s" % (key, t)
            add("%s := %s" % (key, t), o)
            # Also with the operand / result count matched to the sum.
            vals = [int(v) for v in re.findall(r'-?\d+', t.split(":", 1)[1])] \
                if ":" in t and t.startswith("array") else []
            total = sum(vals)
            if 0 <= total <= 8 and vals:
                o2 = o.copy()
                if key == "operandSegmentSizes" and op.operands:
                    o2.operands = [op.operands[i % len(op.operands)]
                                   for i in range(total)]
                    o2.in_types = [op.in_types[i % len(op.in_types)]
                                   for i in range(total)]
                elif key == "resultSegmentSizes" and op.out_types:
                    o2.out_types = [op.out_types[i % len(op.out_types)]
                                    for i in range(total)]
                else:
                    continue
                add("%s := %s, counts matched" % (key, t), o2)
    # The op in place (not duplicated), without properties: users stay.
    if op.props:
        o = op.copy()
        o.props = None
        out.append(("in place, no properties", replace_line(text, idx, o.render())))
    # Unknown and misspelled op names.
    for nm in ("fp8.bogus", "fp8.Amax", "fp8.", "fp8.amax.x", "fp8"):
        o = op.copy()
        o.name = nm
        add("op name %s" % nm, o)
    return out


# ----------------------------------------------------------------------------
# Random mutations
# ----------------------------------------------------------------------------

def m_delete_token(text, rng):
    toks = tokenize(text)
    idx = [i for i, t in enumerate(toks) if t[0] != "ws"]
    if not idx:
        return None
    i = rng.choice(idx)
    del toks[i]
    return "".join(t[1] for t in toks)


def m_duplicate_token(text, rng):
    toks = tokenize(text)
    idx = [i for i, t in enumerate(toks) if t[0] != "ws"]
    if not idx:
        return None
    i = rng.choice(idx)
    toks.insert(i, toks[i] if rng.random() < 0.5 else (None, " " + toks[i][1] + " "))
    return "".join(t[1] for t in toks)


def m_swap_tokens(text, rng):
    toks = tokenize(text)
    idx = [i for i, t in enumerate(toks) if t[0] != "ws"]
    if len(idx) < 2:
        return None
    if rng.random() < 0.5:
        k = rng.randrange(len(idx) - 1)
        i, j = idx[k], idx[k + 1]
    else:
        i, j = rng.sample(idx, 2)
    toks[i], toks[j] = toks[j], toks[i]
    return "".join(t[1] for t in toks)


def m_copy_token(text, rng):
    """Replaces a token with another token of the file."""
    toks = tokenize(text)
    idx = [i for i, t in enumerate(toks) if t[0] != "ws"]
    if len(idx) < 2:
        return None
    i, j = rng.sample(idx, 2)
    toks[i] = toks[j]
    return "".join(t[1] for t in toks)


def _sub_one(regex, text, rng, repl):
    ms = list(regex.finditer(text))
    if not ms:
        return None
    m = rng.choice(ms)
    return text[:m.start()] + repl(m) + text[m.end():]


def m_number(text, rng):
    return _sub_one(NUM_RE, text, rng, lambda m: rng.choice(INTERESTING_NUMBERS))


def m_dim(text, rng):
    dims = ["0", "1", "?", "9223372036854775807", "4611686018427387904",
            "2147483648", "4294967296", "-1", "18446744073709551616", "3",
            "1x1", "0x0"]
    return _sub_one(DIM_RE, text, rng, lambda m: rng.choice(dims))


def m_element_type(text, rng):
    return _sub_one(ELT_RE, text, rng, lambda m: rng.choice(ELEMENT_TYPES))


def m_whole_type(text, rng):
    return _sub_one(TENSOR_RE, text, rng, lambda m: rng.choice(WHOLE_TYPES))


def m_rank(text, rng):
    def repl(m):
        body = m.group(1)
        parts = body.split("x")
        if rng.random() < 0.5 and len(parts) > 1:
            parts = parts[1:]  # drop the leading dimension
        else:
            parts = [rng.choice(["1", "2", "?", "0"])] + parts
        return "tensor<%s>" % "x".join(parts)
    return _sub_one(TENSOR_RE, text, rng, repl)


def m_keyword(text, rng):
    words = re.compile(r'\b(%s)\b' % "|".join(re.escape(k) for k in KEYWORDS
                                             if k not in ("x", "tensor")))
    return _sub_one(words, text, rng, lambda m: rng.choice(KEYWORDS))


def m_attr_mnemonic(text, rng):
    return _sub_one(FP8_ATTR_RE, text, rng,
                    lambda m: "#fp8.%s<" % rng.choice(ATTR_MNEMONICS))


def m_attr_body(text, rng):
    """Replaces the body of an fp8 attribute or a `<...>` group of the custom
    form with something else."""
    bodies = ["", "tensor", "*", "*x*", "0", "-1", "1x0",
              "9223372036854775807", "9223372036854775807x9223372036854775807",
              "9223372036854775808", "1x1x1x1x1x1x1x1x1", "1 x", "x1", "1x",
              "ratio, eps = nan", "ratio, eps = inf", "ratio, eps = 0x7FC00000",
              "ratio, eps = 0x7F800000", "pow2, eps = -0.0",
              "ratio, eps = 1e39", "ratio, eps = 1.0e-46", "ratio, margin = -1",
              "ratio, margin = 2147483648", "ratio, margin = 127",
              "ratio, eps = 1, eps = 2", "ratio,", "ratio, margin",
              "ratio, margin =", "nvfp4, eps = 1.0", "static",
              "mxfp8, history = 0", "mxfp8, history = 9223372036854775808",
              "mxfp8, promote = -1", "mxfp8, algo = bogus",
              "mxfp8, zero_amax = 3", "e4m3", "E4M3", "\"e4m3\"", "1",
              "tensor, 1", "<1>", "tensor>"]
    ms = [m for m in re.finditer(r'<', text)]
    if not ms:
        return None
    m = rng.choice(ms)
    j = find_matching(text, m.start(), "<", ">")
    if j < 0:
        return None
    return text[:m.start() + 1] + rng.choice(bodies) + text[j:]


def m_truncate(text, rng):
    if len(text) < 2:
        return None
    return text[:rng.randrange(1, len(text))]


def m_insert_punct(text, rng):
    i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(PUNCT) + text[i:]


def m_delete_chars(text, rng):
    if len(text) < 2:
        return None
    i = rng.randrange(len(text))
    n = rng.randint(1, 8)
    return text[:i] + text[i + n:]


def m_ssa(text, rng):
    """Uses a different (or undefined) SSA value."""
    ms = list(SSA_USE_RE.finditer(text))
    if len(ms) < 2:
        return None
    m = rng.choice(ms)
    other = rng.choice(ms).group() if rng.random() < 0.8 else "%undefined"
    return text[:m.start()] + other + text[m.end():]


def m_op_name(text, rng):
    names = FP8_OPS + ["bogus", "Amax", "amax2", ""]
    return _sub_one(re.compile(r'fp8\.(\w+)'), text, rng,
                    lambda m: "fp8." + rng.choice(names))


def m_line(text, rng):
    lines = text.splitlines()
    if len(lines) < 2:
        return None
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    r = rng.random()
    if r < 0.4:
        del lines[i]
    elif r < 0.8:
        lines.insert(i, lines[j])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines) + "\n"


def m_unterminated(text, rng):
    tails = ['"unterminated', "#fp8.granularity<1x", "tensor<4x", "{", "(",
             "<{", "%", "^bb", "0x", "1.0e", "#fp8.rule<ratio, eps = ",
             "fp8.amax %", "/*", "\"fp8.amax\"(", "\\"]
    i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(tails)


def m_attr_dict(text, rng):
    """Adds garbage to an attribute dictionary / discardable attributes."""
    entries = ["granularity = %s" % rng.choice(GARBAGE_ATTRS),
               "rule = %s" % rng.choice(GARBAGE_ATTRS),
               "operandSegmentSizes = array<i32: %s>" % ", ".join(
                   rng.choice(SEG_VALUES) for _ in range(rng.randint(0, 9))),
               "resultSegmentSizes = array<i32: %s>" % ", ".join(
                   rng.choice(SEG_VALUES) for _ in range(rng.randint(0, 6))),
               "nan_policy = %s" % rng.choice(GARBAGE_ATTRS),
               "recipe = %s" % rng.choice(GARBAGE_ATTRS),
               "role = %s" % rng.choice(GARBAGE_ATTRS),
               "promote_interval = %s" % rng.choice(
                   ["-1", "9223372036854775807", "5 : i32", "1.0 : f32"]),
               "margin = %s" % rng.choice(["-1", "200", "5 : i64", "2147483648 : i64"]),
               "transposed", "transpose_lhs", "transpose_rhs",
               "col_granularity = %s" % rng.choice(GARBAGE_ATTRS)]
    e = rng.choice(entries)
    # Before the ':' of a custom-form fp8 op, or inside a generic property /
    # attribute dictionary.
    ms = list(re.finditer(r'(fp8\.\w+[^\n:]*?)( :)', text))
    ms += list(re.finditer(r'(<\{)()', text))
    if not ms:
        return None
    m = rng.choice(ms)
    if m.group(1) == "<{":
        return text[:m.end()] + e + ", " + text[m.end():]
    return text[:m.end(1)] + " {" + e + "}" + text[m.end(1):]


CUSTOM_MUTATORS = [m_delete_token, m_duplicate_token, m_swap_tokens,
                   m_copy_token, m_number, m_dim, m_element_type, m_whole_type,
                   m_rank, m_keyword, m_attr_mnemonic, m_attr_body, m_truncate,
                   m_insert_punct, m_delete_chars, m_ssa, m_op_name, m_line,
                   m_unterminated, m_attr_dict]
CUSTOM_WEIGHTS = [6, 3, 4, 3, 6, 6, 6, 4, 3, 6, 3, 6, 2, 3, 3, 4, 2, 3, 1, 4]


def g_random(text, rng):
    """One structural mutation of a random generic fp8 op."""
    ops = generic_ops(text)
    if not ops:
        return None
    idx, op = rng.choice(ops)
    lines = text.splitlines()
    avail = block_values(lines, idx)
    o = op.copy()
    r = rng.randrange(12)
    if r == 0 and o.operands:
        k = rng.randrange(len(o.operands))
        del o.operands[k]
        del o.in_types[k]
    elif r == 1:
        if avail and rng.random() < 0.7:
            n, t = rng.choice(avail)
        elif o.operands:
            k = rng.randrange(len(o.operands))
            n, t = o.operands[k], o.in_types[k]
        else:
            return None
        k = rng.randint(0, len(o.operands))
        o.operands.insert(k, n)
        o.in_types.insert(k, t)
    elif r == 2 and o.operands and avail:
        k = rng.randrange(len(o.operands))
        o.operands[k], o.in_types[k] = rng.choice(avail)
    elif r == 3 and o.out_types:
        del o.out_types[rng.randrange(len(o.out_types))]
    elif r == 4:
        o.out_types.insert(rng.randint(0, len(o.out_types)),
                           rng.choice(o.out_types + WHOLE_TYPES[:8])
                           if o.out_types else "tensor<1x1xf32>")
    elif r == 5 and o.props:
        del o.props[rng.randrange(len(o.props))]
    elif r == 6 and o.props:
        k = rng.randrange(len(o.props))
        key = o.props[k].split("=")[0].strip()
        o.props[k] = "%s = %s" % (key, rng.choice(GARBAGE_ATTRS))
    elif r == 7 and o.props is not None:
        key = rng.choice(["operandSegmentSizes", "resultSegmentSizes"])
        val = "array<i32: %s>" % ", ".join(rng.choice(SEG_VALUES)
                                          for _ in range(rng.randint(0, 9)))
        o.props = [p for p in o.props if not p.startswith(key)] + \
                  ["%s = %s" % (key, val)]
    elif r == 8:
        if o.props:
            o.attrs = (o.attrs or []) + o.props
            o.props = None if rng.random() < 0.5 else []
        else:
            return None
    elif r == 9 and o.in_types:
        k = rng.randrange(len(o.in_types))
        o.in_types[k] = rng.choice(WHOLE_TYPES)
    elif r == 10 and o.out_types:
        k = rng.randrange(len(o.out_types))
        o.out_types[k] = rng.choice(WHOLE_TYPES)
    elif r == 11:
        o.name = "fp8." + rng.choice(FP8_OPS)
    else:
        return None
    if rng.random() < 0.8:
        return insert_variant(text, idx, o)
    return replace_line(text, idx, o.render())


GENERIC_MUTATORS = CUSTOM_MUTATORS + [g_random]
GENERIC_WEIGHTS = CUSTOM_WEIGHTS + [60]


def mutate(text, rng, generic):
    muts, weights = (GENERIC_MUTATORS, GENERIC_WEIGHTS) if generic else \
        (CUSTOM_MUTATORS, CUSTOM_WEIGHTS)
    n = rng.choice([1, 1, 1, 2, 2, 3, 5])
    out = text
    applied = []
    for _ in range(n):
        for _attempt in range(5):
            f = rng.choices(muts, weights)[0]
            try:
                r = f(out, rng)
            except (IndexError, ValueError):
                # A mutator met text it does not understand (an earlier
                # mutation broke the structure it looks for).
                r = None
            if r is not None and r != out:
                out = r
                applied.append(f.__name__)
                break
    return out, applied


def m_valid_preserving(text, rng):
    """Mutations that tend to keep the input valid (for the pass phase):
    element type / value / granularity changes consistently across the file."""
    r = rng.randrange(7)
    if r == 5:
        # One dimension size changed everywhere (shapes stay consistent where
        # they were equal).
        dims = sorted(set(m.group(1) for m in DIM_RE.finditer(text)
                          if m.group(1) != "?"))
        if not dims:
            return None
        a = rng.choice(dims)
        b = rng.choice(["0", "1", "3", "33", "1000000", "?",
                        "9223372036854775807", "4611686018427387904"])
        return re.sub(r'(?<=[<x])%s(?=x)' % re.escape(a), b, text)
    if r == 6:
        grans = sorted(set(re.findall(r'<(\d+x\d+|\*x\d+|\d+x\*|tensor)>', text)))
        if not grans:
            return None
        a = rng.choice(grans)
        b = rng.choice(["1x1", "tensor", "1x*", "*x1", "*x*", "1x2", "2x1",
                        "1x9223372036854775807", "9223372036854775807x1"])
        return text.replace("<%s>" % a, "<%s>" % b)
    if r == 0:
        a, b = rng.sample(["f32", "bf16", "f16"], 2)
        return re.sub(r'\b%s\b' % a, b, text)
    if r == 1:
        a, b = rng.sample(["f8E4M3FN", "f8E5M2", "f4E2M1FN", "f6E2M3FN"], 2)
        return re.sub(r'\b%s\b' % a, b, text)
    if r == 2:
        vals = ["0.0", "-0.0", "1.0", "0.5", "2.0", "3.0e+38", "1.0e-45",
                "0x7FC00000", "0x7F800000", "0xFF800000", "448.0", "1.0e+30"]
        return _sub_one(re.compile(r'dense<[^>]*>'), text, rng,
                        lambda m: "dense<%s>" % rng.choice(vals))
    if r == 3:
        a = rng.choice(["e8m0_rceil", "e8m0_floor", "ratio", "pow2",
                        "pow2_bias"])
        b = rng.choice(["e8m0_rceil", "e8m0_floor", "ratio", "pow2",
                        "pow2_bias", "ratio, margin = 127",
                        "pow2, eps = 3.0e+38"])
        return text.replace("<%s>" % a, "<%s>" % b)
    return m_dim(text, rng)


# ----------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------

class Fuzzer:
    def __init__(self, runner, out_dir, max_findings_per_sig=3, verbose=False,
                 passes=DEFAULT_PASSES):
        self.runner = runner
        self.passes = [p.split() for p in passes.split(";") if p.strip()]
        self.out_dir = out_dir
        self.findings = {}  # signature -> list of paths
        self.roundtrip = {}
        self.max_per_sig = max_findings_per_sig
        self.cases = 0
        self.stats = {"rc0": 0, "rc1": 0, "bad": 0, "nodiag": 0,
                      "roundtrip": 0, "pass_runs": 0}
        self.verbose = verbose
        os.makedirs(os.path.join(out_dir, "findings"), exist_ok=True)

    def record(self, kind, text, flags, status, err, note, table):
        sig = signature(status, err, flags) if kind == "crash" else \
            kind + ": " + note
        lst = table.setdefault(sig, [])
        if len(lst) >= self.max_per_sig:
            return sig
        data = text if isinstance(text, bytes) else \
            text.encode("utf-8", "surrogateescape")
        h = hashlib.sha1(data + " ".join(flags).encode()).hexdigest()[:10]
        base = os.path.join(self.out_dir, "findings", "%s-%s" % (kind, h))
        with open(base + ".mlir", "wb") as f:
            f.write(data)
        with open(base + ".txt", "w", encoding="utf-8") as f:
            f.write("signature: %s\n" % sig)
            f.write("command: %s %s.mlir %s\n" % (self.runner.tool, base,
                                                 " ".join(flags)))
            f.write("status: %s\nnote: %s\n--- stderr ---\n%s\n" %
                    (status, note, err[-20000:]))
        lst.append(base + ".mlir")
        if len(lst) == 1:
            print("NEW %s [%s] %s" % (kind, sig, base + ".mlir"), flush=True)
        return sig

    def check(self, text, flags=(), note="", passes=True):
        """Runs one case; on success also runs the passes and a round trip.
        Returns the plain status."""
        self.cases += 1
        status, out, err, _ = self.runner.run(text, flags)
        if is_bad(status, err):
            self.stats["bad"] += 1
            self.record("crash", text, flags, status, err, note, self.findings)
            return status
        if lacks_diagnostic(status, err):
            self.stats["nodiag"] += 1
            self.record("nodiag", text, flags, status, err,
                        "exit status 1 without a diagnostic", self.findings)
        self.stats["rc%d" % status] += 1
        if status != 0 or not passes:
            return status
        # Accepted input: the passes, then the round trip of the output.
        for pflags in self.passes:
            self.stats["pass_runs"] += 1
            s2, _, e2, _ = self.runner.run(text, list(flags) + pflags)
            if is_bad(s2, e2):
                self.stats["bad"] += 1
                self.record("crash", text, list(flags) + pflags, s2, e2,
                            note + " (pass)", self.findings)
            elif lacks_diagnostic(s2, e2):
                self.stats["nodiag"] += 1
                self.record("nodiag", text, list(flags) + pflags, s2, e2,
                            "exit status 1 without a diagnostic",
                            self.findings)
            elif s2 != 0:
                self.record("passfail", text, list(flags) + pflags, s2, e2,
                            " ".join(pflags), self.roundtrip)
        s3, _, e3, _ = self.runner.run(out, [])
        if is_bad(s3, e3):
            self.record("crash", out, [], s3, e3,
                        note + " (reparse of output)", self.findings)
        elif s3 != 0:
            self.stats["roundtrip"] += 1
            self.record("roundtrip", text, list(flags), s3, e3,
                        "output of fp8-opt does not parse back", self.roundtrip)
        return status

    def generic_of(self, text):
        status, out, err, _ = self.runner.run(text, ["--mlir-print-op-generic"])
        if status == 0:
            return out.decode("utf-8", "replace")
        return None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("seeds", nargs="*", help="valid .mlir inputs")
    ap.add_argument("--fp8-opt", default=os.path.join(root, "build", "bin", "fp8-opt"))
    ap.add_argument("--cases", type=int, default=5000,
                    help="number of random cases (phase 2)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--mem-gib", type=float, default=4.0,
                    help="address-space limit of fp8-opt (0 = none)")
    ap.add_argument("--out", default=os.path.join(root, "build", "fuzz"))
    ap.add_argument("--no-systematic", action="store_true")
    ap.add_argument("--minimize", metavar="FILE",
                    help="minimize a finding instead of fuzzing")
    ap.add_argument("--flags", default="", help="fp8-opt flags for --minimize")
    ap.add_argument("--valid-frac", type=float, default=0.15,
                    help="share of random cases made by mutations that tend "
                         "to keep the input valid (they exercise the passes)")
    ap.add_argument("--passes", default=DEFAULT_PASSES,
                    help="';'-separated fp8-opt flag sets run on every "
                         "accepted mutant (default: %(default)s)")
    ap.add_argument("--bytecode-cases", type=int, default=0,
                    help="also run this many byte-level mutations of the "
                         "bytecode form of the seeds (phase 4)")
    ap.add_argument("--time-budget", type=float, default=0,
                    help="stop after this many seconds, at most half of "
                         "them in the systematic phase")
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(args.out, "work")
    os.makedirs(work, exist_ok=True)
    runner = Runner(os.path.abspath(args.fp8_opt), args.timeout, args.mem_gib, work)

    if args.minimize:
        with open(args.minimize, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        flags = args.flags.split()
        res = minimize(runner, text, flags)
        print(res)
        return 0

    seeds = args.seeds or sorted(
        os.path.join(dp, f)
        for d in ("test/Dialect/FP8/IR", "test/Dialect/FP8/Transforms",
                  "test/Conversion", "test/tools/fp8-opt/bad-input")
        for dp, _, fs in os.walk(os.path.join(root, d)) for f in fs
        if f.endswith(".mlir"))
    chunks = load_seeds(seeds)
    fz = Fuzzer(runner, args.out, passes=args.passes)
    rng = random.Random(args.seed)

    # Keep the seeds that parse; remember their generic forms.
    valid, generic = [], []
    for path, text in chunks:
        status, _, err, _ = runner.run(text, [])
        if is_bad(status, err):
            fz.record("crash", text, [], status, err, "seed " + path, fz.findings)
            continue
        if lacks_diagnostic(status, err):
            fz.record("nodiag", text, [], status, err, "seed " + path,
                      fz.findings)
        if status == 0:
            valid.append(text)
            g = fz.generic_of(text)
            if g:
                generic.append(g)
    invalid = [t for _, t in chunks if t not in valid]
    if not chunks:
        print("no seeds: give .mlir files", file=sys.stderr)
        return 2
    print("seeds: %d chunks, %d valid, %d generic" %
          (len(chunks), len(valid), len(generic)), flush=True)
    t0 = time.time()

    def out_of_time(share=1.0):
        return args.time_budget and \
            time.time() - t0 > share * args.time_budget

    # Phase 1: systematic generic-form variants of every fp8 op.
    if not args.no_systematic:
        n0 = fz.cases
        seen_ops = set()
        for g in generic:
            for idx, op in generic_ops(g):
                key = (op.name, len(op.operands), len(op.out_types),
                       tuple(p.split("=")[0].strip() for p in (op.props or [])),
                       tuple(op.in_types))
                if key in seen_ops:
                    continue
                seen_ops.add(key)
                try:
                    variants = systematic_variants(g, idx, op, rng)
                except (IndexError, ValueError):
                    continue
                for desc, text in variants:
                    # Half the time at most, so that a short run also gets
                    # to the random phase.
                    if out_of_time(share=0.5):
                        break
                    fz.check(text, note="systematic %s: %s" % (op.name, desc))
        print("systematic: %d cases, %.0fs" % (fz.cases - n0, time.time() - t0),
              flush=True)

    # Phase 2: random stacked mutations (custom and generic form), with the
    # passes on every accepted mutant (phase 3, inside check()).
    pool_custom = valid + invalid
    n0 = fz.cases
    for i in range(args.cases):
        if out_of_time():
            break
        r = rng.random()
        rest = 1.0 - args.valid_frac
        if r < args.valid_frac and valid:
            # Mostly-valid mutants: they get through the parser and verifier
            # and so reach --canonicalize and --fp8-fuse-dynamic-quantize.
            text = rng.choice(valid)
            applied = []
            for _ in range(rng.randint(1, 3)):
                try:
                    text = m_valid_preserving(text, rng) or text
                except (IndexError, ValueError):
                    pass
                applied.append("valid")
            if rng.random() < 0.3:
                text, more = mutate(text, rng, False)
                applied += more
        else:
            if r < args.valid_frac + rest * 0.5 and generic:
                base, gen = rng.choice(generic), True
            else:
                base, gen = rng.choice(pool_custom), False
            text, applied = mutate(base, rng, gen)
        flags = []
        if rng.random() < 0.1:
            flags = [rng.choice(["--mlir-print-op-generic", "--emit-bytecode",
                                 "--verify-roundtrip", "-split-input-file",
                                 "--mlir-print-debuginfo",
                                 "--canonicalize", "--fp8-fuse-dynamic-quantize",
                                 "--cse", "--symbol-dce", "--inline"])]
        fz.check(text, flags, note="random %s" % ",".join(applied))
        if (i + 1) % 500 == 0:
            print("  %d random cases, %d runs, %d distinct crash signatures, %.0fs"
                  % (i + 1, runner.count, len(fz.findings), time.time() - t0),
                  flush=True)
    print("random: %d cases" % (fz.cases - n0), flush=True)

    # Phase 4 (optional): byte-level mutations of the bytecode of the seeds.
    if args.bytecode_cases:
        n0 = fz.cases
        blobs = []
        for t in valid:
            status, out, _, _ = runner.run(t, ["--emit-bytecode"])
            if status == 0 and len(out) > 8:
                blobs.append(out)
        for i in range(args.bytecode_cases if blobs else 0):
            b = bytearray(rng.choice(blobs))
            for _ in range(rng.choice([1, 1, 2, 4, 8])):
                if len(b) <= 5:
                    break
                pos = rng.randrange(4, len(b))  # keep the magic number
                r = rng.randrange(6)
                if r == 0:
                    b[pos] = rng.randrange(256)
                elif r == 1:
                    b[pos] ^= 1 << rng.randrange(8)
                elif r == 2:
                    del b[pos:pos + rng.randint(1, 16)]
                elif r == 3:
                    b[pos:pos] = bytes(rng.randrange(256)
                                       for _ in range(rng.randint(1, 8)))
                elif r == 4:
                    b[pos] = rng.choice([0x00, 0x7F, 0x80, 0xFF])
                else:
                    del b[pos:]
            fz.check(bytes(b), note="bytecode mutation", passes=False)
        print("bytecode: %d cases" % (fz.cases - n0), flush=True)

    summary = {
        "cases": fz.cases, "fp8_opt_runs": runner.count, "stats": fz.stats,
        "seconds": round(time.time() - t0),
        "crash_signatures": {k: v for k, v in fz.findings.items()},
        "other_findings": {k: v for k, v in fz.roundtrip.items()},
    }
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    print(json.dumps(summary, indent=2))
    if fz.findings:
        print("FAILED: %d kinds of crash, hang or rejection without a "
              "diagnostic; see %s" % (len(fz.findings),
                                      os.path.join(args.out, "findings")))
        return 1
    print("passed: %d cases, no crash, hang or rejection without a diagnostic"
          % fz.cases)
    return 0


# ----------------------------------------------------------------------------
# Minimizer
# ----------------------------------------------------------------------------

def minimize(runner, text, flags):
    """Delta-debugs text (lines, then tokens) keeping the failure signature."""
    status, _, err, _ = runner.run(text, flags)
    if not is_bad(status, err):
        return "not reproducible (status %s)" % status
    target = signature(status, err, flags)
    short = min(runner.timeout, 3.0)

    def still(t):
        s, _, e, _ = runner.run(t, flags, timeout=short if status == "timeout"
                                else None)
        return is_bad(s, e) and signature(s, e, flags) == target

    def ddmin(units, join):
        n = 2
        while len(units) >= 2:
            chunk = max(1, len(units) // n)
            reduced = False
            for i in range(0, len(units), chunk):
                cand = units[:i] + units[i + chunk:]
                if cand and still(join(cand)):
                    units = cand
                    n = max(n - 1, 2)
                    reduced = True
                    break
            if not reduced:
                if chunk == 1:
                    break
                n = min(n * 2, len(units))
        return units

    lines = ddmin(text.splitlines(keepends=True), "".join)
    text = "".join(lines)
    # Tokens with the whitespace before them, so the result stays readable.
    toks, pending = [], ""
    for kind, tok in tokenize(text):
        if kind == "ws":
            pending += tok
        else:
            toks.append(pending + tok)
            pending = ""
    toks = ddmin(toks, "".join)
    text = "".join(toks)
    return "signature: %s\n--- minimized (%s) ---\n%s" % (target, " ".join(flags), text)


if __name__ == "__main__":
    sys.exit(main())
