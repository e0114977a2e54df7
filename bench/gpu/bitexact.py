"""What the bit-exact GPU checks of bench/gpu share (optimizer.py,
quantize.py; reductions.py and models.py take some of it): reading a
program's manifest, naming its launches, counting differing bits, running
each program with its failure reported against it, the runtime on the GPU,
the reports' header and tables, and the `compile` and `run` arguments.
"""

import datetime
import json
import os
import platform
import sys

import numpy as np

import fp8rt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_manifest(args, entry):
    """(the manifest's inputs and outputs as [(dtype, shape)] through the
    ctypes binding when it loads, the manifest's JSON)."""
    path = os.path.join(args.artifacts, entry["manifest"])
    with open(path) as f:
        manifest = json.load(f)
    try:
        with fp8rt.Library(args.lib).load(path, manifest_only=True) as program:
            io = [[(t.dtype, list(t.shape)) for t in ts]
                  for ts in (program.inputs, program.outputs)]
    except fp8rt.Fp8rtError:
        io = [[(b["dtype"], b["shape"]) for b in manifest["buffers"] if b["kind"] == kind]
              for kind in ("input", "output")]
    return io, manifest


def launch_names(manifest):
    """The kernel of each launch, or its kind (fill, copy)."""
    return [launch.get("kernel", launch.get("kind")) for launch in manifest.get("launches", [])]


def kernels_of(manifest):
    """The launches in words: the kernel's name when there is one."""
    names = launch_names(manifest)
    return names[0] if len(names) == 1 else "%d launches: %s" % (len(names), ", ".join(names))


def bit_differences(ours, expected):
    """The number of elements whose bits differ, and the first one
    (index, ours, expected) or None."""
    ours, expected = np.asarray(ours), np.asarray(expected)
    if ours.shape != expected.shape or ours.dtype.itemsize != expected.dtype.itemsize:
        return ours.size or 1, "shape or dtype %s %s, expected %s %s" % (
            ours.dtype, ours.shape, expected.dtype, expected.shape)
    bits = "u%d" % ours.dtype.itemsize
    differ = ours.view(bits) != expected.view(bits)
    count = int(differ.sum())
    if not count:
        return 0, None
    where = np.unravel_index(int(np.argmax(differ.reshape(-1))), differ.shape)
    return count, dict(index=[int(i) for i in where], ours=ours[where].item(),
                       expected=expected[where].item())


def run_each(entries, run_one):
    """{entry id: run_one(entry)}, an exception recorded as that entry's
    error (its first line)."""
    results = {}
    for entry in entries:
        try:
            results[entry["id"]] = run_one(entry)
        except Exception as ex:  # a failure is reported against its program
            results[entry["id"]] = dict(status="error", error=str(ex).splitlines()[0])
    return results


def run_program(args, entry, structure_errors, measure):
    """measure()'s result for the program of `entry` with its launches
    named, once structure_errors(entry, io, manifest) found nothing."""
    io, manifest = read_manifest(args, entry)
    structure = structure_errors(entry, io, manifest)
    if structure:
        raise RuntimeError("; ".join(structure))
    return dict(measure(), kernel=kernels_of(manifest))


def device_environment(torch):
    """The device and the versions a report names."""
    p = torch.cuda.get_device_properties(0)
    return dict(device=p.name, capability="%d.%d" % (p.major, p.minor),
                sms=p.multi_processor_count, torch=torch.__version__,
                cuda=torch.version.cuda, python=platform.python_version())


def report_header(title, dry_note, args, index, env):
    """A report's first lines: `title`, then `dry_note` on a dry run or the
    device, the date, the commit the kernels were compiled at and the
    command."""
    lines = [title, ""]
    if args.dry_run:
        lines.append(dry_note)
    else:
        lines.append("* Device: %s (compute capability %s, %d SMs), torch %s, CUDA %s"
                     % (env["device"], env["capability"], env["sms"], env["torch"],
                        env["cuda"]))
    return lines + [
        "* Date: %s" % datetime.date.today().isoformat(),
        "* Kernels compiled at commit %s%s for %s" % (
            index["commit"], " (dirty)" if index.get("dirty") else "", index["chip"]),
        "* Command: `%s`" % " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:])]


def result_status(result):
    """A program's result in words: bit-exact or how many elements differ,
    every output written or how many were not, else its status and error."""
    if "check" in result:
        bad = sum(result["check"]["differing"].values())
        return "bit-exact" if not bad else "**%d differ**" % bad
    if "written" in result:
        left = sum(result["written"]["unwritten"].values())
        return "all written" if not left else "**%d not written**" % left
    error = (result.get("error") or result.get("note") or "").replace("\n", " ")
    return result["status"] + (": " + error if error else "")


def ratio_text(result, target):
    """ours / copy as a percentage, marked when below `target`."""
    return "%.0f%%%s" % (100 * result["ratio"],
                         "" if result["ratio"] >= target else " (below target)")


def difference_table(what, check):
    """The lines of a table of the outputs of `what` whose bits differ from
    the CPU pipeline's (check: bit_differences of each output)."""
    lines = ["", "Outputs of %s against the CPU pipeline's (elements whose bits "
             "differ):" % what, "",
             "| output | differing | first difference (index: ours / expected) |",
             "|---|---|---|"]
    for name, count in check["differing"].items():
        first = check["first"].get(name)
        where = "-" if first is None else (
            "%s: %r / %r" % (first["index"], first["ours"], first["expected"])
            if isinstance(first, dict) else first)
        lines.append("| %s | %d | %s |" % (name, count, where))
    return lines


class GpuPrograms:
    """torch and the runtime on the GPU: `dtypes` maps manifest dtypes to
    torch's, `flush` is a buffer written between timed runs."""

    def __init__(self, args, dtypes):
        import torch

        self.torch = torch
        self.args = args
        torch.cuda.init()
        self.dtypes = {name: getattr(torch, t) for name, t in dtypes.items()}
        self.library = fp8rt.Library(args.lib)
        self.flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")

    def environment(self):
        return device_environment(self.torch)

    def load(self, entry, ins, outs):
        """The program of `entry` and its launch bound to `ins` and `outs`."""
        program = self.library.load(os.path.join(self.args.artifacts, entry["manifest"]))
        return program, program.bind(ins, outs, self.torch.cuda.current_stream())

    def time_against_copy(self, entry, ins, outs, outputs, sentinels, moved):
        """Runs the program of `entry` once on `ins` (every output must be
        written: `outs` hold their `sentinels`, NaN for f32, per the
        (name, dtype) of `outputs`), then times it and a device-to-device
        copy of ins[0]; bandwidths count `moved` bytes for the program and
        the copy's read and write."""
        from check_and_bench import time_gpu

        torch, args = self.torch, self.args
        program, launch = self.load(entry, ins, outs)
        try:
            launch(sync=True)
            torch.cuda.synchronize()
            unwritten = {}
            for (name, dtype), out in zip(outputs, outs):
                left = out.isnan() if dtype == "f32" else out == sentinels[dtype]
                unwritten[name] = int(left.sum())
            ours = time_gpu(torch, launch, self.flush, args.warmup, args.repeats)
        finally:
            program.close()
        source = ins[0]
        copy = torch.empty_like(source)
        theirs = time_gpu(torch, lambda: copy.copy_(source), self.flush, args.warmup,
                          args.repeats)
        copied = 2 * source.numel() * source.element_size()
        ok = not any(unwritten.values())
        result = dict(id=entry["id"], bytes=moved, written=dict(ok=ok, unwritten=unwritten))
        result["ours"] = dict(ours, gbps=moved / (ours["median_ms"] * 1e-3) / 1e9)
        result["copy"] = dict(theirs, gbps=copied / (theirs["median_ms"] * 1e-3) / 1e9)
        result["ratio"] = result["ours"]["gbps"] / result["copy"]["gbps"]
        result["status"] = "pass" if ok else "FAIL"
        return result


def add_compile_arguments(parser, artifacts, cpu_reference=True):
    """fp8-opt, the build running the CPU pipeline (`cpu_reference`), the
    artifacts folder, the chip and its SMs."""
    parser.add_argument("--fp8-opt", default=os.environ.get(
        "FP8_OPT", os.path.join(ROOT, "build", "bin", "fp8-opt")))
    if cpu_reference:
        parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                            help="the build whose libFP8MLIR-C.so runs the CPU pipeline")
    parser.add_argument("--artifacts", default=artifacts)
    parser.add_argument("--chip", default="sm_90a")
    parser.add_argument("--num-sms", type=int, default=132)


def add_run_arguments(parser, artifacts):
    """The artifacts, the runtime (built when missing), the report folder,
    the timing and --dry-run."""
    parser.add_argument("--artifacts", default=artifacts)
    parser.add_argument("--lib", default=os.path.join(ROOT, "build-gpu-rt", "lib",
                                                      "libfp8rt.so"))
    parser.add_argument("--runtime-build", default=os.path.join(ROOT, "build-gpu-rt"))
    parser.add_argument("--out", default=os.environ.get("OUT") or None)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--dry-run", action="store_true")


def use_cpu_pipeline(args):
    """Points fp8_mlir's compiler at the build's libFP8MLIR-C.so."""
    os.environ.setdefault("FP8_MLIR_LIBRARY", os.path.join(args.build, "lib", "libFP8MLIR-C.so"))
