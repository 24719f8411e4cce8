"""Runs Dioptra's own Python client (the `dioptra.client` package, installed separately) against a
dispatch service started with `--signup`: every method the job front supports, once each, printing
OK or FAIL per call and the number that passed. Exits 1 if any call failed.

    python3 scripts/dioptra-client-check.py http://127.0.0.1:8080
"""
import json, math, sys, uuid
from dioptra.client import connect_json_dioptra_client
url = sys.argv[1]
c = connect_json_dioptra_client(url)
ok = 0
failed = 0
def step(name, f):
    global ok, failed
    try:
        r = f()
        ok += 1
        print("OK  ", name, json.dumps(r)[:160] if r is not None else "")
        return r
    except Exception as e:
        failed += 1
        print("FAIL", name, type(e).__name__, str(e)[:400])
        return None
u = "u" + uuid.uuid4().hex[:8]
step("users.create", lambda: c.users.create(u, u + "@example.org", "a long password 1"))
step("auth.login", lambda: c.auth.login(u, "a long password 1"))
step("users.get_current", lambda: c.users.get_current())
groups = step("groups.get", lambda: c.groups.get())
gid = groups["data"][0]["id"] if groups else 1
step("groups.get_by_id", lambda: c.groups.get_by_id(gid))
q = step("queues.create", lambda: c.queues.create(gid, "q" + u, "a queue"))
qid = q["id"] if q else 0
step("queues.get", lambda: c.queues.get(search="name:q*"))
step("queues.get_by_id", lambda: c.queues.get_by_id(qid))
step("queues.modify_by_id", lambda: c.queues.modify_by_id(qid, "q2" + u, "renamed"))
tg = "step1:\n  task: hello\n  args: []\n"
e = step("entrypoints.create", lambda: c.entrypoints.create(gid, "ep" + u, tg, description="ep", parameters=[{"name": "epochs", "defaultValue": "3", "parameterType": "integer"}], queues=[qid]))
eid = e["id"] if e else 0
step("entrypoints.get", lambda: c.entrypoints.get())
step("entrypoints.get_by_id", lambda: c.entrypoints.get_by_id(eid))
x = step("experiments.create", lambda: c.experiments.create(gid, "ex" + u, "an experiment", entrypoints=[eid]))
xid = x["id"] if x else 0
step("experiments.get", lambda: c.experiments.get(search="description:*experiment*"))
step("experiments.get_by_id", lambda: c.experiments.get_by_id(xid))
step("experiments.modify_by_id", lambda: c.experiments.modify_by_id(xid, "ex2" + u, "changed", [eid]))
j = step("experiments.jobs.create", lambda: c.experiments.jobs.create(xid, eid, qid, values={"epochs": "5"}, timeout="24h", description="a job"))
jid = j["id"] if j else 0
step("experiments.jobs.get", lambda: c.experiments.jobs.get(xid))
step("experiments.jobs.get_by_id", lambda: c.experiments.jobs.get_by_id(xid, jid))
step("experiments.jobs.get_status", lambda: c.experiments.jobs.get_status(xid, jid))
step("jobs.get", lambda: c.jobs.get(sort_by="createdOn", descending=True, search="description:*job*"))
step("jobs.get_by_id", lambda: c.jobs.get_by_id(jid))
step("jobs.get_status", lambda: c.jobs.get_status(jid))
step("jobs.get_parameters", lambda: c.jobs.get_parameters(jid))
step("jobs.get_artifact_parameters", lambda: c.jobs.get_artifact_parameters(jid))
step("jobs.append_logs_by_id", lambda: c.jobs.append_logs_by_id(jid, [{"severity": "INFO", "loggerName": "t", "message": "m1"}, {"severity": "ERROR", "loggerName": "t", "message": "m2"}]))
step("jobs.get_logs_by_id", lambda: c.jobs.get_logs_by_id(jid, severity=["ERROR"]))
step("jobs.append_metric_by_id", lambda: c.jobs.append_metric_by_id(jid, "loss", 0.5, 1, "2026-01-01T00:00:00Z"))
step("jobs.append_metric_by_id nan", lambda: c.jobs.append_metric_by_id(jid, "loss", float("nan"), 2))
step("jobs.append_metric_by_id inf", lambda: c.jobs.append_metric_by_id(jid, "loss", float("inf"), 3))
step("jobs.get_metrics_by_id", lambda: c.jobs.get_metrics_by_id(jid))
step("jobs.get_metrics_snapshots_by_id", lambda: c.jobs.get_metrics_snapshots_by_id(jid, "loss"))
step("jobs.set_mlflow_run_id", lambda: c.jobs.set_mlflow_run_id(jid, uuid.uuid4().hex))
step("jobs.get_mlflow_run_id", lambda: c.jobs.get_mlflow_run_id(jid))
step("experiments.jobs.set_status", lambda: c.experiments.jobs.set_status(xid, jid, "started"))
step("experiments.jobs.create_artifact", lambda: c.experiments.jobs.create_artifact(xid, jid, "s3://bucket/model.pt", description="model"))
j2 = step("experiments.jobs.create 2", lambda: c.experiments.jobs.create(xid, eid, qid))
step("experiments.jobs.delete_by_id", lambda: c.experiments.jobs.delete_by_id(xid, j2["id"]) if j2 else None)
step("jobs.delete_by_id", lambda: c.jobs.delete_by_id(jid))
step("experiments.delete_by_id", lambda: c.experiments.delete_by_id(xid))
step("entrypoints.delete_by_id", lambda: c.entrypoints.delete_by_id(eid))
step("queues.delete_by_id", lambda: c.queues.delete_by_id(qid))
step("auth.logout", lambda: c.auth.logout())
print("passed", ok)
sys.exit(0 if failed == 0 else 1)
