#!/bin/sh
# A real LAVA server on this machine, for tests that submit kvmbench's LAVA
# job through LAVA's REST API and let LAVA's scheduler pick the device by its
# tags: Debian's lava-server and lava-dispatcher (2023.01 on bookworm), each
# daemon started by hand as its systemd unit would (CI runs without systemd
# as PID 1), everything mutable in STATE_DIR:
#
#   - a PostgreSQL 15 cluster of its own (initdb, pg_ctl as `nobody`: they
#     refuse root), on 127.0.0.1 and a free port, never the system's
#     cluster;
#   - the web and API server (gunicorn lava_server.wsgi, as
#     lava-server-gunicorn.service), the scheduler (lava-server manage
#     lava-scheduler) and the publisher (lava-server manage lava-publisher:
#     its events wake the scheduler and the worker at once, where they would
#     otherwise poll every 20 s), each on 127.0.0.1 and a free port;
#   - a worker (lava-worker, as lava-worker.service) with two QEMU devices,
#     device type qemu, their dictionaries lab-jobs/lava/qemu-device.jinja2
#     with a MAC address each: kvmbench-qemu-01 (tags kvmbench-a, emulated)
#     and kvmbench-qemu-02 (tag kvmbench-b);
#   - a superuser and an API token for it.
#
#   server.sh start STATE_DIR   prints url=http://127.0.0.1:PORT,
#                               token_file=STATE_DIR/token (mode 0600) and
#                               user=NAME, one a line; exit 77 (the reason on
#                               stderr) when it cannot run here (not root,
#                               packages missing), 1 on a failure (with the
#                               tail of the log that tells why; what it
#                               started is stopped again)
#   server.sh stop STATE_DIR    stops everything `start` started there;
#                               idempotent
#
# Settings come from the environment only: lava_server/settings/prod.py
# reads LAVA_SETTINGS_NAME (a string) and LAVA_YAML_SETTINGS_NAME (YAML)
# after /etc/lava-server/settings.d/*.yaml, so they also win over what a
# postinst wrote there (the database of a PostgreSQL it found on port
# 5432). No file of the packages is edited.
# One thing lives outside STATE_DIR because lava-server reads it from a fixed
# path: the worker's dispatcher configuration,
# /etc/lava-server/dispatcher.d/WORKER/dispatcher.yaml (WORKER is named
# after STATE_DIR, so that two servers do not share it), removed by `stop`;
# and lava-run keeps a job's downloads in /var/lib/lava/dispatcher/tmp under
# the prefix that configuration sets.
#
# The database's schema (`lava-server manage migrate`, most of a fresh
# start's time) is made once per lava-server version and this script and
# kept as a stopped cluster in KVMBENCH_LAVA_CACHE (default .cache/lava-server
# of the source tree; empty: no cache), which `start` copies.
#
# The packages (scripts/bootstrap.sh, besides its postgresql):
#   apt-get install -y --no-install-recommends lava-server lava-dispatcher
# Without systemd their maintainer scripts start none of LAVA's daemons
# (they ship systemd units only); lava-server's postinst makes its database
# and migrates it only where a PostgreSQL answers on the default port
# (pg_isready), which this script does not need.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
source_dir="$(cd "$here/../../.." && pwd)"

usage() {
    echo "usage: $0 start|stop STATE_DIR" >&2
    exit 2
}
[ $# -eq 2 ] || usage
action="$1"
mkdir -p "$2" 2>/dev/null || { echo "cannot create $2" >&2; exit 1; }
state="$(cd "$2" && pwd)"
# Its folders are emptied: never the root's.
[ "$state" != / ] || usage

pg_bin=/usr/lib/postgresql/15/bin
pg_user=nobody
user=kvmbench
# Names that say which STATE_DIR they belong to: the worker (its dispatcher
# configuration lives in /etc) and the prefix of lava-run's folders (job ids
# start at 1 on every server).
tag="$(printf %s "$state" | sha256sum | cut -c1-8)"
worker="kvmbench-worker-$tag"
dispatcher_dir="/etc/lava-server/dispatcher.d/$worker"
# In the environment of every process started here: `stop` finds by it
# those that left their daemon's process group and parent.
marker="KVMBENCH_LAVA_STATE=$state"

log_tail() {
    for f in "$@"; do
        [ -s "$f" ] || continue
        echo "--- $f (last lines)" >&2
        tail -n 25 "$f" >&2
    done
}

as_pg() {
    setpriv --reuid="$pg_user" --regid="$pg_group" --clear-groups "$@"
}

# Ends the daemons started in STATE_DIR and everything they started: the
# process group of each (its pid file: each is a session leader, setsid),
# their descendants wherever they went (lava-worker starts lava-run in a
# group of its own, and lava-run QEMU in a session of its own), and any
# process whose environment still has the marker (gunicorn's setproctitle
# overwrites its environment, lava-worker purges lava-run's). SIGTERM first
# (lava-run stops its QEMU), SIGKILL to what is left after 5 s.
end_daemons() {
    /usr/bin/python3 - "$marker" "$state"/run/*.pid <<'EOF'
import os
import signal
import sys
import time

marker = sys.argv[1].encode()
groups = set()
for pidfile in sys.argv[2:]:
    try:
        groups.add(int(open(pidfile).read()))
    except (OSError, ValueError):
        pass


def processes():
    """pid -> (ppid, pgid, state, marked) of every live process."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read()
            fields = stat[stat.rindex(")") + 2:].split()
            try:
                env = open(f"/proc/{entry}/environ", "rb").read().split(b"\0")
            except OSError:
                env = []
            found[int(entry)] = (int(fields[1]), int(fields[2]), fields[0], marker in env)
        except (OSError, ValueError, IndexError):
            pass
    return found


procs = processes()
ours = {pid for pid, (_, pgid, _, marked) in procs.items() if pgid in groups or marked}
grew = True
while grew:
    children = {pid for pid, (ppid, _, _, _) in procs.items() if ppid in ours} - ours
    ours |= children
    grew = bool(children)
# Not this script (when `start` fails, it has the marker too) nor its callers.
pid = os.getpid()
while pid in procs:
    ours.discard(pid)
    pid = procs[pid][0]


def alive():
    now = processes()
    return {pid for pid in ours if pid in now and now[pid][2] != "Z"}


for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 2.0)):
    left = alive()
    for pid in left:
        try:
            os.kill(pid, sig)
        except OSError:
            pass
    deadline = time.monotonic() + wait
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = alive()
    if not left:
        break
EOF
}

do_stop() {
    # PostgreSQL by its own shutdown (it answers no one else now)...
    if [ -f "$state/pg/data/postmaster.pid" ]; then
        pg_group="$(id -gn "$pg_user" 2>/dev/null)"
        as_pg "$pg_bin/pg_ctl" -D "$state/pg/data" -m immediate -w -t 10 stop >/dev/null 2>&1
    fi
    # ...the publisher at once (it has nothing to save, and takes seconds to
    # leave on SIGTERM), the other daemons and what they started (and
    # PostgreSQL if it did not stop).
    [ -f "$state/run/lava-publisher.pid" ] && kill -KILL "-$(cat "$state/run/lava-publisher.pid")" 2>/dev/null
    end_daemons
    rm -f "$state"/run/*.pid
    rm -rf "$dispatcher_dir"
    # What lava-run leaves of a job it did not finish (its folders' prefix
    # is this server's).
    rm -rf /var/lib/lava/dispatcher/tmp/kvmbench-lava-"$tag"-*
}

if [ "$action" = stop ]; then
    do_stop
    exit 0
fi
[ "$action" = start ] || usage

# What it needs; exit 77 where it cannot run at all.
if [ "$(id -u)" != 0 ]; then
    echo "a LAVA server with a worker needs root (lava-run refuses anything else)" >&2
    exit 77
fi
for p in lava-server lava-dispatcher; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        echo "$p is not installed (scripts/bootstrap.sh)" >&2
        exit 77
    fi
done
for tool in "$pg_bin/initdb" "$pg_bin/pg_ctl" /usr/bin/gunicorn3 /usr/bin/lava-server /usr/bin/lava-worker \
            /usr/bin/python3 setpriv; do
    command -v "$tool" >/dev/null || { echo "$tool missing (scripts/bootstrap.sh)" >&2; exit 77; }
done
pg_group="$(id -gn "$pg_user" 2>/dev/null)" || {
    echo "no user $pg_user to run PostgreSQL as (initdb and postgres refuse root)" >&2
    exit 77
}
version="$(dpkg-query -W -f='${Version}' lava-server)"

# A STATE_DIR used before is stopped and emptied first.
do_stop
rm -rf "$state/pg" "$state/logs" "$state/run" "$state/media" "$state/devices" "$state/worker" \
       "$state/token" "$state/env"
mkdir -p "$state/logs" "$state/run" "$state/media" "$state/devices" "$state/health-checks" "$state/worker"
logs="$state/logs"
# Each step's time since the start, for a CI log that wonders where it went.
t0="$(date +%s.%N)"
step() {
    awk -v now="$(date +%s.%N)" -v t0="$t0" -v what="$1" 'BEGIN { printf "%6.2f s %s\n", now - t0, what }' \
        >>"$logs/start.log"
}

fail() {
    echo "server.sh: $1" >&2
    shift
    log_tail "$@"
    do_stop
    exit 1
}

# Free ports on the loopback: PostgreSQL, the web server, the publisher's
# websocket (the worker listens there for its jobs), the publisher's event
# stream (the scheduler listens there) and its input (the web server and the
# scheduler send there).
set -- $(/usr/bin/python3 -c '
import socket
s = [socket.socket() for _ in range(5)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
[ $# -eq 5 ] || fail "no free ports"
pg_port=$1 http_port=$2 ws_port=$3 event_port=$4 internal_port=$5
url="http://127.0.0.1:$http_port"

# The settings of every lava-server process: the database, job outputs,
# logs, device dictionaries and (no) health checks in STATE_DIR, events on
# (the publisher's ports).
secret="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
cat >"$state/env" <<EOF
export KVMBENCH_LAVA_STATE='$state'
export LAVA_YAML_SETTINGS_DATABASES='{default: {ENGINE: django.db.backends.postgresql, NAME: lavaserver, USER: lavaserver, PASSWORD: "", HOST: 127.0.0.1, PORT: $pg_port}}'
export LAVA_SETTINGS_SECRET_KEY=$secret
export LAVA_SETTINGS_MEDIA_ROOT='$state/media'
export LAVA_SETTINGS_DJANGO_LOGFILE='$logs/django.log'
export LAVA_SETTINGS_DEVICES_PATH='$state/devices'
export LAVA_SETTINGS_HEALTH_CHECKS_PATH='$state/health-checks'
export LAVA_YAML_SETTINGS_EVENT_NOTIFICATION=true
export LAVA_SETTINGS_EVENT_SOCKET=tcp://127.0.0.1:$event_port
export LAVA_SETTINGS_INTERNAL_EVENT_SOCKET=tcp://127.0.0.1:$internal_port
EOF
. "$state/env"

# PostgreSQL runs as nobody (its log: pg/postgresql.log), who must reach
# STATE_DIR: a folder above it that nobody cannot enter (mkdtemp's 0700)
# gets o+x (enter, not list).
d="$state"
while [ "$d" != / ]; do
    as_pg test -x "$d" || chmod o+x "$d"
    d="$(dirname "$d")"
done
mkdir -p "$state/pg"
chown "$pg_user:$pg_group" "$state/pg"

pg_start() {
    step "PostgreSQL starting"
    # TCP on the loopback only (no unix socket: its path has a length limit
    # that a deep STATE_DIR passes); no fsync, a throwaway cluster.
    as_pg "$pg_bin/pg_ctl" -D "$state/pg/data" -l "$state/pg/postgresql.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $pg_port -c unix_socket_directories='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50" \
        start >"$logs/pg_ctl.log" 2>&1 || fail "PostgreSQL did not start" "$logs/pg_ctl.log" "$state/pg/postgresql.log"
}

# The migrated cluster from the cache, or made now (and cached).
cache="${KVMBENCH_LAVA_CACHE-$source_dir/.cache/lava-server}"
key="$( { cat "$0"; echo "$version"; "$pg_bin/initdb" --version; } | sha256sum | cut -c1-16)"
cached="$cache/pgdata-$key"
if [ -n "$cache" ] && [ -f "$cached/PG_VERSION" ]; then
    cp -a "$cached" "$state/pg/data" && chown -R "$pg_user:$pg_group" "$state/pg/data" ||
        fail "cannot copy the cached cluster $cached"
    pg_start
else
    as_pg "$pg_bin/initdb" -D "$state/pg/data" -U lavaserver -A trust -E UTF8 --locale=C --no-sync \
        >"$logs/initdb.log" 2>&1 || fail "initdb failed" "$logs/initdb.log"
    pg_start
    "$pg_bin/psql" -q -h 127.0.0.1 -p "$pg_port" -U lavaserver -d postgres -c 'CREATE DATABASE lavaserver' \
        >"$logs/createdb.log" 2>&1 || fail "cannot create the database" "$logs/createdb.log"
    step "migrating"
    lava-server manage migrate --noinput >"$logs/migrate.log" 2>&1 ||
        fail "lava-server manage migrate failed" "$logs/migrate.log"
    step "migrated"
    if [ -n "$cache" ] && mkdir -p "$cache" 2>/dev/null; then
        # A stopped cluster copies cleanly; one recipe's is kept.
        as_pg "$pg_bin/pg_ctl" -D "$state/pg/data" -m fast -w stop >/dev/null 2>&1 ||
            fail "PostgreSQL did not stop" "$state/pg/postgresql.log"
        (
            flock 9
            if [ ! -f "$cached/PG_VERSION" ]; then
                rm -rf "$cache"/pgdata-* "$cache"/.pgdata-*
                cp -a "$state/pg/data" "$cache/.pgdata-$key.$$" && mv "$cache/.pgdata-$key.$$" "$cached"
            fi
        ) 9>"$cache/.lock"
        pg_start
    fi
fi

# The user, its token, the worker and its token, the device type and the
# devices, in one Django process (each `lava-server manage` command would
# start Django again). The dictionaries are the lab template's with a MAC
# address each.
step "setting up users and devices"
template="$source_dir/lab-jobs/lava/qemu-device.jinja2"
grep -q "set mac_addr = '" "$template" || fail "no mac_addr in $template"
sed "s/set mac_addr = '[^']*'/set mac_addr = '52:54:00:12:34:61'/" "$template" >"$state/devices/kvmbench-qemu-01.jinja2"
sed "s/set mac_addr = '[^']*'/set mac_addr = '52:54:00:12:34:62'/" "$template" >"$state/devices/kvmbench-qemu-02.jinja2"
DJANGO_SETTINGS_MODULE=lava_server.settings.prod /usr/bin/python3 - "$user" "$worker" "$state" \
    >"$logs/setup.log" 2>&1 <<'EOF' || fail "cannot set up the server's users and devices" "$logs/setup.log"
import os
import sys

import django

django.setup()
from django.contrib.auth.models import User
from lava_scheduler_app.models import Device, DeviceType, Tag, Worker
from linaro_django_xmlrpc.models import AuthToken

user_name, worker_name, state = sys.argv[1:]
user = User.objects.create_superuser(user_name, f"{user_name}@localhost", None)
token = AuthToken.objects.create(user=user, description="kvmbench tests")
worker = Worker.objects.create(hostname=worker_name, description="kvmbench tests", health=Worker.HEALTH_ACTIVE)
dt = DeviceType.objects.create(name="qemu")
for hostname, tags in (("kvmbench-qemu-01", ["kvmbench-a", "emulated"]), ("kvmbench-qemu-02", ["kvmbench-b"])):
    device = Device.objects.create(hostname=hostname, device_type=dt, worker_host=worker,
                                   state=Device.STATE_IDLE, health=Device.HEALTH_GOOD)
    for tag in tags:
        device.tags.add(Tag.objects.get_or_create(name=tag)[0])
    if not device.is_valid():
        sys.exit(f"{hostname}: its dictionary does not render to a valid device")
for path, secret in ((os.path.join(state, "token"), token.secret), (os.path.join(state, "worker", "token"), worker.token)):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, secret.encode() + b"\n")
    os.close(fd)
EOF

# The worker's dispatcher configuration: the address QEMU's user network
# reaches the worker by (no default route needed) and the prefix of
# lava-run's folders.
step "starting the daemons"
mkdir -p "$dispatcher_dir"
printf 'dispatcher_ip: 127.0.0.1\nprefix: kvmbench-lava-%s-\n' "$tag" >"$dispatcher_dir/dispatcher.yaml"

# Each daemon in a session (and process group) of its own, its pid that
# group's id; the command lines are their systemd units' (debug logs).
daemon() {
    name="$1"
    shift
    setsid "$@" </dev/null >"$logs/$name.out" 2>&1 &
    echo $! >"$state/run/$name.pid"
}
daemon lava-publisher lava-server manage lava-publisher --level DEBUG --log-file "$logs/lava-publisher.log" \
    --host 127.0.0.1 --port "$ws_port" --user root --group root
daemon lava-server-gunicorn gunicorn3 lava_server.wsgi --log-level DEBUG --log-file "$logs/gunicorn.log" \
    --worker-class eventlet --workers 2 --bind "127.0.0.1:$http_port"
daemon lava-scheduler lava-server manage lava-scheduler --level DEBUG --log-file "$logs/lava-scheduler.log" \
    --event-url "tcp://127.0.0.1:$event_port" --user root --group root
# The worker pings every 2 s (default 20): it reports a finished job at its
# next ping.
daemon lava-worker lava-worker --level DEBUG --log-file "$logs/lava-worker.log" --name "$worker" \
    --url "$url/" --ws-url "http://127.0.0.1:$ws_port/ws/" --token-file "$state/worker/token" \
    --worker-dir "$state/worker" --ping-interval 2

# Up when the API answers and the worker is online (it has pinged).
/usr/bin/python3 - "$url" "$worker" "$state/run" <<'EOF' >"$logs/wait.log" 2>&1 ||
import json
import os
import sys
import time
import urllib.request

url, worker, run = sys.argv[1:]
deadline = time.monotonic() + 90
while time.monotonic() < deadline:
    for pidfile in os.listdir(run):
        pid = int(open(os.path.join(run, pidfile)).read())
        if not os.path.exists(f"/proc/{pid}") or " Z " in open(f"/proc/{pid}/stat").read():
            sys.exit(f"{pidfile[:-4]} exited")
    try:
        with urllib.request.urlopen(f"{url}/api/v0.2/workers/{worker}/?format=json", timeout=5) as r:
            if json.load(r).get("state") == "Online":
                sys.exit(0)
    except (OSError, ValueError):
        pass
    time.sleep(0.2)
sys.exit("the server did not answer or the worker did not come online within 90 s")
EOF
    fail "the LAVA server did not come up: $(tail -n 1 "$logs/wait.log")" \
        "$logs/gunicorn.log" "$logs/lava-server-gunicorn.out" "$logs/lava-worker.log" "$logs/lava-worker.out" \
        "$logs/lava-scheduler.log" "$logs/lava-publisher.log" "$logs/django.log"

step "up"
echo "url=$url"
echo "token_file=$state/token"
echo "user=$user"
