"""Worker processes of the GPU scripts (check_and_bench.py, models.py): a
fault that ruins the CUDA context or kills the process, or a kernel that
never returns, costs one task, and a new worker goes on with the rest.

A worker appends JSON records to a file, one a line: {"event": "env", "env":
{...}}, {"event": "start", "task": id}, {"event": "done", "task": id,
"result": {...}} and {"event": "fatal", "error": text}. supervise() starts
workers on the tasks left and follows each one's file with watch().
"""

import json
import os
import subprocess
import sys
import time

# Errors after which the CUDA context is unusable: the worker must stop.
STICKY_MARKERS = ("context is now unusable", "ILLEGAL_ADDRESS", "LAUNCH_FAILED",
                  "ILLEGAL_INSTRUCTION", "MISALIGNED_ADDRESS", "HARDWARE_STACK_ERROR",
                  "INVALID_PC", "illegal memory access", "unspecified launch failure",
                  "misaligned address", "illegal instruction")


def is_sticky(message):
    """Whether an error message says the CUDA context is lost."""
    return any(marker in message for marker in STICKY_MARKERS)


def emitter(path):
    """A function that appends one record to the file at `path`, flushed and
    synced, since the supervisor may kill the worker at any moment. numpy
    scalars become numbers and anything else JSON lacks text: a record never
    kills the worker."""
    out = open(path, "a")

    def emit(record):
        out.write(json.dumps(record, default=lambda o: o.item() if hasattr(o, "item")
                             else str(o)) + "\n")
        out.flush()
        os.fsync(out.fileno())

    return emit


class Watch:
    """What one worker reported before it exited or was killed: results
    {task: result}, env (or None), fatal (the record, or None), rc (its exit
    status, None when killed), stopped ("hung", "budget" or None) and
    current ((task, start time) of the task it was running when it stopped,
    or None)."""

    def __init__(self):
        self.results, self.env, self.fatal = {}, None, None
        self.rc = self.stopped = self.current = None


def watch(process, log, timeout, deadline):
    """Follows `process`, which appends records to the file `log`, until it
    exits; kills it when its current task has run for more than
    timeout(task) seconds (stopped = "hung") or when time.time() passes
    `deadline` ("budget")."""
    w = Watch()
    seen = 0
    while True:
        w.rc = process.poll()
        # Complete lines only: the worker may be writing one.
        with open(log) as f:
            lines = f.read().split("\n")[:-1]
        for line in lines[seen:]:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record["event"] == "env":
                w.env = record["env"]
            elif record["event"] == "start":
                w.current = (record["task"], time.time())
            elif record["event"] == "done":
                w.results[record["task"]] = record["result"]
                w.current = None
            elif record["event"] == "fatal":
                w.fatal = record
        seen = len(lines)
        if w.rc is not None:
            return w
        now = time.time()
        if w.current and now - w.current[1] > timeout(w.current[0]):
            w.stopped = "hung"
        elif now > deadline:
            w.stopped = "budget"
        if w.stopped:
            process.kill()
            process.wait()
            return w
        time.sleep(0.25)


def supervise(tasks, work_dir, command, timeout, deadline, interrupted, skip=None,
              attempts=24):
    """Runs `tasks` (dicts with an "id") in worker processes until each has a
    result; returns ({task id: result}, the environment a worker reported).

    command(tasks file, results file) is a worker's command line. A new
    worker takes the tasks left after one dies, loses its CUDA context or
    hangs; interrupted(task, stopped, rc) gives the result of the task it was
    running then (stopped: "hung", "budget" or None for a dead worker, rc
    its exit status). skip(task, results) may give a task a result without
    running it (a kernel that hung in another task). Tasks left when the
    deadline passes are skipped."""
    results, env = {}, {}
    by_id = {t["id"]: t for t in tasks}
    os.makedirs(work_dir, exist_ok=True)
    for attempt in range(attempts):
        remaining = []
        for t in tasks:
            if t["id"] in results:
                continue
            skipped = skip(t, results) if skip else None
            if skipped:
                results[t["id"]] = skipped
            else:
                remaining.append(t)
        if not remaining:
            break
        if time.time() > deadline:
            for t in remaining:
                results[t["id"]] = dict(status="skipped", error="time budget exhausted")
            break
        tasks_file = os.path.join(work_dir, "tasks%d.json" % attempt)
        results_file = os.path.join(work_dir, "results%d.jsonl" % attempt)
        with open(tasks_file, "w") as f:
            json.dump(remaining, f)
        open(results_file, "w").close()
        watched = watch(subprocess.Popen(command(tasks_file, results_file)), results_file,
                        lambda task: timeout(by_id[task]), deadline)
        results.update(watched.results)
        env = watched.env or env
        if watched.current and watched.current[0] not in results:
            task = by_id[watched.current[0]]
            results[task["id"]] = interrupted(task, watched.stopped, watched.rc)
        if watched.fatal:
            for t in remaining:
                results.setdefault(t["id"], dict(status="error", error=watched.fatal["error"]))
            print(watched.fatal.get("trace", ""), file=sys.stderr)
            break
        if watched.rc == 0 and not watched.stopped:
            break
    for t in tasks:
        results.setdefault(t["id"], dict(status="skipped", error="too many worker restarts"))
    return results, env
