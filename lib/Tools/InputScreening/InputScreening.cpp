//===- InputScreening.cpp - Input the upstream parser cannot take ---------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Tools/InputScreening.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>

using namespace mlir;
using namespace mlir::fp8;

/// Ops whose custom parser (or, in the generic form, whose verifier) builds a
/// list with one entry per element of a shaped type before it checks
/// anything: `tensor.from_elements %a : tensor<2147483647xf32>` allocates
/// 16 GiB to say that one operand is too few.
static constexpr StringLiteral kPerElementOps[] = {
    "tensor.from_elements", "vector.from_elements", "vector.to_elements"};

/// Reports `message` at `where` and fails.
static LogicalResult fail(ScreeningErrorFn emitError, const char *where,
                          const Twine &message) {
  emitError(where, message);
  return failure();
}

static bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$';
}

/// Whether `text[pos, pos + length)` is a whole word of `text`, not part of a
/// longer identifier and not in a line comment.
static bool isWholeWord(StringRef text, size_t pos, size_t length) {
  if (pos > 0 && isIdentifierChar(text[pos - 1]))
    return false;
  if (pos + length < text.size() && isIdentifierChar(text[pos + length]))
    return false;
  size_t lineStart = text.rfind('\n', pos);
  lineStart = lineStart == StringRef::npos ? 0 : lineStart + 1;
  return !text.slice(lineStart, pos).contains("//");
}

/// `array<index: ...>`: dense arrays have no index element type, and the
/// parser dereferences a null bit width instead of saying so.
static LogicalResult rejectDenseArraysOfIndex(StringRef text,
                                              ScreeningErrorFn emitError) {
  for (size_t pos = text.find("array"); pos != StringRef::npos;
       pos = text.find("array", pos + 1)) {
    StringRef rest = text.drop_front(pos + 5).ltrim();
    if (!rest.consume_front("<"))
      continue;
    rest = rest.ltrim();
    if (!rest.starts_with("index"))
      continue;
    StringRef after = rest.drop_front(5);
    if (!after.empty() &&
        (llvm::isAlnum(after.front()) || after.front() == '_'))
      continue;
    return fail(emitError, text.data() + pos,
                "dense arrays of `index` are not supported; use "
                "array<i64: ...> (or i1, i8, i16, i32, f32, f64)");
  }
  return success();
}

/// The number of elements of the static `tensor<...>` or `vector<...>` type
/// at the start of `text`, saturated at UINT64_MAX; std::nullopt for anything
/// else (a dynamic or unranked shape, a scalar type).
static std::optional<uint64_t> getStaticElementCount(StringRef text) {
  if (!text.consume_front("tensor") && !text.consume_front("vector"))
    return std::nullopt;
  text = text.ltrim();
  if (!text.consume_front("<"))
    return std::nullopt;
  uint64_t count = 1;
  bool ranked = false;
  while (true) {
    text = text.ltrim();
    bool scalable = text.consume_front("[");
    uint64_t dim;
    // Stops at the element type, or at `?` and `*` (no static count).
    if (text.consumeInteger(/*Radix=*/10, dim))
      break;
    if (scalable && !text.consume_front("]"))
      return std::nullopt;
    text = text.ltrim();
    if (!text.consume_front("x"))
      return std::nullopt;
    count = llvm::SaturatingMultiply(count, dim);
    ranked = true;
  }
  if (!ranked || text.starts_with("?") || text.starts_with("*"))
    return std::nullopt;
  return count;
}

/// The text of the op that follows `text.front()`: the rest of its line, the
/// lines that continue it (starting with `:` or `->`) and whatever is inside
/// brackets, up to the bracket that closes an enclosing construct.
static StringRef getOpText(StringRef text) {
  int depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    switch (text[i]) {
    case '"':
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '(':
    case '[':
    case '{':
      ++depth;
      break;
    case ')':
    case ']':
    case '}':
      if (--depth < 0)
        return text.take_front(i);
      break;
    case '\n': {
      if (depth != 0)
        break;
      StringRef next = text.drop_front(i + 1).ltrim();
      if (!next.starts_with(":") && !next.starts_with("->"))
        return text.take_front(i);
      break;
    }
    default:
      break;
    }
  }
  return text;
}

/// The op text (getOpText) after each occurrence of `opName` in `text`, in
/// the custom form or (quoted) the generic one.
static SmallVector<StringRef> findOpTexts(StringRef text, StringRef opName) {
  SmallVector<StringRef> found;
  for (size_t pos = text.find(opName); pos != StringRef::npos;
       pos = text.find(opName, pos + 1)) {
    if (!isWholeWord(text, pos, opName.size()))
      continue;
    size_t end = pos + opName.size();
    if (pos > 0 && text[pos - 1] == '"' && end < text.size() &&
        text[end] == '"')
      ++end;
    found.push_back(getOpText(text.drop_front(end)));
  }
  return found;
}

/// Rejects the per-element ops whose types have more than `maxElements`
/// elements.
static LogicalResult rejectHugePerElementOps(StringRef text,
                                             const ScreeningOptions &options,
                                             ScreeningErrorFn emitError) {
  uint64_t maxElements = options.maxMaterializedElements;
  for (StringRef opName : kPerElementOps) {
    for (StringRef opText : findOpTexts(text, opName)) {
      for (size_t typePos = 0; typePos < opText.size(); ++typePos) {
        if (typePos > 0 && isIdentifierChar(opText[typePos - 1]))
          continue;
        std::optional<uint64_t> count =
            getStaticElementCount(opText.drop_front(typePos));
        if (!count || *count <= maxElements)
          continue;
        return fail(
            emitError, opText.data() + typePos,
            "'" + opName + "' of " + Twine(*count) + " elements exceeds the " +
                Twine(maxElements) + " elements materialized for one op" +
                (options.limitOption.empty()
                     ? Twine()
                     : "; raise " + options.limitOption + " to allow it"));
      }
    }
  }
  return success();
}

/// The custom forms of `opName` in `text`: for each, where its name starts
/// and the op's text after it (getOpText). The generic form, whose quoted
/// name takes properties and regions written out, is left out.
static SmallVector<std::pair<const char *, StringRef>>
findCustomForms(StringRef text, StringRef opName) {
  SmallVector<std::pair<const char *, StringRef>> forms;
  for (size_t pos = text.find(opName); pos != StringRef::npos;
       pos = text.find(opName, pos + 1))
    if (isWholeWord(text, pos, opName.size()) &&
        (pos == 0 || text[pos - 1] != '"'))
      forms.push_back(
          {text.data() + pos, getOpText(text.drop_front(pos + opName.size()))});
  return forms;
}

/// Named contractions whose custom form builds its body by casting operands
/// to the result's element type: a cast to or from `index` yields no value,
/// and the builder then dereferences it (linalg.matmul and the others report
/// an error instead).
static constexpr StringLiteral kIndexCrashingOps[] = {
    "linalg.batch_matmul", "linalg.batch_reduce_matmul"};

/// Rejects those contractions, in their custom form, with an operand or
/// result of `index` elements.
static LogicalResult rejectIndexContractions(StringRef text,
                                             ScreeningErrorFn emitError) {
  for (StringRef opName : kIndexCrashingOps) {
    for (auto [name, opText] : findCustomForms(text, opName)) {
      for (size_t at = opText.find("index>"); at != StringRef::npos;
           at = opText.find("index>", at + 1)) {
        if (at == 0 || (opText[at - 1] != 'x' && opText[at - 1] != '<'))
          continue;
        return fail(
            emitError, name,
            "'" + opName +
                "' of `index` elements is not supported: its custom form "
                "casts operands to the result's element type, which index "
                "elements have no cast for; write it as a linalg.generic");
      }
    }
  }
  return success();
}

/// The custom forms whose parser reads an integer list with
/// DenseI64ArrayAttr::parse and stores what it returns unchecked: after a
/// malformed list's diagnostic the parser dereferences a null attribute.
static constexpr std::pair<StringLiteral, StringLiteral> kIntegerListOps[] = {
    {"linalg.transpose", "permutation"},
    {"linalg.broadcast", "dimensions"},
    {"linalg.reduce", "dimensions"}};

/// `text` without its leading whitespace and line comments.
static StringRef skipSpace(StringRef text) {
  while (true) {
    text = text.ltrim();
    if (!text.starts_with("//"))
      return text;
    size_t end = text.find('\n');
    text = end == StringRef::npos ? StringRef() : text.drop_front(end);
  }
}

/// Rejects tensor.expand_shape (custom or generic form) with an empty group
/// in its reassociation (`[[0, 1], []]`): the verifier builds an affine map
/// per group and dereferences the null expression of the empty one
/// (collapse_shape and memref's ops report it).
static LogicalResult
rejectEmptyReassociationGroups(StringRef text, ScreeningErrorFn emitError) {
  StringRef opName = "tensor.expand_shape";
  for (StringRef opText : findOpTexts(text, opName)) {
    for (size_t open = opText.find('['); open != StringRef::npos;
         open = opText.find('[', open + 1)) {
      // `[` `]` after a `[` or a `,`: an empty group inside the list.
      if (!skipSpace(opText.drop_front(open + 1)).starts_with("]"))
        continue;
      StringRef before = opText.take_front(open).rtrim();
      if (before.ends_with("[") || before.ends_with(","))
        return fail(emitError, opText.data() + open,
                    "'" + opName +
                        "' with an empty reassociation group: every group "
                        "lists at least one dimension (the upstream verifier "
                        "crashes on an empty one)");
    }
  }
  return success();
}

/// Whether `text` starts with a list that DenseI64ArrayAttr::parse takes:
/// `[]`, or `[` integers separated by commas `]`, each a decimal or `0x`
/// hexadecimal literal, optionally negative, that fits in 64 bits.
static bool startsWithIntegerList(StringRef text) {
  text = skipSpace(text);
  if (!text.consume_front("["))
    return false;
  text = skipSpace(text);
  if (text.starts_with("]"))
    return true;
  while (true) {
    bool negative = text.consume_front("-");
    bool hex = text.starts_with("0x");
    StringRef digits = hex ? text.drop_front(2) : text;
    size_t length = 0;
    while (length < digits.size() && (hex ? llvm::isHexDigit(digits[length])
                                          : llvm::isDigit(digits[length])))
      ++length;
    uint64_t magnitude;
    if (length == 0 ||
        (length < digits.size() && isIdentifierChar(digits[length])) ||
        digits.take_front(length).getAsInteger(hex ? 16 : 10, magnitude) ||
        magnitude > uint64_t(INT64_MAX) + (negative ? 1 : 0))
      return false;
    text = skipSpace(digits.drop_front(length));
    if (text.starts_with("]"))
      return true;
    if (!text.consume_front(","))
      return false;
    text = skipSpace(text);
  }
}

/// Rejects the custom forms of kIntegerListOps whose list is malformed.
static LogicalResult rejectMalformedIntegerLists(StringRef text,
                                                 ScreeningErrorFn emitError) {
  for (auto [opName, keyword] : kIntegerListOps) {
    for (auto [name, opText] : findCustomForms(text, opName)) {
      // The keyword outside brackets, followed by `=`.
      int depth = 0;
      for (size_t i = 0; i < opText.size(); ++i) {
        char c = opText[i];
        if (c == '(' || c == '[' || c == '{' || c == '<')
          ++depth;
        else if (c == ')' || c == ']' || c == '}' ||
                 (c == '>' && (i == 0 || opText[i - 1] != '-')))
          --depth;
        if (depth != 0 || !opText.drop_front(i).starts_with(keyword) ||
            (i > 0 && (isIdentifierChar(opText[i - 1]) ||
                       StringRef("%@#^!").contains(opText[i - 1]))))
          continue;
        StringRef rest = skipSpace(opText.drop_front(i + keyword.size()));
        if (!rest.consume_front("="))
          continue;
        if (startsWithIntegerList(rest))
          break;
        return fail(
            emitError, opText.data() + i,
            "'" + keyword + "' of '" + opName +
                "' must be a list of 64-bit integers in brackets, such as "
                "[1, 0] (the upstream parser crashes on anything else)");
      }
    }
  }
  return success();
}

LogicalResult fp8::screenInput(StringRef text, const ScreeningOptions &options,
                               ScreeningErrorFn emitError) {
  if (text.starts_with("ML\xEFR"))
    return success(); // bytecode
  if (failed(rejectDenseArraysOfIndex(text, emitError)) ||
      failed(rejectMalformedIntegerLists(text, emitError)) ||
      failed(rejectIndexContractions(text, emitError)) ||
      failed(rejectEmptyReassociationGroups(text, emitError)))
    return failure();
  if (options.maxMaterializedElements == 0)
    return success();
  return rejectHugePerElementOps(text, options, emitError);
}

LogicalResult fp8::screenInput(const llvm::MemoryBuffer &buffer,
                               const ScreeningOptions &options) {
  return screenInput(
      buffer.getBuffer(), options,
      [&](const char *where, const Twine &message) {
        llvm::SourceMgr sourceMgr;
        sourceMgr.AddNewSourceBuffer(
            llvm::MemoryBuffer::getMemBuffer(buffer.getMemBufferRef(),
                                             /*RequiresNullTerminator=*/false),
            llvm::SMLoc());
        sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(where),
                               llvm::SourceMgr::DK_Error, message);
      });
}

LogicalResult fp8::screenInput(StringRef text, StringRef sourceName,
                               MLIRContext *context,
                               const ScreeningOptions &options) {
  return screenInput(
      text, options, [&](const char *where, const Twine &message) {
        // Lines and columns count from 1, as the parser's locations do.
        StringRef before = text.take_front(where - text.data());
        unsigned line = before.count('\n') + 1;
        size_t lineStart = before.rfind('\n');
        unsigned column = before.size() -
                          (lineStart == StringRef::npos ? 0 : lineStart + 1) +
                          1;
        emitError(FileLineColLoc::get(context, sourceName, line, column))
            << message.str();
      });
}
