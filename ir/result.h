// Errors as values at library boundaries: a Diagnostic names the place (file:line) and what is
// wrong; the command line (tools/zbddc) prints it once. No exceptions cross a library boundary.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <variant>

namespace zbddc {

struct Diagnostic {
    std::string file;  // empty when the error has no file
    size_t line = 0;   // 0 when the error has no line
    std::string message;

    // "file:line: message", "file: message" or "message".
    std::string str() const;
};

Diagnostic errorAt(std::string file, size_t line, std::string message);
Diagnostic error(std::string message);

template <class T> class [[nodiscard]] Result {
  public:
    Result(T value) : state_(std::move(value)) {}
    Result(Diagnostic diagnostic) : state_(std::move(diagnostic)) {}

    bool ok() const { return state_.index() == 0; }
    explicit operator bool() const { return ok(); }

    T &value() & { return std::get<0>(state_); }
    const T &value() const & { return std::get<0>(state_); }
    T &&value() && { return std::get<0>(std::move(state_)); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }

    const Diagnostic &error() const { return std::get<1>(state_); }

  private:
    std::variant<T, Diagnostic> state_;
};

// For operations that return nothing but may fail.
struct Ok {};
using Status = Result<Ok>;

} // namespace zbddc
