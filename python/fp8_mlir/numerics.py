"""The numerics of docs/numerics.md, written from the formulas with numpy.

Values are float32 numpy arrays (or anything convertible); codes are the
integer bit patterns of the low-precision formats. Every f32 operation is a
numpy float32 operation, which IEEE-754 rounds exactly once, so results are
bit-exact references for the compiler's CPU execution.

Conventions (docs/numerics.md sections 2-5):
  * encode: q = ROUND_fmt(fl32(x * m)), one f32 multiply, then one rounding;
  * a granularity is a block shape for the trailing dimensions (None = the
    whole tensor; -1 = a whole dimension; leading dimensions get blocks of 1);
  * f32 scales are encode multipliers in `quantize` and decode multipliers in
    `dequantize`/`scaled_matmul`; E8M0 and E4M3 (NVFP4) scales are decode
    scales everywhere.
"""

import bisect
import math
from fractions import Fraction

import numpy as np

FLT_MAX = np.float32(np.finfo(np.float32).max)

# --------------------------------------------------------------------------
# Formats
# --------------------------------------------------------------------------


class Format:
    """A signed low-precision format from its field widths and NaN rules."""

    def __init__(self, name, exp_bits, mant_bits, bias, kind):
        self.name, self.e, self.m, self.bias, self.kind = (
            name, exp_bits, mant_bits, bias, kind)
        self.width = 1 + exp_bits + mant_bits
        # Positive finite values by code, from the definition of the fields.
        self.values = {}
        for code in range(1 << (self.width - 1)):
            value = self._field_value(code)
            if value is not None:
                self.values[code] = value
        self.codes = sorted(self.values, key=lambda c: self.values[c])
        self.max_code = self.codes[-1]
        self.max = self.values[self.max_code]
        previous = self.values[self.codes[-2]]
        # One step above the largest value: where rounding overflows.
        self.next_value = self.max + (self.max - previous)
        # Ascending magnitudes with their codes, the overflow step last.
        self.ladder = [Fraction(0)] + [self.values[c] for c in self.codes] + [self.next_value]
        self.ladder_codes = [0] + self.codes + [self.max_code + 1]
        self.ladder_floats = [float(v) for v in self.ladder]

    def _field_value(self, code):
        exp_field = code >> self.m
        mant = code & ((1 << self.m) - 1)
        all_ones = (1 << self.e) - 1
        if self.kind == "ieee" and exp_field == all_ones:
            return None  # infinity and NaN
        if self.kind == "fn" and code == (1 << (self.width - 1)) - 1:
            return None  # the only NaN
        if exp_field == 0:
            return Fraction(mant, 1 << self.m) * Fraction(2) ** (1 - self.bias)
        return (1 + Fraction(mant, 1 << self.m)) * Fraction(2) ** (exp_field - self.bias)

    @property
    def sign_bit(self):
        return 1 << (self.width - 1)

    @property
    def inf_code(self):
        return ((1 << self.e) - 1) << self.m if self.kind == "ieee" else None

    @property
    def nan_code(self):
        if self.kind == "ieee":
            return (((1 << self.e) - 1) << self.m) | (1 << (self.m - 1))
        if self.kind == "fn":
            return (1 << (self.width - 1)) - 1
        return None

    def decode(self, code):
        """The value of one code, as a Python float (exact)."""
        code = int(code)
        sign = -1.0 if code & self.sign_bit else 1.0
        magnitude = code & (self.sign_bit - 1)
        if magnitude in self.values:
            return sign * float(self.values[magnitude])
        if self.kind == "ieee" and magnitude == self.inf_code:
            return sign * math.inf
        # A NaN keeps its sign and payload: the code's mantissa on top of
        # the f32 one, quiet (section 2).
        bits = (0xFF800000 if sign < 0 else 0x7F800000) | 0x400000 | (
            (magnitude & ((1 << self.m) - 1)) << (23 - self.m))
        return float(f32_from_bits(bits))


FORMATS = {
    "f8E4M3FN": Format("f8E4M3FN", 4, 3, 7, "fn"),
    "f8E5M2": Format("f8E5M2", 5, 2, 15, "ieee"),
    "f4E2M1FN": Format("f4E2M1FN", 2, 1, 1, "finite"),
    "f6E2M3FN": Format("f6E2M3FN", 2, 3, 1, "finite"),
    "f6E3M2FN": Format("f6E3M2FN", 3, 2, 3, "finite"),
}
# emax_elem of the OCP MX floor rule: exponent of the largest power of two.
EMAX = {"f8E4M3FN": 8, "f8E5M2": 15, "f4E2M1FN": 2, "f6E2M3FN": 2, "f6E3M2FN": 4}


def fmt(name):
    return FORMATS[name]


# --------------------------------------------------------------------------
# f32 helpers
# --------------------------------------------------------------------------


def f32(x):
    return np.float32(x)


def f32_bits(x):
    return int(np.array(x, dtype=np.float32).view(np.uint32))


def f32_from_bits(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)[()]


def f32_quantum(x):
    """The spacing of f32 values at |x| (x finite, nonzero)."""
    x = abs(float(x))
    if x < 2.0 ** -126:
        return Fraction(2) ** -149
    return Fraction(2) ** (math.frexp(x)[1] - 1 - 23)


# --------------------------------------------------------------------------
# Conversions (section 2)
# --------------------------------------------------------------------------


def encode(x, name, overflow="saturate", rounding="rne", rbits=0):
    """One f32 value to a code of `name`: RNE (ties to the even code) or
    stochastic rounding, then the overflow rule. Rounding happens first: a
    value rounds to the step above the largest value only past the midpoint.
    overflow: "saturate" (our ops' default), "nonfinite" (our ops), or
    "apfloat" (arith.truncf; finite-only formats turn inf and NaN into 0)."""
    f = fmt(name)
    x = np.float32(x)
    sign = f.sign_bit if np.signbit(x) else 0
    if np.isnan(x):
        if f.kind == "finite":
            return sign  # no NaN: a signed zero
        if f.kind == "ieee":
            # E5M2: the quiet NaN 0x7E | p, p the f32 mantissa's top two bits.
            return sign | f.nan_code | ((f32_bits(x) >> 21) & 3)
        return sign | f.nan_code
    if np.isinf(x):
        if overflow == "saturate" or (f.kind == "finite" and overflow == "nonfinite"):
            return sign | f.max_code
        if f.kind == "finite":
            return sign  # APFloat
        return sign | (f.inf_code if f.kind == "ieee" else f.nan_code)
    v = abs(Fraction(float(x)))
    # Neighbours lo <= v < hi among 0, the values, and the overflow step.
    i = bisect.bisect_right(f.ladder_floats, abs(float(x))) - 1
    lo_code, lo = f.ladder_codes[i], f.ladder[i]
    if i + 1 < len(f.ladder):
        hi_code, hi = f.ladder_codes[i + 1], f.ladder[i + 1]
    else:  # beyond the overflow step: rounds to it whatever the mode
        hi_code, hi = f.max_code + 1, v + 1
    if v == lo:
        code = lo_code
    elif i + 1 >= len(f.ladder):
        code = hi_code  # past the overflow step: overflows in every mode
    elif rounding == "stochastic":
        ulp = hi - lo
        discarded = int(math.log2(ulp / f32_quantum(x)))
        frac = (v - lo) / ulp * (1 << discarded)
        assert frac.denominator == 1
        random = int(rbits) & ((1 << min(discarded, 32)) - 1)
        code = hi_code if int(frac) + random >= (1 << discarded) else lo_code
    else:
        if v - lo < hi - v:
            code = lo_code
        elif v - lo > hi - v:
            code = hi_code
        else:
            code = lo_code if lo_code % 2 == 0 else hi_code
    if code > f.max_code:  # overflow after rounding
        if overflow == "saturate" or f.kind == "finite":
            return sign | f.max_code
        return sign | (f.inf_code if f.kind == "ieee" else f.nan_code)
    return sign | code


def decode(code, name):
    return fmt(name).decode(code)


def e8m0_encode(x, rounding="rne", overflow="nonfinite"):
    """f32 to an E8M0 code (value 2^(code - 127), 255 = NaN). rceil: the
    smallest power of two >= x; floor: the largest <= x; rne: the nearest,
    ties (1.5 * 2^k) upward. Zero and values below 2^-127 give 0; negative
    values and NaN give 255; overflow and +inf give 254 (saturate) or 255."""
    x = float(np.float32(x))
    if math.isnan(x) or (x < 0):
        return 255
    if x == 0:
        return 0
    if math.isinf(x):
        return 254 if overflow == "saturate" else 255
    mantissa, exponent = math.frexp(x)  # x = mantissa * 2^exponent
    floor_log2 = exponent - 1
    code = floor_log2 + 127
    exact = mantissa == 0.5
    if rounding == "rceil" and not exact:
        code += 1
    elif rounding == "rne" and mantissa >= 0.75:
        code += 1
    if code < 0:
        return 0
    if code > 254:
        return 254 if overflow == "saturate" else 255
    return code


def e8m0_decode(code):
    code = int(code)
    return math.nan if code == 255 else math.ldexp(1.0, code - 127)


# --------------------------------------------------------------------------
# Scale rules (section 4)
# --------------------------------------------------------------------------


def ratio_scale(amax, fmax, margin=0, eps=0.0):
    """fmax / amax * 2^-margin in f32, for any target format's fmax."""
    fmax = f32(fmax)
    a = f32(amax)
    if eps and a <= f32(eps):
        a = f32(eps)
    if a == 0 or np.isinf(a) or np.isnan(a):
        return f32(1.0)
    with np.errstate(over="ignore", divide="ignore"):
        s = f32(fmax / a)
        s = f32(s * f32(2.0 ** -margin))
    return FLT_MAX if np.isinf(s) else s


def rule_ratio(amax, name, margin=0, eps=0.0):
    return ratio_scale(amax, fmt(name).max, margin, eps)


def truncate_pow2(s):
    """The largest power of two <= s, from the exponent bits (never log2)."""
    return f32_from_bits(f32_bits(s) & 0xFF800000)


def rule_pow2(amax, name, margin=0, eps=0.0):
    return truncate_pow2(rule_ratio(amax, name, margin, eps))


def rule_e8m0_rceil(amax, name):
    with np.errstate(over="ignore", invalid="ignore"):
        v = f32(f32(amax) * f32(1.0 / fmt(name).max))
    return e8m0_encode(v, "rceil", "saturate")


def rule_e8m0_floor(amax, name):
    a = float(np.float32(amax))
    if math.isnan(a) or math.isinf(a):
        return 255
    if a == 0:
        return 0
    floor_log2 = math.frexp(a)[1] - 1
    return min(max(floor_log2 - EMAX[name] + 127, 0), 254)


def rule_nvfp4_global(global_amax):
    a = f32(global_amax)
    fmax = f32(fmt("f8E4M3FN").max * fmt("f4E2M1FN").max)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = f32(fmax / a)
    s = FLT_MAX if np.isnan(q) else min(q, FLT_MAX)  # fminf
    return f32(1.0) if a == 0 or s == 0 else f32(s)


def rule_nvfp4_block(block_amax, global_scale):
    t = f32(f32(global_scale) * f32(1.0 / 6.0))
    with np.errstate(over="ignore"):
        v = f32(f32(block_amax) * t)
    return encode(v, "f8E4M3FN", "saturate")


def rule_pow2_bias(amax, name):
    a = f32(amax)
    if np.isnan(a):
        return f32(1.0)
    with np.errstate(divide="ignore", over="ignore"):
        q = f32(f32(fmt(name).max) / a)
    if np.isinf(q):
        b = 31
    elif q == 0:
        b = -31
    else:
        b = min(max(math.frexp(float(q))[1] - 1, -31), 31)
    return f32(2.0 ** b)


def compute_scale(amax, rule, name, margin=0, eps=0.0, global_scale=None):
    """The scale of one block: f32 encode scale, E8M0 code, or E4M3 code."""
    if rule == "ratio":
        return rule_ratio(amax, name, margin, eps)
    if rule == "pow2":
        return rule_pow2(amax, name, margin, eps)
    if rule == "e8m0_rceil":
        return rule_e8m0_rceil(amax, name)
    if rule == "e8m0_floor":
        return rule_e8m0_floor(amax, name)
    if rule == "pow2_bias":
        return rule_pow2_bias(amax, name)
    if rule == "nvfp4":
        if global_scale is None:
            return rule_nvfp4_global(amax)
        return rule_nvfp4_block(amax, global_scale)
    raise ValueError(f"unknown rule {rule}")


def rule_scale_kind(rule):
    return {"e8m0_rceil": "e8m0", "e8m0_floor": "e8m0", "nvfp4": "e4m3"}.get(rule, "f32")


def encode_multiplier(scale, kind, global_scale=None):
    """Element multiplier m of q = RNE(fl32(x * m))."""
    if kind == "f32":
        return f32(scale)
    if kind == "e8m0":
        return f32("nan") if int(scale) == 255 else f32(2.0 ** (127 - int(scale)))
    d = f32(f32(decode(scale, "f8E4M3FN")) * f32(f32(1.0) / f32(global_scale)))
    with np.errstate(divide="ignore"):
        m = f32(f32(1.0) / d)
    return FLT_MAX if np.isnan(m) else min(m, FLT_MAX)


def decode_multiplier(scale, kind, global_scale=None):
    """Element multiplier d of x = fl32(q * d)."""
    if kind == "f32":
        return f32(scale)
    if kind == "e8m0":
        return f32(e8m0_decode(scale))
    return f32(f32(decode(scale, "f8E4M3FN")) * f32(global_scale))


# --------------------------------------------------------------------------
# Granularity (section 5) and tensor ops
# --------------------------------------------------------------------------


def block_shape(shape, block):
    """Per-dimension block extents; block None = whole tensor, -1 = whole dim."""
    if block is None:
        return tuple(shape)
    lead = len(shape) - len(block)
    return tuple(1 if i < lead else (shape[i] if block[i - lead] == -1 else block[i - lead])
                 for i in range(len(shape)))


def scale_shape(shape, block):
    """ceil(dim / block) per dimension; a whole dimension of extent 0 has
    one scale, as the dialect's scale types say."""
    return tuple(-(-d // b) if b else 1 for d, b in zip(shape, block_shape(shape, block)))


def _block_index(index, blocks):
    return tuple(i // b for i, b in zip(index, blocks))


def amax(x, block, nan="ignore"):
    x = np.asarray(x, dtype=np.float32)
    blocks = block_shape(x.shape, block)
    out = np.zeros(scale_shape(x.shape, block), dtype=np.float32)
    for index in np.ndindex(*x.shape):
        j = _block_index(index, blocks)
        v = abs(x[index])
        if np.isnan(v):
            if nan == "propagate":
                out[j] = np.nan
            continue
        if not np.isnan(out[j]) and v > out[j]:
            out[j] = v
    return out


def encode_product(x, m):
    """fl32(x * m), a NaN product being the element's NaN: x when it is
    NaN, else the quiet NaN with x's sign (section 2)."""
    x = np.float32(x)
    with np.errstate(over="ignore", invalid="ignore"):
        y = f32(x * np.float32(m))
    if not np.isnan(y):
        return y
    if np.isnan(x):
        return x
    return f32_from_bits(0xFFC00000 if np.signbit(x) else 0x7FC00000)


def quantize(x, scale, block, name, overflow="saturate", kind="f32", global_scale=None,
             rounding="rne", rbits=None):
    x = np.asarray(x, dtype=np.float32)
    scale = np.asarray(scale)
    blocks = block_shape(x.shape, block)
    out = np.zeros(x.shape, dtype=np.int64)
    for index in np.ndindex(*x.shape):
        m = encode_multiplier(scale[_block_index(index, blocks)], kind, global_scale)
        y = encode_product(x[index], m)
        r = 0 if rbits is None else int(np.asarray(rbits)[index]) & 0xFFFFFFFF
        out[index] = encode(y, name, overflow, rounding, r)
    return out


def round_to(values, dtype):
    """f32 values to f32, bf16 or f16 by RNE (bf16 returned as float32 values)."""
    values = np.asarray(values, dtype=np.float32)
    if dtype == "f32":
        return values
    if dtype == "f16":
        with np.errstate(over="ignore"):
            return values.astype(np.float16).astype(np.float32)
    # As a 1-D array: numpy makes scalars of 0-d ones, whose unsigned bits
    # do not shift by a Python int, and whose dtype cannot be viewed.
    shape, values = values.shape, values.reshape(-1)
    bits = values.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = np.isnan(values)
    rounded = np.where(nan, (bits >> 16) | 0x40, rounded)
    return (rounded.astype(np.uint32) << 16).view(np.float32).reshape(shape)


def dequantize(codes, scale, block, name, kind="f32", global_scale=None, out="f32"):
    codes = np.asarray(codes)
    scale = np.asarray(scale)
    blocks = block_shape(codes.shape, block)
    out_values = np.zeros(codes.shape, dtype=np.float32)
    for index in np.ndindex(*codes.shape):
        d = decode_multiplier(scale[_block_index(index, blocks)], kind, global_scale)
        with np.errstate(over="ignore", invalid="ignore"):
            out_values[index] = f32(f32(decode(codes[index], name)) * d)
    return round_to(out_values, out)


def dynamic_quantize(x, block, rule, name, overflow="saturate", nan="ignore", margin=0,
                     eps=0.0):
    """amax, scale and quantize; returns (codes, decode scales[, global decode])."""
    x = np.asarray(x, dtype=np.float32)
    kind = rule_scale_kind(rule)
    global_encode = global_decode = None
    if rule == "nvfp4":
        global_amax = amax(x, None, nan).reshape(-1)[0]
        global_encode = rule_nvfp4_global(global_amax)
        global_decode = f32(f32(1.0) / global_encode)
    a = amax(x, block, nan)
    scales = np.empty(a.shape, dtype=np.float32 if kind == "f32" else np.int64)
    for index in np.ndindex(*a.shape):
        scales[index] = compute_scale(a[index], rule, name, margin, eps, global_encode)
    codes = quantize(x, scales, block, name, overflow, kind, global_encode)
    decode_scales = scales
    if kind == "f32":
        with np.errstate(divide="ignore"):
            decode_scales = (np.float32(1.0) / scales).astype(np.float32)
    if rule == "nvfp4":
        return codes, decode_scales, global_decode
    return codes, decode_scales


def scaled_matmul(a, sa, block_a, name_a, b, sb, block_b, name_b, kind_a="f32", kind_b="f32",
                  global_a=None, global_b=None, transpose_b=False, bias=None, out="f32",
                  transpose_a=False):
    """deq(A) [M, K] x deq(B) [K, N] (A stored [K, M] with transpose_a, B
    stored [N, K] with transpose_b; a leading batch dimension on both), f32
    products accumulated in K order, then bias, then rounding to `out`."""
    da = dequantize(a, sa, block_a, name_a, kind_a, global_a)
    db = dequantize(b, sb, block_b, name_b, kind_b, global_b)
    if transpose_a:
        da = np.swapaxes(da, -1, -2)
    if transpose_b:
        db = np.swapaxes(db, -1, -2)
    acc = np.zeros(da.shape[:-1] + db.shape[-1:], dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for kk in range(da.shape[-1]):
            product = (da[..., kk:kk + 1] * db[..., kk:kk + 1, :]).astype(np.float32)
            acc = (acc + product).astype(np.float32)
        if bias is not None:
            acc = (acc + np.asarray(bias, dtype=np.float32)).astype(np.float32)
    return round_to(acc, out)


# --------------------------------------------------------------------------
# Delayed scaling (section 7)
# --------------------------------------------------------------------------


def delayed_scaling(amaxes, length, name="f8E4M3FN", algo="max", zero_amax="roll", margin=0):
    """Runs the delayed-scaling state over a sequence of per-step amaxes.
    Returns (scales used at each step, final scale, final history)."""
    history = np.zeros(length, dtype=np.float32)
    scale = f32(1.0)
    used = []
    for step_amax in amaxes:
        step_amax = f32(step_amax)
        used.append(scale)
        if zero_amax == "skip" and step_amax == 0:
            continue
        history[0] = step_amax
        # `max` reduces magnitudes (the amax op's): a negative amax counts by
        # its magnitude there.
        a = np.max(np.abs(history)) if algo == "max" else history[0]
        if 0 < a < np.inf:
            scale = rule_ratio(a, name, margin)
        history = np.roll(history, -1)
        history[0] = 0
    return used, scale, history


# --------------------------------------------------------------------------
# Range-expanding group quantization (section 14)
# --------------------------------------------------------------------------

EXPAND_LIMIT = 5
EXPAND_MAX_STEPS = 8


def expand_power(y, j):
    """y^(2^j): j f32 squarings (j > 0) or -j f32 square roots (j < 0)."""
    y = f32(y)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for _ in range(j):
            y = f32(y * y)
        for _ in range(-j):
            y = np.sqrt(y, dtype=np.float32)
    return y


def expand_target(name):
    """T = fmax^2 / 2: the largest range (max / min) an expanded group spans."""
    fmax = f32(fmt(name).max)
    return f32(fmax * fmax / f32(2))


def expand_exponent(amax, amin, name, limit=EXPAND_LIMIT):
    """The exponent j of a group with largest finite magnitude `amax` and
    smallest finite nonzero magnitude `amin`: the largest j in [-limit, limit]
    with fl32(E_j(amin / amax) * T) >= 1, -limit if none, 0 if amax is 0."""
    amax = f32(amax)
    if amax == 0:
        return 0
    ratio = f32(f32(amin) / amax)
    target = expand_target(name)
    for j in range(limit, -limit - 1, -1):
        if f32(expand_power(ratio, j) * target) >= 1:
            return j
    return -limit


def expand_encode(x, amax, j, name):
    """One element to a code: RNE_sat(fl32(E_j(fl32(|x| / amax)) * fmax))
    with the sign of x; zero stays zero, NaN stays NaN."""
    x = f32(x)
    magnitude = abs(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = f32(0) if magnitude == 0 else f32(magnitude / f32(amax))
    with np.errstate(over="ignore", invalid="ignore"):
        v = f32(expand_power(y, j) * f32(fmt(name).max))
    return encode(np.copysign(v, x), name, "saturate")


def expand_decode(code, amax, j, name):
    """One code back to f32: fl32(E_-j(fl32(|q| / fmax)) * amax) with the
    code's sign (a NaN code too)."""
    value = f32(decode(code, name))
    j = min(max(int(j), -EXPAND_MAX_STEPS), EXPAND_MAX_STEPS)
    with np.errstate(over="ignore", invalid="ignore"):
        y = f32(abs(value) / f32(fmt(name).max))
        v = f32(expand_power(y, -j) * f32(amax))
    negative = bool(int(code) & fmt(name).sign_bit)
    return f32(np.copysign(v, f32(-1.0 if negative else 1.0)))


def expand_stats(x, block):
    """Per group: the largest finite magnitude (0 if none) and the smallest
    finite nonzero magnitude (+inf if none)."""
    x = np.asarray(x, dtype=np.float32)
    blocks = block_shape(x.shape, block)
    largest = np.zeros(scale_shape(x.shape, block), dtype=np.float32)
    smallest = np.full(largest.shape, np.inf, dtype=np.float32)
    for index in np.ndindex(*x.shape):
        v = abs(x[index])
        if not np.isfinite(v):
            continue
        j = _block_index(index, blocks)
        largest[j] = max(largest[j], v)
        if v > 0:
            smallest[j] = min(smallest[j], v)
    return largest, smallest


def expand_quantize(x, block, name="f8E4M3FN", limit=EXPAND_LIMIT):
    """fp8.expand_quantize: returns (codes, amax per group, exponent per group)."""
    x = np.asarray(x, dtype=np.float32)
    largest, smallest = expand_stats(x, block)
    exponents = np.zeros(largest.shape, dtype=np.int64)
    for index in np.ndindex(*largest.shape):
        exponents[index] = expand_exponent(largest[index], smallest[index], name, limit)
    blocks = block_shape(x.shape, block)
    codes = np.zeros(x.shape, dtype=np.int64)
    for index in np.ndindex(*x.shape):
        j = _block_index(index, blocks)
        codes[index] = expand_encode(x[index], largest[j], exponents[j], name)
    return codes, largest, exponents


def expand_dequantize(codes, amax, exponents, block, name="f8E4M3FN", out="f32"):
    """fp8.expand_dequantize."""
    codes = np.asarray(codes)
    amax = np.asarray(amax, dtype=np.float32)
    exponents = np.asarray(exponents)
    blocks = block_shape(codes.shape, block)
    values = np.zeros(codes.shape, dtype=np.float32)
    for index in np.ndindex(*codes.shape):
        j = _block_index(index, blocks)
        values[index] = expand_decode(codes[index], amax[j], exponents[j], name)
    return round_to(values, out)


# --------------------------------------------------------------------------
# FP8-LM training state (section 15)
# --------------------------------------------------------------------------

F16_MAX = 65504.0


def scaled_f16_encode(w):
    """A master weight (or second moment) as f16 values times a power-of-two
    tensor scale: returns (f16 values, encode scale s)."""
    w = np.asarray(w, dtype=np.float32)
    s = truncate_pow2(ratio_scale(amax(w, None).reshape(-1)[0], F16_MAX))
    with np.errstate(over="ignore"):
        return (w * s).astype(np.float32).astype(np.float16), s


def scaled_f16_decode(values, s):
    inverse = f32(f32(1.0) / f32(s))
    return (np.asarray(values, dtype=np.float16).astype(np.float32) * inverse).astype(np.float32)


def grad_autoscale_update(e, c, saturated, n, window=1000):
    """One step of the gradient auto-scaling state (mu = 2^e, c clean steps):
    halve mu when more than 0.001% of the n summed elements saturated, double
    it (up to 1) after `window` clean steps."""
    if saturated * 100000 > n:
        return e - 1, 0
    c += 1
    if c == window:
        return min(e + 1, 0), 0
    return e, c


def adamw_step(w, g, m, v, lr, b1, b2, eps, wd, b1t, b2t):
    """One AdamW step in f32 in the order of section 15; returns (w, m, v)."""
    w, g, m, v = (np.asarray(t, dtype=np.float32) for t in (w, g, m, v))
    lr, b1, b2, eps, wd, b1t, b2t = (f32(t) for t in (lr, b1, b2, eps, wd, b1t, b2t))
    one = f32(1)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        w = (w * f32(one - f32(lr * wd))).astype(np.float32)
        m = ((b1 * m).astype(np.float32) + (f32(one - b1) * g).astype(np.float32)).astype(
            np.float32)
        g2 = ((f32(one - b2) * g).astype(np.float32) * g).astype(np.float32)
        v = ((b2 * v).astype(np.float32) + g2).astype(np.float32)
        d = ((np.sqrt(v) / np.sqrt(b2t)).astype(np.float32) + eps).astype(np.float32)
        w = (w - (f32(lr / b1t) * (m / d).astype(np.float32)).astype(np.float32)).astype(
            np.float32)
    return w, m, v


def coat_adamw_step(w, g, m_state, v_state, block, lr, b1, b2, eps, wd, b1t, b2t,
                    name="f8E4M3FN", limit=EXPAND_LIMIT):
    """One AdamW step with COAT's optimizer state: both moments decoded from
    (codes, amax, exponent) per group, updated, and encoded again. Returns
    (w, new m state, new v state)."""
    m = expand_dequantize(*m_state, block, name)
    v = expand_dequantize(*v_state, block, name)
    w, m, v = adamw_step(w, g, m, v, lr, b1, b2, eps, wd, b1t, b2t)
    return w, expand_quantize(m, block, name, limit), expand_quantize(v, block, name, limit)


# --- erf (numerics.md section 16) ---------------------------------------------

# Coefficients from the constant term up, as numerics.md lists them.
ERF_SMALL = [float.fromhex(h) for h in (
    "0x1.06eba8p-3", "-0x1.81273ep-2", "0x1.ce2d2p-4", "-0x1.b7fbbap-6", "0x1.541a2p-8",
    "-0x1.a486fep-11", "0x1.4ae774p-14")]
ERFC_LARGE = [float.fromhex(h) for h in (
    "0x1.aab2ep-12", "-0x1.1d7c4p-9", "0x1.64f3aap-8", "-0x1.11b804p-7", "0x1.1a4e8ap-7",
    "-0x1.8ffb82p-8", "0x1.716226p-9", "-0x1.2b09aap-11", "-0x1.2c6bdap-12", "0x1.2472b4p-12",
    "-0x1.03943ap-14", "-0x1.610112p-16", "0x1.322cfp-17")]
ERF_ONE = float.fromhex("0x1.f66666p+1")  # f32(3.925)


def fma_f32(a, b, c):
    """fma(a, b, c) of f32 arrays with one rounding (RNE). The product of two
    f32 is exact in float64; the sum is hi + lo exactly (TwoSum); hi rounds
    to f32 like hi + lo unless hi lies exactly halfway between two f32, where
    lo decides."""
    a, b, c = (np.asarray(v, np.float32).astype(np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        p = a * b
        hi = p + c
        z = hi - p
        lo = (p - (hi - z)) + (c - z)
        r = hi.astype(np.float32)
        toward = np.nextafter(r, np.where(hi > r, np.float32(np.inf), np.float32(-np.inf)))
        halfway = (r.astype(np.float64) != hi) & np.isfinite(hi) & \
            (hi == (r.astype(np.float64) + toward.astype(np.float64)) / 2)
        # At a halfway point RNE chose r; lo on the side of `toward` moves it.
        move = halfway & (lo != 0) & ((lo > 0) == (toward > r))
    return np.where(move, toward, r).astype(np.float32)


def erf_f32(x):
    """erf of f32 values exactly as fp8-expand-math and the GPU kernels
    compute it (numerics.md section 16)."""
    x = np.asarray(x, np.float32)
    with np.errstate(all="ignore"):
        a = np.abs(x)
        s = (a * a).astype(np.float32)
        q = np.full_like(a, np.float32(ERF_SMALL[-1]))
        for c in reversed(ERF_SMALL[:-1]):
            q = fma_f32(q, s, c)
        small = fma_f32(a, q, a)
        t = (a - np.float32(2.5)).astype(np.float32)
        e = np.full_like(a, np.float32(ERFC_LARGE[-1]))
        for c in reversed(ERFC_LARGE[:-1]):
            e = fma_f32(e, t, c)
        large = (np.float32(1) - e).astype(np.float32)
        r = np.where(a < np.float32(1), small, large)
        r = np.where(a >= np.float32(ERF_ONE), np.float32(1), r)
    return np.copysign(r, x).astype(np.float32)


# --- exp (numerics.md section 17) ---------------------------------------------

# (e^r - 1) / r from the constant term up, as numerics.md lists them.
EXP_POLY = [float.fromhex(h) for h in (
    "0x1p+0", "0x1p-1", "0x1.55547cp-3", "0x1.55547p-5", "0x1.123d92p-7", "0x1.6da76p-10")]
EXP_LOG2E = float.fromhex("0x1.715476p+0")
EXP_LN2_HIGH = float.fromhex("0x1.62e43p-1")
EXP_LN2_LOW = float.fromhex("-0x1.05c61p-29")


def _pow2_f32(k):
    """2^k for integer-valued f32 k in [-126, 127], as f32."""
    return ((np.asarray(k).astype(np.int64) + 127) << 23).astype(np.uint32).view(np.float32)


def exp_f32(x):
    """exp of f32 values exactly as fp8-expand-math and the GPU kernels
    compute it (numerics.md section 17)."""
    x = np.asarray(x, np.float32)
    with np.errstate(all="ignore"):
        nan = np.isnan(x)
        c = np.where(nan, np.float32(0), x)
        c = np.where(c < np.float32(-104), np.float32(-104), c)
        c = np.where(c > np.float32(89), np.float32(89), c).astype(np.float32)
        k = np.rint((c * np.float32(EXP_LOG2E)).astype(np.float32)).astype(np.float32)
        r = fma_f32(k, -EXP_LN2_HIGH, c)
        r = fma_f32(k, -EXP_LN2_LOW, r)
        q = np.full_like(r, np.float32(EXP_POLY[-1]))
        for coefficient in reversed(EXP_POLY[:-1]):
            q = fma_f32(q, r, coefficient)
        p = fma_f32(r, q, 1.0)
        k1 = np.floor((k * np.float32(0.5)).astype(np.float32)).astype(np.float32)
        k2 = (k - k1).astype(np.float32)
        y = ((p * _pow2_f32(k1)).astype(np.float32) * _pow2_f32(k2)).astype(np.float32)
    return np.where(nan, x, y).astype(np.float32)


# --- tanh and log (numerics.md section 18) ------------------------------------

def _hex32(*values):
    return [np.float32(float.fromhex(v)) for v in values]


# tanh: the clamp, the bound below which tanh(x) is x, the odd numerator's
# coefficients from x^1 up and the even denominator's from x^0 up (upstream
# MLIR's polynomial approximation, as LLVM 22.1 emits them).
TANH_CLAMP = float.fromhex("0x1.ffec88p+2")
TANH_TINY = float.fromhex("0x1.a36e2ep-12")
TANH_NUM = _hex32("0x1.40b3b8p-8", "0x1.4e1bdap-11", "0x1.f28694p-17", "0x1.b80082p-25",
                  "-0x1.7a6ffep-34", "0x1.c266fcp-43", "-0x1.3e4b8p-52")
TANH_DEN = _hex32("0x1.40b3bap-8", "0x1.29540ap-9", "0x1.f12bacp-14", "0x1.41a7bp-20")


def tanh_f32(x):
    """tanh of f32 values exactly as fp8-expand-math and the GPU kernels
    compute it (numerics.md section 18)."""
    x = np.asarray(x, np.float32)
    with np.errstate(all="ignore"):
        clamp = np.float32(TANH_CLAMP)
        # Selects that keep NaN: x when x < c or unordered.
        c = np.where(~(x >= clamp), x, clamp).astype(np.float32)
        c = np.where(~(c <= -clamp), c, -clamp).astype(np.float32)
        s = (c * c).astype(np.float32)
        p = fma_f32(s, TANH_NUM[6], TANH_NUM[5])
        for coefficient in reversed(TANH_NUM[:5]):
            p = fma_f32(s, p, coefficient)
        p = (c * p).astype(np.float32)
        q = fma_f32(s, TANH_DEN[3], TANH_DEN[2])
        for coefficient in reversed(TANH_DEN[:2]):
            q = fma_f32(s, q, coefficient)
        r = (p / q).astype(np.float32)
    return np.where(np.abs(x) < np.float32(TANH_TINY), c, r).astype(np.float32)


# log: sqrt(1/2), the coefficients P0 to P8 (Cephes' logf, through Pommier's
# SSE library), ln 2 rounded to f32.
LOG_SQRT_HALF = float.fromhex("0x1.6a09e6p-1")
LOG_POLY = _hex32("0x1.204376p-4", "-0x1.d7a37p-4", "0x1.de4a34p-4", "-0x1.fcba9ep-4",
                  "0x1.23d37ep-3", "-0x1.555ca0p-3", "0x1.999d58p-3", "-0x1.fffff8p-3",
                  "0x1.555554p-2")
LOG_LN2 = float.fromhex("0x1.62e43p-1")


def log_f32(x):
    """The natural logarithm of f32 values exactly as fp8-expand-math and the
    GPU kernels compute it (numerics.md section 18)."""
    x = np.asarray(x, np.float32)
    P = LOG_POLY
    with np.errstate(all="ignore"):
        smallest = np.float32(2.0 ** -126)
        # max(x, 2^-126), keeping NaN: subnormals count as 2^-126.
        a = np.where(~(x <= smallest), x, smallest).astype(np.float32)
        bits = a.view(np.uint32)
        m = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(np.float32)
        e = ((bits >> np.uint32(23)).astype(np.float32) - np.float32(126)).astype(np.float32)
        below = m < np.float32(LOG_SQRT_HALF)
        f = (m - np.float32(1)).astype(np.float32)
        e = (e - np.where(below, np.float32(1), np.float32(0))).astype(np.float32)
        f = (f + np.where(below, m, np.float32(0))).astype(np.float32)
        f2 = (f * f).astype(np.float32)
        f3 = (f2 * f).astype(np.float32)
        y0 = fma_f32(fma_f32(np.full_like(f, P[0]), f, P[1]), f, P[2])
        y1 = fma_f32(fma_f32(np.full_like(f, P[3]), f, P[4]), f, P[5])
        y2 = fma_f32(fma_f32(np.full_like(f, P[6]), f, P[7]), f, P[8])
        y = fma_f32(fma_f32(y0, f3, y1), f3, y2)
        y = (y * f3).astype(np.float32)
        y = fma_f32(np.full_like(f, np.float32(-0.5)), f2, y)
        r = fma_f32(e, LOG_LN2, (f + y).astype(np.float32))
        r = np.where(x == np.float32(np.inf), np.float32(np.inf), r)
        r = np.where(~(x >= np.float32(0)), np.float32(np.nan), r)
        r = np.where(x == np.float32(0), np.float32(-np.inf), r)
    return r.astype(np.float32)
