// RUN: not fp8-opt %s --fp8-optimizer=recipe=sgd 2>&1 | FileCheck %s --check-prefix=RECIPE
// RUN: not fp8-opt %s --fp8-optimizer=format=e2m1 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not fp8-opt %s --fp8-optimizer=group=0 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: not fp8-opt %s --fp8-optimizer=expansion-limit=9 2>&1 | FileCheck %s --check-prefix=LIMIT

// RECIPE: error: fp8-optimizer: unknown recipe 'sgd'; expected coat or fp8lm
// FORMAT: error: fp8-optimizer: format 'e2m1' cannot hold optimizer state; expected e4m3 or e5m2
// GROUP: error: fp8-optimizer: group must be positive, got 0
// LIMIT: error: fp8-optimizer: expansion-limit must be in [0, 8], got 9

func.func @empty() {
  return
}
