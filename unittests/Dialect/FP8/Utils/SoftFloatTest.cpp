//===- SoftFloatTest.cpp - Soft conversions against LLVM APFloat ----------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// JIT-compiles conversion kernels through fp8-expand-float-casts and the LLVM
// lowering, runs them on the CPU and compares every result bit for bit with
// LLVM APFloat (for arith.truncf / arith.extf) or with APFloat plus the rules
// of numerics.md (for fp8.convert):
//   * every f16 and bf16 input, and every code of every format;
//   * all boundary f32 inputs (codes, midpoints and their neighbours, powers
//     of two, special values) and 10^7 random f32 inputs per format.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"
#include "fp8/Dialect/FP8/Utils/HostNumerics.h"
#include "fp8/InitAll.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace mlir;
using llvm::APFloat;
using llvm::APInt;

namespace {

//===----------------------------------------------------------------------===//
// The JIT harness
//===----------------------------------------------------------------------===//

/// One compiled kernel: out[i] = bits(CONVERSION(bitcast(in[i]))), with an
/// optional i32 random word per element.
class Kernel {
public:
  /// `srcType`/`dstType` are MLIR type names; `body` uses %x (the input as
  /// srcType) and %r (i32, when `withRandom`) and defines %y of dstType.
  Kernel(MLIRContext &ctx, StringRef srcType, unsigned srcWidth,
         StringRef dstType, unsigned dstWidth, const std::string &body,
         bool withRandom = false)
      : srcWidth(srcWidth), dstWidth(dstWidth) {
    std::string text = llvm::formatv(
        R"mlir(
func.func @kernel(%in: memref<?xi{1}>, %out: memref<?xi{3}>, %rnd: memref<?xi32>)
    attributes {{llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %in, %c0 : memref<?xi{1}>
  scf.for %i = %c0 to %n step %c1 {{
    %xb = memref.load %in[%i] : memref<?xi{1}>
    %x = arith.bitcast %xb : i{1} to {0}
    %r = {5}
    {4}
    %yb = arith.bitcast %y : {2} to i{3}
    memref.store %yb, %out[%i] : memref<?xi{3}>
  }
  return
}
)mlir",
        srcType, srcWidth, dstType, dstWidth, body,
        withRandom ? "memref.load %rnd[%i] : memref<?xi32>"
                   : "arith.constant 0 : i32");
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
    EXPECT_TRUE(module) << text;
    if (!module)
      return;
    PassManager pm(&ctx);
    pm.addPass(fp8::createFP8ExpandFloatCasts());
    pm.addPass(createSCFToControlFlowPass());
    pm.addPass(createConvertToLLVMPass());
    pm.addPass(createReconcileUnrealizedCastsPass());
    if (failed(pm.run(*module))) {
      ADD_FAILURE() << "lowering failed for\n" << text;
      return;
    }
    // ExecutionEngineOptions holds a function_ref: keep the callee alive.
    std::function<llvm::Error(llvm::Module *)> optimize =
        makeOptimizingTransformer(2, 0, nullptr);
    ExecutionEngineOptions options;
    options.transformer = optimize;
    auto created = ExecutionEngine::create(*module, options);
    if (!created) {
      ADD_FAILURE() << "JIT failed: " << llvm::toString(created.takeError());
      return;
    }
    engine = std::move(*created);
  }

  /// Runs the kernel on `inputs` (bit patterns of srcWidth bits) and returns
  /// the result bit patterns.
  std::vector<uint64_t> run(const std::vector<uint64_t> &inputs,
                            const std::vector<uint32_t> &random = {}) {
    std::vector<uint64_t> results(inputs.size());
    if (!engine)
      return results;
    size_t n = inputs.size();
    std::vector<uint8_t> in(n * bytes(srcWidth)), out(n * bytes(dstWidth));
    for (size_t i = 0; i < n; ++i)
      store(in.data(), srcWidth, i, inputs[i]);
    std::vector<uint32_t> rnd =
        random.empty() ? std::vector<uint32_t>(n) : random;
    StridedMemRefType<uint8_t, 1> inDesc = describe(in.data(), n);
    StridedMemRefType<uint8_t, 1> outDesc = describe(out.data(), n);
    StridedMemRefType<uint32_t, 1> rndDesc;
    rndDesc.basePtr = rndDesc.data = rnd.data();
    rndDesc.offset = 0;
    rndDesc.sizes[0] = n;
    rndDesc.strides[0] = 1;
    auto *inPtr = &inDesc, *outPtr = &outDesc;
    auto *rndPtr = &rndDesc;
    llvm::Error error = engine->invoke("kernel", inPtr, outPtr, rndPtr);
    EXPECT_FALSE(bool(error)) << llvm::toString(std::move(error));
    for (size_t i = 0; i < n; ++i)
      results[i] = load(out.data(), dstWidth, i);
    return results;
  }

private:
  // Sub-byte integers (i4, i6) occupy one byte each in memory.
  static size_t bytes(unsigned width) { return width <= 8 ? 1 : width / 8; }
  static void store(uint8_t *base, unsigned width, size_t i, uint64_t v) {
    std::memcpy(base + i * bytes(width), &v, bytes(width));
  }
  static uint64_t load(uint8_t *base, unsigned width, size_t i) {
    uint64_t v = 0;
    std::memcpy(&v, base + i * bytes(width), bytes(width));
    return width < 64 ? v & ((uint64_t(1) << width) - 1) : v;
  }
  static StridedMemRefType<uint8_t, 1> describe(uint8_t *data, size_t n) {
    StridedMemRefType<uint8_t, 1> desc;
    desc.basePtr = desc.data = data;
    desc.offset = 0;
    desc.sizes[0] = n;
    desc.strides[0] = 1;
    return desc;
  }

  unsigned srcWidth, dstWidth;
  std::unique_ptr<ExecutionEngine> engine;
};

class SoftFloatTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  }
  SoftFloatTest() {
    // All dialects and extensions: convert-to-llvm finds its patterns
    // through the dialects' extension interfaces.
    DialectRegistry registry;
    fp8::registerAllDialectsAndExtensions(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  MLIRContext ctx;
};

//===----------------------------------------------------------------------===//
// Formats and inputs
//===----------------------------------------------------------------------===//

struct Fmt {
  const char *name;
  const llvm::fltSemantics &(*sem)();
  unsigned width;
  bool finiteOnly;
};
const Fmt kFormats[] = {
    {"f8E4M3FN", APFloat::Float8E4M3FN, 8, false},
    {"f8E5M2", APFloat::Float8E5M2, 8, false},
    {"f8E8M0FNU", APFloat::Float8E8M0FNU, 8, false},
    {"f4E2M1FN", APFloat::Float4E2M1FN, 4, true},
    {"f6E2M3FN", APFloat::Float6E2M3FN, 6, true},
    {"f6E3M2FN", APFloat::Float6E3M2FN, 6, true},
};
bool isE8M0(const Fmt &f) { return f.sem == APFloat::Float8E8M0FNU; }
fp8::Format formatOf(const Fmt &f) {
  StringRef name = f.name;
  return llvm::StringSwitch<fp8::Format>(name)
      .Case("f8E4M3FN", fp8::Format::E4M3)
      .Case("f8E5M2", fp8::Format::E5M2)
      .Case("f4E2M1FN", fp8::Format::E2M1)
      .Case("f6E2M3FN", fp8::Format::E2M3)
      .Case("f6E3M2FN", fp8::Format::E3M2);
}

struct Wide {
  const char *name;
  const llvm::fltSemantics &(*sem)();
  unsigned width;
};
const Wide kF16 = {"f16", APFloat::IEEEhalf, 16};
const Wide kBF16 = {"bf16", APFloat::BFloat, 16};
const Wide kF32 = {"f32", APFloat::IEEEsingle, 32};
const Wide kF64 = {"f64", APFloat::IEEEdouble, 64};

APFloat fromBits(const llvm::fltSemantics &sem, unsigned width, uint64_t b) {
  return APFloat(sem, APInt(width, b));
}
uint64_t toBits(const APFloat &v) { return v.bitcastToAPInt().getZExtValue(); }

/// APFloat's conversion, the oracle of arith.truncf / arith.extf.
uint64_t apConvert(const llvm::fltSemantics &from, unsigned fromWidth,
                   uint64_t bits, const llvm::fltSemantics &to,
                   APFloat::roundingMode mode = APFloat::rmNearestTiesToEven) {
  APFloat v = fromBits(from, fromWidth, bits);
  bool losesInfo = false;
  (void)v.convert(to, mode, &losesInfo);
  return toBits(v);
}

/// Every f32 input worth checking by hand: each code of each format, the
/// midpoints between neighbouring codes, their f32 neighbours, powers of two
/// across the whole f32 range with neighbours, and special values.
std::vector<uint64_t> boundaryF32() {
  std::vector<uint64_t> out;
  auto addWithNeighbours = [&](float v) {
    for (float w : {v, std::nextafter(v, 0.0f), std::nextafter(v, INFINITY)})
      for (float s : {w, -w})
        out.push_back(llvm::bit_cast<uint32_t>(s));
  };
  for (const Fmt &f : kFormats) {
    unsigned codes = 1u << f.width;
    std::vector<double> values;
    for (unsigned c = 0; c < codes; ++c) {
      APFloat v = fromBits(f.sem(), f.width, c);
      if (!v.isFinite() || v.isNegative())
        continue;
      bool losesInfo;
      v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                &losesInfo);
      values.push_back(v.convertToDouble());
    }
    std::sort(values.begin(), values.end());
    for (size_t i = 0; i < values.size(); ++i) {
      addWithNeighbours(float(values[i]));
      if (i + 1 < values.size())
        addWithNeighbours(float((values[i] + values[i + 1]) / 2));
      // Beyond the largest value: the overflow threshold and above.
      if (i + 1 == values.size()) {
        double ulp = values[i] - values[i - 1];
        addWithNeighbours(float(values[i] + ulp / 2));
        addWithNeighbours(float(values[i] + ulp));
        addWithNeighbours(float(values[i] * 4));
      }
    }
  }
  for (int k = -149; k <= 127; ++k) {
    addWithNeighbours(std::ldexp(1.0f, k));
    if (k < 127)
      addWithNeighbours(std::ldexp(1.5f, k));
  }
  for (uint32_t special :
       {0x00000000u, 0x00000001u, 0x007FFFFFu, 0x00800000u, 0x7F7FFFFFu,
        0x7F800000u, 0x7F800001u, 0x7FA00000u, 0x7FC00000u, 0x7FE00000u,
        0x7FFFFFFFu, 0x7F900000u, 0x7FB00000u, 0x7FD55555u}) {
    out.push_back(special);
    out.push_back(special | 0x80000000u);
  }
  return out;
}

/// 10^7 random f32 inputs: half uniformly random bit patterns, half with
/// exponents near the small formats' ranges (where rounding happens).
std::vector<uint64_t> randomF32(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> out(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits = uint32_t(rng());
    if (i % 2) {
      uint32_t exp = 127 - 140 + uint32_t(rng() % 170); // 2^-140 .. 2^29
      bits = (bits & 0x807FFFFFu) | (exp << 23);
    }
    out[i] = bits;
  }
  return out;
}

std::vector<uint64_t> allCodes(unsigned width) {
  std::vector<uint64_t> out(size_t(1) << width);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = i;
  return out;
}

/// Reports the first few mismatches and counts them all.
void expectSame(const std::vector<uint64_t> &inputs,
                const std::vector<uint64_t> &actual,
                const std::vector<uint64_t> &expected,
                const std::string &what) {
  size_t mismatches = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (actual[i] == expected[i])
      continue;
    if (++mismatches <= 5)
      ADD_FAILURE() << what << ": input 0x" << llvm::utohexstr(inputs[i])
                    << " gave 0x" << llvm::utohexstr(actual[i])
                    << ", expected 0x" << llvm::utohexstr(expected[i]);
  }
  EXPECT_EQ(mismatches, 0u)
      << what << ": " << mismatches << " of " << inputs.size() << " differ";
}

std::string truncBody(const char *dst, const char *src) {
  return llvm::formatv("%y = arith.truncf %x : {0} to {1}", src, dst);
}

//===----------------------------------------------------------------------===//
// arith.truncf and arith.extf against APFloat
//===----------------------------------------------------------------------===//

void checkTruncF(MLIRContext &ctx, const Wide &src, const Fmt &dst,
                 const std::vector<uint64_t> &inputs, const std::string &what) {
  Kernel kernel(ctx, src.name, src.width, dst.name, dst.width,
                truncBody(dst.name, src.name));
  std::vector<uint64_t> actual = kernel.run(inputs);
  std::vector<uint64_t> expected(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    expected[i] = apConvert(src.sem(), src.width, inputs[i], dst.sem());
  expectSame(inputs, actual, expected, what);
}

TEST_F(SoftFloatTest, TruncFExhaustiveF16) {
  for (const Fmt &f : kFormats)
    checkTruncF(ctx, kF16, f, allCodes(16),
                std::string("truncf f16 -> ") + f.name);
}

TEST_F(SoftFloatTest, TruncFExhaustiveBF16) {
  for (const Fmt &f : kFormats)
    checkTruncF(ctx, kBF16, f, allCodes(16),
                std::string("truncf bf16 -> ") + f.name);
}

TEST_F(SoftFloatTest, TruncFBoundaryF32) {
  std::vector<uint64_t> inputs = boundaryF32();
  for (const Fmt &f : kFormats)
    checkTruncF(ctx, kF32, f, inputs,
                std::string("truncf f32 boundary -> ") + f.name);
}

TEST_F(SoftFloatTest, TruncFRandomF32) {
  std::vector<uint64_t> inputs = randomF32(10'000'000, 0x5eed);
  for (const Fmt &f : kFormats)
    checkTruncF(ctx, kF32, f, inputs,
                std::string("truncf f32 random -> ") + f.name);
}

TEST_F(SoftFloatTest, TruncFRandomF64) {
  std::mt19937_64 rng(0xf64);
  std::vector<uint64_t> inputs(1'000'000);
  for (size_t i = 0; i < inputs.size(); ++i) {
    uint64_t bits = rng();
    if (i % 2) // exponents 2^-140 .. 2^29
      bits = (bits & 0x800FFFFFFFFFFFFFull) |
             (uint64_t(1023 - 140 + rng() % 170) << 52);
    inputs[i] = bits;
  }
  for (const Fmt &f : kFormats)
    checkTruncF(ctx, kF64, f, inputs,
                std::string("truncf f64 random -> ") + f.name);
}

TEST_F(SoftFloatTest, ExtFEveryCode) {
  for (const Fmt &f : kFormats) {
    std::vector<uint64_t> codes = allCodes(f.width);
    for (const Wide &dst : {kF16, kBF16, kF32, kF64}) {
      Kernel kernel(
          ctx, f.name, f.width, dst.name, dst.width,
          llvm::formatv("%y = arith.extf %x : {0} to {1}", f.name, dst.name));
      std::vector<uint64_t> actual = kernel.run(codes);
      std::vector<uint64_t> expected(codes.size());
      for (size_t c = 0; c < codes.size(); ++c) {
        expected[c] = apConvert(f.sem(), f.width, c, dst.sem());
        // Our one documented departure from APFloat: E8M0's 0xFF is NaN
        // (numerics.md section 1), where APFloat yields infinity's bits.
        if (isE8M0(f) && c == 0xFF)
          expected[c] = toBits(APFloat::getQNaN(dst.sem()));
      }
      expectSame(codes, actual, expected,
                 std::string("extf ") + f.name + " -> " + dst.name);
    }
  }
}

//===----------------------------------------------------------------------===//
// fp8.convert: saturate and nonfinite, rceil and floor, stochastic
//===----------------------------------------------------------------------===//

/// The expected code of fp8.convert for a signed format, from APFloat and the
/// rules of numerics.md section 2.
uint64_t expectedConvert(const Wide &src, const Fmt &f, uint64_t bits,
                         bool saturate) {
  APFloat x = fromBits(src.sem(), src.width, bits);
  uint64_t ap = apConvert(src.sem(), src.width, bits, f.sem());
  if (x.isNaN())
    return ap;
  APFloat largest = APFloat::getLargest(f.sem(), x.isNegative());
  bool losesInfo;
  APFloat largestWide = largest;
  largestWide.convert(src.sem(), APFloat::rmNearestTiesToEven, &losesInfo);
  bool beyond = x.isInfinity() ||
                abs(x).compare(abs(largestWide)) == APFloat::cmpGreaterThan;
  if (saturate && beyond)
    return toBits(largest);
  if (f.finiteOnly && x.isInfinity())
    return toBits(largest); // nonfinite clamps infinities of these formats
  return ap;
}

TEST_F(SoftFloatTest, ConvertSaturateAndNonFinite) {
  std::vector<uint64_t> f32Inputs = boundaryF32();
  std::vector<uint64_t> random = randomF32(1'000'000, 0xc0de);
  f32Inputs.insert(f32Inputs.end(), random.begin(), random.end());
  for (const Fmt &f : kFormats) {
    if (isE8M0(f))
      continue;
    for (bool saturate : {true, false}) {
      const char *mode = saturate ? "saturate" : "nonfinite";
      for (const Wide *src : {&kF16, &kBF16, &kF32}) {
        const std::vector<uint64_t> inputs =
            src->width == 16 ? allCodes(16) : f32Inputs;
        Kernel kernel(ctx, src->name, src->width, f.name, f.width,
                      llvm::formatv("%y = fp8.convert %x overflow <{0}> : "
                                    "{1} to {2}",
                                    mode, src->name, f.name));
        std::vector<uint64_t> actual = kernel.run(inputs);
        std::vector<uint64_t> expected(inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i)
          expected[i] = expectedConvert(*src, f, inputs[i], saturate);
        expectSame(
            inputs, actual, expected,
            llvm::formatv("convert {0} {1} -> {2}", mode, src->name, f.name));
        if (src != &kF32)
          continue;
        // The host evaluation of compile-time quantization agrees too.
        std::vector<uint64_t> host(inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i)
          host[i] = fp8::host::roundToFormat(
              llvm::bit_cast<float>(uint32_t(inputs[i])), formatOf(f),
              saturate ? fp8::Overflow::Saturate : fp8::Overflow::NonFinite);
        expectSame(
            inputs, host, expected,
            llvm::formatv("host::roundToFormat {0} -> {1}", mode, f.name));
      }
    }
  }
}

/// numerics.md section 2: E8M0 rounding rules and their special values.
uint64_t expectedE8M0(const Wide &src, uint64_t bits, fp8::Rounding rounding,
                      bool saturate) {
  APFloat x = fromBits(src.sem(), src.width, bits);
  if (x.isNaN() || (x.isNegative() && !x.isZero()))
    return 0xFF;
  if (x.isZero())
    return 0;
  if (x.isInfinity())
    return saturate ? 0xFE : 0xFF;
  // Exact arithmetic in double: f16, bf16 and f32 values are all exact.
  bool losesInfo;
  APFloat d = x;
  d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  double v = d.convertToDouble();
  int e;
  double frac = std::frexp(v, &e); // v = frac * 2^e, frac in [0.5, 1)
  int floorLog2 = e - 1;
  bool exact = frac == 0.5;
  int64_t code = floorLog2 + 127;
  if (rounding == fp8::Rounding::RCeil && !exact)
    code += 1;
  if (rounding == fp8::Rounding::RNE && frac >= 0.75)
    code += 1; // ties (1.5 * 2^k) round up: the significand 1 is odd
  if (code < 0)
    return 0;
  if (code > 254)
    return saturate ? 0xFE : 0xFF;
  return uint64_t(code);
}

TEST_F(SoftFloatTest, ConvertE8M0Roundings) {
  std::vector<uint64_t> f32Inputs = boundaryF32();
  std::vector<uint64_t> random = randomF32(1'000'000, 0xe8);
  f32Inputs.insert(f32Inputs.end(), random.begin(), random.end());
  Fmt e8m0 = kFormats[2];
  for (fp8::Rounding rounding :
       {fp8::Rounding::RNE, fp8::Rounding::RCeil, fp8::Rounding::Floor}) {
    for (bool saturate : {true, false}) {
      for (const Wide *src : {&kF16, &kBF16, &kF32}) {
        const std::vector<uint64_t> inputs =
            src->width == 16 ? allCodes(16) : f32Inputs;
        std::string what =
            llvm::formatv("convert {0} {1} {2} -> f8E8M0FNU",
                          fp8::stringifyRounding(rounding),
                          saturate ? "saturate" : "nonfinite", src->name);
        Kernel kernel(ctx, src->name, src->width, e8m0.name, 8,
                      llvm::formatv("%y = fp8.convert %x rounding <{0}> "
                                    "overflow <{1}> : {2} to f8E8M0FNU",
                                    fp8::stringifyRounding(rounding),
                                    saturate ? "saturate" : "nonfinite",
                                    src->name));
        std::vector<uint64_t> actual = kernel.run(inputs);
        std::vector<uint64_t> expected(inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i)
          expected[i] = expectedE8M0(*src, inputs[i], rounding, saturate);
        expectSame(inputs, actual, expected, what);
        if (src != &kF32 || rounding != fp8::Rounding::RCeil || !saturate)
          continue;
        std::vector<uint64_t> host(inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i)
          host[i] = fp8::host::roundToE8M0RCeil(
              llvm::bit_cast<float>(uint32_t(inputs[i])));
        expectSame(inputs, host, expected, "host::roundToE8M0RCeil");
      }
    }
  }
  // numerics.md's vectors: rceil saturating, rne and floor non-finite.
  std::vector<uint64_t> vectors;
  for (float v : {1.0f, 1.4999999f, 1.5f, 3.0f, std::ldexp(1.0f, -127),
                  1.5f * std::ldexp(1.0f, 127), INFINITY, NAN})
    vectors.push_back(llvm::bit_cast<uint32_t>(v));
  auto run = [&](const char *rounding, const char *overflow) {
    Kernel kernel(ctx, "f32", 32, "f8E8M0FNU", 8,
                  llvm::formatv("%y = fp8.convert %x rounding <{0}> overflow "
                                "<{1}> : f32 to f8E8M0FNU",
                                rounding, overflow));
    return kernel.run(vectors);
  };
  EXPECT_EQ(run("rceil", "saturate"),
            std::vector<uint64_t>({127, 128, 128, 129, 0, 254, 254, 255}));
  EXPECT_EQ(run("rne", "nonfinite"),
            std::vector<uint64_t>({127, 127, 128, 129, 0, 255, 255, 255}));
  EXPECT_EQ(run("floor", "nonfinite"),
            std::vector<uint64_t>({127, 127, 127, 128, 0, 254, 255, 255}));
}

/// How many bits of the f32 significand of x a conversion to `f` discards:
/// log2(quantum of f at |x| / quantum of f32 at |x|).
int discardedBits(const Fmt &f, const APFloat &x) {
  int f32Quantum = x.isDenormal() ? -149 : ilogb(x) - 23;
  const llvm::fltSemantics &sem = f.sem();
  int minExponent = APFloat::semanticsMinExponent(sem);
  int precision = APFloat::semanticsPrecision(sem);
  int exponent = std::max(ilogb(x), minExponent);
  return exponent - (precision - 1) - f32Quantum;
}

TEST_F(SoftFloatTest, ConvertStochastic) {
  // Stochastic rounding picks one of the two neighbours of x: the one toward
  // zero when the random word's low bits plus the discarded bits do not carry,
  // the one away from zero otherwise. With no random bits it truncates; with
  // all of them set it rounds any inexact value away from zero.
  std::vector<uint64_t> inputs = randomF32(200'000, 0x570c);
  std::vector<uint64_t> boundary = boundaryF32();
  inputs.insert(inputs.end(), boundary.begin(), boundary.end());
  std::mt19937 rng(7);
  std::vector<uint32_t> random(inputs.size());
  for (uint32_t &r : random)
    r = rng();
  std::vector<uint32_t> zeros(inputs.size(), 0), ones(inputs.size(), ~0u);
  for (const Fmt &f : kFormats) {
    if (isE8M0(f))
      continue;
    Kernel kernel(ctx, "f32", 32, f.name, f.width,
                  llvm::formatv("%y = fp8.convert %x rounding <stochastic> "
                                "rbits(%r : i32) overflow <nonfinite> : f32 to "
                                "{0}",
                                f.name),
                  /*withRandom=*/true);
    std::vector<uint64_t> truncated = kernel.run(inputs, zeros);
    std::vector<uint64_t> away = kernel.run(inputs, ones);
    std::vector<uint64_t> stochastic = kernel.run(inputs, random);
    std::vector<uint64_t> expectTrunc(inputs.size()), expectAway(inputs.size());
    // Truncation overflows from the value one step above the largest finite
    // one, largest + (largest - previous).
    APFloat largest = APFloat::getLargest(f.sem());
    APFloat previous = largest;
    previous.next(/*nextDown=*/true);
    bool losesInfo;
    largest.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
    previous.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                     &losesInfo);
    APFloat overflowThreshold = largest;
    overflowThreshold.add(largest, APFloat::rmNearestTiesToEven);
    overflowThreshold.subtract(previous, APFloat::rmNearestTiesToEven);
    for (size_t i = 0; i < inputs.size(); ++i) {
      APFloat x = fromBits(APFloat::IEEEsingle(), 32, inputs[i]);
      APFloat::roundingMode awayMode = x.isNegative()
                                           ? APFloat::rmTowardNegative
                                           : APFloat::rmTowardPositive;
      if (x.isNaN() || x.isInfinity()) {
        // Special values convert as with round-to-nearest.
        expectTrunc[i] = expectAway[i] = expectedConvert(kF32, f, inputs[i],
                                                         /*saturate=*/false);
        continue;
      }
      // Rounding happens first, then overflow (numerics.md section 2): a
      // result beyond the largest value is an overflow, handled as the
      // nonfinite conversion of an infinity (infinity, NaN, or the largest
      // value of a finite-only format).
      uint64_t overflowCode = expectedConvert(
          kF32, f,
          llvm::bit_cast<uint32_t>(x.isNegative() ? -INFINITY : INFINITY),
          /*saturate=*/false);
      expectTrunc[i] = apConvert(APFloat::IEEEsingle(), 32, inputs[i], f.sem(),
                                 APFloat::rmTowardZero);
      if (abs(x).compare(overflowThreshold) != APFloat::cmpLessThan)
        expectTrunc[i] = overflowCode;
      expectAway[i] =
          apConvert(APFloat::IEEEsingle(), 32, inputs[i], f.sem(), awayMode);
      APFloat away = fromBits(f.sem(), f.width, expectAway[i]);
      if (away.isNaN() || away.isInfinity())
        expectAway[i] = overflowCode;
      // Only the low 32 bits of the discarded ones meet random bits: a value
      // more than 32 bits below the format's quantum never rounds up.
      if (!x.isZero() && discardedBits(f, x) > 32)
        expectAway[i] = expectTrunc[i];
    }
    expectSame(inputs, truncated, expectTrunc,
               std::string("stochastic, no random bits -> ") + f.name);
    expectSame(inputs, away, expectAway,
               std::string("stochastic, all random bits -> ") + f.name);
    size_t outside = 0;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (stochastic[i] != expectTrunc[i] && stochastic[i] != expectAway[i])
        ++outside;
    EXPECT_EQ(outside, 0u) << f.name
                           << ": stochastic results outside {toward zero, "
                              "away from zero}";
  }
}

} // namespace
