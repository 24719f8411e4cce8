"""Report a training job's metrics and log lines to the dispatch job service, without ever slowing or breaking training.

In a job's pod the service sets ``DIOPTRA_SERVICE_URL``, ``DIOPTRA_JOB_ID`` and ``DIOPTRA_REPORT_TOKEN``; this module
reads them, so a training script needs no arguments::

    import dispatch_report as report

    for step in range(100):
        loss = train_one_step()
        report.log_metric("loss", loss, step=step)
    report.log("INFO", "training done")

Every call returns at once: records go to a bounded buffer, and a background thread sends them in batches
(``POST {DIOPTRA_SERVICE_URL}/jobs/{id}/reports``), by size and interval, retrying with exponential backoff and full
jitter, honouring ``Retry-After``, with one ``Idempotency-Key`` per batch kept across its retries so a batch that
landed is never stored twice. When the buffer is full the oldest records are dropped and counted, and the counts go
with the next batch that lands. At exit the buffer is flushed, for at most a few seconds. Nothing here raises into the
caller or blocks it: the service down, slow, answering 5xx, the token refused or the job gone all leave training
unharmed; a permanent refusal stops the sending and is said once on stderr.

Only rank 0 reports (``RANK``, as torchrun sets it, else ``PET_NODE_RANK``, as Kubeflow Trainer sets it per node)
unless ``all_ranks=True`` or ``DISPATCH_REPORT_ALL_RANKS=1``. The report-back contract lets a job's workload post
its log and metrics only, so there is no ``status()``: the service derives the job's status from its TrainJob.

The standard library only, Python 3.9 or later; the module is one file, usable dropped into an image as it is.
"""

from __future__ import annotations

import atexit
import collections
import http.client
import json
import logging
import math
import os
import random
import re
import sys
import threading
import time
import urllib.parse
import uuid
from email.utils import parsedate_to_datetime
from typing import Any, Deque, Dict, List, Mapping, Optional, Tuple, Union

__all__ = [
    "Reporter",
    "ReportHandler",
    "reporter",
    "log_metric",
    "log_metrics",
    "log",
    "flush",
    "close",
]

__version__ = "0.1.0"

_METRIC_NAME = re.compile(r"[A-Za-z]([A-Za-z0-9_]*)|_[A-Za-z0-9_]+")
_SEVERITIES = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_MAX_STEP = 2**53 - 1
# The service takes names up to 255 characters and texts up to 64 KiB of UTF-8: 16,384 characters always fit.
_MAX_NAME = 255
_MAX_MESSAGE = 16_384
# Statuses worth sending the same batch again for: the service is starting, overloaded or briefly failing.
_RETRY_STATUSES = frozenset((408, 425, 429, 500, 502, 503, 504))
# Statuses that say this job's reports will never be taken: the token is refused, or the job is gone.
_PERMANENT_STATUSES = frozenset((401, 403, 404, 410))

_Number = Union[int, float]
# A buffered record: ("m", name, value, step, time) or ("l", severity, logger name, message, time).
_Record = Tuple[str, str, Any, Any, float]


def _rank(env: Mapping[str, str]) -> int:
    for key in ("RANK", "PET_NODE_RANK"):
        text = env.get(key)
        if text is not None and text.strip().lstrip("-").isdigit():
            return int(text)
    return 0


def _wire_value(value: float) -> Union[float, str]:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def _iso(at: float) -> str:
    whole = int(at)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + ".%03dZ" % int((at - whole) * 1000)


def _storable(text: str, limit: int) -> str:
    """Text the service can store: at most `limit` characters, no NUL, no lone surrogate."""
    if len(text) > limit:
        text = text[:limit]
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def _retry_after(header: Optional[str]) -> Optional[float]:
    if header is None:
        return None
    header = header.strip()
    if header.isdigit():
        return float(header)
    try:
        return max(0.0, parsedate_to_datetime(header).timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


class Reporter:
    """Sends one job's metrics and log records to the job service from a background thread.

    Calls never raise and never wait on the network. ``flush`` and ``close`` wait, at most for their timeout.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        job_id: Optional[Union[int, str]] = None,
        token: Optional[str] = None,
        *,
        all_ranks: Optional[bool] = None,
        max_buffer: int = 100_000,
        batch_size: int = 1_000,
        batch_bytes: int = 512 * 1024,
        interval: float = 1.0,
        timeout: float = 10.0,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        exit_timeout: float = 5.0,
        logger_name: str = "train",
        env: Optional[Mapping[str, str]] = None,
    ) -> None:
        environ: Mapping[str, str] = os.environ if env is None else env
        self._url = url if url is not None else environ.get("DIOPTRA_SERVICE_URL")
        job = job_id if job_id is not None else environ.get("DIOPTRA_JOB_ID")
        self._token = token if token is not None else environ.get("DIOPTRA_REPORT_TOKEN")
        if all_ranks is None:
            all_ranks = environ.get("DISPATCH_REPORT_ALL_RANKS", "") in ("1", "true", "True", "yes")
        self.rank = _rank(environ)
        self._max_buffer = max(1, max_buffer)
        self._batch_size = max(1, min(batch_size, 5_000))
        self._batch_bytes = max(1024, min(batch_bytes, 1024 * 1024 - 4096))
        self._interval = interval
        self._timeout = timeout
        self._backoff = backoff
        self._max_backoff = max_backoff
        self._exit_timeout = exit_timeout
        self._logger_name = _storable(logger_name, _MAX_NAME)
        self._buffer: Deque[_Record] = collections.deque()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._idle = threading.Condition(self._lock)
        self._names: set = set()
        self._encoded_names: Dict[str, str] = {}
        self._encoded_times: Dict[int, str] = {}
        self._thread: Optional[threading.Thread] = None
        self._in_flight = False
        self._flushing = 0
        self._closed = False
        self._stopped_reason: Optional[str] = None
        self._said: set = set()
        # Drops since the last batch that landed, and what has been sent, by kind.
        self._dropped = {"metrics": 0, "logs": 0}
        self.sent = {"metrics": 0, "logs": 0, "batches": 0}
        self.refused = {"metrics": 0, "logs": 0}
        self.retries = 0
        self._conn: Optional[http.client.HTTPConnection] = None
        self._path = ""
        problem = None
        if not (self.rank == 0 or all_ranks):
            problem = "rank %d does not report (only rank 0 does unless all_ranks)" % self.rank
        elif not self._url or job is None or not self._token:
            problem = "DIOPTRA_SERVICE_URL, DIOPTRA_JOB_ID and DIOPTRA_REPORT_TOKEN are not all set; reporting is off"
        else:
            parsed = urllib.parse.urlsplit(self._url)
            if parsed.scheme not in ("http", "https") or not parsed.hostname:
                problem = "DIOPTRA_SERVICE_URL %r is not an http(s) URL; reporting is off" % self._url
            else:
                self._scheme = parsed.scheme
                self._host = parsed.hostname
                self._port = parsed.port
                self._path = "%s/jobs/%s/reports" % (parsed.path.rstrip("/"), urllib.parse.quote(str(job), safe=""))
        self.enabled = problem is None
        if problem is not None and not self.enabled and self.rank == 0:
            self._say(problem)
        if self.enabled:
            atexit.register(self._at_exit)
            # Started here, not on the first call: starting a thread waits for it to run.
            with self._lock:
                self._ensure_thread()

    # The calls training makes: each returns at once.

    def log_metric(self, name: str, value: _Number, step: Optional[int] = None) -> None:
        """Records `value` of metric `name` at `step` (0 when absent), measured now. NaN and the infinities are kept."""
        if not self.enabled:
            return
        # The common case is checked inline: this runs once per metric per training step.
        try:
            number = float(value)
        except Exception as error:  # noqa: BLE001 - a bad value is the caller's, never its problem
            self._refuse_locally("metric %r: value %r is not a number (%s)" % (name, value, error), "metrics")
            return
        if name not in self._names and not self._name_ok(name):
            return
        if step is None:
            step = 0
        elif step.__class__ is not int or step < 0 or step > _MAX_STEP:
            step = self._step(name, step)
            if step is None:
                return
        with self._lock:
            buffer = self._buffer
            if len(buffer) >= self._max_buffer:
                oldest = buffer.popleft()
                self._dropped["metrics" if oldest[0] == "m" else "logs"] += 1
            buffer.append(("m", name, number, step, time.time()))
            if len(buffer) >= self._batch_size and not self._in_flight:
                self._wake.notify()

    def log_metrics(self, metrics: Mapping[str, _Number], step: Optional[int] = None) -> None:
        """Records several metrics at one step, as ``log_metric`` records each."""
        if not self.enabled:
            return
        try:
            items = list(metrics.items())
        except Exception as error:  # noqa: BLE001
            self._refuse_locally("log_metrics takes a mapping of names to numbers (%s)" % error, "metrics")
            return
        for name, value in items:
            self.log_metric(name, value, step)

    def log(self, level: Union[str, int], message: str, logger_name: Optional[str] = None) -> None:
        """Records a log line at `level` (DEBUG, INFO, WARNING, ERROR, CRITICAL, or a logging level number)."""
        if not self.enabled:
            return
        try:
            severity = _severity(level)
            text = _storable(message if isinstance(message, str) else str(message), _MAX_MESSAGE)
            who = self._logger_name if logger_name is None else _storable(str(logger_name), _MAX_NAME)
        except Exception as error:  # noqa: BLE001
            self._refuse_locally("log: %s" % error, "logs")
            return
        self._put(("l", severity, who, text, time.time()))

    def flush(self, timeout: Optional[float] = 10.0) -> bool:
        """Sends what is buffered now; waits at most `timeout` seconds. True when everything buffered was sent (or
        refused), False when the time ran out first (what is left stays buffered)."""
        if not self.enabled:
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            if not self._buffer and not self._in_flight:
                return True
            self._ensure_thread()
            self._flushing += 1
            try:
                self._wake.notify()
                while self._buffer or self._in_flight:
                    if self._stopped_reason is not None or self._thread is None or not self._thread.is_alive():
                        break
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        return False
                    self._idle.wait(left if left is None else min(left, 0.5))
                return not self._buffer and not self._in_flight
            finally:
                self._flushing -= 1

    def close(self, timeout: Optional[float] = 10.0) -> bool:
        """Flushes (at most `timeout` seconds), then stops the sender. Later calls record nothing."""
        if not self.enabled:
            return True
        done = self.flush(timeout)
        with self._lock:
            self._closed = True
            self.enabled = False
            self._wake.notify()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(1.0)
        return done

    def stats(self) -> Dict[str, Any]:
        """What was sent, dropped (buffer full, not yet told to the service) and refused, and whether sending stopped."""
        with self._lock:
            return {
                "sent": dict(self.sent),
                "dropped": dict(self._dropped),
                "refused": dict(self.refused),
                "buffered": len(self._buffer),
                "retries": self.retries,
                "stopped": self._stopped_reason,
            }

    # The buffer.

    def _put(self, record: _Record) -> None:
        with self._lock:
            buffer = self._buffer
            if len(buffer) >= self._max_buffer:
                oldest = buffer.popleft()
                self._dropped["metrics" if oldest[0] == "m" else "logs"] += 1
            buffer.append(record)
            if self._thread is None:
                self._ensure_thread()
            if len(buffer) >= self._batch_size and not self._in_flight:
                self._wake.notify()

    def _name_ok(self, name: Any) -> bool:
        if isinstance(name, str) and len(name) <= _MAX_NAME and _METRIC_NAME.fullmatch(name):
            if len(self._names) < 10_000:
                self._names.add(name)
            return True
        self._refuse_locally(
            'metric name %r must be one letter, or a letter or "_" followed by letters, digits or "_" (at most 255)' % (name,),
            "metrics",
        )
        return False

    def _step(self, name: str, step: Any) -> Optional[int]:
        try:
            whole = int(step)
            if whole == step and 0 <= whole <= _MAX_STEP:
                return whole
        except (TypeError, ValueError, OverflowError):
            pass
        self._refuse_locally("metric %r: step %r is not a whole number from 0" % (name, step), "metrics")
        return None

    def _refuse_locally(self, why: str, kind: str) -> None:
        with self._lock:
            self.refused[kind] += 1
        self._say("not sent: %s" % why, once=why.split(":")[0])

    def _say(self, text: str, once: Optional[str] = None) -> None:
        key = text if once is None else once
        if key in self._said:
            return
        self._said.add(key)
        try:
            sys.stderr.write("dispatch_report: %s\n" % text)
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - stderr closed: nothing to say it on
            pass

    # The sender.

    def _ensure_thread(self) -> None:
        # Called with the lock held.
        if self._thread is None and not self._closed:
            thread = threading.Thread(target=self._run, name="dispatch_report", daemon=True)
            self._thread = thread
            try:
                thread.start()
            except RuntimeError:  # the interpreter is shutting down
                self._thread = None

    def _run(self) -> None:
        try:
            while True:
                with self._lock:
                    if not self._buffer and not self._closed:
                        self._idle.notify_all()
                        self._wake.wait(self._interval)
                    elif len(self._buffer) < self._batch_size and not self._flushing and not self._closed:
                        self._wake.wait(self._interval)
                    if self._stopped_reason is not None or (self._closed and not self._buffer):
                        self._buffer.clear()
                        self._idle.notify_all()
                        return
                    batch = self._take()
                if batch is not None:
                    self._deliver(*batch)
        except Exception as error:  # noqa: BLE001 - the sender must never take training down with it
            with self._lock:
                self._stopped_reason = "the sender failed: %r" % (error,)
                self._buffer.clear()
                self._idle.notify_all()
            self._say("stopped sending: the sender failed: %r" % (error,))
        finally:
            self._close_connection()

    def _take(self) -> Optional[Tuple[bytes, Dict[str, int], Dict[str, int]]]:
        """Takes the next batch off the buffer (lock held): its body, its counts, and the drops it reports."""
        buffer = self._buffer
        dropped = dict(self._dropped)
        if not buffer and dropped["metrics"] + dropped["logs"] == 0:
            return None
        metrics: List[str] = []
        logs: List[str] = []
        size = 64
        names = self._encoded_names
        times = self._encoded_times
        popleft = buffer.popleft
        gmtime = time.gmtime
        strftime = time.strftime
        batch_size = self._batch_size
        batch_bytes = self._batch_bytes
        count = 0
        while buffer and count < batch_size:
            kind, a, b, c, at = buffer[0]
            # The time to the millisecond; its second's text is kept, as many records share a second.
            whole = int(at)
            second = times.get(whole)
            if second is None:
                if len(times) > 64:
                    times.clear()
                second = times[whole] = strftime("%Y-%m-%dT%H:%M:%S", gmtime(whole))
            if kind == "m":
                name = names.get(a)
                if name is None:
                    name = names[a] = '{"name":%s,"value":' % json.dumps(a)
                text = '%s%s,"step":%d,"timestamp":"%s.%03dZ"}' % (name, repr(b) if b - b == 0 else '"%s"' % _wire_value(b), c, second, (at - whole) * 1000)
                target = metrics
            else:
                text = '{"severity":"%s","loggerName":%s,"message":%s,"timestamp":"%s.%03dZ"}' % (a, json.dumps(b), json.dumps(c), second, (at - whole) * 1000)
                target = logs
            size += len(text) + 1
            if size > batch_bytes and count > 0:
                break
            popleft()
            target.append(text)
            count += 1
        self._dropped = {"metrics": 0, "logs": 0}
        self._in_flight = True
        body = '{"metrics":[%s],"logs":[%s],"dropped":{"metrics":%d,"logs":%d}}' % (
            ",".join(metrics),
            ",".join(logs),
            dropped["metrics"],
            dropped["logs"],
        )
        return body.encode("utf-8"), {"metrics": len(metrics), "logs": len(logs)}, dropped

    def _deliver(self, body: bytes, counts: Dict[str, int], dropped: Dict[str, int]) -> None:
        """Sends one batch until it lands, is refused, or sending stops; its key is the same on every retry."""
        key = uuid.uuid4().hex
        attempt = 0
        outcome = "refused"
        try:
            while True:
                status, retry_after, error = self._post(body, key)
                if status is not None and 200 <= status < 300:
                    outcome = "sent"
                    return
                if status is not None and status in _PERMANENT_STATUSES:
                    outcome = "stopped"
                    with self._lock:
                        self._stopped_reason = "the service answered %d (%s)" % (status, error)
                        self.enabled = False
                    self._say("stopped sending: the service answered %d: %s; the job's reports are no longer taken" % (status, error))
                    return
                retry = status is None or status in _RETRY_STATUSES or (status == 409 and error.startswith("IdempotencyKeyInUse"))
                if not retry:
                    self._say("a batch of %d records was refused (%d: %s); it is not sent again" % (counts["metrics"] + counts["logs"], status, error), once="refused %s" % status)
                    return
                with self._lock:
                    closing = self._closed
                    self.retries += 1
                if closing and attempt > 2:
                    # At exit the flush is bounded; the batch is given up and the rest left.
                    outcome = "stopped"
                    return
                delay = random.uniform(0, min(self._max_backoff, self._backoff * (2**attempt)))
                if retry_after is not None:
                    delay = max(delay, min(retry_after, self._max_backoff))
                attempt += 1
                time.sleep(delay)
        finally:
            with self._lock:
                if outcome == "sent":
                    self.sent["metrics"] += counts["metrics"]
                    self.sent["logs"] += counts["logs"]
                    self.sent["batches"] += 1
                elif outcome == "refused":
                    self.refused["metrics"] += counts["metrics"]
                    self.refused["logs"] += counts["logs"]
                    # The drops it carried were not recorded: the next batch tells them.
                    for kind in dropped:
                        self._dropped[kind] += dropped[kind]
                self._in_flight = False
                self._idle.notify_all()

    def _post(self, body: bytes, key: str) -> Tuple[Optional[int], Optional[float], str]:
        """One POST of a batch: its status (None when no answer came), Retry-After, and the error's name and message."""
        try:
            conn = self._connection()
            conn.request(
                "POST",
                self._path,
                body=body,
                headers={
                    "Authorization": "Bearer %s" % self._token,
                    "Content-Type": "application/json",
                    "Idempotency-Key": key,
                },
            )
            response = conn.getresponse()
            text = response.read()
            status = response.status
            retry_after = _retry_after(response.getheader("Retry-After"))
            if response.getheader("Connection", "").lower() == "close":
                self._close_connection()
        except Exception as error:  # noqa: BLE001 - the network's failure is a retry, never the caller's
            self._close_connection()
            return None, None, repr(error)
        detail = ""
        if status >= 300:
            try:
                answer = json.loads(text)
                detail = "%s: %s" % (answer.get("error", ""), answer.get("message", ""))
            except Exception:  # noqa: BLE001
                detail = text[:200].decode("utf-8", "replace")
        return status, retry_after, detail

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            kind = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            self._conn = kind(self._host, self._port, timeout=self._timeout)
        return self._conn

    def _close_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001
                pass

    def _at_exit(self) -> None:
        try:
            if self.enabled and not self.flush(self._exit_timeout):
                left = self.stats()["buffered"]
                self._say(
                    "at exit, after %.1f s, %d buffered records and the batch being sent were left unsent" % (self._exit_timeout, left)
                )
            with self._lock:
                self._closed = True
                self._wake.notify()
        except Exception:  # noqa: BLE001
            pass


def _severity(level: Union[str, int]) -> str:
    if isinstance(level, str):
        upper = level.upper()
        if upper in _SEVERITIES:
            return upper
        if upper == "WARN":
            return "WARNING"
        if upper in ("FATAL",):
            return "CRITICAL"
        raise ValueError("level %r is not one of %s" % (level, ", ".join(_SEVERITIES)))
    number = int(level)
    if number >= logging.CRITICAL:
        return "CRITICAL"
    if number >= logging.ERROR:
        return "ERROR"
    if number >= logging.WARNING:
        return "WARNING"
    if number >= logging.INFO:
        return "INFO"
    return "DEBUG"


class ReportHandler(logging.Handler):
    """A logging handler that forwards each record to the job's log: its level, its logger's name, its formatted message."""

    def __init__(self, reporter: Optional[Reporter] = None, level: int = logging.NOTSET) -> None:
        super().__init__(level)
        self._reporter = reporter

    def emit(self, record: logging.LogRecord) -> None:
        try:
            target = self._reporter if self._reporter is not None else _default()
            target.log(record.levelno, self.format(record), logger_name=record.name)
        except Exception:  # noqa: BLE001
            self.handleError(record)


_default_reporter: Optional[Reporter] = None
_default_lock = threading.Lock()


def _default() -> Reporter:
    global _default_reporter
    found = _default_reporter
    if found is None:
        with _default_lock:
            if _default_reporter is None:
                _default_reporter = Reporter()
            found = _default_reporter
    return found


def reporter() -> Reporter:
    """The module's reporter, made from the environment on first use."""
    return _default()


def log_metric(name: str, value: _Number, step: Optional[int] = None) -> None:
    """Records a metric value at a step (0 when absent) with the module's reporter."""
    (_default_reporter or _default()).log_metric(name, value, step)


def log_metrics(metrics: Mapping[str, _Number], step: Optional[int] = None) -> None:
    """Records several metrics at one step with the module's reporter."""
    (_default_reporter or _default()).log_metrics(metrics, step)


def log(level: Union[str, int], message: str, logger_name: Optional[str] = None) -> None:
    """Records a log line with the module's reporter."""
    (_default_reporter or _default()).log(level, message, logger_name)


def flush(timeout: Optional[float] = 10.0) -> bool:
    """Sends what the module's reporter holds, waiting at most `timeout` seconds."""
    return _default().flush(timeout)


def close(timeout: Optional[float] = 10.0) -> bool:
    """Flushes and stops the module's reporter."""
    return _default().close(timeout)
