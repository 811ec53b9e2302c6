// The checker's types and the declared functions (cel_environment.h).
#include "sim/scheduler/dra/cel_environment.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>

namespace knobsim::dra::cel_internal {
namespace {

struct OverloadSpec {
  std::string_view function;
  bool member;
  Fn fn;
  CostRule cost;
  std::string_view signature;  // "param,param->result"; A, B, K, V are type parameters
};

// The environment: CEL's standard functions as Kubernetes' base environment has them
// (CrossTypeNumericComparisons on), ext.Strings v2, the Kubernetes regex, lists, quantity and
// semver libraries, and DRA's includes. Timestamps, durations, bytes functions beyond conversion,
// optional types, IP / CIDR / URL / format and ext.Sets / ext.Lists are outside the subset.
constexpr OverloadSpec kOverloadSpecs[] = {
    {"_+_", false, Fn::kAdd, CostRule::kOne, "int,int->int"},
    {"_+_", false, Fn::kAdd, CostRule::kOne, "uint,uint->uint"},
    {"_+_", false, Fn::kAdd, CostRule::kOne, "double,double->double"},
    {"_+_", false, Fn::kAdd, CostRule::kConcat, "string,string->string"},
    {"_+_", false, Fn::kAdd, CostRule::kConcat, "bytes,bytes->bytes"},
    {"_+_", false, Fn::kAdd, CostRule::kListConcat, "list(A),list(A)->list(A)"},
    {"_-_", false, Fn::kSub, CostRule::kOne, "int,int->int"},
    {"_-_", false, Fn::kSub, CostRule::kOne, "uint,uint->uint"},
    {"_-_", false, Fn::kSub, CostRule::kOne, "double,double->double"},
    {"_*_", false, Fn::kMul, CostRule::kOne, "int,int->int"},
    {"_*_", false, Fn::kMul, CostRule::kOne, "uint,uint->uint"},
    {"_*_", false, Fn::kMul, CostRule::kOne, "double,double->double"},
    {"_/_", false, Fn::kDiv, CostRule::kOne, "int,int->int"},
    {"_/_", false, Fn::kDiv, CostRule::kOne, "uint,uint->uint"},
    {"_/_", false, Fn::kDiv, CostRule::kOne, "double,double->double"},
    {"_%_", false, Fn::kMod, CostRule::kOne, "int,int->int"},
    {"_%_", false, Fn::kMod, CostRule::kOne, "uint,uint->uint"},
    {"-_", false, Fn::kNeg, CostRule::kOne, "int->int"},
    {"-_", false, Fn::kNeg, CostRule::kOne, "double->double"},
    {"!_", false, Fn::kNot, CostRule::kOne, "bool->bool"},
    {"_==_", false, Fn::kEq, CostRule::kCompareSizes, "A,A->bool"},
    {"_!=_", false, Fn::kNe, CostRule::kCompareSizes, "A,A->bool"},
#define KNOBSIM_CEL_ORDERING(name, fn)                                   \
  {name, false, fn, CostRule::kOne, "bool,bool->bool"},                  \
      {name, false, fn, CostRule::kOne, "int,int->bool"},                \
      {name, false, fn, CostRule::kOne, "uint,uint->bool"},              \
      {name, false, fn, CostRule::kOne, "double,double->bool"},          \
      {name, false, fn, CostRule::kCompareSizes, "string,string->bool"}, \
      {name, false, fn, CostRule::kCompareSizes, "bytes,bytes->bool"},   \
      {name, false, fn, CostRule::kOne, "int,uint->bool"},               \
      {name, false, fn, CostRule::kOne, "int,double->bool"},             \
      {name, false, fn, CostRule::kOne, "uint,int->bool"},               \
      {name, false, fn, CostRule::kOne, "uint,double->bool"},            \
      {name, false, fn, CostRule::kOne, "double,int->bool"},             \
      {name, false, fn, CostRule::kOne, "double,uint->bool"},
    KNOBSIM_CEL_ORDERING("_<_", Fn::kLt) KNOBSIM_CEL_ORDERING("_<=_", Fn::kLe)
        KNOBSIM_CEL_ORDERING("_>_", Fn::kGt) KNOBSIM_CEL_ORDERING("_>=_", Fn::kGe)
#undef KNOBSIM_CEL_ORDERING
            {"@in", false, Fn::kIn, CostRule::kInList, "A,list(A)->bool"},
    {"@in", false, Fn::kIn, CostRule::kOne, "A,map(A,B)->bool"},
    {"size", false, Fn::kSize, CostRule::kOne, "string->int"},
    {"size", false, Fn::kSize, CostRule::kOne, "bytes->int"},
    {"size", false, Fn::kSize, CostRule::kOne, "list(A)->int"},
    {"size", false, Fn::kSize, CostRule::kOne, "map(K,V)->int"},
    {"size", true, Fn::kSize, CostRule::kOne, "string->int"},
    {"size", true, Fn::kSize, CostRule::kOne, "bytes->int"},
    {"size", true, Fn::kSize, CostRule::kOne, "list(A)->int"},
    {"size", true, Fn::kSize, CostRule::kOne, "map(K,V)->int"},
    {"contains", true, Fn::kContains, CostRule::kContains, "string,string->bool"},
    {"startsWith", true, Fn::kStartsWith, CostRule::kPrefix, "string,string->bool"},
    {"endsWith", true, Fn::kEndsWith, CostRule::kPrefix, "string,string->bool"},
    {"matches", false, Fn::kMatches, CostRule::kOne, "string,string->bool"},
    {"matches", true, Fn::kMatches, CostRule::kMatches, "string,string->bool"},
    {"int", false, Fn::kInt, CostRule::kOne, "int->int"},
    {"int", false, Fn::kInt, CostRule::kOne, "uint->int"},
    {"int", false, Fn::kInt, CostRule::kOne, "double->int"},
    {"int", false, Fn::kInt, CostRule::kOne, "string->int"},
    {"uint", false, Fn::kUint, CostRule::kOne, "int->uint"},
    {"uint", false, Fn::kUint, CostRule::kOne, "uint->uint"},
    {"uint", false, Fn::kUint, CostRule::kOne, "double->uint"},
    {"uint", false, Fn::kUint, CostRule::kOne, "string->uint"},
    {"double", false, Fn::kDouble, CostRule::kOne, "int->double"},
    {"double", false, Fn::kDouble, CostRule::kOne, "uint->double"},
    {"double", false, Fn::kDouble, CostRule::kOne, "double->double"},
    {"double", false, Fn::kDouble, CostRule::kOne, "string->double"},
    {"string", false, Fn::kString, CostRule::kOne, "int->string"},
    {"string", false, Fn::kString, CostRule::kOne, "uint->string"},
    {"string", false, Fn::kString, CostRule::kOne, "double->string"},
    {"string", false, Fn::kString, CostRule::kOne, "bool->string"},
    {"string", false, Fn::kString, CostRule::kOne, "string->string"},
    {"string", false, Fn::kString, CostRule::kConvertText, "bytes->string"},
    {"bool", false, Fn::kBool, CostRule::kOne, "bool->bool"},
    {"bool", false, Fn::kBool, CostRule::kOne, "string->bool"},
    {"bytes", false, Fn::kBytes, CostRule::kOne, "bytes->bytes"},
    {"bytes", false, Fn::kBytes, CostRule::kConvertText, "string->bytes"},
    {"dyn", false, Fn::kDyn, CostRule::kDyn, "A->dyn"},
    // ext.Strings (version 2).
    {"charAt", true, Fn::kCharAt, CostRule::kOne, "string,int->string"},
    {"indexOf", true, Fn::kIndexOf, CostRule::kListTraversal, "string,string->int"},
    {"indexOf", true, Fn::kIndexOf, CostRule::kListTraversal, "string,string,int->int"},
    {"lastIndexOf", true, Fn::kLastIndexOf, CostRule::kListTraversal, "string,string->int"},
    {"lastIndexOf", true, Fn::kLastIndexOf, CostRule::kListTraversal, "string,string,int->int"},
    {"lowerAscii", true, Fn::kLowerAscii, CostRule::kTraverse, "string->string"},
    {"upperAscii", true, Fn::kUpperAscii, CostRule::kTraverse, "string->string"},
    {"replace", true, Fn::kReplace, CostRule::kTraverseTwice, "string,string,string->string"},
    {"replace", true, Fn::kReplace, CostRule::kTraverseTwice, "string,string,string,int->string"},
    {"split", true, Fn::kSplit, CostRule::kTraverseTwice, "string,string->list(string)"},
    {"split", true, Fn::kSplit, CostRule::kTraverseTwice, "string,string,int->list(string)"},
    {"substring", true, Fn::kSubstring, CostRule::kTraverse, "string,int->string"},
    {"substring", true, Fn::kSubstring, CostRule::kTraverse, "string,int,int->string"},
    {"trim", true, Fn::kTrim, CostRule::kTraverse, "string->string"},
    {"join", true, Fn::kJoin, CostRule::kJoin, "list(string)->string"},
    {"join", true, Fn::kJoin, CostRule::kJoin, "list(string),string->string"},
    // Kubernetes regex library.
    {"find", true, Fn::kFind, CostRule::kFind, "string,string->string"},
    {"findAll", true, Fn::kFindAll, CostRule::kFind, "string,string->list(string)"},
    {"findAll", true, Fn::kFindAll, CostRule::kFind, "string,string,int->list(string)"},
// Kubernetes lists library.
#define KNOBSIM_CEL_LISTS(t)                                                        \
  {"isSorted", true, Fn::kIsSorted, CostRule::kListTraversal, "list(" t ")->bool"}, \
      {"min", true, Fn::kMin, CostRule::kListTraversal, "list(" t ")->" t},         \
      {"max", true, Fn::kMax, CostRule::kListTraversal, "list(" t ")->" t},
    KNOBSIM_CEL_LISTS("int") KNOBSIM_CEL_LISTS("uint") KNOBSIM_CEL_LISTS("double")
        KNOBSIM_CEL_LISTS("bool") KNOBSIM_CEL_LISTS("string") KNOBSIM_CEL_LISTS("bytes")
#undef KNOBSIM_CEL_LISTS
            {"sum", true, Fn::kSum, CostRule::kListTraversal, "list(int)->int"},
    {"sum", true, Fn::kSum, CostRule::kListTraversal, "list(uint)->uint"},
    {"sum", true, Fn::kSum, CostRule::kListTraversal, "list(double)->double"},
    {"indexOf", true, Fn::kIndexOf, CostRule::kListTraversal, "list(A),A->int"},
    {"lastIndexOf", true, Fn::kLastIndexOf, CostRule::kListTraversal, "list(A),A->int"},
    // Kubernetes quantity library.
    {"quantity", false, Fn::kQuantity, CostRule::kTraverse, "string->quantity"},
    {"isQuantity", false, Fn::kIsQuantity, CostRule::kTraverse, "string->bool"},
    {"sign", false, Fn::kSign, CostRule::kOne, "quantity->int"},
    {"isGreaterThan", true, Fn::kIsGreaterThan, CostRule::kOne, "quantity,quantity->bool"},
    {"isLessThan", true, Fn::kIsLessThan, CostRule::kOne, "quantity,quantity->bool"},
    {"compareTo", true, Fn::kCompareTo, CostRule::kOne, "quantity,quantity->int"},
    {"asApproximateFloat", true, Fn::kAsApproximateFloat, CostRule::kOne, "quantity->double"},
    {"asInteger", true, Fn::kAsInteger, CostRule::kOne, "quantity->int"},
    {"isInteger", true, Fn::kIsInteger, CostRule::kOne, "quantity->bool"},
    {"add", true, Fn::kQuantityAdd, CostRule::kOne, "quantity,quantity->quantity"},
    {"add", true, Fn::kQuantityAdd, CostRule::kOne, "quantity,int->quantity"},
    {"sub", true, Fn::kQuantitySub, CostRule::kOne, "quantity,quantity->quantity"},
    {"sub", true, Fn::kQuantitySub, CostRule::kOne, "quantity,int->quantity"},
    // Kubernetes semver library (version 1: the normalize flag).
    {"semver", false, Fn::kSemver, CostRule::kTraverse, "string->semver"},
    {"semver", false, Fn::kSemver, CostRule::kTraverse, "string,bool->semver"},
    {"isSemver", false, Fn::kIsSemver, CostRule::kTraverse, "string->bool"},
    {"isSemver", false, Fn::kIsSemver, CostRule::kTraverse, "string,bool->bool"},
    {"isGreaterThan", true, Fn::kIsGreaterThan, CostRule::kOne, "semver,semver->bool"},
    {"isLessThan", true, Fn::kIsLessThan, CostRule::kOne, "semver,semver->bool"},
    {"compareTo", true, Fn::kCompareTo, CostRule::kOne, "semver,semver->int"},
    {"major", true, Fn::kMajor, CostRule::kOne, "semver->int"},
    {"minor", true, Fn::kMinor, CostRule::kOne, "semver->int"},
    {"patch", true, Fn::kPatch, CostRule::kOne, "semver->int"},
    // DRA (cel/compile.go): <attribute>.includes(<value>), a scalar or a list attribute.
    {"includes", true, Fn::kIncludes, CostRule::kIncludes, "dyn,dyn->bool"},
};

bool IsScalar(const Type* t) {
  return t->kind == TK::kBool || t->kind == TK::kInt || t->kind == TK::kUint ||
         t->kind == TK::kDouble;
}

}  // namespace

std::string TypeText(const Type* t) {
  switch (t->kind) {
    case TK::kDyn:
      return "dyn";
    case TK::kNull:
      return "null_type";
    case TK::kBool:
      return "bool";
    case TK::kInt:
      return "int";
    case TK::kUint:
      return "uint";
    case TK::kDouble:
      return "double";
    case TK::kString:
      return "string";
    case TK::kBytes:
      return "bytes";
    case TK::kQuantity:
      return "kubernetes.Quantity";
    case TK::kSemver:
      return "kubernetes.Semver";
    case TK::kDevice:
      return "kubernetes.DRADevice";
    case TK::kParam:
      return std::string(1, t->param);
    case TK::kList:
      return "list(" + TypeText(t->elem) + ")";
    case TK::kMap:
      return "map(" + TypeText(t->key) + ", " + TypeText(t->elem) + ")";
  }
  return "?";
}

uint64_t DeclaredSize(const Type* t) {
  if (t->declared != kUnknownSize) return t->declared;
  return IsScalar(t) ? 1 : kUnknownSize;
}

const Builtins& Builtins::Get() {
  static const Builtins builtins;
  return builtins;
}

Builtins::Builtins() {
  dyn = Make({TK::kDyn});
  null = Make({TK::kNull});
  boolean = Make({TK::kBool});
  integer = Make({TK::kInt});
  uinteger = Make({TK::kUint});
  real = Make({TK::kDouble});
  string = Make({TK::kString});
  bytes = Make({TK::kBytes});
  quantity = Make({TK::kQuantity});
  semver = Make({TK::kSemver});
  device = Make({TK::kDevice});
  driver = Make({TK::kString, nullptr, nullptr, kDriverNameMaxLength});
  allow_multiple_allocations = Make({TK::kBool, nullptr, nullptr, 1});
  const Type* domain = Make({TK::kString, nullptr, nullptr, kDomainMaxLength});
  const Type* id = Make({TK::kString, nullptr, nullptr, kIdMaxLength});
  const Type* attribute = Make({TK::kDyn, nullptr, nullptr, kAttributeMaxElements});
  const Type* ids = Make({TK::kMap, attribute, id, kMaxAttributesPerDevice});
  attributes = Make({TK::kMap, ids, domain, kMaxAttributesPerDevice});
  const Type* amount = Make({TK::kQuantity, nullptr, nullptr, 0});
  const Type* capacity_ids = Make({TK::kMap, amount, id, kMaxAttributesPerDevice});
  capacity = Make({TK::kMap, capacity_ids, domain, kMaxAttributesPerDevice});
  for (const OverloadSpec& spec : kOverloadSpecs) {
    Overload o;
    o.function = spec.function;
    o.member = spec.member;
    o.fn = spec.fn;
    o.cost = spec.cost;
    std::string_view sig = spec.signature;
    while (true) {
      o.params.push_back(ParseType(&sig));
      if (sig.substr(0, 2) == "->") break;
      sig.remove_prefix(1);  // ','
    }
    sig.remove_prefix(2);
    o.result = ParseType(&sig);
    overloads.push_back(std::move(o));
    if (std::isalpha(static_cast<unsigned char>(spec.function[0])) &&
        std::find(function_names.begin(), function_names.end(), spec.function) ==
            function_names.end()) {
      function_names.push_back(spec.function);
    }
  }
}

const Type* Builtins::Make(Type t) {
  arena_.push_back(t);
  return &arena_.back();
}

const Type* Builtins::ParseType(std::string_view* s) {
  const auto word = [&](std::string_view w) {
    if (s->substr(0, w.size()) != w) return false;
    s->remove_prefix(w.size());
    return true;
  };
  if (word("list(")) {
    const Type* elem = ParseType(s);
    word(")");
    return Make({TK::kList, elem});
  }
  if (word("map(")) {
    const Type* key = ParseType(s);
    word(",");
    const Type* value = ParseType(s);
    word(")");
    return Make({TK::kMap, value, key});
  }
  static constexpr std::pair<std::string_view, TK> kNames[] = {
      {"int", TK::kInt},   {"uint", TK::kUint},         {"double", TK::kDouble},
      {"bool", TK::kBool}, {"string", TK::kString},     {"bytes", TK::kBytes},
      {"dyn", TK::kDyn},   {"quantity", TK::kQuantity}, {"semver", TK::kSemver}};
  for (const auto& [name, kind] : kNames) {
    if (word(name)) return Make({kind});
  }
  const char param = (*s)[0];
  s->remove_prefix(1);
  Type t{TK::kParam};
  t.param = param;
  return Make(t);
}

}  // namespace knobsim::dra::cel_internal
