#!/usr/bin/python3
"""The results a LAVA dispatcher recorded for a job: lava-run writes its log
as one YAML mapping per line ({dt, lvl, msg}); the records of level
`results` are what a LAVA server stores as the job's test cases (the
dispatcher's own, in definition `lava`, and the test definitions' from
lava-test-case, with measurement, units and test set).

  job_results.py LOG     a JSON array of the results' `msg` mappings

Exit 0; 1 when the log cannot be read or a results line does not parse."""
import json
import sys

import yaml


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    results = []
    try:
        with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                if '"lvl": "results"' not in line:
                    continue
                try:
                    record = yaml.safe_load(line)
                except yaml.YAMLError as e:
                    print(f"{sys.argv[1]}:{number}: not a log record: {e}", file=sys.stderr)
                    return 1
                if isinstance(record, dict) and record.get("lvl") == "results":
                    results.append(record.get("msg"))
    except OSError as e:
        print(e, file=sys.stderr)
        return 1
    json.dump(results, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
