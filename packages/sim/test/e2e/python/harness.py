"""What every test module shares: Debian's python3-kubernetes client, configured from the kubeconfig the
simulator's HTTP face wrote (KUBECONFIG), used as a data scientist uses it."""

import time
import uuid

from kubernetes import client, config

GROUP = "trainer.kubeflow.org"
VERSION = "v1alpha1"
PLURAL = "trainjobs"
NAMESPACE = "default"


def api_client():
    """A client of the simulated cluster, from the kubeconfig alone."""
    config.load_kube_config()
    return client.ApiClient()


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def train_job(name, **spec):
    """A TrainJob on the served torch runtime, as Kubeflow's SDK writes one."""
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "TrainJob",
        "metadata": {"name": name},
        "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": 1, "command": ["python", "train.py"]}, **spec},
    }


def create_train_job(api, name, **spec):
    return client.CustomObjectsApi(api).create_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, train_job(name, **spec))


def condition(job, kind):
    for c in (job.get("status") or {}).get("conditions") or []:
        if c.get("type") == kind:
            return c
    return None


def until(check, within=120.0, every=0.05):
    """Polls check until it returns something truthy (a bound for a slow machine, not a duration)."""
    end = time.monotonic() + within
    while True:
        found = check()
        if found or time.monotonic() > end:
            return found
        time.sleep(every)


def pods_of(api, job):
    return client.CoreV1Api(api).list_namespaced_pod(NAMESPACE, label_selector=f"jobset.sigs.k8s.io/jobset-name={job}").items


def running_pod(api, prefix):
    """The name of the first pod of a new TrainJob, once it runs."""
    name = unique(prefix)
    create_train_job(api, name)
    running = until(lambda: [p for p in pods_of(api, name) if p.status.phase == "Running"])
    if not running:
        raise AssertionError(f"no pod of {name} ever ran")
    return running[0].metadata.name
