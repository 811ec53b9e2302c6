// InputError: what went wrong in a file the user gave us, precise enough to fix it by hand.
//
// Every reader reports bad input as one of these: the file, the 1-based line (0 when unknown),
// the field path inside the document (`workloads[2].gpu_mem`), what is wrong and, when we can
// guess, a hint (`did you mean 4Gi?`). The command line prints it and exits with status 2.
//
// The failure convention of the whole tree: a call that makes a value returns Expected<T>; a
// call that only checks or writes returns Status (ok, or the InputError); an error that is only
// a message (the caller names the option or field) is an InputError with just `message` set, or
// Status::Failure. Nothing returns std::optional<InputError>, an optional message or a
// std::string* error out-parameter as its error.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace knobsim {

struct InputError {
  std::string file;
  int line = 0;
  std::string path;     // field path, e.g. "workloads[2].gpu_mem"; empty for whole-file errors
  std::string message;  // e.g. "\"4GB\" is not a quantity"
  std::string hint;     // e.g. "did you mean 4Gi?"; may be empty

  // "scenario.yaml:14: workloads[2].gpu_mem: "4GB" is not a quantity; did you mean 4Gi?"
  std::string ToString() const;
};

// A value or the InputError that prevented it. A tiny stand-in for std::expected (C++23).
template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}           // NOLINT: implicit by design
  Expected(InputError error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const InputError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, InputError> v_;
};

// Ok, or the InputError that stopped a call that returns nothing.
class Status {
 public:
  Status() = default;                                     // ok
  Status(InputError error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  static Status Ok() { return {}; }
  // A failure that is only `message`, with no file, line or field behind it (a command-line
  // option's check): ToString() is the message alone, not "<input>: message".
  static Status Failure(std::string message) {
    Status s(InputError{"", 0, "", std::move(message), ""});
    s.message_only_ = true;
    return s;
  }
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const InputError& error() const { return *error_; }
  // "" when ok; a Failure's message; else the error's ToString().
  std::string ToString() const {
    if (ok()) return std::string();
    return message_only_ ? error_->message : error_->ToString();
  }

 private:
  std::optional<InputError> error_;
  bool message_only_ = false;
};

}  // namespace knobsim
