// Parsers for the unit-bearing strings people write in scenarios and that Kubernetes writes in
// exports: quantities (`4Gi`, `3920m`, `1.5`), durations (`30ms`, `1h30m`), rates (`20/s`) and
// percentages (`0.1%`).
//
// They follow the upstream grammars (Kubernetes resource.Quantity, Go time.ParseDuration) so a
// value copied from a manifest means here what it means there, and they turn the usual slips
// (`4GB`, `30` without a unit, `5min`) into a message with a hint instead of a silent guess.
// Callers add the file, line and field path (sim/input_error.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace knobsim {

// A parsed value, or why the text is not one. `error` reads as a sentence about the text
// (`"4GB" is not a quantity`); `hint` says what was probably meant (`did you mean 4Gi?`).
template <class T>
struct Parsed {
  std::optional<T> value;
  std::string error;
  std::string hint;

  bool ok() const { return value.has_value(); }
};

// A Kubernetes quantity in base units: `15`, `1.5`, `3920m` (3.92), `4Gi`, `5k`, `250u`, `1e3`.
// Binary suffixes Ki Mi Gi Ti Pi Ei, decimal n u m k M G T P E, or an exponent e<N>/E<N>.
// No whitespace, no unit names (`4GB` is not a quantity, as in Kubernetes).
std::optional<double> ParseQuantity(std::string_view text);

// A quantity in milli-units, signed (`1Gi` -> 1073741824000, `250m` -> 250, `-1` -> -1000),
// rounded up as resource.Quantity's MilliValue does: for DRA's capacities, counters and CEL's
// quantity(). Exact to 2^53 milli-units (9 × 10^12 base units: 8 TiB of bytes); beyond ±9.2e15
// base units, nullopt, as for text that is not a quantity.
std::optional<int64_t> ParseQuantityMilli(std::string_view text);

// CPU cores as a quantity (`2`, `1.5`, `500m`) in millicores, rounded up as Kubernetes'
// MilliValue does. Negative values are rejected.
Parsed<int64_t> ParseCpuMilli(std::string_view text);

// Memory as a quantity of bytes (`8Gi`, `512Mi`, `1e9`; a bare number is bytes, as in
// Kubernetes) in MiB, rounded up so a request is never under-counted. `128m` (0.128 bytes, a
// classic Kubernetes slip) and `8GB` are rejected with a hint.
Parsed<int64_t> ParseMemoryMib(std::string_view text);

// An ACK `aliyun.com/gpu-mem` request in units (GiB). A bare integer is the unit count, as in
// a pod spec; a binary quantity (`4Gi`, `4096Mi`) must be a whole number of GiB. Decimal byte
// suffixes (`4G`) and unit names (`4GB`) are rejected with "did you mean 4Gi?"; fractions are
// rejected because extended resources are integers.
Parsed<int> ParseGpuMemUnits(std::string_view text);

// A Go/Kubernetes duration (`30ms`, `5m`, `1h30m`, `1.5s`, `250us`, `250µs`, `100ns`), plus days
// and weeks (`7d`, `1w`, `1d12h`: exactly 24 h and 7 d), in nanoseconds: the one duration grammar
// of every option and file (docs/scenario.md "Value formats"). `0` needs no unit; any other bare
// number is an error ("add a unit, e.g. 30s"). Negative durations are rejected: nothing in a
// scenario runs backwards.
Parsed<int64_t> ParseDuration(std::string_view text);

// A rate `<number>/<unit>` with unit s, min or h (`20/s`, `1200/min`, `3/h`), per second.
// `0` needs no unit.
Parsed<double> ParseRate(std::string_view text);

// A fraction in [0, 1], written as a percentage (`0.1%`) or as the fraction itself (`0.001`).
Parsed<double> ParsePercentage(std::string_view text);

// ---- Resource amounts as ResourceList counts them (sim/kube_types.h) ---------------------------

// The resource a quota key limits: `requests.cpu` -> cpu, `limits.memory` -> memory,
// `gold.storageclass.storage.k8s.io/requests.storage` -> storage; other keys as they are.
std::string_view QuotaResourceName(std::string_view key);

// Whether the resource (or quota key) counts bytes: memory, ephemeral-storage, storage,
// hugepages-*.
bool IsByteResource(std::string_view resource);

// An amount of `resource` (a resource name or a quota key) in ResourceList units: millicores for
// cpu, bytes for memory and storage, whole units (rounded up) for everything else.
Parsed<int64_t> ParseResourceAmount(std::string_view resource, std::string_view text);

// The inverse, in the form a manifest would carry: cpu `4` or `3920m`, bytes with the largest
// binary suffix that divides them (`128Gi`, `1536Mi`, else the byte count), counts as they are.
std::string FormatResourceAmount(std::string_view resource, int64_t amount);

}  // namespace knobsim
