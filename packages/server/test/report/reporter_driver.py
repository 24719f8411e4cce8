"""Drives dispatch_report as a training loop would, for the report tests: reads a plan (JSON, argv[1]), makes its
calls, measures each, and prints what it saw as JSON lines. The service's variables come from the environment. The
plan's options are written as the campaign writes them for every library (camelCase, milliseconds); this driver
translates them to the Reporter's own names and units."""

import json
import logging
import sys
import time

import dispatch_report as report

# The campaign's option name: the Reporter's keyword and the factor from the campaign's unit to the Reporter's.
OPTIONS = {
    "intervalMs": ("interval", 0.001),
    "timeoutMs": ("timeout", 0.001),
    "backoffMs": ("backoff", 0.001),
    "maxBackoffMs": ("max_backoff", 0.001),
    "exitTimeoutMs": ("exit_timeout", 0.001),
    "batchSize": ("batch_size", 1),
    "maxBuffer": ("max_buffer", 1),
}

plan = json.loads(sys.argv[1])
options = {OPTIONS[name][0]: value * OPTIONS[name][1] for name, value in plan.get("options", {}).items()}
reporter = report.Reporter(**options) if options else report.reporter()
durations = []


def timed(call, *args, **kwargs):
    started = time.perf_counter()
    call(*args, **kwargs)
    durations.append(time.perf_counter() - started)


handler = report.ReportHandler(reporter)
logger = logging.getLogger("driver")
logger.addHandler(handler)
logger.setLevel(logging.INFO)

for step in range(plan.get("metrics", 0)):
    timed(reporter.log_metric, "loss", 1.0 / (step + 1), step=step)
    if plan.get("pace"):
        time.sleep(plan["pace"])
for i in range(plan.get("logs", 0)):
    timed(logger.info, "line %d", i)
for step, values in enumerate(plan.get("many", [])):
    timed(reporter.log_metrics, values, step=step)
for i, (level, message) in enumerate(plan.get("lines", [])):
    timed(reporter.log, level, message)
if plan.get("specials"):
    for step, value in enumerate([float("nan"), float("inf"), float("-inf"), -0.0, 1e300]):
        timed(reporter.log_metric, "special", value, step=step)
for name, value, step in plan.get("bad", []):
    timed(reporter.log_metric, name, value, step=step)

print(json.dumps({"logged": True}), flush=True)
if plan.get("wait_for_go"):
    sys.stdin.readline()
if plan.get("close") is not None:
    started = time.perf_counter()
    done = reporter.close(plan["close"])
    print(json.dumps({"closed": done, "close_s": time.perf_counter() - started}), flush=True)
slowest = sorted(range(len(durations)), key=lambda i: -durations[i])[:3]
print(json.dumps({"calls": len(durations), "max_call_s": max(durations) if durations else 0, "slowest": [[i, durations[i]] for i in slowest], "stats": reporter.stats()}), flush=True)
