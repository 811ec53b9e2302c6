# Writes the DRA fixtures as `kubectl get nodes,pods,resourceslices,deviceclasses,
# resourceclaims,resourceclaimtemplates -A -o json` prints them (python3 generate.py, in this
# folder). The devices follow what the NVIDIA DRA driver (k8s-dra-driver-gpu) publishes:
# driver gpu.nvidia.com, one pool per node, a `gpu` device per card with its attributes and
# memory capacity, and with DynamicMIG the MIG partitions as devices consuming the card's shared
# counters (docs/semantics.md §6).
import json

GI = 1024 ** 3


def meta(name, ns=None, uid=None, **extra):
    m = {"name": name, "uid": uid or ("u-" + name), "resourceVersion": "812345",
         "creationTimestamp": "2026-11-30T09:00:00Z"}
    if ns:
        m["namespace"] = ns
    m.update(extra)
    return m


def node(name, cpu="96", memory="1056462224Ki", version="v1.34.2"):
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
              "topology.kubernetes.io/zone": "zone-a", "node.kubernetes.io/instance-type": "p5.48xlarge",
              "nvidia.com/dra-kubelet-plugin": "true"}
    cap = {"cpu": cpu, "memory": memory, "pods": "110", "ephemeral-storage": "209702892Ki"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta(name, labels=labels),
            "spec": {}, "status": {"capacity": cap, "allocatable": dict(cap),
                                    "conditions": [{"type": "Ready", "status": "True"}],
                                    "nodeInfo": {"kubeletVersion": version}}}


def gpu_attrs(index, uuid):
    return {"type": {"string": "gpu"}, "uuid": {"string": uuid}, "index": {"int": index},
            "minor": {"int": index}, "productName": {"string": "NVIDIA H100 80GB HBM3"},
            "brand": {"string": "Nvidia"}, "architecture": {"string": "Hopper"},
            "cudaComputeCapability": {"version": "9.0.0"}, "driverVersion": {"version": "570.133.20"},
            "cudaDriverVersion": {"version": "12.8.0"},
            "resource.kubernetes.io/pcieRoot": {"string": "pci0000:%02x" % (0x18 + 0x10 * (index // 2))}}


def h100_slice(node_name, cards, mig_cards=()):
    """A node's pool: `cards` whole GPUs; on the cards in `mig_cards` also the MIG partitions
    1g.10gb (7) and 3g.40gb (2), each consuming the card's counters."""
    devices, counters = [], []
    for i in range(cards):
        uuid = "GPU-%08x-4b1e-9a0c-2f3d4e5f6a%02d" % (0x8a3c3b3e + i, i)
        whole = {"name": "gpu-%d" % i, "attributes": gpu_attrs(i, uuid),
                 "capacity": {"memory": {"value": "81559Mi"}}}
        if i in mig_cards:
            counters.append({"name": "gpu-%d-counter-set" % i, "counters": {
                "multiprocessors": {"value": "132"}, "memory": {"value": "80Gi"},
                **{"memory-slice-%d" % s: {"value": "1"} for s in range(8)}}})
            whole["consumesCounters"] = [{"counterSet": "gpu-%d-counter-set" % i, "counters": {
                "multiprocessors": {"value": "132"}, "memory": {"value": "80Gi"},
                **{"memory-slice-%d" % s: {"value": "1"} for s in range(8)}}}]
        devices.append(whole)
        if i not in mig_cards:
            continue
        for profile, count, sms, mem, slices in (("1g.10gb", 7, 16, 10, 1), ("3g.40gb", 2, 60, 40, 4)):
            for k in range(count):
                start = k * slices
                devices.append({
                    "name": "gpu-%d-mig-%s-%d" % (i, profile.replace(".", ""), k),
                    "attributes": {"type": {"string": "mig"}, "profile": {"string": profile},
                                   "parentUUID": {"string": uuid}, "parentIndex": {"int": i},
                                   "productName": {"string": "NVIDIA H100 80GB HBM3"},
                                   "resource.kubernetes.io/pcieRoot": gpu_attrs(i, uuid)["resource.kubernetes.io/pcieRoot"]},
                    "capacity": {"memory": {"value": "%dGi" % mem}, "multiprocessors": {"value": str(sms)}},
                    "consumesCounters": [{"counterSet": "gpu-%d-counter-set" % i, "counters": {
                        "multiprocessors": {"value": str(sms)}, "memory": {"value": "%dGi" % mem},
                        **{"memory-slice-%d" % s: {"value": "1"} for s in range(start, start + slices)}}}]})
    # The API keeps counter sets and devices in separate slices of one pool.
    count = 2 if counters else 1
    owner = [{"apiVersion": "v1", "kind": "Node", "name": node_name, "uid": "u-" + node_name}]
    def slice_of(suffix, **content):
        spec = {"driver": "gpu.nvidia.com", "nodeName": node_name,
                "pool": {"name": node_name, "generation": 4, "resourceSliceCount": count}}
        spec.update(content)
        return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                "metadata": meta(node_name + "-gpu.nvidia.com-" + suffix, ownerReferences=owner), "spec": spec}
    out = [slice_of("7xk2p", devices=devices)]
    if counters:
        out.insert(0, slice_of("c9m4t", sharedCounters=counters))
    return out


def device_class(name, kind):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": meta(name),
            "spec": {"selectors": [{"cel": {"expression":
                "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == '%s'" % kind}}]}}


def template(ns, name, requests):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": meta(name, ns),
            "spec": {"spec": {"devices": {"requests": requests}}}}


def exactly(name, cls, count=None, selectors=(), capacity=None):
    e = {"deviceClassName": cls}
    if count is not None:
        e["count"] = count
    if selectors:
        e["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    if capacity:
        e["capacity"] = {"requests": capacity}
    return {"name": name, "exactly": e}


def claim(ns, name, pod, requests, results, node_name):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": meta(name, ns, annotations={"resource.kubernetes.io/pod-claim-name": "gpu"},
                             ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": pod, "uid": "u-" + pod,
                                               "controller": True, "blockOwnerDeletion": True}]),
            "spec": {"devices": {"requests": requests}},
            "status": {"allocation": {"devices": {"results": results},
                                      "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                                          {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}},
                       "reservedFor": [{"resource": "pods", "name": pod, "uid": "u-" + pod}]}}


def result(request, node_name, device, share=None, consumed=None):
    r = {"request": request, "driver": "gpu.nvidia.com", "pool": node_name, "device": device}
    if share:
        r["shareID"] = share
    if consumed:
        r["consumedCapacity"] = consumed
    return r


def pod(ns, name, template_name, node_name=None, claim_name=None, cpu="8", memory="64Gi"):
    spec = {"containers": [{"name": "main", "image": "nvcr.io/nvidia/pytorch:25.01-py3",
                            "resources": {"requests": {"cpu": cpu, "memory": memory},
                                          "limits": {"cpu": cpu, "memory": memory},
                                          "claims": [{"name": "gpu"}]}}],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template_name}],
            "restartPolicy": "Always", "schedulerName": "default-scheduler"}
    status = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}
    if node_name:
        spec["nodeName"] = node_name
        status = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                  "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": claim_name}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta(name, ns, labels={"app": name.rsplit("-", 1)[0]}),
            "spec": spec, "status": status}


def write(path, items):
    with open(path, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}},
                  f, indent=2, sort_keys=True)
        f.write("\n")


# 1. Two H100 nodes, their GPUs published through DRA only (no nvidia.com/gpu capacity); the
#    second node's cards 0 and 1 cut by DynamicMIG. Two training pods run (one GPU each, on
#    h100-a); pending: an 8-GPU job (h100-a has 6 free, h100-b's cards 0 and 1 are partitioned
#    but free, so h100-b takes it), a second 8-GPU job (nothing left), a 1g.10gb inference pod
#    and a pair of GPUs sharing a PCIe root.
ml = "ml"
items = [node("h100-a"), node("h100-b"), *h100_slice("h100-a", 8), *h100_slice("h100-b", 8, mig_cards=(0, 1)),
         device_class("gpu.nvidia.com", "gpu"), device_class("mig.nvidia.com", "mig"),
         template(ml, "one-gpu", [exactly("gpu", "gpu.nvidia.com")]),
         template(ml, "eight-gpus", [exactly("gpu", "gpu.nvidia.com", count=8)]),
         template(ml, "mig-1g", [exactly("gpu", "mig.nvidia.com", selectors=[
             "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"])]),
         {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": meta("pcie-pair", ml),
          "spec": {"spec": {"devices": {"requests": [exactly("gpu", "gpu.nvidia.com", count=2)],
                                        "constraints": [{"requests": ["gpu"],
                                                         "matchAttribute": "resource.kubernetes.io/pcieRoot"}]}}}}]
for k in range(2):
    items.append(claim(ml, "train-%d-gpu-x8s2k" % k, "train-%d" % k, [exactly("gpu", "gpu.nvidia.com")],
                       [result("gpu", "h100-a", "gpu-%d" % k)], "h100-a"))
    items.append(pod(ml, "train-%d" % k, "one-gpu", "h100-a", "train-%d-gpu-x8s2k" % k))
items += [pod(ml, "big-0", "eight-gpus"), pod(ml, "big-1", "eight-gpus"), pod(ml, "infer-0", "mig-1g"),
          pod(ml, "pair-0", "pcie-pair")]
write("h100-dra.json", items)

# 2. One GPU shared through consumable capacity: allowMultipleAllocations with a memory policy
#    (default 10Gi, steps of 1Gi). One pod holds 30Gi; three more ask 30Gi, 20Gi and 30Gi: the
#    second fits in what is left (80 - 30 - 30 = 20), the third not.
shared_slice = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                "metadata": meta("l40s-a-gpu.nvidia.com-shared"),
                "spec": {"driver": "gpu.nvidia.com", "nodeName": "l40s-a",
                         "pool": {"name": "l40s-a", "generation": 1, "resourceSliceCount": 1},
                         "devices": [{"name": "gpu-0", "allowMultipleAllocations": True,
                                      "attributes": {"type": {"string": "gpu"},
                                                     "productName": {"string": "NVIDIA L40S"}},
                                      "capacity": {"memory": {"value": "80Gi", "requestPolicy": {
                                          "default": "10Gi", "validRange": {"min": "1Gi", "step": "1Gi"}}}}}]}}
serve = "serve"
items = [node("l40s-a", cpu="48", memory="395926068Ki"), shared_slice, device_class("gpu.nvidia.com", "gpu")]
for size in (30, 20):
    items.append(template(serve, "gpu-%dgi" % size, [exactly("gpu", "gpu.nvidia.com", capacity={"gpu.nvidia.com/memory": "%dGi" % size})]))
items.append(claim(serve, "chat-0-gpu-p2m9q", "chat-0",
                   [exactly("gpu", "gpu.nvidia.com", capacity={"gpu.nvidia.com/memory": "30Gi"})],
                   [result("gpu", "l40s-a", "gpu-0", share="2f1c7b4e-7d3a-4a8e-9c51-0b6f2d9e4a13",
                           consumed={"gpu.nvidia.com/memory": "30Gi"})], "l40s-a"))
items.append(pod(serve, "chat-0", "gpu-30gi", "l40s-a", "chat-0-gpu-p2m9q"))
items += [pod(serve, "chat-1", "gpu-30gi"), pod(serve, "embed-0", "gpu-20gi"), pod(serve, "chat-2", "gpu-30gi")]
write("shared-dra.json", items)

# 3. MIG instances created ahead and HAMi's DRA driver. h100-m: eight H100s, each cut into
#    3g.40gb + 2g.20gb + 1g.10gb x2 (MIG mode on, no DynamicMIG: the driver publishes the
#    instances, named gpu-<minor>-mig-<profile>-<GI profile ID>-<placement start>, and not the
#    cards). l4-h: four L4s published by HAMi's DRA driver (hami-core-gpu.project-hami.io), each
#    one device that claims share by `cores` and `memory` (cmd/hami-kubelet-plugin
#    hami_core.go). One 1g.10gb inference pod runs; pending: two more 1g.10gb pods, a pod asking
#    a 3g instance by a startsWith selector, three HAMi shares of 6Gi and 30 cores, and a pod
#    whose HAMi claim others share (which a scenario cannot say).
L4_BYTES = 23034 * 1024 ** 2


def mig_device(node_name, card, profile, gi_id, start, index):
    parent = "GPU-%08x-77aa-4c1d-8e2f-%012x" % (0x5e100000 + card, card)
    mem = {"1g.10gb": 9984, "2g.20gb": 20096, "3g.40gb": 40320}[profile]
    return {"name": "gpu-%d-mig-%s-%d-%d" % (card, profile.replace(".", ""), gi_id, start),
            "attributes": {"type": {"string": "mig"}, "profile": {"string": profile},
                           "parentUUID": {"string": parent}, "uuid": {"string": "MIG-%s-%d" % (parent[4:], index)},
                           "productName": {"string": "NVIDIA H100 80GB HBM3"}, "brand": {"string": "Nvidia"},
                           "architecture": {"string": "Hopper"},
                           "cudaComputeCapability": {"version": "9.0.0"},
                           "driverVersion": {"version": "570.133.20"}},
            "capacity": {"memory": {"value": "%dMi" % mem}, "multiprocessors": {"value": str(16 * int(profile[0]))}}}


def hami_device(card):
    cap = {"cores": {"value": "100", "requestPolicy": {"default": "100", "validRange": {"min": "0", "max": "100", "step": "1"}}},
           "memory": {"value": str(L4_BYTES), "requestPolicy": {"default": str(L4_BYTES),
                                                                 "validRange": {"min": "1Mi", "max": str(L4_BYTES), "step": "1Mi"}}}}
    return {"name": "hami-gpu-%d" % card, "allowMultipleAllocations": True, "capacity": cap,
            "attributes": {"type": {"string": "hami-gpu"}, "minor": {"int": card},
                           "uuid": {"string": "GPU-%08x-1c2d-4e5f-8a9b-%012x" % (0x14000000 + card, card)},
                           "productName": {"string": "NVIDIA L4"}, "brand": {"string": "Nvidia"},
                           "architecture": {"string": "Ada Lovelace"}}}


def simple_slice(node_name, driver, devices):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": meta(node_name + "-" + driver + "-b7x2q",
                             ownerReferences=[{"apiVersion": "v1", "kind": "Node", "name": node_name, "uid": "u-" + node_name}]),
            "spec": {"driver": driver, "nodeName": node_name,
                     "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1}, "devices": devices}}


def hami_class():
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": meta("hami-core-gpu.project-hami.io"),
            "spec": {"selectors": [{"cel": {"expression":
                "device.driver == \"hami-core-gpu.project-hami.io\" && "
                "device.attributes[\"hami-core-gpu.project-hami.io\"].type == \"hami-gpu\""}}]}}


mig_devices = []
for card in range(8):
    for k, (profile, gi_id, start) in enumerate((("3g.40gb", 9, 4), ("2g.20gb", 14, 0), ("1g.10gb", 19, 2), ("1g.10gb", 19, 3))):
        mig_devices.append(mig_device("h100-m", card, profile, gi_id, start, k))
infer = "infer"
hami_share = [exactly("gpu", "hami-core-gpu.project-hami.io", capacity={"cores": "30", "memory": "6Gi"})]
items = [node("h100-m"), node("l4-h", cpu="32", memory="131599376Ki"),
         simple_slice("h100-m", "gpu.nvidia.com", mig_devices),
         simple_slice("l4-h", "hami-core-gpu.project-hami.io", [hami_device(c) for c in range(4)]),
         device_class("gpu.nvidia.com", "gpu"), device_class("mig.nvidia.com", "mig"), hami_class(),
         template(infer, "mig-1g", [exactly("gpu", "mig.nvidia.com", selectors=[
             "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"])]),
         template(infer, "mig-3g", [exactly("gpu", "mig.nvidia.com", selectors=[
             "device.attributes['gpu.nvidia.com'].profile.startsWith('3g')"])]),
         template(infer, "hami-6g", hami_share),
         {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta("ocr-shared", infer),
          "spec": {"devices": {"requests": hami_share}}}]
items.append(claim(infer, "small-0-gpu-k2v9d", "small-0",
                   [exactly("gpu", "mig.nvidia.com", selectors=["device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"])],
                   [result("gpu", "h100-m", "gpu-0-mig-1g10gb-19-2")], "h100-m"))
items.append(pod(infer, "small-0", "mig-1g", "h100-m", "small-0-gpu-k2v9d"))
items += [pod(infer, "small-1", "mig-1g"), pod(infer, "small-2", "mig-1g"), pod(infer, "mid-0", "mig-3g")]
items += [pod(infer, "embed-%d" % k, "hami-6g", cpu="2", memory="8Gi") for k in range(3)]
ocr = pod(infer, "ocr-0", None, cpu="2", memory="8Gi")
ocr["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "ocr-shared"}]
items.append(ocr)
write("mig-hami-dra.json", items)

# 4. DynamicMIG on every card: a node of eight H100s whose devices are each card whole and its
#    MIG partitions (1g.10gb x7, 3g.40gb x2 here), all consuming the card's counter set, as the
#    NVIDIA DRA driver publishes them with its DynamicMIG gate. One 1g.10gb pod runs on card 0;
#    pending: two whole-GPU training pods, three 1g.10gb and two 3g.40gb inference pods.
items = [node("h100-d"), *h100_slice("h100-d", 8, mig_cards=range(8)),
         device_class("gpu.nvidia.com", "gpu"), device_class("mig.nvidia.com", "mig"),
         template(ml, "one-gpu", [exactly("gpu", "gpu.nvidia.com")]),
         template(ml, "mig-1g", [exactly("gpu", "mig.nvidia.com", selectors=[
             "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"])]),
         template(ml, "mig-3g", [exactly("gpu", "mig.nvidia.com", selectors=[
             "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"])])]
items.append(claim(ml, "infer-0-gpu-q7w2z", "infer-0",
                   [exactly("gpu", "mig.nvidia.com", selectors=["device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"])],
                   [result("gpu", "h100-d", "gpu-0-mig-1g10gb-0")], "h100-d"))
items.append(pod(ml, "infer-0", "mig-1g", "h100-d", "infer-0-gpu-q7w2z"))
items += [pod(ml, "train-%d" % k, "one-gpu") for k in range(2)]
items += [pod(ml, "infer-%d" % k, "mig-1g", cpu="4", memory="16Gi") for k in range(1, 4)]
items += [pod(ml, "chat-%d" % k, "mig-3g") for k in range(2)]
write("dynamic-mig-dra.json", items)

# 5. DRAExtendedResource (Kubernetes 1.36): the NVIDIA DRA driver's whole GPUs, its DeviceClass
#    naming extendedResourceName nvidia.com/gpu (as the driver's chart writes it for v1), and
#    pods that ask nvidia.com/gpu with no claim: the scheduler makes a claim for each. One runs
#    (its claim made by the scheduler, owned by the pod), two wait.
items = [node("h100-x", version="v1.36.1"), *h100_slice("h100-x", 8)]
gpu_class = device_class("gpu.nvidia.com", "gpu")
gpu_class["spec"]["extendedResourceName"] = "nvidia.com/gpu"
items.append(gpu_class)
def gpu_pod(name, count, node_name=None):
    p = pod(ml, name, "unused", node_name, cpu="8", memory="64Gi")
    del p["spec"]["resourceClaims"]
    c = p["spec"]["containers"][0]
    del c["resources"]["claims"]
    c["resources"]["requests"]["nvidia.com/gpu"] = str(count)
    c["resources"]["limits"]["nvidia.com/gpu"] = str(count)
    p["status"].pop("resourceClaimStatuses", None)
    return p
running = gpu_pod("serve-0", 2, "h100-x")
running["status"]["extendedResourceClaimStatus"] = {
    "resourceClaimName": "serve-0-extended-resources-x7k2p",
    "requestMappings": [{"containerName": "main", "resourceName": "nvidia.com/gpu", "requestName": "container-0-request-2"}]}
items.append(running)
claim_obj = claim(ml, "serve-0-extended-resources-x7k2p", "serve-0",
                  [exactly("container-0-request-2", "gpu.nvidia.com", count=2)],
                  [result("container-0-request-2", "h100-x", "gpu-0"), result("container-0-request-2", "h100-x", "gpu-1")], "h100-x")
claim_obj["metadata"]["annotations"] = {"resource.kubernetes.io/extended-resource-claim": "true"}
items.append(claim_obj)
items += [gpu_pod("train-%d" % k, 4) for k in range(2)]
write("extended-resource-dra.json", items)
