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
/// would overflow the default one), and with input that crashes the upstream
/// parser rejected by a diagnostic first. Returns the process exit code.
int runFP8Opt(int argc, char **argv);

} // namespace mlir::fp8

#endif // FP8_TOOLS_OPTMAIN_H
