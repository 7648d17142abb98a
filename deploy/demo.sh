#!/usr/bin/env bash
# make demo: the agent against the built-in DWM3001C simulator and a private mosquitto on a free
# loopback port, with the example rules, shown live by `uwb2mqtt watch` (drawn on a terminal,
# one line per event or state change otherwise) until q or Ctrl-C, and as a web page on a free
# loopback port (its address printed before the view starts and shown in the view's title line);
# `make demo RAW=1` prints the MQTT traffic (topic and payload) instead. Everything it starts is stopped by PID on the way out, also on errors.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-.build/debug/uwb2mqtt}
SCENARIO=${SCENARIO:-with-iphone}
RAW=${RAW:-}
work=$(mktemp -d /tmp/uwb2mqtt-demo.XXXXXX)
pids=()
cleanup() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  # A client whose broker has just gone may not act on SIGTERM at once: 3 s, then SIGKILL.
  for _ in $(seq 1 30); do
    alive=""
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ -n "$alive" ] || break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
  echo "demo stopped"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

# A free loopback port: the first one in a random range that nothing answers on.
free_port() {
  for _ in $(seq 1 50); do
    candidate=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then echo "$candidate"; return; fi
  done
  echo "demo: no free loopback port found" >&2
  exit 1
}
port=$(free_port)
web=$(free_port)
while [ "$web" = "$port" ]; do web=$(free_port); done

cat > "$work/mosquitto.conf" <<CONF
listener $port 127.0.0.1
allow_anonymous true
persistence false
log_dest stderr
user root
CONF
/usr/sbin/mosquitto -c "$work/mosquitto.conf" 2>"$work/mosquitto.log" &
pids+=($!)
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done

cat > "$work/config.yaml" <<CONF
gateway: {id: demo}
device:
  peers:
    - {address: 0x0001, name: phone-anna}
    - {address: 0x0002, name: tool-cart}
mqtt:
  url: mqtt://127.0.0.1:$port
  spool_dir: $work/spool
  metrics_interval: 10s
rules: $PWD/deploy/rules.yaml
CONF

echo "demo: broker on 127.0.0.1:$port, agent on the simulator (scenario $SCENARIO); q or Ctrl-C stops"
echo "demo: agent log in $work/agent.log"
[ -n "$RAW" ] || echo "demo: the same view as a web page: http://127.0.0.1:$web/ (this machine only; --http ADDRESS:PORT with a password for a phone)"
"$BIN" run --config "$work/config.yaml" --simulate "$SCENARIO" 2>"$work/agent.log" &
agent=$!
pids+=("$agent")
# The viewer keeps the terminal as its input (a background job's would be /dev/null), so that
# watch's keys work: q quits, the arrows scroll.
exec 3<&0
if [ -n "$RAW" ]; then
  mosquitto_sub -h 127.0.0.1 -p "$port" -v -t 'uwb2mqtt/#' -t 'homeassistant/#' <&3 &
else
  "$BIN" watch --config "$work/config.yaml" --http "127.0.0.1:$web" <&3 &
fi
viewer=$!
pids+=("$viewer")
# Until the viewer ends (q) or the agent does.
wait -n "$viewer" "$agent" || true
