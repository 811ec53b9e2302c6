// The checker's cost estimate (cel_checker.h): what each overload costs (cel-go checker/cost.go
// functionCost, Kubernetes' library.CostEstimator and DRA's draCostEstimator) and how large its
// result may be.
#include "sim/scheduler/dra/cel_checker.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace knobsim::dra::cel_internal {

uint64_t Checker::OwnCost(const Overload& o, const std::vector<Info>& a) const {
  const auto size = [&](size_t k) { return k < a.size() ? a[k].size : 0; };
  switch (o.cost) {
    case CostRule::kOne:
      return 1;
    case CostRule::kCompareSizes:
      // Kubernetes' estimator: == of two quantities or two semvers is O(1).
      if (o.fn == Fn::kEq && a[0].type->kind == a[1].type->kind &&
          (a[0].type->kind == TK::kQuantity || a[0].type->kind == TK::kSemver)) {
        return 1;
      }
      return FactorCost(std::min(size(0), size(1)), kStringTraversalFactor);
    case CostRule::kInList:
      return FactorCost(size(1), 1);
    case CostRule::kConcat:
      return FactorCost(AddCost(size(0), size(1)), kStringTraversalFactor);
    case CostRule::kListConcat:
      return 1;
    case CostRule::kMatches:
    case CostRule::kFind:
      return MulCost(FactorCost(AddCost(size(0), 1), kStringTraversalFactor),
                     FactorCost(size(1), kRegexLengthFactor));
    case CostRule::kContains:
      return MulCost(FactorCost(size(0), kStringTraversalFactor),
                     FactorCost(size(1), kStringTraversalFactor));
    case CostRule::kPrefix:
      return FactorCost(size(1), kStringTraversalFactor);
    case CostRule::kTraverse:
      return FactorCost(size(0), kStringTraversalFactor);
    case CostRule::kTraverseTwice:
      return FactorCost(size(0), 2 * kStringTraversalFactor);
    case CostRule::kJoin:
      return FactorCost(JoinSize(a), kStringTraversalFactor);
    case CostRule::kListTraversal: {
      // library.CostEstimator: a typed list costs a round per element, plus the characters of
      // string elements; anything else (a string, a dyn attribute) its size * 0.1.
      const Type* t = a[0].type;
      if (t->kind == TK::kList) {
        uint64_t element = 1;
        if (t->elem->kind == TK::kString || t->elem->kind == TK::kBytes) {
          element = AddCost(element, FactorCost(DeclaredSize(t->elem), kStringTraversalFactor));
        }
        return MulCost(size(0), element);
      }
      return FactorCost(size(0), kStringTraversalFactor);
    }
    case CostRule::kIncludes:
      return kMaxAttributeValues;
    case CostRule::kConvertText:
      return FactorCost(size(0), kStringTraversalFactor);
    case CostRule::kDyn:
      return 1;
  }
  return 1;
}

uint64_t Checker::JoinSize(const std::vector<Info>& a) {
  const uint64_t count = a[0].size;
  uint64_t joined = 0;
  if (a[0].type->kind == TK::kList) joined = MulCost(count, DeclaredSize(a[0].type->elem));
  if (a.size() > 1) joined = AddCost(joined, MulCost(a[1].size, count > 0 ? count - 1 : 0));
  return joined;
}

uint64_t Checker::ResultSize(const Node& n, const std::vector<Info>& a, const Type* result,
                             Info* info) {
  const auto size = [&](size_t k) { return a[k].size; };
  switch (n.fn) {
    case Fn::kAdd:
      if (result->kind == TK::kString || result->kind == TK::kBytes || result->kind == TK::kList ||
          result->kind == TK::kDyn) {
        if (a[0].has_entry && a[1].has_entry) {
          info->has_entry = true;
          info->entry_key = std::max(a[0].entry_key, a[1].entry_key);
          info->entry_value = std::max(a[0].entry_value, a[1].entry_value);
        }
        if (result->kind != TK::kDyn) return AddCost(size(0), size(1));
      }
      break;
    case Fn::kLowerAscii:
    case Fn::kUpperAscii:
    case Fn::kSubstring:
    case Fn::kTrim:
    case Fn::kFind:
    case Fn::kFindAll:
      return size(0);
    case Fn::kSplit: {
      if (a.size() > 2) {
        const Node& limit = p_.nodes[n.kids[2]];
        if (limit.op == Op::kLiteral && limit.literal.kind == Kind::kInt) {
          return static_cast<uint64_t>(limit.literal.i);
        }
      }
      return size(0);
    }
    case Fn::kJoin:
      return JoinSize(a);
    case Fn::kReplace: {
      // library.CostEstimator's bound on the replaced string (maxima only).
      const uint64_t sz = size(0), with = size(2);
      const uint64_t old_min = a[1].exact ? size(1) : 0;
      if (old_min == 0) return AddCost(MulCost(sz == kUnknownSize ? sz : sz + 1, with), sz);
      if (with <= old_min) return sz;
      return MulCost(
          static_cast<uint64_t>(std::ceil(static_cast<double>(sz) / static_cast<double>(old_min))),
          with);
    }
    case Fn::kBytes:
      if (a[0].type->kind == TK::kString) return MulCost(size(0), 4);
      break;
    case Fn::kString:
      if (a[0].type->kind == TK::kBytes) return size(0);
      break;
    default:
      break;
  }
  return DeclaredSize(result);
}

}  // namespace knobsim::dra::cel_internal
