// Errors that carry where they happened.
//
// Gauntlet reports misuse and bad input by throwing a gauntlet::Error (or a
// subclass). Every error about a file names the file, line and column so a user
// can jump straight to the problem. Statement outcomes are values, not errors.
#ifndef GAUNTLET_COMMON_ERROR_H_
#define GAUNTLET_COMMON_ERROR_H_

#include <stdexcept>
#include <string>

namespace gauntlet {

// A position in a source text. Lines and columns count from 1; line 0 means
// "no position known".
struct SourceLocation {
  std::string file;  // "<string>" for text that did not come from a file
  int line = 0;
  int column = 0;

  std::string ToString() const;  // "file:line:column"
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Bad input: a grammar, schema or option that cannot be used.
class InvalidInput : public Error {
 public:
  InvalidInput(const SourceLocation& where, const std::string& message);
  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

// Generation failed at run time (for example a Perl block died).
class GenerationError : public Error {
 public:
  explicit GenerationError(const std::string& message) : Error(message) {}
};

// A file Gauntlet writes could not be written (a full or read-only disk):
// "cannot write FILE: REASON; LOST", where LOST says what the output lacks.
class OutputError : public Error {
 public:
  OutputError(const std::string& file, const std::string& reason, const std::string& lost = "");
};

// Line and column (1-based) of byte `offset` in `text`.
SourceLocation LocationOf(const std::string& file, const std::string& text,
                          size_t offset);

}  // namespace gauntlet

#endif  // GAUNTLET_COMMON_ERROR_H_
