//===- Module.cpp - What a launch manifest needs to know of its kernels ---===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8rt/Module.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <unordered_map>

namespace fp8rt {

const PtxKernel *PtxModule::find(std::string_view name) const {
  for (const PtxKernel &kernel : kernels)
    if (kernel.name == name)
      return &kernel;
  return nullptr;
}

namespace {

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

bool isIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.' || c == '%';
}

std::string_view trim(std::string_view s) {
  size_t begin = 0, end = s.size();
  while (begin < end && std::strchr(" \t\r\n", s[begin]))
    ++begin;
  while (end > begin && std::strchr(" \t\r\n", s[end - 1]))
    --end;
  return s.substr(begin, end - begin);
}

/// Splits `s` at `separator` where no (), [] or {} is open.
std::vector<std::string_view> splitTopLevel(std::string_view s,
                                            char separator) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    else if (c == separator && depth == 0) {
      parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string_view last = trim(s.substr(start));
  if (!last.empty() || !parts.empty())
    parts.push_back(last);
  return parts;
}

/// Whitespace-separated words.
std::vector<std::string_view> splitWords(std::string_view s) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::strchr(" \t\r\n", s[i]))
      ++i;
    size_t start = i;
    while (i < s.size() && !std::strchr(" \t\r\n", s[i]))
      ++i;
    if (i > start)
      words.push_back(s.substr(start, i - start));
  }
  return words;
}

/// A non-negative decimal integer, or -1.
int64_t parseCount(std::string_view s) {
  if (s.empty() || s.size() > 12)
    return -1;
  int64_t value = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

/// PTX text with comments blanked out (newlines kept, so offsets keep their
/// line numbers).
std::string stripComments(std::string_view text) {
  std::string out(text);
  bool inString = false;
  for (size_t i = 0; i < out.size(); ++i) {
    if (inString) {
      inString = out[i] != '"';
      continue;
    }
    if (out[i] == '"') {
      inString = true;
    } else if (out[i] == '/' && i + 1 < out.size() && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n')
        out[i++] = ' ';
    } else if (out[i] == '/' && i + 1 < out.size() && out[i + 1] == '*') {
      size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i)
        if (out[i] != '\n')
          out[i] = ' ';
      --i;
    }
  }
  return out;
}

/// The bytes of a PTX fundamental type (".u64" -> 8), or 0.
uint64_t getTypeBytes(std::string_view type) {
  static const std::pair<const char *, uint64_t> kTypes[] = {
      {".b8", 1},  {".u8", 1},  {".s8", 1},    {".b16", 2},  {".u16", 2},
      {".s16", 2}, {".f16", 2}, {".bf16", 2},  {".b32", 4},  {".u32", 4},
      {".s32", 4}, {".f32", 4}, {".f16x2", 4}, {".b64", 8},  {".u64", 8},
      {".s64", 8}, {".f64", 8}, {".b128", 16}, {".pred", 1},
  };
  for (const auto &[name, bytes] : kTypes)
    if (type == name)
      return bytes;
  return 0;
}

//===----------------------------------------------------------------------===//
// Which parameters a kernel stores through
//===----------------------------------------------------------------------===//

/// One instruction: opcode and operands, the predicate guard dropped.
struct Instruction {
  std::string_view opcode;
  std::vector<std::string_view> operands;
};

/// The instructions of a kernel body (the text between its outer braces):
/// statements end with ';'; labels and the braces of nested scopes are
/// dropped.
std::vector<Instruction> splitInstructions(std::string_view body) {
  std::vector<Instruction> instructions;
  for (std::string_view statement : splitTopLevel(body, ';')) {
    // Leading labels ("$L__BB0_2:") and scope braces.
    while (true) {
      statement = trim(statement);
      if (!statement.empty() &&
          (statement.front() == '{' || statement.front() == '}')) {
        statement.remove_prefix(1);
        continue;
      }
      size_t colon = statement.find(':');
      size_t space = statement.find_first_of(" \t\r\n");
      if (colon != std::string_view::npos && colon < space &&
          (colon + 1 == statement.size() ||
           std::strchr(" \t\r\n", statement[colon + 1]))) {
        statement.remove_prefix(colon + 1);
        continue;
      }
      break;
    }
    if (!statement.empty() && statement.front() == '@') {
      size_t space = statement.find_first_of(" \t\r\n");
      if (space == std::string_view::npos)
        continue;
      statement = trim(statement.substr(space));
    }
    if (statement.empty() || statement.front() == '.')
      continue; // declarations (.reg, .shared, .pragma, ...)
    size_t space = statement.find_first_of(" \t\r\n");
    Instruction instruction;
    instruction.opcode = statement.substr(0, space);
    if (space != std::string_view::npos)
      instruction.operands = splitTopLevel(statement.substr(space), ',');
    instructions.push_back(std::move(instruction));
  }
  return instructions;
}

/// The registers (%r1, %rd2, ...) and other names an operand mentions.
std::vector<std::string_view> getNames(std::string_view operand) {
  std::vector<std::string_view> names;
  size_t i = 0;
  while (i < operand.size()) {
    if (!isIdentifierChar(operand[i]) || operand[i] == '.') {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < operand.size() && isIdentifierChar(operand[i]))
      ++i;
    names.push_back(operand.substr(start, i - start));
  }
  return names;
}

bool hasSegment(std::string_view opcode, std::string_view segment) {
  size_t at = 0;
  while ((at = opcode.find(segment, at)) != std::string_view::npos) {
    size_t end = at + segment.size();
    if (end == opcode.size() || opcode[end] == '.' || opcode[end] == ':')
      return true;
    at = end;
  }
  return false;
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

/// The operand an instruction writes global or generic memory through, or
/// -1: stores, reductions and atomics outside shared, local and parameter
/// space, and bulk copies whose destination is global.
int getStoredOperand(const Instruction &instruction) {
  std::string_view op = instruction.opcode;
  auto local = [&] {
    return hasSegment(op, ".shared") || hasSegment(op, ".local") ||
           hasSegment(op, ".param") || hasSegment(op, ".const");
  };
  if (op == "st" || startsWith(op, "st.") || startsWith(op, "red.") ||
      op == "red")
    return local() ? -1 : 0;
  if (startsWith(op, "atom.") || op == "atom")
    return local() ? -1 : 1;
  if (startsWith(op, "cp.") && !hasSegment(op, ".prefetch")) {
    size_t global = op.find(".global");
    size_t shared = op.find(".shared");
    if (global != std::string_view::npos &&
        (shared == std::string_view::npos || global < shared))
      return 0;
  }
  return -1;
}

/// Marks the parameters of `kernel` whose value flows, through register
/// arithmetic, into an address that `body` stores through. Values loaded
/// from memory other than parameter space carry nothing: they are data.
void findStoredParams(std::string_view body, PtxKernel &kernel,
                      const std::vector<std::string> &paramNames) {
  std::vector<Instruction> instructions = splitInstructions(body);
  std::unordered_map<std::string_view, size_t> paramIndex;
  for (size_t i = 0; i < paramNames.size(); ++i)
    paramIndex[paramNames[i]] = i;
  using Set = std::vector<bool>;
  std::unordered_map<std::string_view, Set> taint;
  size_t count = paramNames.size();
  // Adds the parameters `name` holds to `into`.
  auto unite = [&](Set &into, std::string_view name) {
    auto param = paramIndex.find(name);
    if (param != paramIndex.end()) {
      into[param->second] = true;
      return;
    }
    auto it = taint.find(name);
    if (it == taint.end())
      return;
    for (size_t i = 0; i < count; ++i)
      if (it->second[i])
        into[i] = true;
  };
  // The registers each instruction reads and writes (stores, comparisons,
  // which yield predicates rather than addresses, and writes to memory
  // taint nothing).
  struct Flow {
    std::vector<std::string_view> sources, dests;
  };
  std::vector<Flow> flows;
  std::unordered_map<std::string_view, std::vector<size_t>> readers;
  for (const Instruction &instruction : instructions) {
    int stored = getStoredOperand(instruction);
    if (stored >= 0 || instruction.operands.empty() ||
        instruction.operands[0].empty() ||
        instruction.operands[0].front() == '[' ||
        startsWith(instruction.opcode, "setp") ||
        startsWith(instruction.opcode, "set."))
      continue;
    bool paramLoad = startsWith(instruction.opcode, "ld.param");
    Flow flow;
    for (size_t i = 1; i < instruction.operands.size(); ++i) {
      std::string_view operand = instruction.operands[i];
      if (!operand.empty() && operand.front() == '[' && !paramLoad)
        continue;
      for (std::string_view name : getNames(operand))
        flow.sources.push_back(name);
    }
    flow.dests = getNames(instruction.operands[0]);
    for (std::string_view name : flow.sources)
      readers[name].push_back(flows.size());
    flows.push_back(std::move(flow));
  }
  // Propagates along the flows from the registers whose sets grew (loops
  // carry registers around): each set only grows, so each register is
  // revisited at most once per parameter it gains, in time linear in the
  // kernel for a chain of moves in any order.
  std::vector<size_t> pending(flows.size());
  std::iota(pending.begin(), pending.end(), 0);
  std::vector<bool> queued(flows.size(), true);
  while (!pending.empty()) {
    size_t index = pending.back();
    pending.pop_back();
    queued[index] = false;
    const Flow &flow = flows[index];
    Set sources(count, false);
    for (std::string_view name : flow.sources)
      unite(sources, name);
    if (std::find(sources.begin(), sources.end(), true) == sources.end())
      continue;
    for (std::string_view name : flow.dests) {
      Set &set = taint.try_emplace(name, count, false).first->second;
      bool grew = false;
      for (size_t i = 0; i < count; ++i)
        if (sources[i] && !set[i])
          set[i] = grew = true;
      if (!grew)
        continue;
      auto users = readers.find(name);
      if (users == readers.end())
        continue;
      for (size_t user : users->second)
        if (!queued[user]) {
          queued[user] = true;
          pending.push_back(user);
        }
    }
  }
  for (const Instruction &instruction : instructions) {
    int stored = getStoredOperand(instruction);
    if (stored < 0 || size_t(stored) >= instruction.operands.size())
      continue;
    Set written(count, false);
    for (std::string_view name : getNames(instruction.operands[stored]))
      unite(written, name);
    for (size_t i = 0; i < count; ++i)
      if (written[i])
        kernel.params[i].stored = true;
  }
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

class PtxReader {
public:
  PtxReader(std::string_view original, PtxModule &module, std::string &error)
      : text(stripComments(original)), module(module), error(error) {
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n')
        lineEnds.push_back(i);
  }

  bool read();

private:
  bool fail(size_t offset, const std::string &what) {
    error = "line " + std::to_string(lineOf(offset)) + ": " + what;
    return false;
  }
  int lineOf(size_t offset) const {
    return 1 + int(std::lower_bound(lineEnds.begin(), lineEnds.end(), offset) -
                   lineEnds.begin());
  }
  /// The word starting at `pos` after spaces; advances past it.
  std::string_view nextWord(size_t &pos) const {
    while (pos < text.size() && std::strchr(" \t\r\n", text[pos]))
      ++pos;
    size_t start = pos;
    while (pos < text.size() && isIdentifierChar(text[pos]))
      ++pos;
    return std::string_view(text).substr(start, pos - start);
  }
  bool readEntry(size_t pos);
  bool readParam(std::string_view declaration, size_t offset, PtxParam &param,
                 std::string &name);
  bool readThreads(std::string_view operands, size_t offset,
                   std::array<uint32_t, 3> &extents);

  std::string text;
  /// Offsets of the newlines, for line numbers.
  std::vector<size_t> lineEnds;
  PtxModule &module;
  std::string &error;
};

bool PtxReader::read() {
  int depth = 0;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    char c = text[pos];
    if (c == '{') {
      ++depth;
    } else if (c == '}') {
      --depth;
    } else if (depth == 0 && c == '.' &&
               (pos == 0 || !isIdentifierChar(text[pos - 1]))) {
      size_t end = pos;
      std::string_view directive = nextWord(end);
      if (directive == ".entry") {
        if (!readEntry(end))
          return false;
      } else if (directive == ".target" || directive == ".version") {
        size_t after = end;
        std::string_view value = nextWord(after);
        if (!value.empty() && value.back() == ',')
          value.remove_suffix(1);
        (directive == ".target" ? module.target : module.version) = value;
      }
      pos = end - 1;
    }
  }
  if (module.target.empty())
    return fail(0, "no .target directive; this is not a PTX module");
  return true;
}

bool PtxReader::readParam(std::string_view declaration, size_t offset,
                          PtxParam &param, std::string &name) {
  std::vector<std::string_view> words = splitWords(declaration);
  if (words.size() < 3 || words[0] != ".param")
    return fail(offset, "expected '.param <type> <name>' in the parameter "
                        "list, found '" +
                            std::string(declaration) + "'");
  std::string_view last = words.back();
  uint64_t elements = 1;
  size_t bracket = last.find('[');
  if (bracket != std::string_view::npos) {
    int64_t n =
        last.back() == ']'
            ? parseCount(last.substr(bracket + 1, last.size() - bracket - 2))
            : -1;
    if (n <= 0)
      return fail(offset,
                  "bad array extent in '" + std::string(declaration) + "'");
    elements = uint64_t(n);
    param.isArray = true;
    last = last.substr(0, bracket);
  }
  name = std::string(last);
  for (size_t i = 1; i + 1 < words.size(); ++i) {
    std::string word(words[i]);
    if (word == ".align" && i + 2 < words.size()) {
      int64_t align = parseCount(words[++i]);
      if (align <= 0)
        return fail(offset,
                    "bad alignment in '" + std::string(declaration) + "'");
      param.align = uint64_t(align);
      word += " " + std::to_string(align);
    } else if (getTypeBytes(word)) {
      param.type = std::string(word);
      param.bytes = getTypeBytes(word) * elements;
    }
    param.declaration += (param.declaration.empty() ? "" : " ") + word;
  }
  if (param.isArray)
    param.declaration += " [" + std::to_string(elements) + "]";
  if (param.type.empty())
    return fail(offset, "parameter '" + name + "' has no type I know");
  return true;
}

bool PtxReader::readThreads(std::string_view operands, size_t offset,
                            std::array<uint32_t, 3> &extents) {
  std::vector<std::string_view> parts = splitTopLevel(operands, ',');
  if (parts.empty() || parts.size() > 3)
    return fail(offset, "expected 1 to 3 thread extents");
  extents = {1, 1, 1};
  for (size_t i = 0; i < parts.size(); ++i) {
    int64_t n = parseCount(parts[i]);
    if (n <= 0 || n > 1024)
      return fail(offset, "bad thread extent '" + std::string(parts[i]) + "'");
    extents[i] = uint32_t(n);
  }
  return true;
}

/// `.entry name(.param ..., ...) directives { body }`, from after `.entry`.
bool PtxReader::readEntry(size_t pos) {
  size_t entryOffset = pos;
  PtxKernel kernel;
  kernel.line = lineOf(pos);
  kernel.name = std::string(nextWord(pos));
  if (kernel.name.empty())
    return fail(entryOffset, ".entry without a name");
  while (pos < text.size() && std::strchr(" \t\r\n", text[pos]))
    ++pos;
  std::vector<std::string> paramNames;
  if (pos < text.size() && text[pos] == '(') {
    size_t close = text.find(')', pos);
    if (close == std::string::npos)
      return fail(pos, "unterminated parameter list of '" + kernel.name + "'");
    std::string_view list =
        std::string_view(text).substr(pos + 1, close - pos - 1);
    if (!trim(list).empty()) {
      for (std::string_view declaration : splitTopLevel(list, ',')) {
        PtxParam param;
        std::string name;
        if (!readParam(declaration, pos, param, name))
          return false;
        kernel.params.push_back(std::move(param));
        paramNames.push_back(std::move(name));
      }
    }
    pos = close + 1;
  }
  // Performance directives up to the body (or ';' for a declaration).
  size_t open = text.find_first_of("{;", pos);
  if (open == std::string::npos)
    return fail(pos, "'" + kernel.name + "' has no body");
  std::string_view directives = std::string_view(text).substr(pos, open - pos);
  for (size_t at = 0; (at = directives.find('.', at)) != std::string::npos;) {
    size_t end = at + 1;
    while (end < directives.size() && isIdentifierChar(directives[end]))
      ++end;
    std::string_view name = directives.substr(at, end - at);
    size_t next = directives.find('.', end);
    // Operands run to the next directive (a '.' after a space).
    while (next != std::string::npos &&
           !std::strchr(" \t\r\n", directives[next - 1]))
      next = directives.find('.', next + 1);
    std::string_view operands = directives.substr(
        end, next == std::string::npos ? std::string::npos : next - end);
    if (name == ".maxntid" && !readThreads(operands, pos + at, kernel.maxntid))
      return false;
    if (name == ".reqntid" && !readThreads(operands, pos + at, kernel.reqntid))
      return false;
    at = next;
  }
  if (text[open] == '{') {
    int depth = 0;
    size_t close = open;
    for (; close < text.size(); ++close) {
      depth += text[close] == '{';
      depth -= text[close] == '}';
      if (depth == 0)
        break;
    }
    if (close == text.size())
      return fail(open, "unterminated body of '" + kernel.name + "'");
    findStoredParams(std::string_view(text).substr(open + 1, close - open - 1),
                     kernel, paramNames);
  }
  if (module.find(kernel.name))
    return fail(entryOffset, "kernel '" + kernel.name + "' is defined twice");
  module.kernels.push_back(std::move(kernel));
  return true;
}

//===----------------------------------------------------------------------===//
// ELF
//===----------------------------------------------------------------------===//

template <typename T>
bool readAt(std::string_view image, uint64_t offset, T &value) {
  if (offset > image.size() || image.size() - offset < sizeof(T))
    return false;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return true;
}

} // namespace

bool parsePtx(std::string_view text, PtxModule &module, std::string &error) {
  module = PtxModule();
  return PtxReader(text, module, error).read();
}

bool readCubinFunctions(std::string_view image,
                        std::vector<std::string> &functions,
                        std::string &error) {
  functions.clear();
  // The ELF64 header: magic, class 2 (64-bit), data 1 (little-endian).
  if (image.size() < 64 ||
      image.substr(0, 4) != "\x7f"
                            "ELF" ||
      image[4] != 2 || image[5] != 1) {
    error = "not a 64-bit little-endian ELF file";
    return false;
  }
  uint64_t sectionsAt = 0;
  uint16_t sectionSize = 0, sectionCount = 0;
  readAt(image, 0x28, sectionsAt);
  readAt(image, 0x3A, sectionSize);
  readAt(image, 0x3C, sectionCount);
  if (sectionSize < 64 || sectionsAt > image.size() ||
      (image.size() - sectionsAt) / sectionSize < sectionCount) {
    error = "the ELF section headers lie outside the file";
    return false;
  }
  auto section = [&](uint64_t index, uint32_t &type, uint64_t &offset,
                     uint64_t &size, uint32_t &link, uint64_t &entrySize) {
    uint64_t at = sectionsAt + index * sectionSize;
    return readAt(image, at + 4, type) && readAt(image, at + 24, offset) &&
           readAt(image, at + 32, size) && readAt(image, at + 40, link) &&
           readAt(image, at + 56, entrySize) && offset <= image.size() &&
           size <= image.size() - offset;
  };
  constexpr uint32_t kSymbolTable = 2;
  constexpr uint8_t kFunction = 2;
  for (uint64_t s = 0; s < sectionCount; ++s) {
    uint32_t type, link, stringsType, stringsLink;
    uint64_t offset, size, entrySize, strings, stringsSize, stringsEntry;
    if (!section(s, type, offset, size, link, entrySize)) {
      error = "ELF section " + std::to_string(s) + " lies outside the file";
      return false;
    }
    if (type != kSymbolTable)
      continue;
    if (entrySize < 24 || link >= sectionCount ||
        !section(link, stringsType, strings, stringsSize, stringsLink,
                 stringsEntry)) {
      error = "the ELF symbol table is malformed";
      return false;
    }
    std::string_view names = image.substr(strings, stringsSize);
    for (uint64_t at = offset; at + 24 <= offset + size; at += entrySize) {
      uint32_t name = 0;
      uint8_t info = 0;
      readAt(image, at, name);
      readAt(image, at + 4, info);
      if ((info & 0xF) != kFunction || name >= names.size())
        continue;
      size_t end = names.find('\0', name);
      if (end == std::string_view::npos)
        continue;
      functions.emplace_back(names.substr(name, end - name));
    }
  }
  return true;
}

} // namespace fp8rt
