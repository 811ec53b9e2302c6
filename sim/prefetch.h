// Prefetch: a hint that the cache line at an address will be read soon (and likely written).
//
// Why not __builtin_prefetch alone: GCC takes a function that does nothing but loads and
// __builtin_prefetch for one without side effects, and drops a call to it whose result is unused
// (that is every prefetching helper: the event loop's lookahead lost its first stage that way).
// On x86-64 the hint is an `asm volatile` PREFETCHT0, which the compiler must keep; elsewhere
// __builtin_prefetch, kept where it is inlined into code with effects.
#pragma once

namespace knobsim {

inline void Prefetch(const void* address) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(address)));
#else
  __builtin_prefetch(address, 1, 3);
#endif
}

// The `lines` cache lines from `record` on.
inline void PrefetchLines(const void* record, int lines) {
  const char* at = static_cast<const char*>(record);
  for (int i = 0; i < lines; ++i) Prefetch(at + 64 * i);
}

}  // namespace knobsim
