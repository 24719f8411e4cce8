"""A small, real training job in plain Python: logistic regression by mini-batch gradient descent on a generated,
seeded data set. It reports its loss at every step, its accuracy per epoch and a few log lines through
dispatch_report, which reads the job service's variables (DIOPTRA_SERVICE_URL, DIOPTRA_JOB_ID, DIOPTRA_REPORT_TOKEN)
from its environment. Its values (epochs, lr) come from its job document. No third-party packages.

    python3 examples/train.py            # outside a job: trains, prints, and reports nothing
"""

import json
import logging
import math
import os
import random
import sys

try:
    import dispatch_report as report
except ImportError:  # in this repository the module sits in python/; in an image, drop it beside this script
    sys.path.append(os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "python"))
    import dispatch_report as report


def job_values() -> dict:
    """The job's parameter values, from the job document the service passes in numbered chunks."""
    chunks = int(os.environ.get("DIOPTRA_JOB_DOCUMENT_CHUNKS", "0") or 0)
    if chunks == 0:
        return {}
    text = "".join(os.environ.get("DIOPTRA_JOB_DOCUMENT_%d" % i, "") for i in range(chunks))
    return json.loads(text).get("values", {})


def make_data(n: int, features: int, seed: int):
    rng = random.Random(seed)
    truth = [rng.uniform(-2, 2) for _ in range(features)]
    bias = rng.uniform(-0.5, 0.5)
    rows = []
    for _ in range(n):
        x = [rng.gauss(0, 1) for _ in range(features)]
        p = 1 / (1 + math.exp(-(sum(w * v for w, v in zip(truth, x)) + bias)))
        rows.append((x, 1.0 if rng.random() < p else 0.0))
    return rows


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


def main() -> None:
    values = job_values()
    epochs = max(1, min(100, int(values.get("epochs", 5))))
    lr = float(values.get("lr", 0.5))
    log = logging.getLogger("train")
    log.setLevel(logging.INFO)
    log.addHandler(logging.StreamHandler(sys.stdout))
    log.addHandler(report.ReportHandler())

    data = make_data(n=800, features=8, seed=7)
    train, test = data[:640], data[640:]
    weights = [0.0] * 8
    bias = 0.0
    batch = 32
    rank = report.reporter().rank
    pod = os.environ.get("HOSTNAME", "unknown")
    log.info("training logistic regression on %d examples on pod %s (pid %d, rank %d), %d epochs, lr %g", len(train), pod, os.getpid(), rank, epochs, lr)
    order = random.Random(11)
    step = 0
    for epoch in range(1, epochs + 1):
        order.shuffle(train)
        epoch_loss = 0.0
        for start in range(0, len(train), batch):
            rows = train[start : start + batch]
            grad = [0.0] * len(weights)
            grad_b = 0.0
            loss = 0.0
            for x, y in rows:
                p = sigmoid(sum(w * v for w, v in zip(weights, x)) + bias)
                loss -= y * math.log(max(p, 1e-12)) + (1 - y) * math.log(max(1 - p, 1e-12))
                for i, v in enumerate(x):
                    grad[i] += (p - y) * v
                grad_b += p - y
            weights = [w - lr * g / len(rows) for w, g in zip(weights, grad)]
            bias -= lr * grad_b / len(rows)
            epoch_loss += loss
            report.log_metric("loss", loss / len(rows), step=step)
            step += 1
        correct = sum(1 for x, y in test if (sigmoid(sum(w * v for w, v in zip(weights, x)) + bias) >= 0.5) == (y == 1.0))
        accuracy = correct / len(test)
        report.log_metrics({"accuracy": accuracy, "epoch_loss": epoch_loss / len(train)}, step=epoch)
        log.info("epoch %d/%d: loss %.4f, test accuracy %.3f", epoch, epochs, epoch_loss / len(train), accuracy)
    log.info("training done after %d steps", step)
    report.close(10)


if __name__ == "__main__":
    main()
