#!/usr/bin/env python3
"""Mutation fuzzer for the launch-manifest checker (`fp8-run --check`).

Takes directories of artifacts that fp8-opt wrote (`--fp8-gpu-pipeline=
"... artifacts=DIR"`: manifests, PTX, constant files), mutates each manifest
(JSON members dropped, retyped or set to interesting values; kernel names,
chips, block sizes, shared memory, parameter lists and buffer ids changed;
names with NUL or invalid UTF-8; copies onto themselves; kernels writing
their inputs; raw text truncated or flipped), runs `fp8-run --check` on every
mutant, and compares its verdict with an independent check written here in
Python from runtime/README.md: the JSON rules, every member's range, the
files, and the kernels' PTX (`.entry` parameters, `.maxntid` / `.reqntid`,
and which pointer parameters each kernel stores through).

A finding is a mutant that fp8-run
  * accepts although the check here rejects it ("accepted"), or the reverse
    ("rejected"),
  * crashes or hangs ("crash"), or rejects without an "error:" message
    ("nodiag").
Findings are written to OUT/findings/<kind>-<hash>/ (the manifest, its
verdicts and fp8-run's output); with --minimize, also minimized.json: the
manifest with every member and array element removed that the finding does
not need. Exit status 0 when there is none, 1 otherwise, 2 on usage errors.
A fixed --seed and --cases make a run reproducible, which is how the lit
suite runs it (test/runtime/manifest-fuzz.test); --time-budget stops a long
run after that many seconds.

Usage:
  scripts/fuzz/manifest_fuzz.py --fp8-run PATH [--cases N] [--seed S]
                                [--time-budget S] [--minimize]
                                [--out DIR] ARTIFACT_DIR...
"""

import argparse
import copy
import hashlib
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import time

FORMAT = "fp8-mlir-launch-plan"
CHIPS = {"sm_90a": 232448, "sm_100a": 232448}
BUFFER_KINDS = ("input", "output", "temp", "constant", "state")
DTYPE_BITS = {"f32": 32, "bf16": 16, "f16": 16, "f8e4m3": 8, "f8e5m2": 8,
              "f8e8m0": 8, "f4e2m1": 4}
MAP_DTYPE_BYTES = {"uint8": 1, "uint16": 2, "uint32": 4, "int32": 4,
                   "float16": 2, "bfloat16": 2, "float32": 4}
SWIZZLE_SPAN = {"none": 0, "32B": 32, "64B": 64, "128B": 128}
L2_PROMOTIONS = ("none", "64B", "128B", "256B")
INT64_MAX = (1 << 63) - 1
INT32_MAX = (1 << 31) - 1
FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]


class Invalid(Exception):
    pass


# ---------------------------------------------------------------------------
# The independent check
# ---------------------------------------------------------------------------

def strict_json(data):
    """The document of `data` (bytes) under RFC 8259 as the runtime reads
    it: UTF-8, no duplicate member, no NaN or Infinity, finite numbers, no
    lone surrogates, nesting below 64 levels."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Invalid("invalid UTF-8")

    def pairs(items):
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise Invalid("duplicate member")
        return dict(items)

    def constant(name):
        raise Invalid("constant " + name)

    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except ValueError as e:
        raise Invalid("malformed JSON: %s" % e)
    except RecursionError:
        raise Invalid("nested too deeply")

    def check_string(v):
        if any(0xD800 <= ord(c) < 0xE000 for c in v):
            raise Invalid("lone surrogate")

    def walk(v, depth):
        if depth >= 64:
            raise Invalid("nested too deeply")
        if isinstance(v, str):
            check_string(v)
        elif isinstance(v, float):
            if v != v or v in (float("inf"), float("-inf")):
                raise Invalid("number out of range")
        elif isinstance(v, list):
            for x in v:
                walk(x, depth + 1)
        elif isinstance(v, dict):
            for k, x in v.items():
                check_string(k)
                walk(x, depth + 1)

    walk(value, 0)
    return value


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and -(1 << 63) <= v <= INT64_MAX


def printable(name):
    return all(not (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F) for c in name)


def member(obj, key, kind, required=True):
    """obj[key], which must be of `kind` (a type or tuple of types)."""
    if key not in obj:
        if required:
            raise Invalid("missing " + key)
        return None
    v = obj[key]
    if kind is int:
        ok = isinstance(v, (int, float)) and not isinstance(v, bool)
    elif kind is bool:
        ok = isinstance(v, bool)
    else:
        ok = isinstance(v, kind) and not isinstance(v, bool)
    if not ok:
        raise Invalid(key + " has the wrong JSON type")
    return v


def integer(obj, key, lo, hi, required=True):
    v = member(obj, key, int, required)
    if v is None:
        return None
    if not is_int(v) or not lo <= v <= hi:
        raise Invalid("%s = %r is not an integer in [%d, %d]" % (key, v, lo, hi))
    return v


def integers(obj, key, min_len, max_len, lo, hi):
    v = member(obj, key, list)
    if not min_len <= len(v) <= max_len:
        raise Invalid(key + " has the wrong length")
    for x in v:
        if isinstance(x, bool) or not is_int(x) or not lo <= x <= hi:
            raise Invalid("%s holds %r" % (key, x))
    return v


def name(obj, key, required=True):
    v = member(obj, key, str, required)
    if v is not None and (not v or not printable(v)):
        raise Invalid(key + " is empty or not printable")
    return v


def dtype_bits(dtype):
    if dtype in DTYPE_BITS:
        return DTYPE_BITS[dtype]
    m = re.fullmatch(r"i([1-9][0-9]?)", dtype)
    return int(m.group(1)) if m and int(m.group(1)) <= 64 else 0


def check_buffer(b, count, seen, workspace):
    if not isinstance(b, dict):
        raise Invalid("a buffer is not an object")
    bid = member(b, "id", int)
    if not is_int(bid) or not 0 <= bid < count or bid in seen:
        raise Invalid("bad buffer id %r" % (bid,))
    seen.add(bid)
    kind = member(b, "kind", str)
    if kind not in BUFFER_KINDS:
        raise Invalid("unknown buffer kind")
    dtype = member(b, "dtype", str)
    bits = dtype_bits(dtype)
    if not bits:
        raise Invalid("unknown dtype")
    shape = integers(b, "shape", 0, 16, 0, INT64_MAX)
    elements = 1
    for d in shape:
        elements *= d
        if elements > (1 << 62):
            raise Invalid("too many elements")
    if elements * bits > (1 << 62):
        raise Invalid("too many bits")
    transposed = b.get("layout") == "transposed" and len(shape) == 2
    if "pitch" in b:
        # The stored rows: a transposed matrix's are its columns.
        last = (shape[0] if transposed else shape[-1]) if shape else 1
        pitch = integer(b, "pitch", 1, INT32_MAX)
        if pitch < last or pitch * bits % 8:
            raise Invalid("bad pitch")
        if last:
            elements = elements // last * pitch
            if elements * bits > (1 << 62):
                raise Invalid("too many bits with the pitch")
    if "layout" in b:
        layout = member(b, "layout", str)
        if not (layout == "transposed" and len(shape) == 2) and \
                not (layout == "tcgen05_scale_factors" and bits == 8 and "pitch" not in b):
            raise Invalid("unknown layout")
    if "name" in b:
        if kind != "state" or not isinstance(b["name"], str):
            raise Invalid("only state buffers are named")
        name(b, "name")
    nbytes = integer(b, "bytes", 0, INT64_MAX)
    dense = (elements * bits + 7) // 8
    if b.get("layout") == "tcgen05_scale_factors":
        if nbytes < dense or nbytes % 512:
            raise Invalid("scale-factor bytes are not whole chunks")
    elif nbytes != dense:
        raise Invalid("bytes do not match the shape")
    if kind in ("input", "output"):
        integer(b, "index", 0, 1 << 20)
    elif "index" in b:
        raise Invalid("index on a " + kind)
    if kind in ("constant", "state"):
        name(b, "file")
    elif "file" in b:
        raise Invalid("file on a " + kind)
    if "offset" in b:
        if kind != "temp":
            raise Invalid("offset on a " + kind)
        offset = integer(b, "offset", 0, INT64_MAX)
        if offset % 256 or offset + nbytes > workspace:
            raise Invalid("offset outside the workspace or unaligned")
    return bid, dict(b, bits=bits, elements=elements)


def buffer_id(obj, key, buffers):
    v = member(obj, key, int)
    if not is_int(v) or not 0 <= v < len(buffers):
        raise Invalid("%s = %r is not a buffer id" % (key, v))
    return v


def check_tensor_map(p, buffers):
    bid = buffer_id(p, "buffer", buffers)
    dtype = member(p, "dtype", str)
    if dtype not in MAP_DTYPE_BYTES:
        raise Invalid("unknown tensor-map dtype")
    eb = MAP_DTYPE_BYTES[dtype]
    dims = integers(p, "dims", 1, 5, 1, 1 << 32)
    strides = integers(p, "strides", len(dims) - 1, len(dims) - 1, 16, (1 << 40) - 1)
    box = integers(p, "box", len(dims), len(dims), 1, 256)
    if any(s % 16 for s in strides) or box[0] * eb % 16:
        raise Invalid("misaligned tensor map")
    swizzle = member(p, "swizzle", str)
    if swizzle not in SWIZZLE_SPAN:
        raise Invalid("unknown swizzle")
    if SWIZZLE_SPAN[swizzle] and box[0] * eb > SWIZZLE_SPAN[swizzle]:
        raise Invalid("box beyond the swizzle span")
    if "l2_promotion" in p and member(p, "l2_promotion", str) not in L2_PROMOTIONS:
        raise Invalid("unknown L2 promotion")
    extent = dims[0] * eb + sum((d - 1) * s for d, s in zip(dims[1:], strides))
    if extent > buffers[bid]["bytes"]:
        raise Invalid("tensor map beyond its buffer")
    return bid


def check_param(p, buffers):
    if not isinstance(p, dict):
        raise Invalid("a parameter is not an object")
    kind = member(p, "kind", str)
    if kind == "buffer":
        return kind, buffer_id(p, "buffer", buffers)
    if kind == "i32":
        integer(p, "value", -(1 << 31), INT32_MAX)
        return kind, None
    if kind == "f32":
        v = member(p, "value", (int, float))
        if abs(float(v)) > FLT_MAX:
            raise Invalid("f32 out of range")
        return kind, None
    if kind == "tensor_map":
        return kind, check_tensor_map(p, buffers)
    raise Invalid("unknown parameter kind")


def check_launch(launch, buffers, chip, kernels):
    if not isinstance(launch, dict):
        raise Invalid("a launch is not an object")
    kind = member(launch, "kind", str)
    if kind == "fill":
        bid = buffer_id(launch, "buffer", buffers)
        integer(launch, "byte", 0, 255)
        if buffers[bid]["kind"] in ("input", "constant"):
            raise Invalid("fill of an input or constant")
        return
    if kind == "copy":
        src = buffer_id(launch, "from", buffers)
        dst = buffer_id(launch, "to", buffers)
        n = integer(launch, "bytes", 0, INT64_MAX)
        if src == dst:
            raise Invalid("copy onto itself")
        if n > buffers[src]["bytes"] or n > buffers[dst]["bytes"]:
            raise Invalid("copy beyond a buffer")
        if buffers[dst]["kind"] in ("input", "constant"):
            raise Invalid("copy onto an input or constant")
        return
    if kind != "kernel":
        raise Invalid("unknown launch kind")
    kname = name(launch, "kernel")
    grid = integers(launch, "grid", 3, 3, 1, INT32_MAX)
    block = integers(launch, "block", 3, 3, 1, 1024)
    cluster = integers(launch, "cluster", 3, 3, 1, 16)
    if grid[1] > 65535 or grid[2] > 65535:
        raise Invalid("grid too large")
    threads = block[0] * block[1] * block[2]
    if threads > 1024 or block[2] > 64:
        raise Invalid("block too large")
    if cluster[0] * cluster[1] * cluster[2] > 16:
        raise Invalid("cluster too large")
    if any(g % c for g, c in zip(grid, cluster)):
        raise Invalid("grid not a multiple of the cluster")
    shared = integer(launch, "shared_bytes", 0, INT32_MAX)
    if shared > CHIPS[chip]:
        raise Invalid("too much shared memory")
    member(launch, "persistent", bool, required=False)
    params = [check_param(p, buffers) for p in member(launch, "params", list)]
    # The kernel in the module.
    if kname not in kernels:
        raise Invalid("no such kernel")
    entry = kernels[kname]
    if len(params) != len(entry["params"]):
        raise Invalid("parameter count")
    for (pkind, bid), declared in zip(params, entry["params"]):
        if declared["kind"] != pkind and not (
                declared["kind"] == "b32" and pkind in ("i32", "f32")):
            raise Invalid("parameter kind")
        if bid is not None and declared["stored"] and \
                buffers[bid]["kind"] in ("input", "constant"):
            raise Invalid("kernel writes an input or constant")
    if entry["reqntid"] and block != entry["reqntid"]:
        raise Invalid("block is not .reqntid")
    if entry["maxntid"] and threads > entry["maxntid"]:
        raise Invalid("block above .maxntid")


def check_manifest(data, directory, modules):
    """Raises Invalid when the manifest bytes `data` (in `directory`) must be
    rejected. `modules` caches PTX files read by read_ptx."""
    m = strict_json(data)
    if not isinstance(m, dict):
        raise Invalid("not an object")
    if member(m, "format", str) != FORMAT:
        raise Invalid("format")
    version = member(m, "version", int)
    if not is_int(version) or version != 1:
        raise Invalid("version")
    name(m, "function")
    chip = member(m, "chip", str)
    if chip not in CHIPS:
        raise Invalid("unknown chip")
    mods = member(m, "modules", dict)
    ptx = name(mods, "ptx")
    cubin = name(mods, "cubin", required=False)
    workspace = integer(m, "workspace_bytes", 0, INT64_MAX, required=False) or 0
    raw = member(m, "buffers", list)
    buffers, seen = [None] * len(raw), set()
    for b in raw:
        bid, info = check_buffer(b, len(raw), seen, workspace)
        buffers[bid] = info
    for kind in ("input", "output"):
        indices = sorted(b["index"] for b in buffers if b["kind"] == kind)
        if indices != list(range(len(indices))):
            raise Invalid(kind + " indices")
    launches = member(m, "launches", list)
    # Files: the modules, and constants holding exactly their bytes.
    def path(f):
        return f if os.path.isabs(f) else os.path.join(directory, f)
    for f in [ptx] + ([cubin] if cubin is not None else []):
        if not os.path.isfile(path(f)):
            raise Invalid("missing module " + f)
    for b in buffers:
        if b["kind"] in ("constant", "state"):
            p = path(b["file"])
            if not os.path.isfile(p) or os.path.getsize(p) != b["bytes"]:
                raise Invalid("constant file")
    module = read_ptx(path(ptx), modules)
    if module["target"] != chip:
        raise Invalid("the PTX targets another chip")
    functions = cubin_functions(path(cubin)) if cubin is not None else None
    for launch in launches:
        check_launch(launch, buffers, chip, module["kernels"])
        if functions is not None and launch["kind"] == "kernel" and \
                launch["kernel"] not in functions:
            raise Invalid("kernel not in the cubin")
    check_workspace(buffers, launches)


def check_workspace(buffers, launches):
    """Temps in the workspace must not share a byte while both are live."""
    live = {}
    for i, launch in enumerate(launches):
        if launch["kind"] == "fill":
            used = [launch["buffer"]]
        elif launch["kind"] == "copy":
            used = [launch["from"], launch["to"]]
        else:
            used = [p["buffer"] for p in launch["params"]
                    if p["kind"] in ("buffer", "tensor_map")]
        for bid in used:
            live[bid] = (live.get(bid, (i, i))[0], i)
    placed = [b for b in buffers if "offset" in b and b["id"] in live and b["bytes"]]
    for x in placed:
        for y in placed:
            if x["id"] < y["id"] and \
                    x["offset"] < y["offset"] + y["bytes"] and y["offset"] < x["offset"] + x["bytes"] and \
                    live[x["id"]][0] <= live[y["id"]][1] and live[y["id"]][0] <= live[x["id"]][1]:
                raise Invalid("temps %d and %d share live bytes" % (x["id"], y["id"]))


def cubin_functions(path):
    """The names of the function symbols of an ELF64 little-endian file."""
    with open(path, "rb") as f:
        image = f.read()
    if len(image) < 64 or image[:4] != b"\x7fELF" or image[4] != 2 or image[5] != 1:
        raise Invalid("the cubin is not an ELF64 file")
    shoff, = struct.unpack_from("<Q", image, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", image, 0x3A)
    if shentsize < 64 or shoff + shnum * shentsize > len(image):
        raise Invalid("ELF section headers outside the file")
    sections = [struct.unpack_from("<IIQQQQIIQQ", image, shoff + i * shentsize)
                for i in range(shnum)]
    names = set()
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if offset + size > len(image):
            raise Invalid("ELF section outside the file")
        if kind != 2:
            continue
        if entsize < 24 or link >= shnum:
            raise Invalid("malformed ELF symbol table")
        strings = sections[link]
        table = image[strings[4]:strings[4] + strings[5]]
        for at in range(offset, offset + size - 23, entsize):
            name_at, info = struct.unpack_from("<IB", image, at)
            end = table.find(b"\0", name_at)
            if info & 0xF == 2 and name_at < len(table) and end >= 0:
                names.add(table[name_at:end].decode("utf-8", "replace"))
    return names


# ---------------------------------------------------------------------------
# PTX, read independently of the runtime's reader
# ---------------------------------------------------------------------------

ENTRY_RE = re.compile(r"\.entry\s+([\w$]+)\s*\(([^)]*)\)([^{;]*)\{")
PARAM_RE = re.compile(r"\.param\s+(.*?)\s*([\w$]+)(\[(\d+)\])?\s*$")
NTID_RE = re.compile(r"\.(maxntid|reqntid)\s+([\d\s,]+)")
REG_RE = re.compile(r"%[\w$.]+|[A-Za-z_$][\w$]*")


def param_kind(decl, array):
    if array:
        return "tensor_map" if re.search(r"\.align\s+64\b", decl) and array == 128 and \
            re.search(r"\.b8\b", decl) else "array"
    t = re.search(r"\.(u64|s64|b64|u32|s32|b32|f32)\b", decl)
    t = t.group(1) if t else ""
    return {"u64": "buffer", "s64": "buffer", "b64": "buffer", "u32": "i32",
            "s32": "i32", "b32": "b32", "f32": "f32"}.get(t, "other")


def stored_params(body, names):
    """The indices of `names` whose values reach the address of a store to
    global or generic memory. Each statement is read as "opcode dest,
    sources..."; a value loaded from non-parameter memory carries nothing."""
    index = {n: i for i, n in enumerate(names)}
    taint = {}
    statements = []
    for st in body.split(";"):
        st = re.sub(r"^(\s*([{}]|[\w$]+:(?!:)))*", "", st).strip()
        st = re.sub(r"^@!?%?\w+\s+", "", st)
        if not st or st.startswith("."):
            continue
        op, _, rest = st.partition(" ")
        ops, depth, cur = [], 0, ""
        for c in rest:
            depth += c in "[{(" and 1 or 0
            depth -= c in "]})" and 1 or 0
            if c == "," and depth == 0:
                ops.append(cur.strip())
                cur = ""
            else:
                cur += c
        ops.append(cur.strip())
        statements.append((op, ops))

    def space_is_local(op):
        return re.search(r"\.(shared|local|param|const)(\.|:|$)", op)

    def store_operand(op):
        if op == "st" or op.startswith(("st.", "red.")):
            return None if space_is_local(op) else 0
        if op.startswith("atom."):
            return None if space_is_local(op) else 1
        if op.startswith("cp.") and ".prefetch" not in op:
            g, s = op.find(".global"), op.find(".shared")
            if g >= 0 and (s < 0 or g < s):
                return 0
        return None

    def sources_of(text):
        out = set()
        for r in REG_RE.findall(text):
            if r in index:
                out.add(index[r])
            out |= taint.get(r, set())
        return out

    changed = True
    while changed:
        changed = False
        for op, ops in statements:
            if store_operand(op) is not None or not ops or not ops[0] or \
                    ops[0].startswith("[") or op.startswith(("setp", "set.")):
                continue
            src = set()
            for o in ops[1:]:
                if o.startswith("[") and not op.startswith("ld.param"):
                    continue
                src |= sources_of(o)
            if not src:
                continue
            for r in REG_RE.findall(ops[0]):
                if not src <= taint.get(r, set()):
                    taint[r] = taint.get(r, set()) | src
                    changed = True
    stored = set()
    for op, ops in statements:
        k = store_operand(op)
        if k is not None and k < len(ops):
            stored |= sources_of(ops[k])
    return stored


def read_ptx(path, cache):
    path = os.path.realpath(path)
    if path in cache:
        return cache[path]
    with open(path) as f:
        text = f.read()
    text = re.sub(r"//[^\n]*", "", text)
    target = re.search(r"\.target\s+(\w+)", text)
    kernels = {}
    for m in ENTRY_RE.finditer(text):
        kname, plist, directives = m.group(1), m.group(2), m.group(3)
        params, names = [], []
        for decl in [d for d in plist.split(",") if d.strip()]:
            pm = PARAM_RE.search(decl.strip())
            names.append(pm.group(2))
            params.append({"kind": param_kind(pm.group(1), int(pm.group(4) or 0)),
                           "stored": False})
        # The body: to the brace that closes the entry's.
        depth, i = 0, m.end() - 1
        for i in range(m.end() - 1, len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
        for k in stored_params(text[m.end():i], names):
            params[k]["stored"] = True
        ntid = {"maxntid": 0, "reqntid": None}
        for nm in NTID_RE.finditer(directives):
            extents = [int(x) for x in nm.group(2).replace(",", " ").split()]
            extents += [1] * (3 - len(extents))
            if nm.group(1) == "maxntid":
                ntid["maxntid"] = extents[0] * extents[1] * extents[2]
            else:
                ntid["reqntid"] = extents
        kernels[kname] = {"params": params, **ntid}
    cache[path] = {"target": target.group(1) if target else "", "kernels": kernels}
    return cache[path]


# ---------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------

INTERESTING = [0, 1, -1, 2, 7, 15, 16, 17, 64, 127, 128, 255, 256, 257, 1023, 1024,
               1025, 65535, 65536, 232448, 232449, 10 ** 7, INT32_MAX, INT32_MAX + 1,
               1 << 32, (1 << 40) - 1, 1 << 40, 1 << 62, INT64_MAX, INT64_MAX + 1,
               -(1 << 63), 1.5, 1e300, -0.0, True, None, "1", [], {}]
NAMES = ["", "k", "fp8_gemm", "a\x00b", "\x7f", "tab\there", "\u0085", "caf\u00e9",
         "sm_90a", "sm_80", "sm_999", "sm_", "sm_90", "sm_100", "sm_100a", "fp8_kernels.ptx",
         "nowhere.ptx", "f32", "f8e4m3", "i65", "uint8", "128B", "input", "temp", "state",
         "kernel", "copy", "fill", "buffer", "tensor_map", "f32 "]


def paths(value, prefix=()):
    """Every (path, value) in a JSON tree."""
    yield prefix, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, prefix + (i,))


def parent_of(tree, path):
    node = tree
    for p in path[:-1]:
        node = node[p]
    return node


def mutate_tree(m, rng, kernels):
    """One structural mutation of manifest `m`; returns the new tree and a
    description. Earlier mutations may have left any member of any type: a
    mutation that does not apply leaves the tree as it was."""
    try:
        return mutate_once(copy.deepcopy(m), rng, kernels)
    except (AttributeError, KeyError, IndexError, TypeError, ValueError):
        return m, "unchanged"


def dicts(value):
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def mutate_once(m, rng, kernels):
    launches = dicts(m.get("launches"))
    kernel_launches = [l for l in launches if l.get("kind") == "kernel"]
    buffers = dicts(m.get("buffers"))
    ids_by_kind = {}
    for b in buffers:
        ids_by_kind.setdefault(b.get("kind"), []).append(b.get("id"))
    choice = rng.randrange(16)
    if choice == 0 and kernel_launches:
        l = rng.choice(kernel_launches)
        l["kernel"] = rng.choice(NAMES + list(kernels))
        return m, "kernel name %r" % l["kernel"]
    if choice == 1:
        m["chip"] = rng.choice(NAMES)
        return m, "chip %r" % m["chip"]
    if choice == 2 and kernel_launches:
        l = rng.choice(kernel_launches)
        i = rng.randrange(3)
        l["block"][i] = rng.choice([1, 2, 32, 64, 128, 192, 256, 257, 384, 512, 1024])
        return m, "block %s" % l["block"]
    if choice == 3 and kernel_launches:
        l = rng.choice(kernel_launches)
        l["shared_bytes"] = rng.choice([0, 1024, 232448, 232449, 10 ** 7, -1])
        return m, "shared_bytes %s" % l["shared_bytes"]
    if choice == 4 and kernel_launches:
        l = rng.choice(kernel_launches)
        params = l["params"]
        r = rng.randrange(4)
        if r == 0 and params:
            del params[rng.randrange(len(params))]
            return m, "parameter dropped"
        if r == 1 and params:
            params.append(copy.deepcopy(rng.choice(params)))
            return m, "parameter repeated"
        if r == 2 and len(params) > 1:
            i, j = rng.sample(range(len(params)), 2)
            params[i], params[j] = params[j], params[i]
            return m, "parameters swapped"
        if params:
            p = rng.choice(params)
            p["kind"] = rng.choice(["buffer", "i32", "f32", "tensor_map"])
            return m, "parameter kind %s" % p["kind"]
    if choice == 5 and kernel_launches:
        # A buffer parameter pointed at another buffer, inputs and constants
        # most often: a kernel that would write what it must only read.
        l = rng.choice(kernel_launches)
        ps = [p for p in l["params"] if p.get("kind") == "buffer"]
        if ps:
            pool = ids_by_kind.get("input", []) + ids_by_kind.get("constant", [])
            pool = pool or [b.get("id") for b in buffers]
            p = rng.choice(ps)
            p["buffer"] = rng.choice(pool + [b.get("id") for b in buffers])
            return m, "parameter buffer %s" % p["buffer"]
    if choice == 6:
        copies = [l for l in launches if l.get("kind") == "copy"]
        if copies:
            c = rng.choice(copies)
            c[rng.choice(["from", "to"])] = c["to" if rng.random() < 0.5 else "from"]
            return m, "copy %s -> %s" % (c["from"], c["to"])
        if buffers:
            src, dst = rng.choice(buffers), rng.choice(buffers)
            m["launches"].append({"kind": "copy", "from": src.get("id"),
                                  "to": dst.get("id"), "bytes": 4})
            return m, "copy added"
    if choice == 7:
        m["function"] = rng.choice(NAMES)
        return m, "function %r" % m["function"]
    if choice == 8 and buffers:
        b = rng.choice(buffers)
        key = rng.choice(["dtype", "kind", "shape", "bytes", "index", "pitch", "file", "name",
                          "offset"])
        if key in ("dtype", "kind", "file", "name"):
            b[key] = rng.choice(NAMES + list(DTYPE_BITS) + list(BUFFER_KINDS))
        elif key == "shape":
            b[key] = [rng.choice([0, 1, 3, 16, 128, 1 << 31]) for _ in range(rng.randrange(4))]
        else:
            b[key] = rng.choice(INTERESTING)
        return m, "buffer %s = %r" % (key, b[key])
    if choice == 9:
        # Any member dropped or set to an interesting value.
        found = [p for p, _ in paths(m) if p]
        p = rng.choice(found)
        node = parent_of(m, p)
        if rng.random() < 0.3:
            del node[p[-1]]
            return m, "dropped %s" % (p,)
        node[p[-1]] = rng.choice(INTERESTING + NAMES)
        return m, "set %s = %r" % (p, node[p[-1]])
    if choice == 10 and kernel_launches:
        maps = [p for l in kernel_launches for p in l["params"]
                if p.get("kind") == "tensor_map"]
        if maps:
            p = rng.choice(maps)
            key = rng.choice(["dims", "strides", "box", "swizzle", "dtype", "l2_promotion"])
            if key in ("dims", "strides", "box") and p.get(key):
                p[key][rng.randrange(len(p[key]))] = rng.choice(INTERESTING[:25])
            else:
                p[key] = rng.choice(["none", "32B", "64B", "128B", "256B", "uint8",
                                     "float32", "int8"])
            return m, "tensor map %s" % key
    if choice == 11 and kernel_launches:
        l = rng.choice(kernel_launches)
        key = rng.choice(["grid", "cluster"])
        l[key][rng.randrange(3)] = rng.choice([1, 2, 3, 8, 16, 17, 65535, 65536])
        return m, "%s %s" % (key, l[key])
    if choice == 12 and launches:
        fills = [l for l in launches if l.get("kind") == "fill"]
        if fills:
            f = rng.choice(fills)
            f["buffer"] = rng.choice([b.get("id") for b in buffers] + [len(buffers)])
            return m, "fill of %s" % f["buffer"]
    if choice == 13 and len(launches) > 1:
        rng.shuffle(m["launches"])
        return m, "launches shuffled"
    if choice == 14:
        if rng.random() < 0.5:
            m["workspace_bytes"] = rng.choice(INTERESTING)
            return m, "workspace_bytes %r" % (m["workspace_bytes"],)
        m["unknown_member"] = rng.choice(INTERESTING)
        return m, "unknown member added"
    if choice == 15 and kernel_launches:
        l = rng.choice(kernel_launches)
        ps = [p for p in l["params"] if p.get("kind") in ("i32", "f32")]
        if ps:
            p = rng.choice(ps)
            p["value"] = rng.choice(INTERESTING)
            return m, "value %r" % (p["value"],)
    return m, "unchanged"


def mutate_text(data, rng):
    """A raw mutation of the manifest's bytes."""
    r = rng.randrange(6)
    if r == 0:
        return data[:rng.randrange(len(data))], "truncated"
    if r == 1:
        i = rng.randrange(len(data))
        return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:], "byte replaced"
    if r == 2:
        # Invalid UTF-8 (or an overlong or surrogate encoding) inside a string.
        quotes = [i for i, c in enumerate(data) if c == ord('"')]
        i = rng.choice(quotes) + 1
        bad = rng.choice([b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xe2\x82", b"\x80",
                          b"\xf4\x90\x80\x80", b"\xc2\x85"])
        return data[:i] + bad + data[i:], "bytes %r in a string" % bad
    if r == 3:
        quotes = [i for i, c in enumerate(data) if c == ord('"')]
        i = rng.choice(quotes) + 1
        esc = rng.choice([b"\\u0000", b"\\ud800", b"\\udc00x", b"\\u00e9", b"\\n", b"\\/"])
        return data[:i] + esc + data[i:], "escape %r in a string" % esc
    if r == 4:
        # A member written twice.
        i = data.find(b'"function"')
        return data[:i] + b'"function": "again", ' + data[i:], "duplicate member"
    i = rng.randrange(len(data))
    return data[:i] + rng.choice([b"{", b"}", b"[", b"]", b",", b":", b"1e400", b"-",
                                  b"NaN", b"0x10", b"\t"]) + data[i:], "punctuation"


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

def run_check(fp8_run, manifest, timeout):
    try:
        p = subprocess.run([fp8_run, "--check", manifest], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    return p.returncode, (p.stdout + p.stderr).decode("utf-8", "replace")


def stage(work, directory, data):
    """Writes `data` as work/case.json next to links to the files of the
    seed's directory, and returns its path."""
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    for f in os.listdir(directory):
        if not f.endswith(".json"):
            os.symlink(os.path.abspath(os.path.join(directory, f)),
                       os.path.join(work, f))
    path = os.path.join(work, "case.json")
    with open(path, "wb") as f:
        f.write(data)
    return path


def classify(data, work, directory, modules, fp8_run, timeout):
    """Runs both checks on the manifest `data` staged in `work`. Returns
    (kind, expected, why, status, output); kind is None when they agree."""
    path = stage(work, directory, data)
    try:
        check_manifest(data, work, modules)
        expected, why = 0, "valid"
    except Invalid as e:
        expected, why = 1, str(e)
    status, output = run_check(fp8_run, path, timeout)
    kind = None
    if status not in (0, 1):
        kind = "crash"
    elif status == 1 and "error:" not in output:
        kind = "nodiag"
    elif status != expected:
        kind = "accepted" if status == 0 else "rejected"
    return kind, expected, why, status, output


def json_paths(node, prefix=()):
    """The paths of every object member and array element under `node`,
    outermost first."""
    items = node.items() if isinstance(node, dict) else \
        enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        yield prefix + (key,)
        yield from json_paths(child, prefix + (key,))


def without(tree, path):
    """A copy of `tree` without the member or element at `path`."""
    tree = copy.deepcopy(tree)
    node = tree
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return tree


def minimize(data, kind, work, directory, modules, fp8_run, timeout,
             max_runs=2000):
    """Removes members and array elements from the manifest `data` for as
    long as both checks still disagree the same way (`kind`). Returns the
    smallest manifest found, or None when `data` is not a JSON document."""
    try:
        tree = json.loads(data)
    except ValueError:
        return None
    runs, shrunk = 0, True
    while shrunk and runs < max_runs:
        shrunk = False
        for path in list(json_paths(tree)):
            candidate = without(tree, path)
            runs += 1
            found = classify(json.dumps(candidate).encode("utf-8", "surrogatepass"),
                             work, directory, modules, fp8_run, timeout)[0]
            if found == kind:
                tree, shrunk = candidate, True
                break
            if runs >= max_runs:
                break
    return json.dumps(tree, indent=1).encode("utf-8", "surrogatepass")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("artifacts", nargs="+", help="directories fp8-opt wrote")
    ap.add_argument("--fp8-run", required=True)
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--out", default="manifest-fuzz")
    ap.add_argument("--time-budget", type=float, default=0,
                    help="stop after this many seconds")
    ap.add_argument("--minimize", action="store_true",
                    help="also write a minimized manifest for each finding")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    # The seeds, as fp8-opt wrote them, must pass both checks.
    seeds, modules, rejected = [], {}, []
    for directory in args.artifacts:
        for f in sorted(os.listdir(directory)):
            if not f.endswith(".json"):
                continue
            path = os.path.join(directory, f)
            with open(path, "rb") as fh:
                data = fh.read()
            try:
                check_manifest(data, directory, modules)
            except Invalid as e:
                rejected.append("%s: the check here rejects it: %s" % (path, e))
            status, output = run_check(args.fp8_run, path, args.timeout)
            if status != 0:
                rejected.append("%s: fp8-run --check: status %s\n%s" % (path, status, output))
            seeds.append((directory, json.loads(data)))
    if not seeds:
        print("no manifests in %s" % " ".join(args.artifacts), file=sys.stderr)
        return 2
    print("seeds: %d manifests, %d rejected" % (len(seeds), len(rejected)))
    if rejected:
        print("FAILED: seeds rejected:\n" + "\n".join(rejected))
        return 1

    os.makedirs(os.path.join(args.out, "findings"), exist_ok=True)
    work = os.path.join(args.out, "work")
    findings, stats = {}, {"accepted": 0, "rejected": 0}
    start, cases = time.time(), 0
    for case in range(args.cases):
        if args.time_budget and time.time() - start > args.time_budget:
            break
        cases += 1
        directory, tree = rng.choice(seeds)
        kernels = read_ptx(os.path.join(directory, tree["modules"]["ptx"]), modules)["kernels"]
        notes = []
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            tree, note = mutate_tree(tree, rng, kernels)
            notes.append(note)
        data = json.dumps(tree, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
        if rng.random() < 0.15:
            data, note = mutate_text(data, rng)
            notes.append(note)
        # The mutant sits next to (links to) the seed's files, in a
        # directory of its own.
        kind, expected, why, status, output = classify(
            data, work, directory, modules, args.fp8_run, args.timeout)
        if status in (0, 1):
            stats["accepted" if status == 0 else "rejected"] += 1
        if kind:
            digest = hashlib.sha1(data).hexdigest()[:10]
            where = os.path.join(args.out, "findings", "%s-%s" % (kind, digest))
            if os.path.isdir(where):
                shutil.rmtree(where)
            shutil.copytree(work, where)
            with open(os.path.join(where, "finding.txt"), "w") as f:
                f.write("case %d: %s\nmutations: %s\nexpected: %s (%s)\n"
                        "fp8-run --check: status %s\n%s\n"
                        % (case, kind, "; ".join(notes), expected, why, status, output))
            if args.minimize:
                smaller = minimize(data, kind, work, directory, modules,
                                   args.fp8_run, args.timeout)
                if smaller is not None:
                    with open(os.path.join(where, "minimized.json"), "wb") as f:
                        f.write(smaller)
            findings.setdefault(kind, []).append(where)
            print("FINDING %s case %d (%s): expected %s (%s), fp8-run %s: %s"
                  % (kind, case, "; ".join(notes), expected, why, status,
                     output.strip().splitlines()[-1:] if output.strip() else ""),
                  flush=True)
    print("%d cases: fp8-run accepted %d, rejected %d; %d findings"
          % (cases, stats["accepted"], stats["rejected"],
             sum(len(v) for v in findings.values())))
    if findings:
        print("FAILED: see %s" % os.path.join(args.out, "findings"))
        return 1
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
