#!/usr/bin/python3
"""Renders a LAVA device dictionary into the device configuration lava-run
reads (--device), as a LAVA server does for each job: the dictionary
extends a device-type template of lava-server's, and the job's `context`
is the rendering's variables (lava_scheduler_app: Device.load_configuration,
a sandboxed Jinja2 environment with trim_blocks).

  render_device.py DICTIONARY JOB DEVICE_TYPES_DIR   device YAML on stdout

Exit 0; 1 when the dictionary or the job does not render or load, with the
reason."""
import os
import sys

import jinja2
import jinja2.sandbox
import yaml


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    dictionary, job_file, device_types = sys.argv[1:]
    try:
        with open(job_file, encoding="utf-8") as f:
            job = yaml.safe_load(f) or {}
        env = jinja2.sandbox.SandboxedEnvironment(
            loader=jinja2.FileSystemLoader([os.path.dirname(os.path.abspath(dictionary)), device_types]),
            autoescape=False,
            trim_blocks=True,
        )
        rendered = env.get_template(os.path.basename(dictionary)).render(**(job.get("context") or {}))
        device = yaml.safe_load(rendered)
    except (OSError, yaml.YAMLError, jinja2.TemplateError) as e:
        print(f"{dictionary}: {e}", file=sys.stderr)
        return 1
    if not isinstance(device, dict) or "actions" not in device:
        print(f"{dictionary}: renders to no device configuration (no actions)", file=sys.stderr)
        return 1
    sys.stdout.write(rendered)
    return 0


if __name__ == "__main__":
    sys.exit(main())
