// libFuzzer harness for ReadKubeString (sim/io/kube_reader.h): JSON and YAML Kubernetes exports.
// Any input must come back as objects or an InputError; a crash, hang, sanitizer report or
// escaping exception is a bug in the reader. Also builds the cluster snapshot from what was read,
// since an export that reads cleanly can still hold values BuildClusterState trips over.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/io/kube_reader.h"
#include "sim/scheduler/cluster_state_builder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  knobsim::Expected<knobsim::KubeObjects> objects = knobsim::ReadKubeString(text, "fuzz.yaml");
  if (objects.ok()) {
    std::vector<std::string> warnings;
    knobsim::BuildClusterState(*objects, &warnings);
    knobsim::PendingPods(*objects);
  } else {
    (void)objects.error().ToString();
  }
  return 0;
}
