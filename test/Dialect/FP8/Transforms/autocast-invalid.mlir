// Unknown recipes and option values are reported with the valid ones.
// RUN: not fp8-opt %s --fp8-autocast=recipe=fp16 2>&1 | FileCheck %s --check-prefix=RECIPE
// RUN: not fp8-opt %s --fp8-autocast="recipe=tensor-current fwd-format=e3m4" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not fp8-opt %s --fp8-autocast="recipe=tensor-delayed amax-algo=mean" 2>&1 | FileCheck %s --check-prefix=ALGO
// RUN: not fp8-opt %s --fp8-autocast="recipe=tensor-delayed zero-amax=drop" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not fp8-opt %s --fp8-autocast="recipe=mxfp8 e8m0-rounding=rne" 2>&1 | FileCheck %s --check-prefix=E8M0
// RUN: not fp8-opt %s --fp8-autocast="recipe=nvfp4 fwd-format=e4m3" 2>&1 | FileCheck %s --check-prefix=NVFP4
// RUN: not fp8-opt %s --fp8-autocast="recipe=rowwise fwd-format=e2m1" 2>&1 | FileCheck %s --check-prefix=E2M1
// RUN: not fp8-opt %s --fp8-autocast="recipe=tensor-delayed history=0" 2>&1 | FileCheck %s --check-prefix=HISTORY
// RUN: not fp8-opt %s --fp8-autocast="recipe=rowwise exclude=(" 2>&1 | FileCheck %s --check-prefix=REGEX

// RECIPE: error: fp8-autocast: unknown recipe 'fp16'; valid recipes are tensor-delayed, tensor-current, rowwise, deepseek, mxfp8, nvfp4, graphcore, unit
// FORMAT: error: fp8-autocast: unknown fwd-format 'e3m4'; valid values are e4m3, e5m2, e2m1
// ALGO: error: fp8-autocast: unknown amax-algo 'mean'; valid values are max, most_recent
// ZERO: error: fp8-autocast: unknown zero-amax 'drop'; valid values are roll, skip
// E8M0: error: fp8-autocast: unknown e8m0-rounding 'rne'; valid values are rceil, floor
// NVFP4: error: fp8-autocast: recipe nvfp4 quantizes to e2m1 only
// E2M1: error: fp8-autocast: e2m1 operands need block scales: use recipe nvfp4 or mxfp8
// HISTORY: error: fp8-autocast: history needs at least 1 entry, got 0
// REGEX: error: fp8-autocast: invalid exclude pattern '('
func.func @f() { return }
