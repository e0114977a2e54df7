//===- fp8-opt.cpp - The fp8-mlir optimizer driver ------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with the fp8 dialect, passes and pipelines. The driver lives in
// FP8OptMain so that this file compiles in seconds.
//
//===----------------------------------------------------------------------===//

#include "fp8/Tools/OptMain.h"

int main(int argc, char **argv) { return mlir::fp8::runFP8Opt(argc, argv); }
