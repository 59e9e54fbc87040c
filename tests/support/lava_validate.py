#!/usr/bin/python3
"""Validates a LAVA job definition or test definition with LAVA's own
schemas (Debian's lava-common: lava_common.schemas.validate for jobs, the
one `lava-schema job` runs, and lava_common.schemas.test.testdef.validate
for test definitions, the one the dispatcher applies before a test runs).

  lava_validate.py job FILE SOURCE_DIR   also: each git definition's path is
                                         a test definition in SOURCE_DIR and
                                         the job passes it only parameters
                                         that test definition declares
  lava_validate.py testdef FILE

Exit 0 valid; 1 invalid, with LAVA's message; 77 lava-common missing."""
import os
import sys

import yaml

try:
    import voluptuous
    from lava_common.schemas import validate as validate_job
    from lava_common.schemas.test.testdef import validate as validate_testdef
    from lava_common.version import __version__ as lava_version
except ImportError as e:
    print(f"lava-common is not installed ({e}); scripts/bootstrap.sh installs it")
    sys.exit(77)


def load(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def check_job(path, source_dir):
    job = load(path)
    validate_job(job, strict=True)
    problems = []
    for action in job["actions"]:
        for definition in action.get("test", {}).get("definitions", []):
            if definition.get("from") != "git":
                continue
            testdef_path = os.path.join(source_dir, definition["path"])
            if not os.path.isfile(testdef_path):
                problems.append(f"definition {definition['name']}: {definition['path']} is not in the repository")
                continue
            declared = (load(testdef_path) or {}).get("params") or {}
            for p in definition.get("parameters") or {}:
                if p not in declared:
                    problems.append(f"definition {definition['name']}: parameter {p} is not in "
                                    f"{definition['path']}'s params (LAVA would pass it to nothing)")
    return problems


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("job", "testdef") or (sys.argv[1] == "job") != (len(sys.argv) == 4):
        print(__doc__, file=sys.stderr)
        return 2
    kind, path = sys.argv[1], sys.argv[2]
    try:
        if kind == "job":
            problems = check_job(path, sys.argv[3])
        else:
            validate_testdef(load(path))
            problems = []
    except voluptuous.Invalid as e:
        print(f"{path}: invalid {kind} (lava-common {lava_version}): {e}")
        return 1
    except (OSError, yaml.YAMLError) as e:
        print(f"{path}: {e}")
        return 1
    for p in problems:
        print(f"{path}: {p}")
    if problems:
        return 1
    print(f"{path}: valid {kind} (lava-common {lava_version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
