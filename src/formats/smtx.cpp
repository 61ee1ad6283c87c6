#include "formats/smtx.hpp"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "runtime/error.hpp"

namespace spx::plan {
namespace {

// Splits the text into integers, remembering the line of each, so messages can point at it.
class Tokenizer {
 public:
  Tokenizer(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  // Next integer, or false at the end of the text. A token that is not an integer throws.
  bool next(int64_t* value, int64_t* line) {
    skip_separators();
    if (pos_ >= text_.size()) return false;
    const size_t start = pos_;
    while (pos_ < text_.size() && !is_separator(text_[pos_])) ++pos_;
    const std::string token = text_.substr(start, pos_ - start);
    *line = line_;
    *value = parse(token);
    return true;
  }

  // The line the scan has reached; for "the file ends ..." messages.
  int64_t line() const { return line_; }

  [[noreturn]] void error(int64_t line, const std::string& what) const {
    fail(SPX_STATUS_IO_ERROR,
         strf("%s:%lld: %s", source_.c_str(), static_cast<long long>(line), what.c_str()));
  }

  // Skips spaces, tabs and commas but stops at a line end; true if a line end follows.
  bool at_line_end() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == ',' || text_[pos_] == '\r')) {
      ++pos_;
    }
    return pos_ >= text_.size() || text_[pos_] == '\n';
  }

 private:
  static bool is_separator(char c) {
    return c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
  }

  void skip_separators() {
    while (pos_ < text_.size() && is_separator(text_[pos_])) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }

  int64_t parse(const std::string& token) const {
    size_t i = (token[0] == '-' || token[0] == '+') ? 1 : 0;
    bool ok = i < token.size() && token.size() - i <= 18;  // 18 digits cannot overflow int64
    for (; ok && i < token.size(); ++i) ok = token[i] >= '0' && token[i] <= '9';
    if (!ok) error(line_, strf("'%.40s' is not an integer in range", token.c_str()));
    return std::stoll(token);
  }

  const std::string& text_;
  const std::string& source_;
  size_t pos_ = 0;
  int64_t line_ = 1;
};

}  // namespace

CsrPattern parse_smtx(const std::string& text, const std::string& source) {
  Tokenizer tok(text, source);
  int64_t header[3];
  int64_t header_line = 1, line = 1;
  for (int i = 0; i < 3; ++i) {
    if (!tok.next(&header[i], &line)) {
      tok.error(tok.line(), "the file ends inside the header 'rows, cols, nnz'");
    }
    if (i == 0) header_line = line;
    if (line != header_line) {
      tok.error(header_line, "the header must hold the three numbers 'rows, cols, nnz'");
    }
  }
  if (!tok.at_line_end()) {
    tok.error(header_line, "the header must hold exactly three numbers 'rows, cols, nnz'");
  }
  const int64_t rows = header[0], cols = header[1], nnz = header[2];
  const char* names[3] = {"rows", "cols", "nnz"};
  for (int i = 0; i < 3; ++i) {
    if (header[i] < 0 || header[i] > INT32_MAX) {
      tok.error(header_line, strf("%s = %lld is outside [0, 2^31)", names[i],
                                  static_cast<long long>(header[i])));
    }
  }

  CsrPattern out;
  out.rows = rows;
  out.cols = cols;
  // A header can promise more numbers than the text holds: reserve no more than it could hold
  // (a number takes at least two characters with its separator), and grow as they are read.
  const int64_t max_numbers = static_cast<int64_t>(text.size() / 2) + 1;
  out.row_ptr.reserve(static_cast<size_t>(std::min(rows + 1, max_numbers)));
  out.col_ind.reserve(static_cast<size_t>(std::min(nnz, max_numbers)));
  int64_t value = 0;
  for (int64_t i = 0; i <= rows; ++i) {
    if (!tok.next(&value, &line)) {
      tok.error(tok.line(), strf("the file ends after %lld of the %lld row offsets",
                                 static_cast<long long>(i), static_cast<long long>(rows + 1)));
    }
    if (i == 0 && value != 0) {
      tok.error(line, strf("row offset 0 is %lld, expected 0", static_cast<long long>(value)));
    }
    if (i > 0 && value < out.row_ptr[i - 1]) {
      tok.error(line, strf("row offset %lld (%lld) is smaller than row offset %lld (%d)",
                           static_cast<long long>(i), static_cast<long long>(value),
                           static_cast<long long>(i - 1), out.row_ptr[i - 1]));
    }
    if (value > nnz) {
      tok.error(line, strf("row offset %lld (%lld) exceeds nnz (%lld)", static_cast<long long>(i),
                           static_cast<long long>(value), static_cast<long long>(nnz)));
    }
    out.row_ptr.push_back(static_cast<int32_t>(value));
  }
  if (out.row_ptr[rows] != nnz) {
    tok.error(line, strf("the last row offset is %d, expected nnz (%lld)", out.row_ptr[rows],
                         static_cast<long long>(nnz)));
  }
  for (int64_t e = 0; e < nnz; ++e) {
    if (!tok.next(&value, &line)) {
      tok.error(tok.line(), strf("the file ends after %lld of the %lld column indices",
                                 static_cast<long long>(e), static_cast<long long>(nnz)));
    }
    if (value < 0 || value >= cols) {
      tok.error(line,
                strf("column index %lld (%lld) is outside [0, %lld)", static_cast<long long>(e),
                     static_cast<long long>(value), static_cast<long long>(cols)));
    }
    out.col_ind.push_back(static_cast<int32_t>(value));
  }
  if (tok.next(&value, &line)) {
    tok.error(line, strf("unexpected value %lld after the %lld column indices",
                         static_cast<long long>(value), static_cast<long long>(nnz)));
  }
  return out;
}

CsrPattern read_smtx(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fail(SPX_STATUS_IO_ERROR, strf("cannot open '%s': %s", path.c_str(), std::strerror(errno)));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) fail(SPX_STATUS_IO_ERROR, strf("error while reading '%s'", path.c_str()));
  return parse_smtx(buffer.str(), path);
}

}  // namespace spx::plan
