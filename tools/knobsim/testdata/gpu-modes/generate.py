# Writes the gpu-modes fixtures as `kubectl get nodes,pods,deploy,rs -A -o json` prints them
# (python3 generate.py, in this folder). Label and annotation spellings: docs/semantics.md §2.5.
import copy, json, zlib

def node(name, labels, capacity, annotations=None, zone="zone-a", cpu="64", mem="527939424Ki", alloc_cpu="63770m", alloc_mem="515286368Ki"):
    l = {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
         "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
         "topology.kubernetes.io/zone": zone}
    l.update(labels)
    a = {"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"}
    a.update(annotations or {})
    cap = {"cpu": cpu, "ephemeral-storage": "209702892Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": mem, "pods": "110"}
    cap.update(capacity)
    alloc = dict(cap); alloc["cpu"] = alloc_cpu; alloc["memory"] = alloc_mem; alloc["ephemeral-storage"] = "193262184447"
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"annotations": a, "creationTimestamp": "2026-11-20T08:12:44Z", "labels": l, "name": name,
                         "resourceVersion": "4417761", "uid": "0d6c7a52-%012d" % (zlib.crc32(name.encode()) % 10**12)},
            "spec": {"podCIDR": "10.244.3.0/24", "podCIDRs": ["10.244.3.0/24"]},
            "status": {"allocatable": alloc, "capacity": cap,
                       "conditions": [{"lastHeartbeatTime": "2026-12-01T09:40:02Z", "lastTransitionTime": "2026-11-20T08:13:20Z",
                                       "message": "kubelet is posting ready status", "reason": "KubeletReady", "status": "True", "type": "Ready"}],
                       "nodeInfo": {"architecture": "amd64", "containerRuntimeVersion": "containerd://1.7.22", "kernelVersion": "5.15.0-125-generic",
                                    "kubeProxyVersion": "v1.30.6", "kubeletVersion": "v1.30.6", "operatingSystem": "linux", "osImage": "Ubuntu 22.04.5 LTS"}}}

def gfd(product, memory, count, family, major, minor, replicas="1", strategy="none", extra=None):
    l = {"feature.node.kubernetes.io/pci-10de.present": "true",
         "nvidia.com/cuda.driver-version.full": "550.127.05", "nvidia.com/cuda.driver-version.major": "550",
         "nvidia.com/cuda.driver-version.minor": "127", "nvidia.com/cuda.driver-version.revision": "05",
         "nvidia.com/cuda.runtime-version.full": "12.4", "nvidia.com/cuda.runtime-version.major": "12", "nvidia.com/cuda.runtime-version.minor": "4",
         "nvidia.com/gfd.timestamp": "1764578400", "nvidia.com/gpu-driver-upgrade-state": "upgrade-done",
         "nvidia.com/gpu.compute.major": str(major), "nvidia.com/gpu.compute.minor": str(minor),
         "nvidia.com/gpu.count": str(count), "nvidia.com/gpu.deploy.container-toolkit": "true",
         "nvidia.com/gpu.deploy.dcgm": "true", "nvidia.com/gpu.deploy.dcgm-exporter": "true",
         "nvidia.com/gpu.deploy.device-plugin": "true", "nvidia.com/gpu.deploy.driver": "true",
         "nvidia.com/gpu.deploy.gpu-feature-discovery": "true", "nvidia.com/gpu.deploy.node-status-exporter": "true",
         "nvidia.com/gpu.deploy.operator-validator": "true", "nvidia.com/gpu.family": family,
         "nvidia.com/gpu.machine": "PowerEdge-R760xa", "nvidia.com/gpu.memory": str(memory),
         "nvidia.com/gpu.mode": "compute", "nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": product,
         "nvidia.com/gpu.replicas": replicas, "nvidia.com/gpu.sharing-strategy": strategy,
         "nvidia.com/mig.capable": "false", "nvidia.com/mps.capable": "false", "nvidia.com/vgpu.present": "false"}
    l.update(extra or {})
    return l

def deploy(ns, name, replicas, resources, annotations=None, scheduler="default-scheduler", extra_pod_labels=None):
    tmpl_meta = {"labels": {"app": name}}
    if annotations: tmpl_meta["annotations"] = annotations
    spec = {"containers": [{"image": "nvcr.io/nvidia/tritonserver:24.08-py3", "imagePullPolicy": "IfNotPresent", "name": "server",
                            "ports": [{"containerPort": 8000, "name": "http", "protocol": "TCP"}],
                            "readinessProbe": {"failureThreshold": 3, "httpGet": {"path": "/v2/health/ready", "port": 8000, "scheme": "HTTP"},
                                               "periodSeconds": 10, "successThreshold": 1, "timeoutSeconds": 1},
                            "resources": copy.deepcopy(resources)}],
            "dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "schedulerName": scheduler, "terminationGracePeriodSeconds": 30}
    d = {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"generation": 1, "labels": {"app": name}, "name": name, "namespace": ns, "uid": "d-" + name},
         "spec": {"progressDeadlineSeconds": 600, "replicas": replicas, "revisionHistoryLimit": 10, "selector": {"matchLabels": {"app": name}},
                  "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"},
                  "template": {"metadata": tmpl_meta, "spec": spec}},
         "status": {"availableReplicas": replicas, "readyReplicas": replicas, "replicas": replicas, "updatedReplicas": replicas}}
    h = "6c9d8f7b54"
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"labels": {"app": name, "pod-template-hash": h}, "name": name + "-" + h, "namespace": ns,
                       "ownerReferences": [{"apiVersion": "apps/v1", "blockOwnerDeletion": True, "controller": True, "kind": "Deployment", "name": name, "uid": "d-" + name}],
                       "uid": "rs-" + name},
          "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name, "pod-template-hash": h}},
                   "template": {"metadata": {"labels": {"app": name, "pod-template-hash": h}}, "spec": copy.deepcopy(spec)}},
          "status": {"replicas": replicas, "readyReplicas": replicas}}
    return d, rs, spec, h

def pod(ns, name, h, spec, node, i, annotations=None, extra_labels=None):
    s = copy.deepcopy(spec); s["nodeName"] = node
    suffix = ["x7k2p", "m4q9z", "b8n3w", "t5r6v"][i]
    meta = {"creationTimestamp": "2026-11-28T10:0%d:00Z" % i, "generateName": name + "-" + h + "-",
            "labels": {"app": name, "pod-template-hash": h}, "name": name + "-" + h + "-" + suffix, "namespace": ns,
            "ownerReferences": [{"apiVersion": "apps/v1", "blockOwnerDeletion": True, "controller": True, "kind": "ReplicaSet", "name": name + "-" + h, "uid": "rs-" + name}],
            "uid": "p-%s-%d" % (name, i)}
    if annotations: meta["annotations"] = annotations
    if extra_labels: meta["labels"].update(extra_labels)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": s,
            "status": {"conditions": [{"status": "True", "type": "Initialized"}, {"status": "True", "type": "Ready"},
                                      {"status": "True", "type": "ContainersReady"}, {"status": "True", "type": "PodScheduled"}],
                       "containerStatuses": [{"image": "nvcr.io/nvidia/tritonserver:24.08-py3", "name": "server", "ready": True, "restartCount": 0,
                                              "started": True, "state": {"running": {"startedAt": "2026-11-28T10:02:11Z"}}}],
                       "phase": "Running", "qosClass": "Burstable", "startTime": "2026-11-28T10:00:00Z"}}

def write(path, items):
    with open(path, "w") as f:
        json.dump({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}, f, indent=4, sort_keys=True)
        f.write("\n")

def workload(ns, name, nodes, resources, pod_annotations=None, scheduler="default-scheduler", tmpl_annotations=None):
    d, rs, spec, h = deploy(ns, name, len(nodes), resources, tmpl_annotations, scheduler)
    pods = [pod(ns, name, h, spec, n, i, pod_annotations[i] if pod_annotations else None) for i, n in enumerate(nodes)]
    return [d, rs] + pods

def config_map(ns, name, data, labels=None):
    return {"apiVersion": "v1", "kind": "ConfigMap", "data": data,
            "metadata": {"creationTimestamp": "2026-11-20T08:02:11Z", "labels": labels or {}, "name": name,
                         "namespace": ns, "resourceVersion": "4410123", "uid": "c-" + name}}

whole = {"limits": {"nvidia.com/gpu": "1"}, "requests": {"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "1"}}

# 1. GPU operator, no sharing: an A100 SXM4 80GB node and an L4 node.
a100 = node("gpu-a100-0", gfd("NVIDIA-A100-SXM4-80GB", 81920, 8, "ampere", 8, 0, extra={
    "nvidia.com/mig.capable": "true", "nvidia.com/mig.config": "all-disabled", "nvidia.com/mig.config.state": "success",
    "nvidia.com/mig.strategy": "single", "node.kubernetes.io/instance-type": "p4de.24xlarge"}), {"nvidia.com/gpu": "8"},
    cpu="96", alloc_cpu="95690m")
l4 = node("gpu-l4-0", gfd("NVIDIA-L4", 23034, 4, "ada-lovelace", 8, 9, extra={"node.kubernetes.io/instance-type": "g6.12xlarge"}),
          {"nvidia.com/gpu": "4"}, cpu="48", alloc_cpu="47810m", mem="195963348Ki", alloc_mem="192296404Ki")
cpu = node("cpu-0", {"node.kubernetes.io/instance-type": "m6i.4xlarge"}, {}, cpu="16", alloc_cpu="15890m", mem="65023532Ki", alloc_mem="63860268Ki")
write("gfd-plain.json", [a100, l4, cpu]
      + workload("serving", "llm-70b", ["gpu-a100-0", "gpu-a100-0"], {"limits": {"nvidia.com/gpu": "4"}, "requests": {"cpu": "16", "memory": "256Gi", "nvidia.com/gpu": "4"}})
      + workload("serving", "asr", ["gpu-l4-0", "gpu-l4-0", "gpu-l4-0"], whole))

# 2. GPU operator with an unknown product: an L40S node.
l40s = node("gpu-l40s-0", gfd("NVIDIA-L40S", 46068, 4, "ada-lovelace", 8, 9), {"nvidia.com/gpu": "4"})
write("gfd-unknown-product.json", [l40s] + workload("serving", "sdxl", ["gpu-l40s-0"], whole))

# 3. HAMi: 4 A10s split 10 ways (deviceSplitCount 10), pods with gpumem and gpucores.
hami_node_ann = {
    "hami.io/node-handshake": "Requesting_2026-12-01 09:41:12",
    "hami.io/node-nvidia-register": "GPU-8a3c3b3e-6f2e-4b1e-9a0c-2f3d4e5f6a70,10,23028,100,NVIDIA-NVIDIA A10,0,true,0,hami-core:GPU-1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d,10,23028,100,NVIDIA-NVIDIA A10,0,true,1,hami-core:GPU-2c3d4e5f-6071-4b8c-9d0e-1f2a3b4c5d6e,10,23028,100,NVIDIA-NVIDIA A10,0,true,2,hami-core:GPU-3d4e5f60-7182-4c9d-0e1f-2a3b4c5d6e7f,10,23028,100,NVIDIA-NVIDIA A10,0,true,3,hami-core:"}
hami = node("gpu-a10-0", {"gpu": "on", "node.kubernetes.io/instance-type": "ecs.gn7i-c32g1.32xlarge"}, {"nvidia.com/gpu": "40"},
            annotations=hami_node_ann)
hami_res = {"limits": {"nvidia.com/gpu": "1", "nvidia.com/gpumem": "6000", "nvidia.com/gpucores": "30"},
            "requests": {"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "1", "nvidia.com/gpumem": "6000", "nvidia.com/gpucores": "30"}}
hami_pod_ann = [{"hami.io/bind-phase": "success", "hami.io/bind-time": "1764578460",
                 "hami.io/vgpu-devices-allocated": "GPU-8a3c3b3e-6f2e-4b1e-9a0c-2f3d4e5f6a70,NVIDIA,6000,30:;",
                 "hami.io/vgpu-devices-to-allocate": ";", "hami.io/vgpu-node": "gpu-a10-0", "hami.io/vgpu-time": "1764578459"},
                {"hami.io/bind-phase": "success", "hami.io/bind-time": "1764578461",
                 "hami.io/vgpu-devices-allocated": "GPU-1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d,NVIDIA,6000,30:;",
                 "hami.io/vgpu-devices-to-allocate": ";", "hami.io/vgpu-node": "gpu-a10-0", "hami.io/vgpu-time": "1764578460"}]
write("hami.json", [hami] + workload("ai", "ocr", ["gpu-a10-0", "gpu-a10-0"], hami_res, hami_pod_ann, scheduler="hami-scheduler"))
# HAMi pods alone (a pending pod for `knobsim schedule --pods`), to show the pod rule.
d, rs, spec, h = deploy("ai", "ocr-next", 1, hami_res, scheduler="hami-scheduler")
pending = pod("ai", "ocr-next", h, spec, "", 0)
del pending["spec"]["nodeName"]
pending["status"] = {"phase": "Pending", "qosClass": "Burstable"}
write("hami-pending-pod.json", [pending])

# 3b. HAMi v2.8+: the registration as JSON (omitempty: device 0 has no index), 4 L4s split 10
# ways; pods by gpumem-percentage with the binpack GPU policy, and by gpumem; one pod pinned to a
# card by UUID (not modelled: refused).
l4_ids = ["GPU-5d1f7a2c-0b3e-4c5d-8e9f-a0b1c2d3e4f5", "GPU-6e2a8b3d-1c4f-4d6e-9fa0-b1c2d3e4f5a6",
          "GPU-7f3b9c4e-2d5a-4e7f-a0b1-c2d3e4f5a6b7", "GPU-8a4cad5f-3e6b-4f8a-b1c2-d3e4f5a6b7c8"]
l4_reg = [dict({"id": u, "count": 10, "devmem": 23034, "devcore": 100, "type": "NVIDIA L4",
                "mode": "hami-core", "health": True}, **({"index": i} if i else {}))
          for i, u in enumerate(l4_ids)]
hami_l4 = node("gpu-l4-hami-0", {"gpu": "on", "node.kubernetes.io/instance-type": "g6.12xlarge"},
               {"nvidia.com/gpu": "40"}, cpu="48", alloc_cpu="47810m", mem="195963348Ki", alloc_mem="192296404Ki",
               annotations={"hami.io/node-handshake": "Reported 2026-12-01 09:41:12",
                            "hami.io/node-nvidia-register": json.dumps(l4_reg, separators=(",", ":"))})
def hami_alloc(ids, mem, cores, t):
    return {"hami.io/bind-phase": "success", "hami.io/bind-time": str(t),
            "hami.io/vgpu-devices-allocated": "".join(f"{u},NVIDIA,{mem},{cores}:" for u in ids) + ";",
            "hami.io/vgpu-devices-to-allocate": ";", "hami.io/vgpu-node": "gpu-l4-hami-0", "hami.io/vgpu-time": str(t - 1)}
chat_res = {"limits": {"nvidia.com/gpu": "1", "nvidia.com/gpumem-percentage": "50", "nvidia.com/gpucores": "50"},
            "requests": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1", "nvidia.com/gpumem-percentage": "50",
                         "nvidia.com/gpucores": "50"}}
embed_res = {"limits": {"nvidia.com/gpu": "1", "nvidia.com/gpumem": "3000", "nvidia.com/gpucores": "20"},
             "requests": {"cpu": "1", "memory": "4Gi", "nvidia.com/gpu": "1", "nvidia.com/gpumem": "3000",
                          "nvidia.com/gpucores": "20"}}
binpack = {"hami.io/gpu-scheduler-policy": "binpack"}
write("hami-v2.json", [hami_l4]
      + workload("ai", "chat", ["gpu-l4-hami-0", "gpu-l4-hami-0"], chat_res,
                 [dict(hami_alloc([l4_ids[3]], 11517, 50, 1764578500), **binpack),
                  dict(hami_alloc([l4_ids[3]], 11517, 50, 1764578501), **binpack)],
                 scheduler="hami-scheduler", tmpl_annotations=binpack)
      + workload("ai", "embed", ["gpu-l4-hami-0", "gpu-l4-hami-0", "gpu-l4-hami-0"], embed_res,
                 [hami_alloc([l4_ids[0]], 3000, 20, 1764578510), hami_alloc([l4_ids[1]], 3000, 20, 1764578511),
                  hami_alloc([l4_ids[2]], 3000, 20, 1764578512)], scheduler="hami-scheduler"))
# 3c. The same cluster with HAMi's device config (the chart's ConfigMap, gpuCorePolicy force):
# the webhook wrote GPU_CORE_UTILIZATION_POLICY into the pods it admitted.
hami_device = config_map("kube-system", "hami-scheduler-device", {"device-config.yaml": (
    "nvidia:\n  resourceCountName: nvidia.com/gpu\n  resourceMemoryName: nvidia.com/gpumem\n"
    "  resourceMemoryPercentageName: nvidia.com/gpumem-percentage\n  resourceCoreName: nvidia.com/gpucores\n"
    "  resourcePriorityName: nvidia.com/priority\n  overwriteEnv: false\n  defaultMemory: 0\n  defaultCores: 0\n"
    "  defaultGPUNum: 1\n  memoryFactor: 1\n  deviceSplitCount: 10\n  deviceMemoryScaling: 1\n"
    "  deviceCoreScaling: 1\n  gpuCorePolicy: force\n  libCudaLogLevel: 1\n  runtimeClassName: \"\"\n")},
    labels={"app.kubernetes.io/component": "hami-scheduler", "app.kubernetes.io/name": "hami"})
forced = []
for item in json.load(open("hami-v2.json"))["items"]:
    if item["kind"] == "Pod":
        item["spec"]["containers"][0]["env"] = [{"name": "GPU_CORE_UTILIZATION_POLICY", "value": "force"}]
    forced.append(item)
write("hami-config.json", forced + [hami_device])
pinned = {"nvidia.com/use-gpuuuid": l4_ids[0]}
write("hami-uuid.json", [hami_l4]
      + workload("ai", "pinned", ["gpu-l4-hami-0"], embed_res,
                 [dict(hami_alloc([l4_ids[0]], 3000, 20, 1764578520), **pinned)],
                 scheduler="hami-scheduler", tmpl_annotations=pinned))

# 4. NVIDIA device plugin time-slicing, replicas 4 on 4 L4s: the node offers 16.
ts = node("gpu-l4-ts-0", gfd("NVIDIA-L4-SHARED", 23034, 4, "ada-lovelace", 8, 9, replicas="4", strategy="time-slicing",
                             extra={"nvidia.com/device-plugin.config": "l4-time-slicing"}), {"nvidia.com/gpu": "16"},
          cpu="48", alloc_cpu="47810m", mem="195963348Ki", alloc_mem="192296404Ki")
write("time-slicing.json", [ts] + workload("serving", "embed", ["gpu-l4-ts-0", "gpu-l4-ts-0", "gpu-l4-ts-0"], whole))
# 4a. The same with renameByDefault: the replicas are nvidia.com/gpu.shared, the product keeps no
# -SHARED suffix, and the pods ask for the renamed resource.
ts_renamed = node("gpu-l4-ts-1", gfd("NVIDIA-L4", 23034, 4, "ada-lovelace", 8, 9, replicas="4", strategy="time-slicing",
                                     extra={"nvidia.com/device-plugin.config": "l4-time-slicing-renamed"}),
                  {"nvidia.com/gpu.shared": "16"}, cpu="48", alloc_cpu="47810m", mem="195963348Ki", alloc_mem="192296404Ki")
shared = {"limits": {"nvidia.com/gpu.shared": "1"}, "requests": {"cpu": "4", "memory": "32Gi", "nvidia.com/gpu.shared": "1"}}
write("time-slicing-renamed.json", [ts_renamed] + workload("serving", "embed", ["gpu-l4-ts-1", "gpu-l4-ts-1"], shared))

# 4b. NVIDIA device plugin MPS, replicas 3 on 2 A10s: the node offers 6 (the GPU operator's
# MPS control daemon runs there, so GFD labels it mps.capable).
mps_dp = node("gpu-a10-mps-0", gfd("NVIDIA-A10-SHARED", 23028, 2, "ampere", 8, 6, replicas="3", strategy="mps",
                                   extra={"nvidia.com/device-plugin.config": "a10-mps", "nvidia.com/mps.capable": "true"}),
              {"nvidia.com/gpu": "6"})
write("mps.json", [mps_dp] + workload("serving", "rerank", ["gpu-a10-mps-0", "gpu-a10-mps-0"], whole))

# 4c. The MPS node with the GPU operator's device-plugin ConfigMap and its ClusterPolicy (as
# `kubectl get nodes,pods,deploy,rs,cm,clusterpolicy -A -o json` prints them): the node's
# config `a10-mps` relaxes failRequestsGreaterThanOne, so a pod may take two replicas.
plugin_configs = config_map("gpu-operator", "device-plugin-config", {
    "a10-mps": "version: v1\nflags:\n  migStrategy: none\nsharing:\n  mps:\n    failRequestsGreaterThanOne: false\n"
               "    resources:\n    - name: nvidia.com/gpu\n      replicas: 3\n",
    "l4-time-slicing": "version: v1\nflags:\n  migStrategy: none\n  plugin:\n    sharedDevicesAllocationPolicy: packed\n"
                       "sharing:\n  timeSlicing:\n    renameByDefault: false\n    failRequestsGreaterThanOne: false\n"
                       "    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"})
unrelated = config_map("serving", "triton-settings", {"model-repository": "s3://models/triton", "log-verbose": "1"})
cluster_policy = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cluster-policy"},
                  "spec": {"devicePlugin": {"enabled": True, "config": {"name": "device-plugin-config", "default": "l4-time-slicing"}},
                           "mig": {"strategy": "single"}, "operator": {"defaultRuntime": "containerd"}}}
write("mps-config.json", [mps_dp] + workload("serving", "rerank", ["gpu-a10-mps-0", "gpu-a10-mps-0"], whole)
      + [plugin_configs, unrelated, cluster_policy])

# 5. MIG, strategy mixed: an A100 80GB node whose 8 cards the MIG manager cut by mig-parted's
# all-balanced (per card 1g.10gb x 2, 2g.20gb, 3g.40gb); GFD labels each profile.
def mig_profile_labels(profile, count, memory, sms, slices):
    k = "nvidia.com/mig-" + profile + "."
    return {k + "count": str(count), k + "engines.copy": str(slices), k + "engines.decoder": str(slices // 2),
            k + "engines.encoder": "0", k + "engines.jpeg": "0", k + "engines.ofa": "0",
            k + "memory": str(memory), k + "multiprocessors": str(sms),
            k + "product": "NVIDIA-A100-SXM4-80GB-MIG-" + profile, k + "replicas": "1",
            k + "sharing-strategy": "none", k + "slices.ci": str(slices), k + "slices.gi": str(slices)}
def mig_node(name, counts, config):
    extra = {"nvidia.com/mig.capable": "true", "nvidia.com/mig.config": config,
             "nvidia.com/mig.config.state": "success", "nvidia.com/mig.strategy": "mixed"}
    geometry = {"1g.10gb": (9728, 14, 1), "2g.20gb": (19968, 28, 2), "3g.40gb": (40192, 42, 3)}
    capacity = {"nvidia.com/gpu": "0"}
    for profile, count in counts.items():
        extra.update(mig_profile_labels(profile, count, *geometry[profile]))
        capacity["nvidia.com/mig-" + profile] = str(count)
    return node(name, gfd("NVIDIA-A100-SXM4-80GB", 81920, 8, "ampere", 8, 0, extra=extra), capacity,
                cpu="96", alloc_cpu="95690m")
def mig_res(profile):
    r = "nvidia.com/mig-" + profile
    return {"limits": {r: "1"}, "requests": {"cpu": "2", "memory": "8Gi", r: "1"}}
mig = mig_node("gpu-a100-mig-0", {"1g.10gb": 16, "2g.20gb": 8, "3g.40gb": 8}, "all-balanced")
write("mig-mixed.json", [mig] + workload("ml", "bert", ["gpu-a100-mig-0", "gpu-a100-mig-0"], mig_res("1g.10gb"))
      + workload("ml", "llm", ["gpu-a100-mig-0"], mig_res("3g.40gb")))
# 5b. Mixed, but the cards are not cut alike (a custom mig-parted config): 20 1g.10gb over 8 cards.
uneven = mig_node("gpu-a100-mig-2", {"1g.10gb": 20, "3g.40gb": 4}, "custom-uneven")
write("mig-uneven.json", [uneven])

# 6. MIG, strategy single: nvidia.com/gpu counts 1g.10gb instances and the product says so.
single = gfd("NVIDIA-A100-SXM4-80GB-MIG-1g.10gb", 9728, 56, "ampere", 8, 0, extra={
    "nvidia.com/mig.capable": "true", "nvidia.com/mig.config": "all-1g.10gb", "nvidia.com/mig.config.state": "success",
    "nvidia.com/mig.strategy": "single", "nvidia.com/gpu.multiprocessors": "14", "nvidia.com/gpu.slices.ci": "1", "nvidia.com/gpu.slices.gi": "1"})
mig1 = node("gpu-a100-mig-1", single, {"nvidia.com/gpu": "56"}, cpu="96", alloc_cpu="95690m")
write("mig-single.json", [mig1] + workload("ml", "bert", ["gpu-a100-mig-1"], whole))

# 7. ACK: a node pool shared through MPS, and one with topology-aware scheduling.
def ack(name, schedule, capacity, model="NVIDIA-A10", mem="23028MiB", count="1"):
    return node(name, {"ack.node.gpu.schedule": schedule, "aliyun.accelerator/nvidia_count": count,
                       "aliyun.accelerator/nvidia_mem": mem, "aliyun.accelerator/nvidia_name": model,
                       "alibabacloud.com/nodepool-id": "np5e7f0c2a9b4d4c6f8e1a3b5c7d9e0f12",
                       "node.kubernetes.io/instance-type": "ecs.gn7i-c8g1.2xlarge",
                       "topology.kubernetes.io/region": "cn-hangzhou"}, capacity, zone="cn-hangzhou-k",
                cpu="8", alloc_cpu="7910m", mem="30696280Ki", alloc_mem="27452760Ki")
mps = ack("cn-hangzhou.10.0.3.41", "mps", {"aliyun.com/gpu-count": "1", "aliyun.com/gpu-mem": "22", "nvidia.com/gpu": "0"})
mps_res = {"limits": {"aliyun.com/gpu-mem": "4"}, "requests": {"cpu": "1", "memory": "4Gi", "aliyun.com/gpu-mem": "4"}}
write("ack-mps.json", [mps] + workload("ai", "tts", ["cn-hangzhou.10.0.3.41"], mps_res))
topo = ack("cn-hangzhou.10.0.3.52", "topology", {"aliyun.com/gpu": "8", "nvidia.com/gpu": "0"}, model="Tesla-V100-SXM2-16GB", mem="16160MiB", count="8")
topo_res = {"limits": {"aliyun.com/gpu": "2"}, "requests": {"cpu": "8", "memory": "32Gi", "aliyun.com/gpu": "2"}}
write("ack-topology.json", [topo] + workload("ml", "train", ["cn-hangzhou.10.0.3.52"], topo_res))
