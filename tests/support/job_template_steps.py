#!/usr/bin/python3
"""The shell steps a lab-jobs/ template gives its engine, and the variables
the template itself sets, as one JSON object on stdout:
{"steps": ["kvmbench probe --labels", ...], "vars": {"KVMBENCH_SUITE": "rmpopt"},
 "labels": ["kvm-runs-guests", "sev-snp"]}, the labels being the capability
labels the template asks its engine for (runner tags, agent label
expression, LAVA device tags).
tests/integration/job_templates_test.cpp runs each step through the real
kvmbench parser. Usage: job_template_steps.py FILE (the format is told by
the file name). Exit 2 with a message for a file it cannot read."""
import json
import re
import sys

import yaml


def strings(x):
    """A script entry: a string, or a list of them (GitLab nests lists)."""
    if isinstance(x, str):
        return [x]
    if isinstance(x, list):
        return [s for item in x for s in strings(item)]
    return []


def scalar_vars(d):
    return {str(k): str(v) for k, v in (d or {}).items() if isinstance(v, (str, int, float))}


def lava_testdef(doc):
    return doc["run"]["steps"], scalar_vars(doc.get("params")), []


def lava_job(doc):
    return [], {}, doc.get("tags") or []


def gitlab(doc):
    steps, variables, labels = [], scalar_vars(doc.get("variables")), []
    for name, job in doc.items():
        if not isinstance(job, dict) or "script" not in job:
            continue
        variables.update(scalar_vars(job.get("variables")))
        script = []
        for key in ("before_script", "script", "after_script"):
            script += strings(job.get(key))
        steps += script
        # The job that checks the labels runs on a lab machine: its tags
        # are capability labels (the others' are the lab's own, "kvmbench").
        if any("probe --require" in s for s in script):
            labels += job.get("tags") or []
    return steps, variables, labels


def github(doc):
    # ${{ secrets.X }} and the like are GitHub's, not the shell's: the test
    # gives those variables values of its own.
    env = {k: v for k, v in scalar_vars(doc.get("env")).items() if "${{" not in v}
    steps, labels = [], []
    for job in (doc.get("jobs") or {}).values():
        runs_on = job.get("runs-on")
        # GitHub's own labels of a self-hosted runner, not kvmbench's.
        labels += [l for l in (runs_on if isinstance(runs_on, list) else [runs_on])
                   if l not in ("self-hosted", "linux", "x64")]
        env.update({k: v for k, v in scalar_vars(job.get("env")).items() if "${{" not in v})
        for step in job.get("steps") or []:
            steps += [line for line in str(step.get("run", "")).splitlines() if line.strip()]
    return steps, env, labels


def jenkins(text):
    # Single-quoted Groovy strings only (no Groovy interpolation: the shell
    # expands the variables); sh 'CMD' and sh(script: 'CMD', ...).
    steps = re.findall(r"\bsh\s*\(?\s*(?:script:\s*)?'((?:[^'\\]|\\.)*)'", text)
    variables = dict(re.findall(r"string\(name:\s*'(\w+)',\s*defaultValue:\s*'([^']*)'", text))
    expression = re.search(r"agent\s*\{\s*label\s*'([^']*)'", text)
    labels = re.findall(r"[\w.=-]+", expression.group(1)) if expression else []
    return steps, variables, labels


def main():
    if len(sys.argv) != 2:
        print("usage: job_template_steps.py FILE", file=sys.stderr)
        return 2
    path = sys.argv[1]
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        print(f"{path}: {e.strerror}", file=sys.stderr)
        return 2
    name = path.rsplit("/", 1)[-1]
    if name == "Jenkinsfile":
        result = jenkins(text)
    elif name.endswith("testdef.yaml"):
        result = lava_testdef(yaml.safe_load(text))
    elif name.endswith("job.yaml"):
        result = lava_job(yaml.safe_load(text))
    elif name == "gitlab-ci.yml":
        result = gitlab(yaml.safe_load(text))
    elif name.startswith("github"):
        result = github(yaml.safe_load(text))
    else:
        print(f"{path}: not a template this script knows", file=sys.stderr)
        return 2
    steps, variables, labels = result
    json.dump({"steps": steps, "vars": variables, "labels": labels}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
