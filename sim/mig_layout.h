// MIG layouts of a node pool (scenario key `mig:`, the whatif knob sharing:POOL=mig:...): their
// text form, their check against the card's MIG geometry (models/mig_profiles.h), and the card
// types of their instances that a run's card slots are.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario.h"

namespace knobsim {

// A profile's name `<g>g.<m>gb` read as its compute slices g and nominal memory m GiB (the
// name the device plugin advertises); nullopt when `profile` is not spelled so.
struct MigProfileSize {
  int compute_slices = 0;
  int nominal_gib = 0;
};
std::optional<MigProfileSize> ReadMigProfileName(std::string_view profile);

// "3g.40gb+2g.20gb+1g.10gb*2": the instances of one card, profiles joined by `+`, each with an
// optional count `*N` (N 1..7; `x` and `×` read as `*`). The strategy is single when every
// instance is of one profile, else mixed. On failure `layout` is empty and `error`/`hint` say why.
struct MigLayoutText {
  std::optional<MigLayout> layout;
  std::string error, hint;
};
MigLayoutText ParseMigLayout(std::string_view text);

// The text ParseMigLayout reads back: runs of one profile as `<profile>*<n>`, joined by `+`
// ("3g.40gb+2g.20gb+1g.10gb*2").
std::string MigLayoutString(const std::vector<std::string>& instances);

// Why `layout` cannot cut a card of `gpu_type`, with a hint; empty when it can. Refused: a card
// knobsim has no MIG geometry for, a profile the card does not have, instances that do not fit
// one card together, and the single strategy over more than one profile (the device plugin
// marks such a node invalid: internal/lm/mig-strategy.go).
struct MigLayoutProblem {
  std::string error, hint;
};
std::optional<MigLayoutProblem> CheckMigLayout(std::string_view gpu_type, const MigLayout& layout);

// Puts in the scenario's catalog a card type for each MIG instance its pools use,
// "<card> MIG <profile>" (models/mig_profiles.h MigInstanceType): the card slots of a MIG pool
// are of these types (sim/cluster.h). Called once the pools are final (reader, variants).
void AddMigInstanceTypes(Scenario& scenario);

}  // namespace knobsim
