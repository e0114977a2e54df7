//===- OptMain.h - The fp8-opt driver ---------------------------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_TOOLS_OPTMAIN_H
#define FP8_TOOLS_OPTMAIN_H

namespace mlir::fp8 {

/// The body of fp8-opt: MlirOptMain with every upstream and fp8 dialect, pass
/// and pipeline, run on a thread with a large stack (deeply nested input
/// would overflow the default one). Input that the upstream parser would
/// crash on or allocate without bound for is rejected with a diagnostic
/// first; any other crash, fatal error or exhausted allocation ends the
/// process with one diagnostic and exit code 1 (unless --debug-crash).
/// Returns the process exit code.
int runFP8Opt(int argc, char **argv);

} // namespace mlir::fp8

#endif // FP8_TOOLS_OPTMAIN_H
