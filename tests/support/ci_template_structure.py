#!/usr/bin/python3
"""Structure checks of the CI templates in lab-jobs/ that no validator in
Debian covers: GitLab's and GitHub's schemas live in their services, and
Jenkins's declarative pipeline is checked by a running Jenkins. What is
checked here is what the engines need of these files and would otherwise
only tell at run time: YAML that parses, the keys each engine requires,
jobs that exist where they are named, a JUnit report where one is meant.

  ci_template_structure.py gitlab|github|jenkins FILE

Exit 0 with nothing printed when it holds; 1 and one line per problem."""
import re
import sys

import yaml

# GitLab's global keywords: not jobs.
GITLAB_GLOBAL = {"default", "include", "stages", "variables", "workflow", "image", "services", "cache",
                 "before_script", "after_script"}


def gitlab(text):
    doc = yaml.safe_load(text)
    problems = []
    if not isinstance(doc, dict):
        return ["not a YAML mapping"]
    stages = doc.get("stages") or []
    jobs = {k: v for k, v in doc.items() if k not in GITLAB_GLOBAL and not k.startswith(".")}
    junit = False
    for name, job in jobs.items():
        if not isinstance(job, dict) or not job.get("script"):
            problems.append(f"job {name}: no script")
            continue
        if job.get("stage", "test") not in stages:
            problems.append(f"job {name}: stage {job.get('stage')} is not in stages")
        if not job.get("tags"):
            problems.append(f"job {name}: no tags (it would run on any runner, not a lab machine)")
        for needed in job.get("needs") or []:
            if needed not in jobs:
                problems.append(f"job {name}: needs {needed}, which is not a job")
        reports = (job.get("artifacts") or {}).get("reports") or {}
        junit = junit or bool(reports.get("junit"))
        script = " ".join(str(s) for s in job.get("script"))
        allowed = (job.get("allow_failure") or {}).get("exit_codes") or []
        if not isinstance(allowed, list):
            allowed = [allowed]
        if "probe --require" in script and 77 not in allowed:
            problems.append(f"job {name}: runs probe --require but does not allow its exit 77")
        # 75: another kvmbench run held the run lock; allowed, a collision
        # would pass as "this machine cannot" and the run be skipped unseen.
        if 75 in allowed:
            problems.append(f"job {name}: allows exit 75 (busy run lock): a collided run would be skipped unseen")
    if not junit:
        problems.append("no job has artifacts:reports:junit")
    return problems


def github(text):
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict):
        return ["not a YAML mapping"]
    problems = []
    # PyYAML reads the key `on` as True (YAML 1.1).
    if "on" not in doc and True not in doc:
        problems.append("no on: (the workflow has no trigger)")
    for name, job in (doc.get("jobs") or {}).items():
        runs_on = job.get("runs-on")
        if not isinstance(runs_on, list) or "self-hosted" not in runs_on:
            problems.append(f"job {name}: runs-on is not a self-hosted runner's label list")
        for i, step in enumerate(job.get("steps") or []):
            if ("run" in step) == ("uses" in step):
                problems.append(f"job {name} step {i}: needs exactly one of run and uses")
    if not doc.get("jobs"):
        problems.append("no jobs")
    return problems


def jenkins(text):
    problems = []
    # Brackets balance outside strings and comments.
    code = re.sub(r"//[^\n]*|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "", text)
    for open_, close in ("{}", "()"):
        if code.count(open_) != code.count(close):
            problems.append(f"unbalanced {open_}{close}: {code.count(open_)} against {code.count(close)}")
    for required, why in ((r"^pipeline\s*\{", "no declarative pipeline { }"),
                          (r"agent\s*\{\s*label\s*'[^']+'", "no agent { label '...' } (the label expression)"),
                          (r"\bstages\s*\{", "no stages { }"),
                          (r"\bjunit\b", "no junit step")):
        if not re.search(required, text, re.M):
            problems.append(why)
    return problems


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("gitlab", "github", "jenkins"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        text = open(sys.argv[2], encoding="utf-8").read()
        problems = {"gitlab": gitlab, "github": github, "jenkins": jenkins}[sys.argv[1]](text)
    except (OSError, yaml.YAMLError) as e:
        problems = [str(e)]
    for p in problems:
        print(f"{sys.argv[2]}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
