// The CEL interpreter behind cel.h, in the order an expression meets it: lexer, parser (macros
// expanded into comprehension nodes as cel-go's parser does), checker (types, overloads and the
// worst-case cost, as cel-go's checker and checker/cost.go with Kubernetes' cost estimator), and a
// tree-walking evaluator that counts the cost cel-go's runtime tracker would.
//
// Sources of the semantics: the CEL language definition (github.com/google/cel-spec langdef.md),
// cel-go (interpreter, checker/cost.go, ext/strings.go, ext/comprehensions.go), Kubernetes'
// libraries (k8s.io/apiserver pkg/cel/library: quantity, semverlib, regex, lists, cost) and the DRA
// environment (k8s.io/dynamic-resource-allocation cel/compile.go). Where this differs from them on
// purpose, the comment says so; the list is also in cel_test.cpp's header.
//
// This file is the API; the interpreter is in the cel_* files beside it, each with its header:
//   cel_limits.h                      the limits and cel-go's saturating cost arithmetic
//   cel_text.{h,cpp}                  UTF-8, Go's formatting of doubles, "did you mean"
//   cel_value.{h,cpp}                 the values, their names in messages, the order of map keys
//   cel_program.h                     the tree (CelSelector::Program) and CompileError
//   cel_parser.h, cel_lexer.cpp, cel_parser.cpp   tokens and the parser
//   cel_regex.{h,cpp}                 RE2 patterns run as std::regex
//   cel_environment.{h,cpp}           the checker's types and the declared functions
//   cel_checker.{h,cpp}, cel_checker_cost.cpp     the checker and its cost estimate
//   cel_containers.{h,cpp}            lists and maps (owned, or views of the device), equality
//   cel_eval.{h,cpp}, cel_eval_cost.cpp           the evaluator and its runtime cost
//   cel_library_*.cpp, cel_semver.h   the function libraries (list in cel_eval.h)
#include "sim/scheduler/dra/cel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "sim/scheduler/dra/cel_checker.h"
#include "sim/scheduler/dra/cel_eval.h"
#include "sim/scheduler/dra/cel_limits.h"
#include "sim/scheduler/dra/cel_parser.h"
#include "sim/scheduler/dra/cel_program.h"
#include "sim/scheduler/dra/cel_text.h"

namespace knobsim::dra {

using cel_internal::AllocationLimitExceeded;
using cel_internal::Checker;
using cel_internal::CompileError;
using cel_internal::CostLimitExceeded;
using cel_internal::Evaluator;
using cel_internal::Info;
using cel_internal::Kind;
using cel_internal::TK;
using cel_internal::Value;

namespace {

// "column 18", or "line 2, column 5" in an expression of several lines; columns count code points.
std::string Where(std::string_view expression, uint32_t pos) {
  pos = std::min<uint32_t>(pos, static_cast<uint32_t>(expression.size()));
  const std::string_view before = expression.substr(0, pos);
  const size_t line_start =
      before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  const size_t column = cel_internal::RuneCount(before.substr(line_start)) + 1;
  if (expression.find('\n') == std::string_view::npos) return fmt::format("column {}", column);
  const size_t line = static_cast<size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
  return fmt::format("line {}, column {}", line, column);
}

}  // namespace

// ---- API ---------------------------------------------------------------------------------------

Parsed<CelSelector> CelSelector::Compile(std::string_view expression) {
  return CompileImpl(expression, /*refuse_expensive=*/true);
}

Parsed<CelSelector> CelSelector::CompileImpl(std::string_view expression, bool refuse_expensive) {
  Parsed<CelSelector> out;
  if (expression.size() > kCelMaxLength) {
    out.error = fmt::format("too long: may not be more than {} bytes (it has {})", kCelMaxLength,
                            expression.size());
    return out;
  }
  try {
    auto program = std::make_shared<Program>();
    program->expression = std::string(expression);
    program->root = cel_internal::Parse(program.get());
    Checker checker(program.get());
    const Info info = checker.Check(program->root);
    // cel/compile.go: bool, or the attribute type (dyn) whose value is checked when evaluated.
    if (info.type->kind != TK::kBool && info.type->kind != TK::kDyn) {
      out.error = fmt::format("must evaluate to bool or the unknown type, not {}",
                              cel_internal::TypeText(info.type));
      return out;
    }
    program->estimated_cost = info.cost;
    if (refuse_expensive && info.cost > static_cast<uint64_t>(kCelMaxCost)) {
      // Kubernetes' API validation refuses such a selector ("too complex, exceeds cost limit").
      out.error =
          fmt::format("too complex, exceeds cost limit: the estimated cost is {}, the limit {}",
                      info.cost, kCelMaxCost);
      out.hint = "iterate over fewer or shorter values, or nest fewer macros";
      return out;
    }
    CelSelector selector;
    selector.expression_ = program->expression;
    selector.program_ = std::move(program);
    out.value = std::move(selector);
  } catch (const CompileError& e) {
    out.error = fmt::format("compilation failed: {}: {}", Where(expression, e.pos), e.message);
    out.hint = e.hint;
    return out;
  } catch (const std::exception& e) {
    out.error = fmt::format("compilation failed: {}", e.what());
  }
  return out;
}

CelResult CelSelector::Evaluate(const CelDevice& device) const {
  return EvaluateImpl(device, nullptr);
}

CelResult CelSelector::EvaluateImpl(const CelDevice& device, uint64_t* actual_cost) const {
  CelResult result;
  if (program_ == nullptr) {
    result.error = "the selector was not compiled";
    return result;
  }
  std::optional<Evaluator> evaluator;
  try {
    evaluator.emplace(*program_, device, static_cast<uint64_t>(kCelMaxCost));
    const Value v = evaluator->Run();
    if (v.is_error()) {
      result.error = std::string(v.text);
    } else if (v.kind != Kind::kBool) {
      result.error = fmt::format("CEL result of type {} could not be converted to bool",
                                 cel_internal::TypeName(v));
    } else {
      result.matches = v.b;
    }
  } catch (const CostLimitExceeded&) {
    result.error = std::string(cel_internal::kCostLimitExceeded);
  } catch (const AllocationLimitExceeded&) {
    result.error =
        fmt::format("operation cancelled: the evaluation would allocate more than {} MiB",
                    cel_internal::kMaxAllocatedBytes >> 20);
  } catch (const std::exception& e) {
    result.error = fmt::format("operation cancelled: {}", e.what());
  }
  if (actual_cost != nullptr) *actual_cost = evaluator ? evaluator->cost() : 0;
  return result;
}

uint64_t CelSelector::estimated_cost() const {
  return program_ != nullptr ? program_->estimated_cost : 0;
}

}  // namespace knobsim::dra
