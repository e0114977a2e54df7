//===- Tcgen05InstrDescriptorTest.cpp - tcgen05.mma idesc -----------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Sources: PTX ISA 9.7.16.4.2 "Instruction descriptor" (Table 42 for
// .kind::f8f6f4, Table 43 for .kind::mxf8f6f4, Table 44 for .kind::mxf4nvf4),
// 9.7.16.2.1 "Matrix Shape", 9.7.16.10.1 "Transpose and Negate operations",
// 9.7.16.10.7 "Block Scaling for tcgen05.mma"; and docs/nvidia-isa.md
// ("Instruction descriptor (32-bit)"). Where they disagree we follow PTX:
// * nvidia-isa.md calls the mxf4nvf4 type fields "2-bit"; PTX gives A a 3-bit
//   field (7-9) and B a 2-bit field (10-11) with bit 12 reserved. Both code
//   E2M1 as 1, so the bits agree.
// * nvidia-isa.md's "bit 31 selects K = 96" omits that PTX allows K = 96 only
//   on sm_103a and only for cta_group::2 with M = 256 (9.7.16.2.1.1): the
//   checker rejects it for sm_100a.
// * The older PTX text (8.7) lists only "F32 = 1" as the f8f6f4 D type in
//   Table 42 while its shape table allows .f16; PTX 9.x lists "F16 = 0,
//   F32 = 1", which nvidia-isa.md also has. We accept both.
// * For mxf8f6f4 nvidia-isa.md notes that CUTLASS writes M >> 4 into bits
//   24-28; PTX has M >> 7 in bits 27-28 with 24-26 reserved. The bits agree
//   for the legal M = 128 and 256 (tested below); we encode PTX's field.
// * nvidia-isa.md's shape list omits PTX's rule that an MN-major 8-bit B
//   needs N in steps of 16 (cta_group::1) or 32 (cta_group::2) (Table 50).
// * The mxf4nvf4 scale-id rules: Table 44 says "0 or 2" for both block sizes;
//   9.7.16.10.7.2 narrows block16 (scale_vec::4X) at K = 64 to id 0, which
//   nvidia-isa.md also says. We follow the narrower rule.
// The worked examples 0x08400010 and 0x08C00000 of nvidia-isa.md agree with
// PTX.
//
//===----------------------------------------------------------------------===//

#include "fp8/Target/Tcgen05InstrDescriptor.h"
#include "gtest/gtest.h"

using namespace mlir::fp8;

namespace {

/// E4M3 x E4M3 -> f32, K-major, M = 128, N = 256 in `kind`.
Tcgen05InstrDescriptor makeDesc(Tcgen05Kind kind) {
  Tcgen05InstrDescriptor desc;
  desc.kind = kind;
  desc.n = 256;
  if (kind == Tcgen05Kind::MXF4NVF4) {
    desc.aFormat = desc.bFormat = Format::E2M1;
    desc.scaleType = Tcgen05ScaleType::UE4M3;
    desc.scaleBlock = 16;
  }
  if (kind == Tcgen05Kind::TF32)
    desc.wideType = Tcgen05WideType::TF32;
  return desc;
}

/// The bits that differ between `desc` and the default of its kind.
uint32_t delta(const Tcgen05InstrDescriptor &desc) {
  return encodeTcgen05InstrDescriptor(desc) ^
         encodeTcgen05InstrDescriptor(makeDesc(desc.kind));
}

/// The reason checkTcgen05InstrDescriptor gives, or "legal".
std::string check(const Tcgen05InstrDescriptor &desc) {
  return checkTcgen05InstrDescriptor(desc).value_or("legal");
}

/// The bits that setting one field with `set` changes in the default
/// descriptor of `kind`.
template <typename Set>
uint32_t fieldBits(Tcgen05Kind kind, Set set) {
  Tcgen05InstrDescriptor desc = makeDesc(kind);
  set(desc);
  return delta(desc);
}

/// The fields f8f6f4 and mxf8f6f4 place alike: sparse, the 3-bit formats,
/// negation and majorness.
void expectCommonF8F6F4Fields(Tcgen05Kind kind) {
  using D = Tcgen05InstrDescriptor;
  EXPECT_EQ(fieldBits(kind, [](D &d) { d.sparse = true; }), 1u << 2);
  for (auto [format, code] : {std::pair{Format::E5M2, 1u},
                              {Format::E2M3, 3u},
                              {Format::E3M2, 4u},
                              {Format::E2M1, 5u}}) {
    EXPECT_EQ(fieldBits(kind, [&](D &d) { d.aFormat = format; }), code << 7);
    EXPECT_EQ(fieldBits(kind, [&](D &d) { d.bFormat = format; }), code << 10);
  }
  EXPECT_EQ(fieldBits(kind, [](D &d) { d.negateA = true; }), 1u << 13);
  EXPECT_EQ(fieldBits(kind, [](D &d) { d.negateB = true; }), 1u << 14);
  EXPECT_EQ(fieldBits(kind, [](D &d) { d.aMNMajor = true; }), 1u << 15);
  EXPECT_EQ(fieldBits(kind, [](D &d) { d.bMNMajor = true; }), 1u << 16);
}

TEST(Tcgen05InstrDescriptorTest, WorkedExamples) {
  // docs/nvidia-isa.md: E4M3 x E4M3 -> f32, K-major, M = 128, N = 256.
  Tcgen05InstrDescriptor f8 = makeDesc(Tcgen05Kind::F8F6F4);
  EXPECT_EQ(check(f8), "legal");
  EXPECT_EQ(encodeTcgen05InstrDescriptor(f8), 0x08400010u);
  // The same shape in mxf8f6f4 with UE8M0 scales and scale ids 0.
  Tcgen05InstrDescriptor mx = makeDesc(Tcgen05Kind::MXF8F6F4);
  EXPECT_EQ(check(mx), "legal");
  EXPECT_EQ(encodeTcgen05InstrDescriptor(mx), 0x08C00000u);
  // NVFP4 (not in nvidia-isa.md; computed from Table 44): E2M1 x E2M1 with
  // UE4M3 block16 scales: types 1 << 7 | 1 << 10, N >> 3 = 32, M >> 7 = 1.
  Tcgen05InstrDescriptor nv = makeDesc(Tcgen05Kind::MXF4NVF4);
  EXPECT_EQ(check(nv), "legal");
  EXPECT_EQ(encodeTcgen05InstrDescriptor(nv), 0x08400480u);
}

TEST(Tcgen05InstrDescriptorTest, F8F6F4Fields) {
  expectCommonF8F6F4Fields(Tcgen05Kind::F8F6F4);
  auto withField = [](auto set) { return fieldBits(Tcgen05Kind::F8F6F4, set); };
  using D = Tcgen05InstrDescriptor;
  EXPECT_EQ(withField([](D &d) { d.sparsitySelector = 3; }), 0x3u);
  EXPECT_EQ(withField([](D &d) { d.saturate = true; }), 1u << 3);
  // D type f32 = 1 -> f16 = 0 clears bit 4.
  EXPECT_EQ(withField([](D &d) { d.accType = Tcgen05AccType::F16; }), 1u << 4);
  // N >> 3 in bits 17-22: 256 -> 32 (0b100000), 8 -> 1.
  EXPECT_EQ(withField([](D &d) { d.n = 8; }), (32u ^ 1u) << 17);
  EXPECT_EQ(withField([](D &d) { d.n = 248; }), (32u ^ 31u) << 17);
  // M >> 4 in bits 24-28: 128 -> 8, 64 -> 4, 256 -> 16.
  EXPECT_EQ(withField([](D &d) { d.m = 64; }), (8u ^ 4u) << 24);
  EXPECT_EQ(withField([](D &d) { d.m = 256; }), (8u ^ 16u) << 24);
  for (auto [shift, code] : {std::pair{Tcgen05MaxShift::Shift8, 1u},
                             {Tcgen05MaxShift::Shift16, 2u},
                             {Tcgen05MaxShift::Shift32, 3u}})
    EXPECT_EQ(withField([&](D &d) { d.maxShift = shift; }), code << 30);
  // Fields of the block-scaled kinds have no bits here.
  EXPECT_EQ(withField([](D &d) { d.scaleType = Tcgen05ScaleType::UE4M3; }), 0u);
  EXPECT_EQ(withField([](D &d) { d.scaleFactorIdA = d.scaleFactorIdB = 3; }),
            0u);
  EXPECT_EQ(withField([](D &d) { d.k96 = true; }), 0u);
  // Nor do the qualifiers.
  EXPECT_EQ(withField([](D &d) { d.ctaGroup = 2; }), 0u);
  EXPECT_EQ(withField([](D &d) { d.weightStationary = true; }), 0u);
}

TEST(Tcgen05InstrDescriptorTest, MXF8F6F4Fields) {
  expectCommonF8F6F4Fields(Tcgen05Kind::MXF8F6F4);
  auto withField = [](auto set) {
    return fieldBits(Tcgen05Kind::MXF8F6F4, set);
  };
  using D = Tcgen05InstrDescriptor;
  EXPECT_EQ(withField([](D &d) { d.scaleFactorIdB = 3; }), 3u << 4);
  EXPECT_EQ(withField([](D &d) { d.scaleFactorIdA = 3; }), 3u << 29);
  EXPECT_EQ(withField([](D &d) { d.n = 16; }), (32u ^ 2u) << 17);
  // Scale type UE8M0 = 1 -> UE4M3 = 0 clears bit 23.
  EXPECT_EQ(withField([](D &d) { d.scaleType = Tcgen05ScaleType::UE4M3; }),
            1u << 23);
  // M >> 7 in bits 27-28: 128 -> 1, 256 -> 2.
  EXPECT_EQ(withField([](D &d) { d.m = 256; }), (1u ^ 2u) << 27);
  // The f8f6f4-only fields and mxf4nvf4's K bit have no bits here.
  EXPECT_EQ(withField([](D &d) { d.sparsitySelector = 3; }), 0u);
  EXPECT_EQ(withField([](D &d) { d.saturate = true; }), 0u);
  EXPECT_EQ(withField([](D &d) { d.accType = Tcgen05AccType::F16; }), 0u);
  EXPECT_EQ(withField([](D &d) { d.maxShift = Tcgen05MaxShift::Shift32; }), 0u);
  EXPECT_EQ(withField([](D &d) { d.k96 = true; }), 0u);
  EXPECT_EQ(withField([](D &d) { d.scaleBlock = 16; }), 0u);
}

TEST(Tcgen05InstrDescriptorTest, MXF4NVF4Fields) {
  auto withField = [](auto set) {
    return fieldBits(Tcgen05Kind::MXF4NVF4, set);
  };
  using D = Tcgen05InstrDescriptor;
  EXPECT_EQ(withField([](D &d) { d.sparse = true; }), 1u << 2);
  EXPECT_EQ(withField([](D &d) { d.scaleFactorIdB = 2; }), 2u << 4);
  EXPECT_EQ(withField([](D &d) { d.scaleFactorIdA = 2; }), 2u << 29);
  EXPECT_EQ(withField([](D &d) { d.negateA = true; }), 1u << 13);
  EXPECT_EQ(withField([](D &d) { d.negateB = true; }), 1u << 14);
  EXPECT_EQ(withField([](D &d) { d.n = 128; }), (32u ^ 16u) << 17);
  EXPECT_EQ(withField([](D &d) { d.scaleType = Tcgen05ScaleType::UE8M0; }),
            1u << 23);
  EXPECT_EQ(withField([](D &d) { d.m = 256; }), (1u ^ 2u) << 27);
  EXPECT_EQ(withField([](D &d) { d.k96 = true; }), 1u << 31);
  // E2M1 is always code 1; the format fields take no other value.
  EXPECT_EQ(withField([](D &d) { d.aFormat = Format::E4M3; }), 0u);
  EXPECT_EQ(withField([](D &d) { d.scaleBlock = 32; }), 0u);
}

TEST(Tcgen05InstrDescriptorTest, BlockScaledMFieldMatchesMShift4) {
  // CUTLASS's M >> 4 at bits 24-28 and PTX's M >> 7 at bits 27-28 agree for
  // the legal M.
  for (unsigned m : {128u, 256u}) {
    Tcgen05InstrDescriptor desc = makeDesc(Tcgen05Kind::MXF8F6F4);
    desc.m = m;
    EXPECT_EQ(encodeTcgen05InstrDescriptor(desc) & (0x1Fu << 24), (m >> 4)
                                                                      << 24);
  }
}

TEST(Tcgen05InstrDescriptorTest, LegalShapes) {
  // Every f8f6f4 format pair, cta_group::1 M, and N step 8 is legal.
  for (Format a :
       {Format::E4M3, Format::E5M2, Format::E2M1, Format::E2M3, Format::E3M2})
    for (Format b :
         {Format::E4M3, Format::E5M2, Format::E2M1, Format::E2M3, Format::E3M2})
      for (unsigned m : {64u, 128u})
        for (unsigned n = 8; n <= 256; n += 8) {
          Tcgen05InstrDescriptor desc = makeDesc(Tcgen05Kind::F8F6F4);
          desc.aFormat = a;
          desc.bFormat = b;
          desc.m = m;
          desc.n = n;
          ASSERT_EQ(check(desc), "legal") << m << "x" << n;
          desc.kind = Tcgen05Kind::MXF8F6F4;
          ASSERT_EQ(check(desc), m == 128 ? "legal"
                                          : "M = 64 is not a shape of "
                                            "tcgen05.mma.cta_group::1.kind::"
                                            "mxf8f6f4: M must be 128");
        }
  Tcgen05InstrDescriptor desc = makeDesc(Tcgen05Kind::MXF8F6F4);
  desc.ctaGroup = 2;
  desc.m = 256;
  desc.n = 32;
  desc.bMNMajor = true;
  EXPECT_EQ(check(desc), "legal");
  desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.weightStationary = true;
  desc.m = 32;
  desc.n = 64;
  desc.maxShift = Tcgen05MaxShift::Shift16;
  EXPECT_EQ(check(desc), "legal");
  desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.sparse = true;
  desc.sparsitySelector = 2;
  desc.accType = Tcgen05AccType::F16;
  desc.aFormat = Format::E2M3;
  desc.aMNMajor = true; // 6-bit operands may be MN-major
  EXPECT_EQ(check(desc), "legal");
  desc = makeDesc(Tcgen05Kind::MXF4NVF4);
  desc.scaleType = Tcgen05ScaleType::UE8M0;
  desc.scaleBlock = 32;
  desc.scaleFactorIdA = desc.scaleFactorIdB = 2;
  EXPECT_EQ(check(desc), "legal");
}

TEST(Tcgen05InstrDescriptorTest, ShapeReasons) {
  Tcgen05InstrDescriptor desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.m = 256;
  EXPECT_EQ(check(desc), "M = 256 is not a shape of "
                         "tcgen05.mma.cta_group::1.kind::f8f6f4: M must be "
                         "64 or 128");
  desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.n = 12;
  EXPECT_EQ(check(desc), "N = 12 is not a shape of "
                         "tcgen05.mma.cta_group::1.kind::f8f6f4: N must be a "
                         "multiple of 8 in 8..256");
  desc.n = 264;
  EXPECT_EQ(check(desc), "N = 264 is not a shape of "
                         "tcgen05.mma.cta_group::1.kind::f8f6f4: N must be a "
                         "multiple of 8 in 8..256");
  desc.n = 24;
  desc.bMNMajor = true;
  EXPECT_EQ(check(desc), "N = 24 is not a shape of "
                         "tcgen05.mma.cta_group::1.kind::f8f6f4 with an "
                         "MN-major 8-bit B: N must be a multiple of 16 in "
                         "16..256");
  desc.bFormat = Format::E3M2; // the rule is for 8-bit B only
  EXPECT_EQ(check(desc), "legal");
  desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.ctaGroup = 2;
  desc.n = 24;
  EXPECT_EQ(check(desc), "N = 24 is not a shape of "
                         "tcgen05.mma.cta_group::2.kind::f8f6f4: N must be a "
                         "multiple of 16 in 16..256");
  desc.n = 48;
  desc.bMNMajor = true;
  EXPECT_EQ(check(desc), "N = 48 is not a shape of "
                         "tcgen05.mma.cta_group::2.kind::f8f6f4 with an "
                         "MN-major 8-bit B: N must be a multiple of 32 in "
                         "32..256");
  desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.ctaGroup = 2;
  desc.m = 64;
  EXPECT_EQ(check(desc), "M = 64 is not a shape of "
                         "tcgen05.mma.cta_group::2.kind::f8f6f4: M must be "
                         "128 or 256");
  desc = makeDesc(Tcgen05Kind::MXF8F6F4);
  desc.ctaGroup = 2;
  desc.sparse = true;
  EXPECT_EQ(check(desc), "M = 128 is not a shape of "
                         "tcgen05.mma.cta_group::2.kind::mxf8f6f4 (sparse): "
                         "M must be 256");
  desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.weightStationary = true;
  desc.n = 96;
  EXPECT_EQ(check(desc), "N = 96 is not a shape of "
                         "tcgen05.mma.ws.cta_group::1.kind::f8f6f4: N must be "
                         "64, 128 or 256");
  desc.n = 256;
  desc.sparse = true;
  EXPECT_EQ(check(desc), "N = 256 is not a shape of "
                         "tcgen05.mma.ws.cta_group::1.kind::f8f6f4: N must be "
                         "64 or 128 when sparse");
  desc.n = 128;
  desc.m = 256;
  EXPECT_EQ(check(desc), "M = 256 is not a shape of "
                         "tcgen05.mma.ws.cta_group::1.kind::f8f6f4 (sparse): "
                         "M must be 32, 64 or 128");
}

TEST(Tcgen05InstrDescriptorTest, FormatAndMajornessReasons) {
  Tcgen05InstrDescriptor desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.aFormat = Format::E2M1;
  desc.aMNMajor = true;
  EXPECT_EQ(check(desc), "E2M1 operand A must be K-major on sm_100a");
  desc = makeDesc(Tcgen05Kind::MXF8F6F4);
  desc.bFormat = Format::E2M1;
  desc.bMNMajor = true;
  EXPECT_EQ(check(desc), "E2M1 operand B must be K-major on sm_100a");
  desc = makeDesc(Tcgen05Kind::MXF4NVF4);
  desc.bMNMajor = true;
  EXPECT_EQ(check(desc),
            "kind::mxf4nvf4 has no transpose: A and B must be K-major");
  desc = makeDesc(Tcgen05Kind::MXF4NVF4);
  desc.aFormat = Format::E4M3;
  EXPECT_EQ(check(desc),
            "kind::mxf4nvf4 multiplies E2M1 operands only, not E4M3 x E2M1");
}

TEST(Tcgen05InstrDescriptorTest, ScaleReasons) {
  Tcgen05InstrDescriptor desc = makeDesc(Tcgen05Kind::MXF8F6F4);
  desc.scaleType = Tcgen05ScaleType::UE4M3;
  EXPECT_EQ(check(desc), "kind::mxf8f6f4 takes UE8M0 scales only");
  desc = makeDesc(Tcgen05Kind::MXF8F6F4);
  desc.scaleBlock = 16;
  EXPECT_EQ(check(desc),
            "kind::mxf8f6f4 scales blocks of 32 elements (.block32) only");
  desc = makeDesc(Tcgen05Kind::MXF8F6F4);
  desc.scaleFactorIdA = 3;
  desc.scaleFactorIdB = 1;
  EXPECT_EQ(check(desc), "legal");
  desc.scaleFactorIdB = 4;
  EXPECT_EQ(check(desc), "scale factor ids of kind::mxf8f6f4 are 0-3");
  desc = makeDesc(Tcgen05Kind::MXF8F6F4);
  desc.accType = Tcgen05AccType::F16;
  EXPECT_EQ(check(desc), "kind::mxf8f6f4 accumulates in f32 only");

  desc = makeDesc(Tcgen05Kind::MXF4NVF4);
  desc.scaleBlock = 32;
  EXPECT_EQ(check(desc),
            "kind::mxf4nvf4 takes UE4M3 scales with .block16 only");
  desc.scaleType = Tcgen05ScaleType::UE8M0;
  desc.scaleFactorIdA = 1;
  EXPECT_EQ(check(desc), "scale factor A id 1 is illegal with .block32: it "
                         "must be 0 or 2");
  desc = makeDesc(Tcgen05Kind::MXF4NVF4);
  desc.scaleFactorIdB = 2;
  EXPECT_EQ(check(desc), "scale factor B id 2 is illegal with .block16: it "
                         "must be 0");
  desc = makeDesc(Tcgen05Kind::MXF4NVF4);
  desc.scaleBlock = 8;
  EXPECT_EQ(check(desc),
            "kind::mxf4nvf4 scales blocks of 16 or 32 elements, not 8");
  desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.scaleFactorIdA = 1;
  EXPECT_EQ(check(desc), "scale factor ids are not fields of kind::f8f6f4");
}

TEST(Tcgen05InstrDescriptorTest, UnsupportedFieldReasons) {
  Tcgen05InstrDescriptor desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.saturate = true;
  EXPECT_EQ(check(desc), "saturate (bit 3) applies to kind::i8 only");
  desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.sparsitySelector = 1;
  EXPECT_EQ(check(desc), "a sparsity selector needs the sparse bit");
  desc.sparse = true;
  desc.sparsitySelector = 4;
  EXPECT_EQ(check(desc), "sparsity selector 4 does not fit 2 bits");
  desc = makeDesc(Tcgen05Kind::MXF8F6F4);
  desc.sparse = true;
  desc.sparsitySelector = 1;
  EXPECT_EQ(check(desc),
            "bits 0-1 (sparsity selector) are reserved in kind::mxf8f6f4");
  desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.maxShift = Tcgen05MaxShift::Shift8;
  EXPECT_EQ(check(desc), "max shift (bits 30-31) needs tcgen05.mma.ws");
  desc = makeDesc(Tcgen05Kind::MXF8F6F4);
  desc.maxShift = Tcgen05MaxShift::Shift8;
  EXPECT_EQ(check(desc),
            "bits 30-31 (max shift) are not a field of kind::mxf8f6f4");
  desc = makeDesc(Tcgen05Kind::MXF8F6F4);
  desc.weightStationary = true;
  EXPECT_EQ(check(desc), "tcgen05.mma.ws has no kind::mxf8f6f4");
  desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.weightStationary = true;
  desc.ctaGroup = 2;
  EXPECT_EQ(check(desc), "tcgen05.mma.ws has no cta_group::2");
  desc = makeDesc(Tcgen05Kind::F8F6F4);
  desc.ctaGroup = 4;
  EXPECT_EQ(check(desc), "cta_group 4 is not 1 or 2");
  desc = makeDesc(Tcgen05Kind::MXF4NVF4);
  desc.ctaGroup = 2;
  desc.m = 256;
  desc.k96 = true;
  EXPECT_EQ(check(desc),
            "K = 96 (bit 31) exists only on sm_103a, not on sm_100a");
  desc = makeDesc(Tcgen05Kind::MXF8F6F4);
  desc.k96 = true;
  EXPECT_EQ(check(desc), "bit 31 (K = 96) is not a field of kind::mxf8f6f4");
}

// kind::f16 and kind::tf32 share the f8f6f4 layout (PTX Table 42 covers
// .kind::tf32, .kind::f16 and .kind::f8f6f4) with their own type codes: F16
// = 0, BF16 = 1, TF32 = 2.
TEST(Tcgen05InstrDescriptorTest, WideKindFields) {
  // BF16 x BF16 -> f32, K-major, M = 128, N = 256: the f8f6f4 example with
  // type codes 1 << 7 | 1 << 10.
  Tcgen05InstrDescriptor bf16 = makeDesc(Tcgen05Kind::F16);
  EXPECT_EQ(check(bf16), "legal");
  EXPECT_EQ(encodeTcgen05InstrDescriptor(bf16), 0x08400490u);
  Tcgen05InstrDescriptor f16 = bf16;
  f16.wideType = Tcgen05WideType::F16;
  EXPECT_EQ(check(f16), "legal");
  EXPECT_EQ(encodeTcgen05InstrDescriptor(f16), 0x08400010u);
  Tcgen05InstrDescriptor tf32 = makeDesc(Tcgen05Kind::TF32);
  EXPECT_EQ(check(tf32), "legal");
  EXPECT_EQ(encodeTcgen05InstrDescriptor(tf32), 0x08400910u);
  // The 8-bit formats have no bits in these kinds.
  using D = Tcgen05InstrDescriptor;
  EXPECT_EQ(fieldBits(Tcgen05Kind::F16, [](D &d) { d.aFormat = Format::E5M2; }),
            0u);
  // Both majornesses are legal, and flip bits 15 and 16.
  EXPECT_EQ(fieldBits(Tcgen05Kind::F16, [](D &d) { d.aMNMajor = true; }),
            1u << 15);
  bf16.aMNMajor = bf16.bMNMajor = true;
  EXPECT_EQ(check(bf16), "legal");
}

TEST(Tcgen05InstrDescriptorTest, WideKindReasons) {
  Tcgen05InstrDescriptor desc = makeDesc(Tcgen05Kind::F16);
  desc.wideType = Tcgen05WideType::TF32;
  EXPECT_EQ(check(desc), "kind::f16 multiplies F16 or BF16 operands, not TF32");
  desc = makeDesc(Tcgen05Kind::TF32);
  desc.wideType = Tcgen05WideType::BF16;
  EXPECT_EQ(check(desc), "kind::tf32 multiplies TF32 operands only");
  desc = makeDesc(Tcgen05Kind::TF32);
  desc.accType = Tcgen05AccType::F16;
  EXPECT_EQ(check(desc), "kind::tf32 accumulates in f32 only");
  desc = makeDesc(Tcgen05Kind::F16);
  desc.accType = Tcgen05AccType::F16;
  EXPECT_EQ(check(desc), "legal");
}

TEST(Tcgen05InstrDescriptorTest, KAndScalesPerMma) {
  Tcgen05InstrDescriptor desc = makeDesc(Tcgen05Kind::F8F6F4);
  EXPECT_EQ(getTcgen05MmaK(desc), 32u);
  EXPECT_EQ(getTcgen05ScalesPerMma(desc), 0u);
  desc.sparse = true;
  EXPECT_EQ(getTcgen05MmaK(desc), 64u);
  desc = makeDesc(Tcgen05Kind::MXF8F6F4);
  EXPECT_EQ(getTcgen05MmaK(desc), 32u);
  EXPECT_EQ(getTcgen05ScalesPerMma(desc), 1u);
  desc.sparse = true; // scale_vec::1X for every K
  EXPECT_EQ(getTcgen05ScalesPerMma(desc), 1u);
  desc = makeDesc(Tcgen05Kind::MXF4NVF4);
  EXPECT_EQ(getTcgen05MmaK(desc), 64u);
  EXPECT_EQ(getTcgen05ScalesPerMma(desc), 4u);
  desc.scaleBlock = 32;
  EXPECT_EQ(getTcgen05ScalesPerMma(desc), 2u);
  desc.k96 = true;
  EXPECT_EQ(getTcgen05MmaK(desc), 96u);
  EXPECT_EQ(getTcgen05ScalesPerMma(desc), 3u);
  // 32 bytes of K: 16 elements of 16 bits, 8 of tf32.
  desc = makeDesc(Tcgen05Kind::F16);
  EXPECT_EQ(getTcgen05MmaK(desc), 16u);
  EXPECT_EQ(getTcgen05ScalesPerMma(desc), 0u);
  desc = makeDesc(Tcgen05Kind::TF32);
  EXPECT_EQ(getTcgen05MmaK(desc), 8u);
  EXPECT_EQ(getTcgen05ScalesPerMma(desc), 0u);
}

TEST(Tcgen05InstrDescriptorTest, KindNames) {
  EXPECT_EQ(getTcgen05KindName(Tcgen05Kind::F8F6F4), "f8f6f4");
  EXPECT_EQ(getTcgen05KindName(Tcgen05Kind::MXF8F6F4), "mxf8f6f4");
  EXPECT_EQ(getTcgen05KindName(Tcgen05Kind::MXF4NVF4), "mxf4nvf4");
  EXPECT_EQ(getTcgen05KindName(Tcgen05Kind::F16), "f16");
  EXPECT_EQ(getTcgen05KindName(Tcgen05Kind::TF32), "tf32");
}

} // namespace
