// The CEL checker (cel_checker.h): types, scopes, overload resolution and literals folded into
// constants; the cost of each construct beside its check.
#include "sim/scheduler/dra/cel_checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scheduler/dra/cel_regex.h"
#include "sim/scheduler/dra/cel_text.h"
#include "sim/text.h"

namespace knobsim::dra::cel_internal {
namespace {

size_t ParamSlot(char p) {
  return p == 'A' ? 0 : p == 'B' ? 1 : p == 'K' ? 2 : 3;
}

// Whether values of types `a` and `b` may meet (cel-go's isAssignable, dyn matching anything).
bool Compatible(const Type* a, const Type* b) {
  if (a->kind == TK::kDyn || b->kind == TK::kDyn) return true;
  if (a->kind != b->kind) return false;
  if (a->kind == TK::kList) return Compatible(a->elem, b->elem);
  if (a->kind == TK::kMap) return Compatible(a->key, b->key) && Compatible(a->elem, b->elem);
  return true;
}

// Whether an argument of type `arg` fits parameter `param`, binding type parameters (the first
// binding wins, as in cel-go's substitution).
bool Fits(const Type* param, const Type* arg, Bindings* b) {
  if (param->kind == TK::kParam) {
    const Type*& bound = (*b)[ParamSlot(param->param)];
    if (bound == nullptr) {
      bound = arg;
      return true;
    }
    return Compatible(bound, arg);
  }
  if (param->kind == TK::kDyn || arg->kind == TK::kDyn) return true;
  if (param->kind != arg->kind) return false;
  if (param->kind == TK::kList) return Fits(param->elem, arg->elem, b);
  if (param->kind == TK::kMap)
    return Fits(param->key, arg->key, b) && Fits(param->elem, arg->elem, b);
  return true;
}

}  // namespace

Info Checker::Check(uint32_t id) {
  Node& n = p_.nodes[id];
  switch (n.op) {
    case Op::kLiteral:
      return Literal(n.literal);
    case Op::kIdent:
      return Ident(n);
    case Op::kSelect:
    case Op::kHas:
      return Select(n);
    case Op::kIndex:
      return Index(n);
    case Op::kCall:
      return Call(n);
    case Op::kList:
      return List(n);
    case Op::kMap:
      return MapLiteral(n);
    case Op::kAnd:
    case Op::kOr:
      return Logical(n);
    case Op::kTernary:
      return Ternary(n);
    case Op::kComprehension:
      return Comprehension(n);
    case Op::kBind:
      return Bind(n);
  }
  return {};
}

const Type* Checker::Substitute(const Type* t, const Bindings& b) {
  if (t->kind == TK::kParam) {
    const Type* bound = b[ParamSlot(t->param)];
    return bound != nullptr ? bound : b_.dyn;
  }
  if (t->kind == TK::kList) return ListOfType(Substitute(t->elem, b));
  if (t->kind == TK::kMap) return MapOfType(Substitute(t->key, b), Substitute(t->elem, b));
  return t;
}

Info Checker::Literal(const Value& v) {
  Info info;
  info.exact = true;
  info.size = 1;
  switch (v.kind) {
    case Kind::kNull:
      info.type = b_.null;
      break;
    case Kind::kBool:
      info.type = b_.boolean;
      break;
    case Kind::kInt:
      info.type = b_.integer;
      break;
    case Kind::kUint:
      info.type = b_.uinteger;
      break;
    case Kind::kDouble:
      info.type = b_.real;
      break;
    case Kind::kString:
      info.type = b_.string;
      info.size = RuneCount(v.text);
      break;
    case Kind::kBytes:
      info.type = b_.bytes;
      info.size = v.text.size();
      break;
    default:
      info.type = b_.dyn;
      break;
  }
  return info;
}

Info Checker::Ident(Node& n) {
  for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
    if (it->name == n.name && !n.leading_dot) {
      n.slot = it->slot;
      Info info = it->info;
      info.cost = 1;
      return info;
    }
  }
  if (n.name == "device") {
    Info info;
    info.type = b_.device;
    info.cost = 1;
    return info;
  }
  std::vector<std::string_view> names = {"device"};
  for (const Local& l : locals_) names.push_back(l.name);
  std::string hint = ClosestName(n.name, names);
  Fail(n.pos, fmt::format("undeclared reference to '{}'", n.name),
       hint.empty() ? "" : fmt::format("did you mean '{}'?", hint));
}

Info Checker::Select(Node& n) {
  const Info operand = Check(n.kids[0]);
  const bool has = n.op == Op::kHas;
  Info info;
  info.cost = operand.cost;
  const Type* t = operand.type;
  if (t->kind == TK::kDevice) {
    n.field = DeviceFieldNamed(n.name);
    switch (n.field) {
      case DeviceField::kDriver:
        info.type = b_.driver;
        break;
      case DeviceField::kAttributes:
        info.type = b_.attributes;
        break;
      case DeviceField::kCapacity:
        info.type = b_.capacity;
        break;
      case DeviceField::kAllowMultipleAllocations:
        info.type = b_.allow_multiple_allocations;
        break;
      case DeviceField::kNone: {
        const std::string hint =
            ClosestName(n.name, {"driver", "attributes", "capacity", "allowMultipleAllocations"});
        Fail(n.pos, fmt::format("undefined field '{}'", n.name),
             hint.empty() ? "device has driver, attributes, capacity and allowMultipleAllocations"
                          : fmt::format("did you mean '{}'?", hint));
      }
    }
    if (!has) info.cost = AddCost(info.cost, 1);
    info.size = DeclaredSize(info.type);
  } else if (t->kind == TK::kMap) {
    if (t->key->kind != TK::kString && t->key->kind != TK::kDyn) {
      Fail(n.pos, fmt::format("type '{}' does not support field selection", TypeText(t)));
    }
    info.type = t->elem;
    if (!has) info.cost = AddCost(info.cost, 1);
    info.size = operand.has_entry ? operand.entry_value : DeclaredSize(t->elem);
  } else if (t->kind == TK::kDyn) {
    info.type = b_.dyn;  // cel-go charges no select on dyn when estimating
  } else {
    Fail(n.pos, fmt::format("type '{}' does not support field selection", TypeText(t)));
  }
  if (has) {
    info.type = b_.boolean;
    info.size = 1;
    info.has_entry = false;
  }
  return info;
}

void Checker::NoOverload(uint32_t pos, std::string_view fn, const std::vector<Info>& args,
                         bool member) {
  std::string sig;
  for (size_t k = member ? 1 : 0; k < args.size(); ++k) {
    if (!sig.empty()) sig += ", ";
    sig += TypeText(args[k].type);
  }
  sig = "(" + sig + ")";
  if (member) sig = TypeText(args[0].type) + "." + sig;
  Fail(pos, fmt::format("found no matching overload for '{}' applied to '{}'", fn, sig));
}

Info Checker::Index(Node& n) {
  std::vector<Info> a = {Check(n.kids[0]), Check(n.kids[1])};
  const Type* t = a[0].type;
  const Type* index = a[1].type;
  Info info;
  if (t->kind == TK::kList && (index->kind == TK::kInt || index->kind == TK::kDyn)) {
    info.type = t->elem;
  } else if (t->kind == TK::kMap && Compatible(t->key, index)) {
    info.type = t->elem;
  } else if (t->kind == TK::kDyn) {
    info.type = b_.dyn;
  } else {
    NoOverload(n.pos, "_[_]", a, false);
  }
  n.fn = Fn::kIndex;
  info.cost = AddCost(AddCost(a[0].cost, a[1].cost), 1);
  info.size = a[0].has_entry ? a[0].entry_value : DeclaredSize(info.type);
  return info;
}

Info Checker::Call(Node& n) {
  std::vector<Info> a;
  a.reserve(n.kids.size());
  uint64_t cost = 0;
  for (uint32_t k : n.kids) {
    a.push_back(Check(k));
    cost = AddCost(cost, a.back().cost);
  }
  std::vector<const Overload*> candidates;
  bool declared = false;
  const Type* result = nullptr;
  for (const Overload& o : b_.overloads) {
    if (o.function != n.name) continue;
    declared = true;
    if (o.member != n.member || o.params.size() != a.size()) continue;
    Bindings bindings{};
    bool fits = true;
    for (size_t k = 0; k < a.size() && fits; ++k) fits = Fits(o.params[k], a[k].type, &bindings);
    if (!fits) continue;
    candidates.push_back(&o);
    const Type* r = Substitute(o.result, bindings);
    // Several overloads fit (a dyn argument): their common result, else dyn, as cel-go.
    result = result == nullptr || (result->kind == r->kind && TypeText(result) == TypeText(r))
                 ? (result == nullptr ? r : result)
                 : b_.dyn;
  }
  if (!declared) {
    const std::string hint = ClosestName(n.name, b_.function_names);
    Fail(n.pos, fmt::format("undeclared reference to '{}'", n.name),
         hint.empty() ? "" : fmt::format("did you mean '{}'?", hint));
  }
  if (candidates.empty()) NoOverload(n.pos, n.name, a, n.member);
  n.fn = candidates[0]->fn;

  Info info;
  info.type = result;
  if (n.fn == Fn::kDyn) {
    info = a[0];
    info.type = b_.dyn;
    info.cost = AddCost(a[0].cost, 1);
    return info;
  }
  uint64_t own = 0;
  for (const Overload* o : candidates) own = std::max(own, OwnCost(*o, a));
  info.cost = AddCost(cost, own);
  info.size = ResultSize(n, a, result, &info);
  if (n.fn == Fn::kMatches || n.fn == Fn::kFind || n.fn == Fn::kFindAll) ConstantRegex(n);
  return info;
}

void Checker::ConstantRegex(Node& n) {
  const Node& pattern = p_.nodes[n.kids[1]];
  if (pattern.op != Op::kLiteral || pattern.literal.kind != Kind::kString) return;
  std::string error;
  n.regex = CompileRegex(pattern.literal.text, &error);
  if (n.regex == nullptr) {
    Fail(pattern.pos,
         fmt::format("invalid regular expression {}: {}", Quote(pattern.literal.text), error));
  }
}

Info Checker::List(Node& n) {
  Info info;
  const Type* elem = nullptr;
  bool constant = true;
  info.has_entry = true;
  info.entry_key = 1;
  info.entry_value = 0;
  for (uint32_t k : n.kids) {
    const Info e = Check(k);
    info.cost = AddCost(info.cost, e.cost);
    info.entry_value = std::max(info.entry_value, e.size);
    elem = Join(elem, e.type, p_.nodes[k].pos);
    constant = constant && IsConstant(k);
  }
  info.cost = AddCost(info.cost, kListCreateCost);
  info.type = ListOfType(elem != nullptr ? elem : b_.dyn);
  info.size = n.kids.size();
  info.exact = true;
  if (constant) {
    // Built once, as cel-go's planner folds a literal of constants (and then charges nothing
    // for it at runtime).
    std::vector<Value> items;
    for (uint32_t k : n.kids) items.push_back(p_.nodes[k].literal);
    n.literal = OwnedList(std::move(items));
    n.constant = true;
  }
  return info;
}

bool Checker::IsConstant(uint32_t k) const {
  const Node& e = p_.nodes[k];
  return e.op == Op::kLiteral || ((e.op == Op::kList || e.op == Op::kMap) && e.constant);
}

const Type* Checker::Join(const Type* previous, const Type* next, uint32_t pos) {
  if (previous == nullptr) return next;
  if (!Compatible(previous, next)) {
    Fail(pos, fmt::format("expected type '{}' but found '{}'", TypeText(previous), TypeText(next)));
  }
  return previous->kind == TK::kDyn || next->kind == TK::kDyn ? b_.dyn : previous;
}

Info Checker::MapLiteral(Node& n) {
  Info info;
  const Type *key = nullptr, *value = nullptr;
  bool constant = true;
  info.has_entry = true;
  info.entry_key = info.entry_value = 0;
  for (size_t k = 0; k < n.kids.size(); k += 2) {
    const Info ki = Check(n.kids[k]);
    const Info vi = Check(n.kids[k + 1]);
    info.cost = AddCost(AddCost(info.cost, ki.cost), vi.cost);
    info.entry_key = std::max(info.entry_key, ki.size);
    info.entry_value = std::max(info.entry_value, vi.size);
    const TK kk = ki.type->kind;
    if (kk != TK::kString && kk != TK::kInt && kk != TK::kUint && kk != TK::kBool &&
        kk != TK::kDyn) {
      Fail(p_.nodes[n.kids[k]].pos, fmt::format("unsupported map key type: {}", TypeText(ki.type)));
    }
    key = Join(key, ki.type, p_.nodes[n.kids[k]].pos);
    value = Join(value, vi.type, p_.nodes[n.kids[k + 1]].pos);
    constant = constant && IsConstant(n.kids[k]) && IsConstant(n.kids[k + 1]);
  }
  info.cost = AddCost(info.cost, kMapCreateCost);
  info.type = MapOfType(key != nullptr ? key : b_.dyn, value != nullptr ? value : b_.dyn);
  info.size = n.kids.size() / 2;
  info.exact = true;
  if (constant) {
    auto heap = std::make_shared<MapHeap>();
    for (size_t k = 0; k < n.kids.size(); k += 2) {
      heap->entries.emplace_back(p_.nodes[n.kids[k]].literal, p_.nodes[n.kids[k + 1]].literal);
    }
    std::stable_sort(heap->entries.begin(), heap->entries.end(),
                     [](const auto& x, const auto& y) { return KeyLess()(x.first, y.first); });
    for (size_t k = 1; k < heap->entries.size(); ++k) {
      if (!KeyLess()(heap->entries[k - 1].first, heap->entries[k].first)) {
        Fail(n.pos,
             fmt::format("repeated key in map literal: {}", KeyText(heap->entries[k].first)));
      }
    }
    n.literal.kind = Kind::kMap;
    n.literal.rep = Rep::kOwned;
    n.literal.heap = std::move(heap);
    n.constant = true;
  }
  return info;
}

void Checker::RequireBool(const Info& operand, uint32_t kid, std::string_view fn,
                          std::string_view rest) {
  const TK k = operand.type->kind;
  if (k == TK::kBool || k == TK::kDyn) return;
  Fail(p_.nodes[kid].pos, fmt::format("found no matching overload for '{}' applied to '({}{})'", fn,
                                      TypeText(operand.type), rest));
}

Info Checker::Logical(Node& n) {
  Info info;
  info.type = b_.boolean;
  info.size = 1;
  const std::string_view fn = n.op == Op::kAnd ? "_&&_" : "_||_";
  for (uint32_t k : n.kids) {
    const Info term = Check(k);
    RequireBool(term, k, fn, ", bool");
    info.cost = AddCost(info.cost, term.cost);
  }
  return info;
}

Info Checker::Ternary(Node& n) {
  const Info cond = Check(n.kids[0]);
  const Info then = Check(n.kids[1]);
  const Info otherwise = Check(n.kids[2]);
  const std::string rest = ", " + TypeText(then.type) + ", " + TypeText(otherwise.type);
  RequireBool(cond, n.kids[0], "_?_:_", rest);
  if (!Compatible(then.type, otherwise.type)) {
    Fail(n.pos, fmt::format("found no matching overload for '_?_:_' applied to '({}{})'",
                            TypeText(cond.type), rest));
  }
  Info info;
  info.type = then.type;
  info.cost = AddCost(cond.cost, std::max(then.cost, otherwise.cost));
  info.size = std::max(then.size, otherwise.size);
  if (then.has_entry && otherwise.has_entry) {
    info.has_entry = true;
    info.entry_key = std::max(then.entry_key, otherwise.entry_key);
    info.entry_value = std::max(then.entry_value, otherwise.entry_value);
  }
  return info;
}

int Checker::Declare(std::string_view name, Info info) {
  const int slot = p_.slots++;
  info.cost = 0;
  locals_.push_back({name, slot, info});
  return slot;
}

Info Checker::Comprehension(Node& n) {
  const Info range = Check(n.kids[0]);
  const Type* rt = range.type;
  Info first, second;
  RangeVariables(n, range, &first, &second);
  const bool two = !n.name2.empty();
  const size_t scope = locals_.size();
  n.slot = Declare(n.name, first);
  if (two) n.slot2 = Declare(n.name2, second);
  const Info a = Check(n.kids[1]);
  const Info b = n.kids.size() > 2 ? Check(n.kids[2]) : Info{};
  locals_.resize(scope);

  const Info& predicate = a;
  const Info& body = n.filter ? b : a;
  Info info;
  uint64_t init = 0, result = 1, round = 0;
  switch (n.macro) {
    case Macro::kAll:
      RequireBool(predicate, n.kids[1], "_&&_", "");
      round = AddCost(2, AddCost(1, predicate.cost));  // @not_strictly_false(accu); accu && p
      info.type = b_.boolean;
      break;
    case Macro::kExists:
      RequireBool(predicate, n.kids[1], "_||_", "");
      round = AddCost(3, AddCost(1, predicate.cost));  // @not_strictly_false(!accu); accu || p
      info.type = b_.boolean;
      break;
    case Macro::kExistsOne:
      RequireBool(predicate, n.kids[1], "_?_:_", ", int, int");
      round = AddCost(predicate.cost, 2);  // p ? accu + 1 : accu
      result = 2;                          // accu == 1
      info.type = b_.boolean;
      break;
    case Macro::kMap:
    case Macro::kTransformList:
      if (n.filter) RequireBool(predicate, n.kids[1], "_?_:_", ", list, list");
      round = AddCost(body.cost, 12);  // accu + [t]
      if (n.filter) round = AddCost(predicate.cost, round);
      init = kListCreateCost;
      info.type = ListOfType(body.type);
      break;
    case Macro::kFilter:
      RequireBool(predicate, n.kids[1], "_?_:_", ", list, list");
      round = AddCost(predicate.cost, 13);  // p ? accu + [x] : accu
      init = kListCreateCost;
      info.type = ListOfType(first.type);
      break;
    case Macro::kTransformMap:
      if (n.filter) RequireBool(predicate, n.kids[1], "_?_:_", ", map, map");
      round = AddCost(body.cost, 3);  // cel.@mapInsert(accu, k, t)
      if (n.filter) round = AddCost(predicate.cost, round);
      init = kMapCreateCost;
      info.type = MapOfType(rt->kind == TK::kList ? b_.integer : first.type, body.type);
      break;
  }
  info.cost = AddCost(AddCost(AddCost(range.cost, init), result), MulCost(range.size, round));
  if (init == 0) {
    info.size = 1;
  } else {
    info.size = range.size;
    info.has_entry = true;
    info.entry_key = n.macro == Macro::kTransformMap ? first.size : 1;
    info.entry_value = n.macro == Macro::kFilter ? first.size : body.size;
  }
  return info;
}

// The iteration variables of a comprehension over `range`: a list's elements (after their index
// when there are two), a map's keys and values, or two dyn over a dyn range.
void Checker::RangeVariables(const Node& n, const Info& range, Info* first, Info* second) const {
  const Type* rt = range.type;
  first->type = second->type = b_.dyn;
  const bool two = !n.name2.empty();
  if (rt->kind == TK::kList) {
    const uint64_t element = range.has_entry ? range.entry_value : DeclaredSize(rt->elem);
    if (two) {
      first->type = b_.integer;
      first->size = 1;
      second->type = rt->elem;
      second->size = element;
    } else {
      first->type = rt->elem;
      first->size = element;
    }
  } else if (rt->kind == TK::kMap) {
    first->type = rt->key;
    first->size = range.has_entry ? range.entry_key : DeclaredSize(rt->key);
    second->type = rt->elem;
    second->size = range.has_entry ? range.entry_value : DeclaredSize(rt->elem);
  } else if (rt->kind != TK::kDyn) {
    Fail(p_.nodes[n.kids[0]].pos,
         fmt::format("expression of type '{}' cannot be range of a comprehension (must be "
                     "list, map, or dynamic)",
                     TypeText(rt)));
  }
}

Info Checker::Bind(Node& n) {
  const Info init = Check(n.kids[0]);
  const size_t scope = locals_.size();
  n.slot = Declare(n.name, init);
  Info body = Check(n.kids[1]);
  locals_.resize(scope);
  body.cost = AddCost(AddCost(kListCreateCost, init.cost), body.cost);
  return body;
}

}  // namespace knobsim::dra::cel_internal
