#!/usr/bin/env python3
"""Checks of the files under deploy/ (meson test suite `deploy`, docs/deploy.md).

Each subcommand checks one file with the tool its system provides (promtool,
amtool, systemd-analyze) and exits 0 (good), 1 (bad: what and where on stderr)
or 77 (the tool is missing: meson's "skipped"; but 1 when the environment
variable CI is set, since CI installs every tool: scripts/install-deps.sh).

  check_deploy.py prometheus-config PROMETHEUS_YML
  check_deploy.py rules RULES_YML
  check_deploy.py rules-test TEST_YML...
  check_deploy.py alertmanager ALERTMANAGER_YML
  check_deploy.py systemd UNIT DROPIN... --exec BINARY [--config-example STATION_CONF]
  check_deploy.py dashboard DASHBOARD_JSON
  check_deploy.py names RULES_YML ALERTMANAGER_YML DASHBOARD_JSON
  check_deploy.py dashboard-exprs DASHBOARD_JSON   (prints each query, variables replaced)
  check_deploy.py kubernetes MANIFEST_YAML... [--gpu]   (Indexed Jobs; --gpu: the GPU variant)
  check_deploy.py kustomize KUSTOMIZATION_DIR          (kubectl kustomize, then as kubernetes)
  check_deploy.py self-test DEPLOY_DIR --exec BINARY (each check fails on a broken copy)
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SKIP = 77

# The exposition's families (docs/live-monitoring.md "Metrics"; tools/monitor/exposition.cpp).
# K: the unit kinds of the score families.
_KINDS = ("vmaf", "psnr_decibels", "feature")
KNOWN_METRICS = {
    "vmafexact_build_info", "vmafexact_channel_info", "vmafexact_channel_up",
    "vmafexact_channel_restarts_total", "vmafexact_frames_scored_total",
    "vmafexact_frames_unpaired_total", "vmafexact_frames_skipped_late_total",
    "vmafexact_media_scored_seconds_total", "vmafexact_last_frame_index",
    "vmafexact_last_frame_running_time_seconds", "vmafexact_last_frame_timestamp_seconds",
    "vmafexact_window_frames", "vmafexact_window_frames_unpaired",
    "vmafexact_window_frames_skipped_late", "vmafexact_window_end_seconds",
    "vmafexact_alert_active", "vmafexact_alert_value", "vmafexact_alert_threshold",
    "vmafexact_alert_raised_total", "vmafexact_end_of_stream",
}
for _k in _KINDS:
    KNOWN_METRICS |= {
        f"vmafexact_frame_{_k}",
        f"vmafexact_window_{_k}", f"vmafexact_window_{_k}_count", f"vmafexact_window_{_k}_mean",
        f"vmafexact_window_{_k}_harmonic_mean", f"vmafexact_window_{_k}_low_mean",
        f"vmafexact_run_{_k}", f"vmafexact_run_{_k}_mean", f"vmafexact_run_{_k}_harmonic_mean",
        f"vmafexact_run_{_k}_low_mean", f"vmafexact_run_aggregate_{_k}",
    }

# Grafana variables a query may use, and what they stand for when checked.
DASHBOARD_VARIABLES = {"channel": ".+", "__rate_interval": "1m", "__interval": "15s"}

# Where each kind of alert goes: (labels, receiver) for `amtool config routes test`.
ROUTES = [
    ({"alertname": "VmafexactChannelDown", "severity": "critical", "channel": "news"}, "vmafexact-pager"),
    ({"alertname": "VmafexactMonitorDown", "severity": "critical", "instance": "m:9464"}, "vmafexact-pager"),
    ({"alertname": "VmafexactVmafP5Low", "severity": "warning", "channel": "news"}, "vmafexact-quality"),
    ({"alertname": "VmafexactNewThing", "severity": "info", "channel": "news"}, "station-ops"),
    ({"alertname": "NodeDown", "severity": "critical"}, "station-ops"),
]


class CheckFailed(Exception):
    pass


class ToolMissing(Exception):
    pass


def tool(name):
    path = shutil.which(name)
    if path is None:
        raise ToolMissing(name)
    return path


def run(args, quiet_ok=False):
    """Runs a tool; raises CheckFailed with its output when it fails (or, with
    quiet_ok, when it writes anything to stderr)."""
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    output = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0 or (quiet_ok and proc.stderr.strip()):
        raise CheckFailed(f"{' '.join(args)} (exit status {proc.returncode}):\n{output}")
    return output


def check_prometheus_config(path):
    print(run([tool("promtool"), "check", "config", path]))


def check_rules(path):
    print(run([tool("promtool"), "check", "rules", path]))


def check_rules_test(paths):
    print(run([tool("promtool"), "test", "rules", *paths]))


def check_alertmanager(path):
    amtool = tool("amtool")
    print(run([amtool, "check-config", path]))
    for labels, receiver in ROUTES:
        args = [amtool, "config", "routes", "test", f"--config.file={path}",
                f"--verify.receivers={receiver}"] + [f"{k}={v}" for k, v in labels.items()]
        try:
            run(args)
        except CheckFailed as e:
            raise CheckFailed(f"{path}: an alert {labels} should go to {receiver}:\n{e}") from e
        print(f"route: {labels['alertname']} ({labels.get('severity')}) -> {receiver}")


def check_exec_start(unit, command_line, binary, example):
    """The unit's command line, run with the example station file in place of
    /etc/vmafexact/%i.conf and --check-config, is one the monitor accepts."""
    args = shlex.split(command_line)
    args = [binary] + [example if arg == "/etc/vmafexact/%i.conf" else arg for arg in args[1:]]
    if any("%" in arg for arg in args):
        raise CheckFailed(f"{unit}: ExecStart has a specifier other than in /etc/vmafexact/%i.conf: {command_line}")
    run(args + ["--check-config"])
    print(f"ExecStart's command line, with {example}, passes --check-config")


def check_systemd(unit, dropins, binary, example=None):
    """systemd-analyze verify needs ExecStart to exist: it checks a copy of the unit
    whose ExecStart runs BINARY (the build's vmafexact-monitor), alone and with the
    drop-ins, and fails on any warning it prints (unknown keys, bad values). Then the
    sandbox's exposure (systemd-analyze security) must stay OK (below 2.0). With
    EXAMPLE, the monitor must accept ExecStart's options (check_exec_start)."""
    analyze = tool("systemd-analyze")
    binary = os.path.abspath(binary)  # ExecStart= takes absolute paths only
    name = os.path.basename(unit)
    if not name.endswith("@.service"):
        raise CheckFailed(f"{unit}: expected a template unit NAME@.service")
    with open(unit, encoding="utf-8") as f:
        text = f.read()
    exec_start = re.compile(r"^ExecStart=(\S+)", re.M)
    match = exec_start.search(text)
    if not match:
        raise CheckFailed(f"{unit}: no ExecStart=")
    if example:
        check_exec_start(unit, re.search(r"^ExecStart=(.*)$", text, re.M).group(1), binary, example)
    with tempfile.TemporaryDirectory(prefix="vmafexact-systemd-") as work:
        copy = os.path.join(work, name)
        with open(copy, "w", encoding="utf-8") as f:
            f.write(exec_start.sub(lambda m: "ExecStart=" + binary, text, count=1))
        instance = os.path.join(work, name.replace("@.", "@news-hd."))
        run([analyze, "verify", "--man=no", instance], quiet_ok=True)
        print(f"systemd-analyze verify {name} (ExecStart={binary}): clean")
        run([analyze, "security", "--offline=yes", "--threshold=20", instance])
        print(f"systemd-analyze security {name}: exposure below 2.0")
        if dropins:
            dropin_dir = copy + ".d"
            os.mkdir(dropin_dir)
            for dropin in dropins:
                shutil.copy(dropin, dropin_dir)
            run([analyze, "verify", "--man=no", instance], quiet_ok=True)
            run([analyze, "security", "--offline=yes", "--threshold=20", instance])
            print(f"with {', '.join(os.path.basename(d) for d in dropins)}: clean, exposure below 2.0")


def load_dashboard(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise CheckFailed(f"{path}: not JSON: {e}") from e


def dashboard_panels(panels):
    for panel in panels:
        yield panel
        yield from dashboard_panels(panel.get("panels", []))


def dashboard_queries(path, dashboard):
    """(where, expr) for every query, after the structural checks."""
    problems = []
    if dashboard.get("schemaVersion", 0) < 36:
        problems.append(f"schemaVersion {dashboard.get('schemaVersion')}: 36 or later is needed")
    variables = {v.get("name"): v for v in dashboard.get("templating", {}).get("list", [])}
    source = variables.get("datasource", {})
    if source.get("type") != "datasource" or source.get("query") != "prometheus":
        problems.append("no variable 'datasource' of type datasource for Prometheus")
    channel = variables.get("channel", {})
    query = channel.get("query")
    query = query.get("query") if isinstance(query, dict) else query
    if (channel.get("type") != "query" or not channel.get("multi")
            or query != "label_values(vmafexact_channel_info, channel)"):
        problems.append("no multi-value variable 'channel' from label_values(vmafexact_channel_info, channel)")
    queries, ids = [], set()
    for panel in dashboard_panels(dashboard.get("panels", [])):
        where = f"panel {panel.get('id')} '{panel.get('title')}'"
        if panel.get("id") in ids:
            problems.append(f"{where}: id used twice")
        ids.add(panel.get("id"))
        if panel.get("type") == "row":
            continue
        for target in panel.get("targets", []):
            target_where = f"{where} query {target.get('refId')}"
            for holder in (panel, target):
                if holder.get("datasource", {}).get("uid") != "${datasource}":
                    problems.append(f"{target_where}: datasource is not the ${{datasource}} variable")
            expr = target.get("expr", "")
            if not expr.strip():
                problems.append(f"{target_where}: no expr")
                continue
            for var in re.findall(r"\$\{?(\w+)", expr):
                if var not in DASHBOARD_VARIABLES:
                    problems.append(f"{target_where}: variable ${var} (only "
                                    + ", ".join("$" + v for v in DASHBOARD_VARIABLES) + ")")
            queries.append((target_where, expr))
    if not queries:
        problems.append("no query at all")
    if problems:
        raise CheckFailed(f"{path}:\n  " + "\n  ".join(problems))
    return queries


def substitute(expr):
    return re.sub(r"\$\{?(\w+)\}?", lambda m: DASHBOARD_VARIABLES.get(m.group(1), m.group(0)), expr)


def check_dashboard(path):
    """The JSON, its variables and datasources; then every query, variables
    replaced, as the expr of a recording rule that promtool check rules parses."""
    queries = dashboard_queries(path, load_dashboard(path))
    rules = {"groups": [{"name": "dashboard", "rules": [
        {"record": f"dashboard:query_{i}", "expr": substitute(expr)} for i, (_, expr) in enumerate(queries)]}]}
    promtool = tool("promtool")
    with tempfile.TemporaryDirectory(prefix="vmafexact-dashboard-") as work:
        rules_path = os.path.join(work, "dashboard-queries.yml")
        with open(rules_path, "w", encoding="utf-8") as f:
            json.dump(rules, f, indent=1)  # JSON is YAML
        try:
            run([promtool, "check", "rules", rules_path])
        except CheckFailed as e:
            listing = "\n".join(f"  dashboard:query_{i}: {where}" for i, (where, _) in enumerate(queries))
            raise CheckFailed(f"{path}: a query does not parse as PromQL:\n{e}\n{listing}") from e
    print(f"{path}: {len(queries)} queries parse as PromQL")


def metric_names(text):
    # Names not preceded by ':' or a word character (recorded rules' names are not
    # the exposition's); in a rule file only outside comments.
    return set(re.findall(r"(?<![\w:])vmafexact_[a-z0-9_]+", text))


def check_names(rules_path, alertmanager_path, dashboard_path):
    """Every vmafexact_* metric the rules and the dashboard query exists in the
    exposition; every alert name Alertmanager routes or inhibits is one of the
    rules' alerts (a misspelt name would silently never match)."""
    problems = []
    with open(rules_path, encoding="utf-8") as f:
        rules_text = f.read()
    rules_code = "\n".join(line.split("#", 1)[0] if line.lstrip().startswith("#") else line
                           for line in rules_text.splitlines())
    exprs = [expr for _, expr in dashboard_queries(dashboard_path, load_dashboard(dashboard_path))]
    for where, text in ((rules_path, rules_code), (dashboard_path, "\n".join(exprs))):
        for name in sorted(metric_names(text) - KNOWN_METRICS):
            problems.append(f"{where}: {name} is no metric of vmafexact-monitor's exposition")
    alerts = set(re.findall(r"^\s*-\s*alert:\s*(\w+)", rules_text, re.M))
    with open(alertmanager_path, encoding="utf-8") as f:
        alertmanager_text = f.read()
    for name in sorted(set(re.findall(r"\bVmafexact[A-Za-z0-9]+", alertmanager_text)) - alerts):
        problems.append(f"{alertmanager_path}: alert {name} is not in {rules_path}")
    for name in sorted(set(re.findall(r"alertname=~?\\?\"(Vmafexact[A-Za-z0-9]+)", rules_text)) - alerts):
        problems.append(f"{rules_path}: alert {name} is not defined")
    if problems:
        raise CheckFailed("\n".join(problems))
    print(f"names: {len(alerts)} alerts, metrics of {rules_path} and {dashboard_path} all in the exposition")


# --- Kubernetes (deploy/kubernetes/, docs/deploy.md "Kubernetes") -----------------

# Job fields newer than some kubectl: (path prefix, the minor version of the
# first kubectl whose types hold it). An older kubectl drops them when it decodes
# the Job, which is no mistake of the file (Debian 12's kubectl is 1.20).
JOB_FIELDS_SINCE = [
    ("spec.completionMode", 21), ("spec.suspend", 21), ("spec.podFailurePolicy", 25),
    ("spec.backoffLimitPerIndex", 28), ("spec.maxFailedIndexes", 28),
    ("spec.podReplacementPolicy", 28), ("spec.successPolicy", 30), ("spec.managedBy", 30),
]
# What every pod of the Job runs (the Slurm array's command, deploy/slurm/).
BATCH_COMMAND = ["vmafexact", "batch"]
SHARD_COUNT_ENV = "VMAFEXACT_SHARD_COUNT"
# A kubectl whose kustomize knows `replacements` and `patches` with a target.
KUSTOMIZE_MIN_MINOR = 22


class ToolTooOld(Exception):
    pass


def load_yaml_documents(path):
    try:
        import yaml  # Debian: python3-yaml
    except ImportError:
        # A python3 other than Debian's (pyenv, a venv) first on PATH: Debian's
        # module, whose pure-Python part any Python 3 runs.
        sys.path.append("/usr/lib/python3/dist-packages")
        try:
            import yaml
        except ImportError as e:
            raise ToolMissing("python3-yaml (the Python module yaml)") from e
    try:
        with open(path, encoding="utf-8") as f:
            return [doc for doc in yaml.safe_load_all(f) if doc is not None]
    except (OSError, yaml.YAMLError) as e:
        raise CheckFailed(f"{path}: not YAML: {e}") from e


def kubectl_minor(kubectl):
    version = json.loads(run([kubectl, "version", "--client", "-o", "json"]))
    return int(re.match(r"\d+", version["clientVersion"]["minor"]).group(0))


def key_paths(node, prefix=""):
    """Every mapping key's path: spec.template.spec.containers[0].env[1].name."""
    if isinstance(node, dict):
        for key, value in node.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            yield path
            yield from key_paths(value, path)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from key_paths(value, f"{prefix}[{i}]")


def check_job_structure(where, job, claims, gpu):
    """The Job as docs/deploy.md describes it; returns a list of problems."""
    problems = []
    spec = job.get("spec") or {}
    if job.get("apiVersion") != "batch/v1":
        problems.append(f"apiVersion {job.get('apiVersion')!r}, expected batch/v1")
    if spec.get("completionMode") != "Indexed":
        problems.append(f"completionMode {spec.get('completionMode')!r}: an Indexed Job is needed "
                        "(the pods read their shard from JOB_COMPLETION_INDEX)")
    completions = spec.get("completions")
    if not isinstance(completions, int) or isinstance(completions, bool) or completions < 1:
        problems.append(f"completions {completions!r}: a whole number of shards, 1 or more")
    parallelism = spec.get("parallelism", 1)
    if not isinstance(parallelism, int) or isinstance(parallelism, bool) or parallelism < 1:
        problems.append(f"parallelism {parallelism!r}: a whole number, 1 or more")
    if "backoffLimitPerIndex" not in spec and "backoffLimit" not in spec:
        problems.append("neither backoffLimitPerIndex nor backoffLimit: say how often a shard is retried")
    failure_policy = spec.get("podFailurePolicy")
    if failure_policy and any(rule.get("action") == "FailIndex" for rule in failure_policy.get("rules", [])) \
            and "backoffLimitPerIndex" not in spec:
        problems.append("podFailurePolicy's FailIndex needs backoffLimitPerIndex")
    pod = (spec.get("template") or {}).get("spec") or {}
    restart = pod.get("restartPolicy")
    if restart not in ("Never", "OnFailure"):
        problems.append(f"restartPolicy {restart!r}: a Job's pods need Never or OnFailure")
    elif failure_policy and restart != "Never":
        problems.append("podFailurePolicy needs restartPolicy Never")
    containers = pod.get("containers") or []
    batch = [c for c in containers if (c.get("command") or [])[:1] + (c.get("args") or [])[:1] == BATCH_COMMAND]
    if len(batch) != 1:
        problems.append("no container (or more than one) runs `vmafexact batch MANIFEST --output-dir DIR`: "
                        + "; ".join(" ".join(map(str, (c.get("command") or []) + (c.get("args") or [])))
                                    for c in containers))
        return problems
    container = batch[0]
    command = [str(a) for a in (container.get("command") or []) + (container.get("args") or [])]
    if len(command) < 5 or command[3] != "--output-dir" or command[2].startswith("-"):
        problems.append(f"the command {' '.join(command)!r} is not `vmafexact batch MANIFEST --output-dir DIR ...`")
        return problems
    manifest, output_dir = command[2], command[4]
    if any(a == "--shard" or a.startswith("--shard=") for a in command):
        problems.append("--shard in the command: the shard comes from JOB_COMPLETION_INDEX and " + SHARD_COUNT_ENV)
    env = {e.get("name"): e for e in container.get("env") or []}
    if "JOB_COMPLETION_INDEX" in env:
        problems.append("JOB_COMPLETION_INDEX set by hand: Kubernetes sets it for each pod")
    count = env.get(SHARD_COUNT_ENV, {}).get("value")
    if count is None:
        problems.append(f"no env {SHARD_COUNT_ENV} (the number of shards, equal to completions)")
    elif not isinstance(count, str):
        problems.append(f"env {SHARD_COUNT_ENV}: {count!r} is not a string (quote it: \"{count}\")")
    elif count != str(completions):
        problems.append(f"env {SHARD_COUNT_ENV}={count} but completions={completions}: "
                        "they must be equal, or rows are scored twice or never")
    if not container.get("image"):
        problems.append("the container has no image")
    resources = container.get("resources") or {}
    for kind in ("requests", "limits"):
        for name in ("cpu", "memory"):
            if name not in (resources.get(kind) or {}):
                problems.append(f"no resources.{kind}.{name}")
    gpus = (resources.get("limits") or {}).get("nvidia.com/gpu")
    backend_cuda = any(command[i:i + 2] == ["--backend", "cuda"] for i in range(len(command))) \
        or "--backend=cuda" in command
    if gpu and not backend_cuda:
        problems.append("the GPU variant does not run --backend cuda")
    if (gpu or backend_cuda) and not (isinstance(gpus, int) and gpus >= 1):
        problems.append(f"{'--backend cuda' if backend_cuda else 'the GPU variant'} without resources.limits "
                        f"nvidia.com/gpu (is {gpus!r}): the pod gets no GPU")
    if gpus and not backend_cuda:
        problems.append("a GPU requested but the command has no --backend cuda")
    volumes = {v.get("name"): v for v in pod.get("volumes") or []}
    mounts = container.get("volumeMounts") or []
    for role, path in (("the manifest", manifest), ("the output folder", output_dir)):
        mount = max((m for m in mounts if path == m.get("mountPath") or path.startswith(m.get("mountPath", "").rstrip("/") + "/")),
                    key=lambda m: len(m.get("mountPath", "")), default=None)
        if mount is None:
            problems.append(f"{role} {path} is on no mounted volume (it would be lost with the pod)")
            continue
        volume = volumes.get(mount.get("name"))
        if volume is None:
            problems.append(f"volumeMount {mount.get('name')!r} names no volume")
            continue
        claim = (volume.get("persistentVolumeClaim") or {}).get("claimName")
        if claim is None:
            problems.append(f"{role} {path} is on volume {mount.get('name')!r}, not a persistentVolumeClaim")
        elif claims is not None and claim not in claims:
            problems.append(f"claimName {claim!r}: no such PersistentVolumeClaim in the files given "
                            f"({', '.join(sorted(claims)) or 'none'})")
        if role == "the output folder" and mount.get("readOnly"):
            problems.append(f"the output folder {path} is on a read-only mount")
    return [f"{where}: {p}" for p in problems]


def check_claim_structure(where, claim):
    problems = []
    spec = claim.get("spec") or {}
    if not spec.get("accessModes"):
        problems.append("no accessModes")
    elif "ReadWriteMany" not in spec["accessModes"]:
        problems.append(f"accessModes {spec['accessModes']}: the pods of a Job run on several nodes: ReadWriteMany")
    if not ((spec.get("resources") or {}).get("requests") or {}).get("storage"):
        problems.append("no resources.requests.storage")
    return [f"{where}: {p}" for p in problems]


def kubectl_round_trip(kubectl, minor, where, job):
    """kubectl decodes the Job into its own Go types, offline (`set env --local`):
    a value of the wrong type fails, and a key the types lack (a misspelt field) is
    missing from what it prints back. Returns the problems."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="vmafexact-kubectl-") as work:
        path = os.path.join(work, "job.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(job, f)
        try:
            printed = json.loads(run([kubectl, "set", "env", "--local", "-f", path, "-o", "json",
                                      "VMAFEXACT_CHECK_DEPLOY=1"]))
        except CheckFailed as e:
            return [f"{where}: kubectl does not take the Job: {e}"]
    kept = set(key_paths(printed))
    newer = set()
    for path in key_paths(job):
        if path in kept:
            continue
        field = next(((prefix, v) for prefix, v in JOB_FIELDS_SINCE if path == prefix
                      or path.startswith((prefix + ".", prefix + "["))), None)
        if field is not None and minor < field[1]:
            newer.add(field)
            continue
        problems.append(f"{where}: {path} is no field of kubectl 1.{minor}'s {job.get('kind')} (misspelt?)")
    for prefix, since in sorted(newer):
        print(f"{where}: {prefix} is newer (1.{since}) than kubectl 1.{minor}: not checked by kubectl")
    return problems


def check_kubernetes(paths, gpu=False):
    """Every Job in PATHS is an Indexed Job running the batch command with
    VMAFEXACT_SHARD_COUNT equal to completions, on a claimed volume; its claims
    (when given) are ReadWriteMany; then kubectl decodes each Job (offline)."""
    documents = []
    for path in paths:
        documents += [(f"{path} ({doc.get('kind')} {(doc.get('metadata') or {}).get('name')})", doc)
                      for doc in load_yaml_documents(path)]
    problems = [f"{where}: not a Kubernetes object (no kind or apiVersion)" for where, doc in documents
                if not isinstance(doc, dict) or not doc.get("kind") or not doc.get("apiVersion")]
    if problems:
        raise CheckFailed("\n".join(problems))
    claims = {(doc.get("metadata") or {}).get("name") for _, doc in documents
              if doc["kind"] == "PersistentVolumeClaim"}
    jobs = [(where, doc) for where, doc in documents if doc["kind"] == "Job"]
    if not jobs:
        problems.append(f"{', '.join(paths)}: no Job")
    for where, doc in documents:
        if doc["kind"] == "Job":
            problems += check_job_structure(where, doc, claims or None, gpu)
        elif doc["kind"] == "PersistentVolumeClaim":
            problems += check_claim_structure(where, doc)
    if problems:
        raise CheckFailed("\n".join(problems))
    print(f"{len(jobs)} Indexed Job(s){' (GPU)' if gpu else ''}, {len(claims)} claim(s): structure as documented")
    kubectl = tool("kubectl")
    minor = kubectl_minor(kubectl)
    for where, doc in jobs:
        problems += kubectl_round_trip(kubectl, minor, where, doc)
    if problems:
        raise CheckFailed("\n".join(problems))
    print(f"kubectl 1.{minor} (set env --local) decodes every Job; no unknown field")


def check_kustomize(directory, gpu=False):
    """`kubectl kustomize DIR` (offline), then its output as `kubernetes`."""
    kubectl = tool("kubectl")
    minor = kubectl_minor(kubectl)
    if minor < KUSTOMIZE_MIN_MINOR:
        raise ToolTooOld(f"kubectl 1.{minor}'s kustomize predates replacements and patches with a target "
                         f"(kubectl 1.{KUSTOMIZE_MIN_MINOR} or later)")
    built = run([kubectl, "kustomize", directory])
    with tempfile.TemporaryDirectory(prefix="vmafexact-kustomize-") as work:
        path = os.path.join(work, "kustomized.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(built)
        try:
            check_kubernetes([path], gpu)
        except CheckFailed as e:
            raise CheckFailed(f"kubectl kustomize {directory}:\n{e}") from e
    print(f"kubectl kustomize {directory}: builds, and its output passes")


def self_test(deploy, binary, example=None):
    """Breaks a copy of each file and expects its check to fail (exit status 1)."""
    here = os.path.abspath(__file__)
    failures = []

    def expect(status, what, args):
        proc = subprocess.run([sys.executable, here, *args], capture_output=True, text=True, timeout=300)
        if proc.returncode == SKIP and not os.environ.get("CI"):
            print(f"skipped: {what} (tool missing)")
        elif proc.returncode != status:
            failures.append(f"{what}: exit status {proc.returncode}, expected {status}\n{proc.stdout}{proc.stderr}")
        else:
            print(f"{'passes' if status == 0 else 'fails'} as it should: {what}")

    def expect_failure(what, args):
        expect(1, what, args)

    # Debian 12's kubectl (1.20) has a kustomize too old for the kustomization:
    # its checks skip, CI or not (the Jobs' own checks still run).
    kubectl = shutil.which("kubectl")
    kustomize_too_old = kubectl is not None and kubectl_minor(kubectl) < KUSTOMIZE_MIN_MINOR

    def expect_kustomize(status, what, args):
        if kustomize_too_old:
            print(f"skipped: {what} (kubectl 1.{kubectl_minor(kubectl)}: kustomize too old)")
        else:
            expect(status, what, args)

    # The files as they are pass (so that the failures below are the breakages').
    rules = os.path.join(deploy, "prometheus/vmafexact.rules.yml")
    alertmanager = os.path.join(deploy, "alertmanager/alertmanager.yml")
    dashboard = os.path.join(deploy, "grafana/vmafexact-station.json")
    unit = os.path.join(deploy, "systemd/vmafexact-monitor@.service")
    tests_dir = os.path.join(deploy, "prometheus/tests")
    for what, args in [
            ("prometheus.yml", ["prometheus-config", os.path.join(deploy, "prometheus/prometheus.yml")]),
            ("the rules", ["rules", rules]),
            ("the rules' tests", ["rules-test"] + [os.path.join(tests_dir, t) for t in sorted(os.listdir(tests_dir))
                                                   if t.endswith(".yml")]),
            ("alertmanager.yml", ["alertmanager", alertmanager]),
            ("the unit and its drop-in", ["systemd", unit, os.path.join(deploy, "systemd/gpu.conf"),
                                          "--exec", binary] + (["--config-example", example] if example else [])),
            ("the dashboard", ["dashboard", dashboard]),
            ("the names", ["names", rules, alertmanager, dashboard]),
            ("the Job and its volume", ["kubernetes", os.path.join(deploy, "kubernetes/job.yaml"),
                                        os.path.join(deploy, "kubernetes/pvc.yaml")]),
            ("the GPU Job and its volume", ["kubernetes", os.path.join(deploy, "kubernetes/job-gpu.yaml"),
                                            os.path.join(deploy, "kubernetes/pvc.yaml"), "--gpu"])]:
        expect(0, what, args)
    expect_kustomize(0, "the kustomization", ["kustomize", os.path.join(deploy, "kubernetes")])

    def broken(work, relative, old, new, count=1):
        """A copy of RELATIVE with OLD replaced by NEW (COUNT times; -1: every one)."""
        src = os.path.join(deploy, relative)
        with open(src, encoding="utf-8") as f:
            text = f.read()
        if old not in text:
            raise CheckFailed(f"self-test: {relative} no longer holds {old!r}; update the self-test")
        dst = os.path.join(work, relative)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, count))
        return dst

    def copy(work, relative):
        dst = os.path.join(work, relative)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(os.path.join(deploy, relative), dst)
        return dst

    with tempfile.TemporaryDirectory(prefix="vmafexact-deploy-self-test-") as top:
        def fresh(name):
            work = os.path.join(top, name)
            os.mkdir(work)
            return work

        w = fresh("config")
        copy(w, "prometheus/vmafexact.rules.yml")
        expect_failure("prometheus.yml with a bad scrape_interval", ["prometheus-config", broken(
            w, "prometheus/prometheus.yml", "scrape_interval: 5s", "scrape_interval: 5 seconds")])
        w = fresh("config-rules")
        broken(w, "prometheus/vmafexact.rules.yml", "expr: vmafexact_channel_up == 0", "expr: vmafexact_channel_up ==")
        expect_failure("prometheus.yml whose rule file does not parse",
                       ["prometheus-config", copy(w, "prometheus/prometheus.yml")])
        w = fresh("rules")
        expect_failure("a rule whose expr does not parse", ["rules", broken(
            w, "prometheus/vmafexact.rules.yml", "expr: vmafexact_channel_up == 0", "expr: vmafexact_channel_up ==")])
        for label, old, new in [
                ("a quality threshold moved (60 -> 50)", 'vmafexact_window_vmaf_mean{score="vmaf"} < 60',
                 'vmafexact_window_vmaf_mean{score="vmaf"} < 50'),
                ("the stall limit moved (30 s -> 60 s)", "vmafexact_last_frame_timestamp_seconds > 30",
                 "vmafexact_last_frame_timestamp_seconds > 60"),
                ("a recording rule's range changed", "min_over_time(vmafexact_window_vmaf_mean{score=\"vmaf\"}[5m])",
                 "min_over_time(vmafexact_window_vmaf_mean{score=\"vmaf\"}[10m])"),
                ("a severity changed", "severity: critical", "severity: warning")]:
            w = fresh("test-" + str(len(os.listdir(top))))
            broken(w, "prometheus/vmafexact.rules.yml", old, new)
            tests = [copy(w, "prometheus/tests/" + t) for t in sorted(os.listdir(os.path.join(deploy, "prometheus/tests")))
                     if t.endswith(".yml")]
            expect_failure(f"promtool test rules with {label}", ["rules-test", *tests])
        w = fresh("alertmanager")
        expect_failure("alertmanager.yml routing to an undefined receiver", ["alertmanager", broken(
            w, "alertmanager/alertmanager.yml", "receiver: vmafexact-pager", "receiver: vmafexact-pagr")])
        w = fresh("alertmanager-route")
        expect_failure("alertmanager.yml sending critical alerts to the quality team", ["alertmanager", broken(
            w, "alertmanager/alertmanager.yml", "receiver: vmafexact-pager\n", "receiver: vmafexact-quality\n")])
        w = fresh("systemd-key")
        expect_failure("a unit with a misspelt setting", ["systemd", broken(
            w, "systemd/vmafexact-monitor@.service", "\nProtectSystem=strict\n", "\nProtectSytem=strict\n"),
            "--exec", binary])
        w = fresh("systemd-value")
        expect_failure("a unit with a bad value", ["systemd", broken(
            w, "systemd/vmafexact-monitor@.service", "RestartSec=5s", "RestartSec=five"), "--exec", binary])
        w = fresh("systemd-exposure")
        unit = copy(w, "systemd/vmafexact-monitor@.service")
        with open(unit, encoding="utf-8") as f:
            text = f.read()
        with open(unit, "w", encoding="utf-8") as f:  # the settings from "User" to [Install] gone
            f.write(re.sub(r"# --- User and directories.*?(?=\[Install\])", "", text, flags=re.S))
        expect_failure("a unit without its sandbox", ["systemd", unit, "--exec", binary])
        w = fresh("systemd-dropin")
        unit = copy(w, "systemd/vmafexact-monitor@.service")
        expect_failure("a drop-in with a bad value", ["systemd", unit, broken(
            w, "systemd/gpu.conf", "DeviceAllow=/dev/nvidiactl rw", "DeviceAllow=/dev/nvidiactl rwz"), "--exec", binary])
        if example:
            w = fresh("systemd-options")
            expect_failure("a unit whose ExecStart has an option the monitor lacks", ["systemd", broken(
                w, "systemd/vmafexact-monitor@.service", "--config /etc/vmafexact/%i.conf",
                "--conf /etc/vmafexact/%i.conf"), "--exec", binary, "--config-example", example])
        w = fresh("systemd-exec")
        expect_failure("a unit whose ExecStart does not exist", ["systemd", copy(
            w, "systemd/vmafexact-monitor@.service"), "--exec", os.path.join(w, "no-such-monitor")])
        for label, old, new in [
                ("a dashboard that is not JSON", '"panels": [', '"panels": [,'),
                ("a query that does not parse", '[$__rate_interval]))', '[$__rate_interval])'),
                ("a query with an unknown variable", '[$__rate_interval]', '[$__range]'),
                ("a dashboard of schemaVersion 35", '"schemaVersion": 36', '"schemaVersion": 35')]:
            w = fresh("dashboard-" + str(len(os.listdir(top))))
            expect_failure(label, ["dashboard", broken(w, "grafana/vmafexact-station.json", old, new)])
        w = fresh("names-metric")
        expect_failure("a dashboard querying a metric that does not exist", ["names",
            copy(w, "prometheus/vmafexact.rules.yml"), copy(w, "alertmanager/alertmanager.yml"),
            broken(w, "grafana/vmafexact-station.json", "rate(vmafexact_frames_scored_total{",
                   "rate(vmafexact_frames_scored{")])
        w = fresh("names-alert")
        expect_failure("alertmanager.yml inhibiting an alert that does not exist", ["names",
            copy(w, "prometheus/vmafexact.rules.yml"),
            broken(w, "alertmanager/alertmanager.yml", "VmafexactNotScoring|", "VmafexactNotScored|"),
            copy(w, "grafana/vmafexact-station.json")])
        # Kubernetes: each Job broken, checked with the volume's claim.
        job, gpu_job = "kubernetes/job.yaml", "kubernetes/job-gpu.yaml"
        for label, relative, old, new, count in [
                ("a Job whose completions differ from VMAFEXACT_SHARD_COUNT", job,
                 "completions: 4 ", "completions: 5 ", 1),
                ("a Job that is not Indexed", job, "completionMode: Indexed", "completionMode: NonIndexed", 1),
                ("a Job that is not YAML", job, 'args: ["batch",', 'args: ["batch",]]', 1),
                ("a Job with a misspelt field (kubectl)", job, "imagePullPolicy:", "imagePulPolicy:", 1),
                ("a Job with a bad quantity (kubectl)", job, "memory: 8Gi", "memory: 8 GiB", 1),
                ("a Job whose shard count is a number, not a string", job, 'value: "4"', "value: 4", 1),
                ("a Job running another command", job, '"--output-dir"', '"--output"', 1),
                ("a Job that sets --shard", job, '"/data/out"]', '"/data/out", "--shard", "0/4"]', 1),
                ("a Job writing where no volume is mounted", job, "mountPath: /data", "mountPath: /media", 1),
                ("a Job naming a claim that is not there", job, "claimName: vmafexact-data", "claimName: vmafexact-dat", 1),
                ("a Job with a FailIndex rule and restartPolicy OnFailure", job,
                 "restartPolicy: Never", "restartPolicy: OnFailure", 1),
                ("the GPU Job without nvidia.com/gpu", gpu_job, "nvidia.com/gpu: 1", "example.com/fpga: 1", -1),
                ("the GPU Job without --backend cuda", gpu_job, ', "--backend", "cuda"]', "]", 1)]:
            w = fresh("kubernetes-" + str(len(os.listdir(top))))
            expect_failure(label, ["kubernetes", broken(w, relative, old, new, count), copy(w, "kubernetes/pvc.yaml")]
                           + (["--gpu"] if relative == gpu_job else []))
        w = fresh("kubernetes-claim")
        expect_failure("a volume claim only one node can mount", ["kubernetes", copy(w, job), broken(
            w, "kubernetes/pvc.yaml", "- ReadWriteMany", "- ReadWriteOnce")])
        w = fresh("kustomize-n")
        for relative in ("kubernetes/pvc.yaml", job, gpu_job):
            copy(w, relative)
        expect_kustomize(0, "a kustomization setting N to 8 (VMAFEXACT_SHARD_COUNT follows)", ["kustomize", os.path.dirname(
            broken(w, "kubernetes/kustomization.yaml", "        path: /spec/completions\n        value: 4",
                   "        path: /spec/completions\n        value: 8"))])
        w = fresh("kustomize-replacement")
        for relative in ("kubernetes/pvc.yaml", job, gpu_job):
            copy(w, relative)
        kustomization = broken(w, "kubernetes/kustomization.yaml", "        path: /spec/completions\n        value: 4",
                               "        path: /spec/completions\n        value: 8")
        with open(kustomization, encoding="utf-8") as f:
            text = f.read()
        with open(kustomization, "w", encoding="utf-8") as f:  # N changed, the replacement gone
            f.write(text[:text.index("replacements:")])
        expect_kustomize(1, "a kustomization that sets completions but not VMAFEXACT_SHARD_COUNT",
                       ["kustomize", os.path.dirname(kustomization)])
    if failures:
        raise CheckFailed("checks that did not fail on broken input:\n" + "\n".join(failures))


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    command, args = argv[1], argv[2:]
    binary = example = None
    gpu = "--gpu" in args
    args = [a for a in args if a != "--gpu"]
    if "--exec" in args:
        i = args.index("--exec")
        binary, args = args[i + 1], args[:i] + args[i + 2:]
    if "--config-example" in args:
        i = args.index("--config-example")
        example, args = args[i + 1], args[:i] + args[i + 2:]
    try:
        if command == "prometheus-config" and len(args) == 1:
            check_prometheus_config(args[0])
        elif command == "rules" and len(args) == 1:
            check_rules(args[0])
        elif command == "rules-test" and args:
            check_rules_test(args)
        elif command == "alertmanager" and len(args) == 1:
            check_alertmanager(args[0])
        elif command == "systemd" and args and binary:
            check_systemd(args[0], args[1:], binary, example)
        elif command == "dashboard" and len(args) == 1:
            check_dashboard(args[0])
        elif command == "names" and len(args) == 3:
            check_names(*args)
        elif command == "dashboard-exprs" and len(args) == 1:
            for where, expr in dashboard_queries(args[0], load_dashboard(args[0])):
                print(json.dumps({"where": where, "expr": expr, "substituted": substitute(expr)}))
        elif command == "kubernetes" and args:
            check_kubernetes(args, gpu)
        elif command == "kustomize" and len(args) == 1:
            check_kustomize(args[0], gpu)
        elif command == "self-test" and len(args) == 1 and binary:
            self_test(args[0], binary, example)
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except ToolMissing as e:
        if os.environ.get("CI"):
            print(f"{e} not found, and CI is set: CI must install it (scripts/install-deps.sh: "
                  "prometheus, prometheus-alertmanager, systemd, kubernetes-client, python3-yaml)", file=sys.stderr)
            return 1
        print(f"{e} not found: skipped (Debian: apt-get install prometheus prometheus-alertmanager systemd "
              "kubernetes-client python3-yaml)", file=sys.stderr)
        return SKIP
    except ToolTooOld as e:
        print(f"{e}: skipped", file=sys.stderr)
        return SKIP
    except CheckFailed as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
